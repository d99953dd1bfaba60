package ksim.groundtruth;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads every partition of the scenario's topics at the end of a run, twice from the earliest
 * offset: read_committed (the history's {@code committed}) and read_uncommitted (what it has
 * beyond the first is {@code aborted}), and gives one {@code final} event per partition. A
 * partition without a leader is {@code offline}.
 */
public final class FinalLogReader {
    private final Scenario scenario;
    private final Admin admin;
    private final String bootstrap;

    public FinalLogReader(Scenario scenario, Admin admin, String bootstrap) {
        this.scenario = scenario;
        this.admin = admin;
        this.bootstrap = bootstrap;
    }

    public List<Map<String, Object>> read() throws Exception {
        Map<String, TopicDescription> described = describe();
        List<TopicPartition> online = new ArrayList<>();
        for (Scenario.Topic topic : scenario.topics()) {
            for (int p = 0; p < topic.partitions(); p++) {
                if (hasLeader(described.get(topic.name()), p)) online.add(new TopicPartition(topic.name(), p));
            }
        }
        Map<TopicPartition, Map<Long, long[]>> committed = read(online, "read_committed");
        Map<TopicPartition, Map<Long, long[]>> all = read(online, "read_uncommitted");
        List<Map<String, Object>> events = new ArrayList<>();
        for (int t = 0; t < scenario.topics().size(); t++) {
            Scenario.Topic topic = scenario.topics().get(t);
            for (int p = 0; p < topic.partitions(); p++) {
                TopicPartition tp = new TopicPartition(topic.name(), p);
                Map<Long, long[]> c = committed.getOrDefault(tp, Map.of());
                List<List<Long>> committedList = new ArrayList<>();
                List<List<Long>> abortedList = new ArrayList<>();
                c.forEach((offset, id) -> committedList.add(List.of(offset, id[0], id[1])));
                all.getOrDefault(tp, Map.of()).forEach((offset, id) -> {
                    if (!c.containsKey(offset)) abortedList.add(List.of(offset, id[0], id[1]));
                });
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("event", "final");
                e.put("topic", t);
                e.put("partition", p);
                e.put("offline", !online.contains(tp));
                e.put("committed", committedList);
                e.put("aborted", abortedList);
                events.add(e);
            }
        }
        return events;
    }

    private Map<String, TopicDescription> describe() throws Exception {
        List<String> names = scenario.topics().stream().map(Scenario.Topic::name).toList();
        Exception last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return AdminCompat.describeTopics(admin, names, 10);
            } catch (Exception e) {
                last = e;
                Thread.sleep(1000);
            }
        }
        throw last;
    }

    private static boolean hasLeader(TopicDescription d, int partition) {
        if (d == null) return false;
        for (TopicPartitionInfo info : d.partitions()) {
            if (info.partition() == partition) return info.leader() != null && !info.leader().isEmpty();
        }
        return false;
    }

    /** Per partition, offset -> {writer, record} of every ksim record it holds at this isolation level. */
    private Map<TopicPartition, Map<Long, long[]>> read(List<TopicPartition> partitions, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "ksim-final-" + isolation);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        Map<TopicPartition, Map<Long, long[]>> out = new HashMap<>();
        for (TopicPartition tp : partitions) out.put(tp, new TreeMap<>());
        if (partitions.isEmpty()) return out;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < deadline && !atEnd(consumer, end)) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    RecordIdentity id = RecordIdentity.parse(r.value());
                    if (id != null) out.get(new TopicPartition(r.topic(), r.partition())).put(r.offset(), new long[] {id.writer(), id.record()});
                }
            }
        }
        return out;
    }

    private static boolean atEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), Duration.ofSeconds(30)) < e.getValue()) return false;
        }
        return true;
    }
}
