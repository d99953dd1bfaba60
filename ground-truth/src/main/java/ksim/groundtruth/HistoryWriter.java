package ksim.groundtruth;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One process's part of a history (docs/history.md): JSON Lines, each event handed to the
 * kernel at once, so a process killed with SIGKILL loses no event it recorded.
 */
public final class HistoryWriter implements AutoCloseable {
    private final Path file;
    private final OutputStream out;

    public HistoryWriter(Path file) throws IOException {
        this.file = file;
        this.out = new FileOutputStream(file.toFile(), true);
    }

    public Path path() {
        return file;
    }

    /** A new event of this kind at the run's current time; add its fields and pass it to {@link #write}. */
    public static Map<String, Object> event(String kind) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("event", kind);
        e.put("t", RunClock.now());
        return e;
    }

    public synchronized void write(Map<String, Object> event) {
        try {
            out.write((Json.write(event) + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
