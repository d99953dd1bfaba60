package ksim.groundtruth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** What a restarted client needs from the history part its earlier life wrote. */
public final class HistoryPart {
    private HistoryPart() {}

    /**
     * The next record number of each partition for {@code writer}: one past the highest it sent,
     * so a restarted producer numbers on where its crashed self stopped.
     */
    public static void continueNumbering(Path part, int writer, long[] nextRecord) throws IOException {
        if (!Files.exists(part)) return;
        for (String line : Files.readAllLines(part)) {
            if (!line.contains("\"event\":\"send\"")) continue;
            Map<String, Object> e;
            try {
                e = Json.parseObject(line);
            } catch (IllegalArgumentException cutShort) {
                continue; // the last line of a process killed while writing it
            }
            if (((Number) e.get("writer")).intValue() != writer) continue;
            int p = ((Number) e.get("partition")).intValue();
            long r = ((Number) e.get("record")).longValue();
            if (p < nextRecord.length) nextRecord[p] = Math.max(nextRecord[p], r + 1);
        }
    }
}
