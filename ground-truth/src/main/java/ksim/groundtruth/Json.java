package ksim.groundtruth;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader and writer: objects are LinkedHashMaps (keys keep their order), arrays
 * Lists, numbers Long when whole and Double otherwise. The harness has its own so that it adds
 * no jar to the classpath of the Kafka release it runs (Kafka brings its own Jackson).
 */
public final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    public static Object parse(String text) {
        Json p = new Json(text);
        Object v = p.value();
        p.skipSpace();
        if (p.at != text.length()) throw p.error("trailing characters");
        return v;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> parseObject(String text) {
        Object v = parse(text);
        if (!(v instanceof Map)) throw new IllegalArgumentException("not a JSON object");
        return (Map<String, Object>) v;
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("JSON: " + what + " at character " + at);
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
    }

    private Object value() {
        skipSpace();
        if (at >= text.length()) throw error("unexpected end");
        char c = text.charAt(at);
        switch (c) {
            case '{': return object();
            case '[': return array();
            case '"': return string();
            case 't': expect("true"); return Boolean.TRUE;
            case 'f': expect("false"); return Boolean.FALSE;
            case 'n': expect("null"); return null;
            default: return number();
        }
    }

    private void expect(String word) {
        if (!text.startsWith(word, at)) throw error("expected " + word);
        at += word.length();
    }

    private Map<String, Object> object() {
        Map<String, Object> m = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (text.charAt(at) == '}') {
            at++;
            return m;
        }
        while (true) {
            skipSpace();
            String key = string();
            skipSpace();
            if (text.charAt(at++) != ':') throw error("expected :");
            m.put(key, value());
            skipSpace();
            char c = text.charAt(at++);
            if (c == '}') return m;
            if (c != ',') throw error("expected , or }");
        }
    }

    private List<Object> array() {
        List<Object> l = new ArrayList<>();
        at++;
        skipSpace();
        if (text.charAt(at) == ']') {
            at++;
            return l;
        }
        while (true) {
            l.add(value());
            skipSpace();
            char c = text.charAt(at++);
            if (c == ']') return l;
            if (c != ',') throw error("expected , or ]");
        }
    }

    private String string() {
        if (text.charAt(at) != '"') throw error("expected a string");
        at++;
        StringBuilder s = new StringBuilder();
        while (true) {
            char c = text.charAt(at++);
            if (c == '"') return s.toString();
            if (c != '\\') {
                s.append(c);
                continue;
            }
            char e = text.charAt(at++);
            switch (e) {
                case 'n' -> s.append('\n');
                case 't' -> s.append('\t');
                case 'r' -> s.append('\r');
                case 'b' -> s.append('\b');
                case 'f' -> s.append('\f');
                case 'u' -> {
                    s.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> s.append(e);
            }
        }
    }

    private Object number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
        String n = text.substring(start, at);
        if (n.isEmpty()) throw error("unexpected character");
        if (n.contains(".") || n.contains("e") || n.contains("E")) return Double.parseDouble(n);
        try {
            return Long.parseLong(n);
        } catch (NumberFormatException big) {
            return Double.parseDouble(n);
        }
    }

    /** Writes a value (Map, List, String, Number, Boolean or null) as compact JSON. */
    public static String write(Object v) {
        StringBuilder s = new StringBuilder();
        write(v, s);
        return s.toString();
    }

    private static void write(Object v, StringBuilder s) {
        if (v == null) {
            s.append("null");
        } else if (v instanceof String str) {
            quote(str, s);
        } else if (v instanceof Number || v instanceof Boolean) {
            s.append(v);
        } else if (v instanceof Map<?, ?> m) {
            s.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) s.append(',');
                first = false;
                quote(e.getKey().toString(), s);
                s.append(':');
                write(e.getValue(), s);
            }
            s.append('}');
        } else if (v instanceof Iterable<?> l) {
            s.append('[');
            boolean first = true;
            for (Object o : l) {
                if (!first) s.append(',');
                first = false;
                write(o, s);
            }
            s.append(']');
        } else if (v instanceof int[] ints) {
            List<Integer> l = new ArrayList<>();
            for (int i : ints) l.add(i);
            write(l, s);
        } else {
            throw new IllegalArgumentException("cannot write " + v.getClass());
        }
    }

    private static void quote(String str, StringBuilder s) {
        s.append('"');
        for (int i = 0; i < str.length(); i++) {
            char c = str.charAt(i);
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\r' -> s.append("\\r");
                case '\t' -> s.append("\\t");
                default -> {
                    if (c < 0x20) s.append(String.format("\\u%04x", (int) c));
                    else s.append(c);
                }
            }
        }
        s.append('"');
    }
}
