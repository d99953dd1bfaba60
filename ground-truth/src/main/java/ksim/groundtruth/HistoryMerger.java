package ksim.groundtruth;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the run's one history file (docs/history.md): the header, every process's part (its
 * events in the order it recorded them), the derived share events, then the {@code final} events.
 */
public final class HistoryMerger {
    private HistoryMerger() {}

    public static Map<String, Object> header(Scenario s, Roster roster, String kafkaVersion, int run, long endNs,
                                             List<Map<String, Object>> faults) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("event", "header");
        h.put("format", "ksim-history");
        h.put("version", 1);
        h.put("source", "kafka-" + kafkaVersion);
        h.put("scenario", s.file());
        h.put("runs", run);
        h.put("end", endNs);
        List<Object> topics = new ArrayList<>();
        for (Scenario.Topic t : s.topics()) topics.add(Map.of("name", t.name(), "partitions", t.partitions()));
        h.put("topics", topics);
        List<Object> writers = new ArrayList<>();
        for (Roster.Writer w : roster.writers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", w.name());
            m.put("transactional_id", w.transactionalId());
            m.put("acks", w.acks());
            m.put("idempotent", w.idempotent());
            m.put("node", w.node());
            writers.add(m);
        }
        h.put("writers", writers);
        List<Object> consumers = new ArrayList<>();
        for (Roster.Consumer c : roster.consumers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", c.name());
            m.put("group", c.set().group());
            m.put("topic", s.topicIndex(c.set().topic()));
            m.put("isolation_level", c.set().nodeConfigs().get(c.name()).getOrDefault("isolation.level", "read_uncommitted"));
            consumers.add(m);
        }
        h.put("consumers", consumers);
        if (!roster.shareConsumers().isEmpty()) {
            List<Object> shareConsumers = new ArrayList<>();
            for (Roster.ShareConsumer c : roster.shareConsumers()) {
                shareConsumers.add(Map.of("name", c.name(), "group", c.set().group(), "topic", s.topicIndex(c.set().topic())));
            }
            h.put("share_consumers", shareConsumers);
            List<Object> shareGroups = new ArrayList<>();
            for (String g : roster.shareGroups()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", g);
                m.put("delivery_count_limit", ShareLeaderEvents.deliveryCountLimit(s));
                m.put("record_lock_duration_ms", ShareLeaderEvents.lockDurationMs(s));
                shareGroups.add(m);
            }
            h.put("share_groups", shareGroups);
        }
        h.put("faults", faults);
        return h;
    }

    /**
     * Header, then each part's lines (a last line cut short by a SIGKILL is dropped), then what the
     * harness derived from them ({@link ShareLeaderEvents}), then the finals.
     */
    public static void write(Path out, Map<String, Object> header, List<Path> parts, List<Map<String, Object>> derived,
                             List<Map<String, Object>> finals) throws IOException {
        try (BufferedWriter w = Files.newBufferedWriter(out, StandardCharsets.UTF_8)) {
            w.write(Json.write(header));
            w.write('\n');
            for (Path part : parts) {
                if (!Files.exists(part)) continue;
                for (String line : Files.readAllLines(part, StandardCharsets.UTF_8)) {
                    if (line.isBlank()) continue;
                    try {
                        Json.parseObject(line);
                    } catch (IllegalArgumentException | IndexOutOfBoundsException cutShort) {
                        continue;
                    }
                    w.write(line);
                    w.write('\n');
                }
            }
            for (Map<String, Object> d : derived) {
                w.write(Json.write(d));
                w.write('\n');
            }
            for (Map<String, Object> f : finals) {
                w.write(Json.write(f));
                w.write('\n');
            }
        }
    }
}
