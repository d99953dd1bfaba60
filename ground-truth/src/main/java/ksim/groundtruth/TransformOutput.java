package ksim.groundtruth;

import java.time.Duration;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * The output side of a consume-transform-produce application: its producer (a writer of the
 * history), one output record per input record, in the input's partition modulo the output
 * topic's, carrying the input's identity after {@code :from:}; and its transactions.
 */
public final class TransformOutput {
    private final Scenario.Transform transform;
    private final Roster.Writer writer;
    private final HistoryWriter history;
    private final String bootstrap;
    private final int topic;
    private final int partitions;
    private final long[] nextRecord;
    private KafkaProducer<String, byte[]> producer;

    public TransformOutput(Scenario scenario, Scenario.Transform transform, Roster.Writer writer, HistoryWriter history,
                           String bootstrap, Random random) {
        this.transform = transform;
        this.writer = writer;
        this.history = history;
        this.bootstrap = bootstrap;
        this.topic = scenario.topicIndex(transform.topic());
        this.partitions = scenario.topic(transform.topic()).partitions();
        this.nextRecord = new long[partitions];
        try {
            HistoryPart.continueNumbering(history.path(), writer.index(), nextRecord);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public void start(boolean transactional) {
        producer = new KafkaProducer<>(WorkloadProducer.properties(writer.config(), bootstrap, writer.name()));
        if (transactional) producer.initTransactions();
    }

    public void send(int inputPartition, String from) {
        int partition = inputPartition % partitions;
        long record = nextRecord[partition]++;
        Map<String, Object> e = HistoryWriter.event("send");
        e.put("writer", writer.index());
        e.put("topic", topic);
        e.put("partition", partition);
        e.put("record", record);
        String[] f = from.split(":");
        e.put("from", Map.of("writer", Long.parseLong(f[0]), "topic", Long.parseLong(f[1]),
                "partition", Long.parseLong(f[2]), "record", Long.parseLong(f[3])));
        history.write(e);
        byte[] value = new RecordIdentity(writer.index(), partition, record).value(transform.recordSize(), from);
        try {
            producer.send(new ProducerRecord<>(transform.topic(), partition, null, value),
                    (metadata, error) -> outcome(partition, record, metadata == null ? -1 : metadata.offset(), error));
        } catch (KafkaException ex) {
            outcome(partition, record, -1, ex);
        }
    }

    private void outcome(int partition, long record, long offset, Exception error) {
        Map<String, Object> e = HistoryWriter.event(error == null ? "ack" : "fail");
        e.put("writer", writer.index());
        e.put("topic", topic);
        e.put("partition", partition);
        e.put("record", record);
        if (error == null) e.put("offset", offset);
        else e.put("error", ErrorNames.of(error));
        history.write(e);
    }

    public void flush() {
        producer.flush();
    }

    /**
     * Begins, commits (with the consumer's offsets) or aborts a transaction and records it; a
     * failed commit is aborted. True when the operation did what was asked.
     */
    public boolean transaction(String op, Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
        try {
            switch (op) {
                case "begin" -> producer.beginTransaction();
                case "commit" -> {
                    if (offsets != null && !offsets.isEmpty()) producer.sendOffsetsToTransaction(offsets, group);
                    producer.commitTransaction();
                }
                default -> producer.abortTransaction();
            }
            history.write(TransactionEvents.event(writer.index(), op, null));
            return true;
        } catch (KafkaException e) {
            history.write(TransactionEvents.event(writer.index(), op, ErrorNames.of(e)));
            if (op.equals("commit")) {
                try {
                    producer.abortTransaction();
                    history.write(TransactionEvents.event(writer.index(), "abort", null));
                } catch (KafkaException fatal) {
                    history.write(TransactionEvents.event(writer.index(), "abort", ErrorNames.of(fatal)));
                    throw fatal; // fenced or fatal: this instance can go no further
                }
            }
            return false;
        }
    }

    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
