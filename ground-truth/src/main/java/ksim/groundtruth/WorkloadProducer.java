package ksim.groundtruth;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A workload producer node: sends the scenario's records at its rate from {@code start} to
 * {@code stop}, choosing each record's partition and number itself, and records every send,
 * acknowledgement, failure and transaction call. A transactional producer commits every
 * {@code records_per_transaction} records (aborting a fraction {@code abort_probability}).
 */
public final class WorkloadProducer {
    private final Scenario.ProducerGroup group;
    private final Roster.Writer writer;
    private final HistoryWriter history;
    private final int topic;
    private final int partitions;
    private final String bootstrap;
    private final Random random;
    private final long[] nextRecord;

    public WorkloadProducer(Scenario scenario, Roster.Writer writer, HistoryWriter history, String bootstrap) {
        this.group = new Roster(scenario).producerGroupOf(writer.name());
        this.writer = writer;
        this.history = history;
        this.topic = scenario.topicIndex(group.topic());
        this.partitions = scenario.topic(group.topic()).partitions();
        this.bootstrap = bootstrap;
        this.random = new Random(writer.name().hashCode() * 31L + System.nanoTime());
        this.nextRecord = new long[partitions];
        try {
            HistoryPart.continueNumbering(history.path(), writer.index(), nextRecord);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public static Properties properties(Map<String, String> config, String bootstrap, String clientId) {
        Properties p = new Properties();
        p.putAll(config);
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    public void run() throws InterruptedException {
        Map<String, String> config = writer.config();
        boolean transactional = writer.transactionalId() != null;
        int batchSize = Integer.parseInt(config.getOrDefault("batch.size", "16384"));
        long lingerNs = Long.parseLong(config.getOrDefault("linger.ms", "0")) * 1_000_000L;
        KeyedPartitioner partitioner = new KeyedPartitioner(partitions, batchSize, random, group.partitioner(), lingerNs);
        KeyChooser keys = new KeyChooser(group.keys(), random);
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(properties(config, bootstrap, writer.name()))) {
            // Ready before the run's clock starts, as ksim's clients are: producer id, metadata
            if (transactional) producer.initTransactions();
            producer.partitionsFor(group.topic());
            RunClock.sleepUntil(group.startNs());
            long next = group.startNs();
            int inTransaction = 0;
            while (true) {
                next += gapNs();
                if (next >= group.stopNs()) break;
                RunClock.sleepUntil(next);
                if (transactional && inTransaction == 0) {
                    if (!transaction(producer, "begin")) return;
                }
                send(producer, keys.next(), partitioner);
                if (transactional && ++inTransaction >= group.recordsPerTransaction()) {
                    inTransaction = 0;
                    if (!transaction(producer, random.nextDouble() < group.abortProbability() ? "abort" : "commit")) return;
                }
            }
            if (transactional && inTransaction > 0) transaction(producer, "commit");
            producer.flush();
            producer.close(Duration.ofSeconds(30));
        }
    }

    private long gapNs() {
        double mean = 1e9 / group.ratePerSecond();
        if ("constant".equals(group.arrival())) return Math.max(1, Math.round(mean));
        return Math.max(1, Math.round(-mean * Math.log(1 - random.nextDouble())));
    }

    private void send(KafkaProducer<String, byte[]> producer, String key, KeyedPartitioner partitioner) {
        int size = group.recordSizeMin() + (group.recordSizeMax() > group.recordSizeMin()
                ? random.nextInt(group.recordSizeMax() - group.recordSizeMin() + 1) : 0);
        int partition = partitioner.partition(key, size, RunClock.now());
        long record = nextRecord[partition]++;
        RecordIdentity id = new RecordIdentity(writer.index(), partition, record);
        Map<String, Object> send = HistoryWriter.event("send");
        send.put("writer", writer.index());
        send.put("topic", topic);
        send.put("partition", partition);
        send.put("record", record);
        history.write(send);
        try {
            producer.send(new ProducerRecord<>(group.topic(), partition, key, id.value(size, null)),
                    (metadata, error) -> outcome(partition, record, metadata == null ? -1 : metadata.offset(), error));
        } catch (KafkaException e) {
            outcome(partition, record, -1, e);
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

    /** Begins, commits or aborts; false when the producer can go no further (fenced, fatal). */
    private boolean transaction(KafkaProducer<String, byte[]> producer, String op) {
        String error = null;
        boolean fatal = false;
        try {
            switch (op) {
                case "begin" -> producer.beginTransaction();
                case "commit" -> producer.commitTransaction();
                default -> producer.abortTransaction();
            }
        } catch (ProducerFencedException | OutOfOrderSequenceException | AuthorizationException e) {
            error = ErrorNames.of(e);
            fatal = true;
        } catch (KafkaException e) {
            error = ErrorNames.of(e);
        }
        history.write(TransactionEvents.event(writer.index(), op, error));
        if (error != null && !fatal && !op.equals("abort")) {
            try {
                producer.abortTransaction();
                history.write(TransactionEvents.event(writer.index(), "abort", null));
            } catch (KafkaException e) {
                history.write(TransactionEvents.event(writer.index(), "abort", ErrorNames.of(e)));
                return false;
            }
        }
        return !fatal;
    }
}
