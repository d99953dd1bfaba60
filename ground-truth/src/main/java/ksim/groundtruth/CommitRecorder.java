package ksim.groundtruth;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * A consumer interceptor that records every offset commit the coordinator accepted, the
 * application's and auto-commit's alike (KafkaConsumer calls onCommit for each), as history
 * {@code commit} events. The workload consumer sets {@link #target} before it creates the consumer.
 */
public final class CommitRecorder<K, V> implements ConsumerInterceptor<K, V> {
    /** Where commits go: the history, the consumer's index, its topic's index and generation. */
    public interface Target {
        void committed(TopicPartition partition, long offset);
    }

    public static volatile Target target;

    @Override
    public ConsumerRecords<K, V> onConsume(ConsumerRecords<K, V> records) {
        return records;
    }

    @Override
    public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
        Target t = target;
        if (t == null) return;
        offsets.forEach((tp, o) -> t.committed(tp, o.offset()));
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
}
