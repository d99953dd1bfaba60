package ksim.groundtruth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The share events a real client cannot see, derived when the history is written (KIP-932).
 * ksim's history has the share-partition leaders' outcomes ({@code share_ack}); a
 * KafkaShareConsumer sees only those of its own acknowledgements (the clients write them). What
 * gave a record up without an acknowledgement, its acquisition lock expiring, shows only as a
 * later delivery with a higher {@code ConsumerRecord.deliveryCount()}: for each delivery n of a
 * record that a delivery above n followed and no RELEASE of it succeeded, this writes a
 * {@code share_ack} release with why {@code lock_expired}, by the member that got delivery n, at
 * the earlier of that delivery plus group.share.record.lock.duration.ms (the lock was acquired
 * at or before it) and the next delivery. A count no application got (acquired into a client's
 * buffer and never returned by poll()) was held by a process that died holding it (a live client
 * returns what it fetched; a closing one releases it): the group's consumer crashed last before
 * the next delivery, within the lock duration and 10 s, else an unknown member. Also writes each
 * share-partition's {@code share_start}: offset 0, the harness sets the group's
 * share.auto.offset.reset to earliest before any client starts.
 */
public final class ShareLeaderEvents {
    private static final long CRASH_WINDOW_SLACK_NS = 10_000_000_000L;

    private record Delivery(int consumer, long t) {}

    private ShareLeaderEvents() {}

    public static int deliveryCountLimit(Scenario s) {
        return Integer.parseInt(s.brokers().config().getOrDefault("group.share.delivery.count.limit", "5"));
    }

    public static long lockDurationMs(Scenario s) {
        return Long.parseLong(s.brokers().config().getOrDefault("group.share.record.lock.duration.ms", "30000"));
    }

    /** The share_start lines, then the inferred lock expiries (the reader puts events in time order). */
    public static List<Map<String, Object>> derive(Scenario s, Roster roster, List<Path> parts) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        if (roster.shareConsumers().isEmpty()) return out;
        for (String group : roster.shareGroups()) {
            String topic = roster.shareConsumers().stream().filter(c -> c.set().group().equals(group)).findFirst()
                    .orElseThrow().set().topic();
            for (int p = 0; p < s.topic(topic).partitions(); p++) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("event", "share_start");
                e.put("group", group);
                e.put("topic", s.topicIndex(topic));
                e.put("partition", p);
                e.put("offset", 0L);
                out.add(e);
            }
        }
        Map<Integer, TreeMap<Long, String>> members = new LinkedHashMap<>();
        Map<Integer, List<Long>> crashes = new LinkedHashMap<>();
        // group:partition:offset -> delivery count -> its delivery
        Map<String, TreeMap<Integer, Delivery>> deliveries = new TreeMap<>();
        Set<String> released = new HashSet<>();
        for (Path part : parts) {
            if (!Files.exists(part)) continue;
            for (String line : Files.readAllLines(part, StandardCharsets.UTF_8)) {
                if (!line.contains("\"event\":\"share_")) continue;
                Map<String, Object> e;
                try {
                    e = Json.parseObject(line);
                } catch (IllegalArgumentException | IndexOutOfBoundsException cutShort) {
                    continue;
                }
                String kind = (String) e.get("event");
                switch (kind) {
                    case "share_member" -> members.computeIfAbsent(integer(e, "consumer"), c -> new TreeMap<>())
                            .put(number(e, "t"), (String) e.get("member"));
                    case "share_crash" -> crashes.computeIfAbsent(integer(e, "consumer"), c -> new ArrayList<>()).add(number(e, "t"));
                    case "share_deliver" -> {
                        int consumer = integer(e, "consumer");
                        int count = integer(e, "delivery_count");
                        if (count < 1) continue;
                        String key = roster.shareConsumers().get(consumer).set().group() + ":" + e.get("partition") + ":" + e.get("offset");
                        deliveries.computeIfAbsent(key, k -> new TreeMap<>()).putIfAbsent(count, new Delivery(consumer, number(e, "t")));
                    }
                    case "share_ack" -> {
                        if ("release".equals(e.get("outcome"))) {
                            released.add(e.get("group") + ":" + e.get("partition") + ":" + e.get("offset") + "#" + e.get("delivery_count"));
                        }
                    }
                    default -> { }
                }
            }
        }
        long lockNs = lockDurationMs(s) * 1_000_000L;
        for (Map.Entry<String, TreeMap<Integer, Delivery>> r : deliveries.entrySet()) {
            TreeMap<Integer, Delivery> byCount = r.getValue();
            String[] key = r.getKey().split(":");
            String group = key[0];
            for (int n = 1; n < byCount.lastKey(); n++) {
                if (released.contains(r.getKey() + "#" + n)) continue;
                long next = Long.MAX_VALUE;
                for (Delivery d : byCount.tailMap(n, false).values()) next = Math.min(next, d.t());
                Delivery held = byCount.get(n);
                String member = "";
                long at = next;
                if (held != null) {
                    member = memberAt(members, held.consumer(), held.t());
                    at = Math.min(held.t() + lockNs, next);
                } else {
                    long[] crash = lastCrashBefore(roster, crashes, group, next, lockNs + CRASH_WINDOW_SLACK_NS);
                    if (crash != null) {
                        member = memberAt(members, (int) crash[0], crash[1]);
                        at = Math.min(crash[1] + lockNs, next);
                    }
                }
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("event", "share_ack");
                e.put("t", at);
                e.put("group", group);
                e.put("topic", s.topicIndex(roster.shareConsumers().stream().filter(c -> c.set().group().equals(group))
                        .findFirst().orElseThrow().set().topic()));
                e.put("partition", Integer.parseInt(key[1]));
                e.put("offset", Long.parseLong(key[2]));
                e.put("outcome", "release");
                e.put("why", "lock_expired");
                e.put("member", member);
                e.put("delivery_count", n);
                out.add(e);
            }
        }
        return out;
    }

    /** The member id of the consumer's process alive at {@code t} (its last share_member at or before it). */
    private static String memberAt(Map<Integer, TreeMap<Long, String>> members, int consumer, long t) {
        TreeMap<Long, String> lives = members.get(consumer);
        if (lives == null) return "";
        Map.Entry<Long, String> life = lives.floorEntry(t);
        return life == null ? lives.firstEntry().getValue() : life.getValue();
    }

    /** [consumer, t] of the group's last crash at or before {@code t} and within {@code window} of it, or null. */
    private static long[] lastCrashBefore(Roster roster, Map<Integer, List<Long>> crashes, String group, long t, long window) {
        long[] best = null;
        for (Map.Entry<Integer, List<Long>> c : crashes.entrySet()) {
            if (!roster.shareConsumers().get(c.getKey()).set().group().equals(group)) continue;
            for (long at : c.getValue()) {
                if (at <= t && t - at <= window && (best == null || at > best[1])) best = new long[] {c.getKey(), at};
            }
        }
        return best;
    }

    private static int integer(Map<String, Object> e, String field) {
        return ((Number) e.get(field)).intValue();
    }

    private static long number(Map<String, Object> e, String field) {
        return ((Number) e.get(field)).longValue();
    }
}
