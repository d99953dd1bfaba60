package ksim.groundtruth;

import java.time.Duration;
import java.util.ArrayList;
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
        List<Map<String, Object>> events = new ArrayList<>();
        Map<String, TopicDescription> described = describe();
        for (int t = 0; t < scenario.topics().size(); t++) {
            Scenario.Topic topic = scenario.topics().get(t);
            for (int p = 0; p < topic.partitions(); p++) {
                TopicPartition tp = new TopicPartition(topic.name(), p);
                boolean offline = !hasLeader(described.get(topic.name()), p);
                Map<Long, long[]> committed = offline ? Map.of() : read(tp, "read_committed");
                Map<Long, long[]> all = offline ? Map.of() : read(tp, "read_uncommitted");
                List<List<Long>> c = new ArrayList<>();
                List<List<Long>> a = new ArrayList<>();
                committed.forEach((offset, id) -> c.add(List.of(offset, id[0], id[1])));
                all.forEach((offset, id) -> {
                    if (!committed.containsKey(offset)) a.add(List.of(offset, id[0], id[1]));
                });
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("event", "final");
                e.put("topic", t);
                e.put("partition", p);
                e.put("offline", offline);
                e.put("committed", c);
                e.put("aborted", a);
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
                return admin.describeTopics(names).allTopicNames().get(10, TimeUnit.SECONDS);
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

    /** offset -> {writer, record} of every ksim record the partition holds at this isolation level. */
    private Map<Long, long[]> read(TopicPartition tp, String isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "ksim-final-" + isolation);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        Map<Long, long[]> out = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.position(tp, Duration.ofSeconds(30)) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    RecordIdentity id = RecordIdentity.parse(r.value());
                    if (id != null) out.put(r.offset(), new long[] {id.writer(), id.record()});
                }
            }
        }
        return out;
    }
}
