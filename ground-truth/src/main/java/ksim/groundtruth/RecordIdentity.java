package ksim.groundtruth;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The identity a record carries at the start of its value (docs/history.md):
 * {@code ksim:WRITER:PARTITION:RECORD}, then for a transform's output
 * {@code :from:WRITER:TOPIC:PARTITION:RECORD} of its input, then padding to the record's size.
 */
public record RecordIdentity(int writer, int partition, long record) {

    /** The record's value: its identity, the input's if any, padded with '.' to {@code size} bytes. */
    public byte[] value(int size, String from) {
        String head = "ksim:" + writer + ":" + partition + ":" + record + (from == null ? "" : ":from:" + from) + ";";
        byte[] h = head.getBytes(StandardCharsets.US_ASCII);
        if (h.length >= size) return h;
        byte[] v = Arrays.copyOf(h, size);
        Arrays.fill(v, h.length, size, (byte) '.');
        return v;
    }

    /** What a transform writes after {@code :from:} for this input record. */
    public String asInput(int topic) {
        return writer + ":" + topic + ":" + partition + ":" + record;
    }

    /** The identity at the start of a value, or null when the value is not a ksim record. */
    public static RecordIdentity parse(byte[] value) {
        if (value == null || value.length < 5) return null;
        String s = new String(value, 0, Math.min(value.length, 96), StandardCharsets.US_ASCII);
        if (!s.startsWith("ksim:")) return null;
        String[] parts = s.split("[:;]", 5);
        if (parts.length < 4) return null;
        try {
            return new RecordIdentity(Integer.parseInt(parts[1]), Integer.parseInt(parts[2]), Long.parseLong(parts[3]));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
