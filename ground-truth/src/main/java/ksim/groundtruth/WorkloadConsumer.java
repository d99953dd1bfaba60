package ksim.groundtruth;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A workload consumer node: a member of its group (or assigned partitions) that polls, spends
 * the scenario's processing time on each record, and commits as the scenario's strategy says;
 * with a transform it writes one output record per input record, in transactions with the
 * offsets under {@code commit: transactional}. Records every poll's records, commit and
 * rebalance callback. SIGTERM is a clean stop: the last commit, close() (LeaveGroup), exit.
 */
public final class WorkloadConsumer implements ConsumerRebalanceListener {
    private final Roster.Consumer member;
    private final Scenario.ConsumerSet set;
    private final HistoryWriter history;
    private final String bootstrap;
    private final int topic;
    private final Random random;
    private final TransformOutput output;
    private final Map<TopicPartition, Long> processed = new HashMap<>();
    private final Map<TopicPartition, Long> inTransaction = new HashMap<>();
    private volatile boolean stopping;
    private volatile boolean finished;
    private final java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
    private volatile int generation = -1;
    private KafkaConsumer<String, byte[]> consumer;
    private long transactionStartNs;
    private int transactionRecords;
    private long processingDebtNs;

    public WorkloadConsumer(Scenario scenario, Roster.Consumer member, HistoryWriter history, String bootstrap) {
        this.member = member;
        this.set = member.set();
        this.history = history;
        this.bootstrap = bootstrap;
        this.topic = scenario.topicIndex(set.topic());
        this.random = new Random(member.name().hashCode() * 31L + System.nanoTime());
        Roster.Writer w = new Roster(scenario).transformWriterOf(member);
        this.output = w == null ? null : new TransformOutput(scenario, set.transform(), w, history, bootstrap, random);
    }

    private boolean transactional() {
        return "transactional".equals(set.commit());
    }

    private Properties properties() {
        Properties p = new Properties();
        p.putAll(set.nodeConfigs().get(member.name()));
        if ("consumer".equals(p.get("group.protocol"))) {
            // KIP-848: the resolved scenario lists the classic protocol's defaults, which
            // KafkaConsumer refuses with group.protocol=consumer (ksim's reader refuses them set)
            for (String classicOnly : List.of("session.timeout.ms", "heartbeat.interval.ms", "partition.assignment.strategy")) {
                p.remove(classicOnly);
            }
            // ksim's "" is Kafka's null: the broker's default assignor
            if ("".equals(p.get("group.remote.assignor"))) p.remove("group.remote.assignor");
        }
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, member.name());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, CommitRecorder.class.getName());
        return p;
    }

    public void run(boolean restarted) throws InterruptedException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (finished) return;
            stopping = true;
            if (consumer != null) consumer.wakeup();
            try {
                stopped.await(30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "clean-stop"));
        try {
            runUntilStopped(restarted);
        } finally {
            finished = true;
            stopped.countDown();
        }
    }

    private void runUntilStopped(boolean restarted) throws InterruptedException {
        // Clients are made before the start (a JVM's first Kafka client takes seconds to build)
        if (output != null) output.start(transactional());
        CommitRecorder.target = (tp, offset) -> commitEvent(tp, offset, null);
        consumer = new KafkaConsumer<>(properties());
        consumer.partitionsFor(set.topic());
        RunClock.sleepUntil(set.startNs());
        if (restarted) lifeEvent("restarted");
        try {
            if (set.partitions().isEmpty()) {
                consumer.subscribe(List.of(set.topic()), this);
            } else {
                List<TopicPartition> parts = new ArrayList<>();
                for (int p : set.partitions()) parts.add(new TopicPartition(set.topic(), p));
                consumer.assign(parts);
            }
            while (!stopping) pollOnce();
        } catch (WakeupException stop) {
            // SIGTERM: a clean stop
        } catch (FencedInstanceIdException e) {
            // ksim: Consumer::fenced() records fenced, then stop() the stopped event
            lifeEvent("fenced");
            stoppedEvent("fenced: another member has this group.instance.id");
            return;
        } catch (KafkaException fatal) {
            // poll() threw a fatal error (GroupMaxSizeReachedException, InconsistentGroupProtocolException,
            // ...): the application consumes no more, as ksim's Consumer::stop()
            stoppedEvent(stopReason(fatal));
            return;
        }
        stopCleanly();
    }

    /** The request that failed and Kafka's error name, as ksim's Consumer::stop() says it. */
    private String stopReason(KafkaException fatal) {
        String request = "consumer".equals(set.nodeConfigs().get(member.name()).get("group.protocol"))
                ? "ConsumerGroupHeartbeat" : "JoinGroup";
        return request + ": " + ErrorNames.of(fatal);
    }

    private void stoppedEvent(String reason) {
        Map<String, Object> e = HistoryWriter.event("consumer");
        e.put("consumer", member.index());
        e.put("kind", "stopped");
        e.put("reason", reason);
        history.write(e);
    }

    private void pollOnce() {
        ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(100));
        if (set.partitions().isEmpty()) generation = consumer.groupMetadata().generationId();
        if (!records.isEmpty() && "sync-before-process".equals(set.commit())) commitSync(currentPositions(records.partitions()));
        for (ConsumerRecord<String, byte[]> r : records) {
            if (stopping) break;
            if (transactional() && inTransaction.isEmpty() && transactionRecords == 0) beginTransaction();
            process(r);
        }
        switch (set.commit()) {
            case "sync-after-process" -> {
                if (output != null) output.flush();
                commitSync(new HashMap<>(processed));
            }
            case "async-after-process" -> commitAsync();
            case "transactional" -> {
                if (transactionRecords > 0 && transactionDue()) commitTransaction();
            }
            default -> { }
        }
    }

    private Map<TopicPartition, Long> currentPositions(Set<TopicPartition> partitions) {
        Map<TopicPartition, Long> m = new HashMap<>();
        for (TopicPartition tp : partitions) m.put(tp, consumer.position(tp));
        return m;
    }

    private void process(ConsumerRecord<String, byte[]> r) {
        spendProcessingTime();
        RecordIdentity id = RecordIdentity.parse(r.value());
        Map<String, Object> e = HistoryWriter.event("process");
        e.put("consumer", member.index());
        e.put("topic", topic);
        e.put("partition", r.partition());
        e.put("offset", r.offset());
        e.put("writer", id == null ? -1 : id.writer());
        e.put("record", id == null ? -1 : id.record());
        e.put("generation", generation);
        history.write(e);
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        processed.put(tp, r.offset() + 1);
        if (transactional()) {
            inTransaction.put(tp, r.offset() + 1);
            transactionRecords++;
        }
        if (output != null && id != null) output.send(r.partition(), id.asInput(topic));
    }

    /** Sleeps the records' processing time, in sleeps of at least a millisecond so that short times add up right. */
    private void spendProcessingTime() {
        processingDebtNs += set.processingTime().sample(random);
        if (processingDebtNs < 1_000_000) return;
        long start = System.nanoTime();
        LockSupport.parkNanos(processingDebtNs);
        processingDebtNs -= System.nanoTime() - start;
    }

    private boolean transactionDue() {
        Scenario.Transform t = set.transform();
        boolean byCount = t.recordsPerTransaction() > 0 && transactionRecords >= t.recordsPerTransaction();
        boolean byTime = t.commitIntervalNs() > 0 && RunClock.now() - transactionStartNs >= t.commitIntervalNs();
        return (t.recordsPerTransaction() == 0 && t.commitIntervalNs() == 0) || byCount || byTime;
    }

    private static Map<TopicPartition, OffsetAndMetadata> asOffsets(Map<TopicPartition, Long> m) {
        Map<TopicPartition, OffsetAndMetadata> o = new HashMap<>();
        m.forEach((tp, off) -> o.put(tp, new OffsetAndMetadata(off)));
        return o;
    }

    private void commitSync(Map<TopicPartition, Long> offsets) {
        if (offsets.isEmpty()) return;
        try {
            consumer.commitSync(asOffsets(offsets));
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            String error = ErrorNames.of(e);
            offsets.forEach((tp, off) -> commitEvent(tp, off, error));
        }
    }

    private void commitAsync() {
        Map<TopicPartition, Long> offsets = new HashMap<>(processed);
        if (offsets.isEmpty()) return;
        consumer.commitAsync(asOffsets(offsets), (done, error) -> {
            if (error != null) offsets.forEach((tp, off) -> commitEvent(tp, off, ErrorNames.of(error)));
        });
    }

    private void commitEvent(TopicPartition tp, long offset, String error) {
        Map<String, Object> e = HistoryWriter.event("commit");
        e.put("consumer", member.index());
        e.put("topic", topic);
        e.put("partition", tp.partition());
        e.put("offset", offset);
        e.put("generation", generation);
        e.put("error", error);
        history.write(e);
    }

    private void beginTransaction() {
        output.transaction("begin", null, null);
        transactionStartNs = RunClock.now();
    }

    /** Commits the open transaction with its offsets; after a failure, aborts and rewinds to the committed offsets. */
    private void commitTransaction() {
        Map<TopicPartition, Long> offsets = new HashMap<>(inTransaction);
        ConsumerGroupMetadata metadata = set.transform().sendGroupMetadata() ? consumer.groupMetadata()
                : new ConsumerGroupMetadata(set.group());
        boolean committed = output.transaction("commit", asOffsets(offsets), metadata);
        inTransaction.clear();
        transactionRecords = 0;
        if (committed) {
            offsets.forEach((tp, off) -> commitEvent(tp, off, null));
        } else {
            rewind();
        }
    }

    /** After an aborted transaction: read again from the group's committed offsets. */
    private void rewind() {
        Set<TopicPartition> assigned = consumer.assignment();
        if (assigned.isEmpty()) return;
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(assigned);
        for (TopicPartition tp : assigned) {
            OffsetAndMetadata o = committed.get(tp);
            if (o != null) consumer.seek(tp, o.offset());
            else consumer.seekToBeginning(List.of(tp));
            processed.remove(tp);
        }
    }

    private void stopCleanly() {
        try {
            if (transactional() && transactionRecords > 0) commitTransaction();
            if (set.commit().endsWith("after-process") && !processed.isEmpty()) {
                if (output != null) output.flush();
                // bounded: a clean stop in the middle of a rebalance must not wait default.api.timeout.ms
                consumer.commitSync(asOffsets(processed), Duration.ofSeconds(5));
            }
        } catch (KafkaException ignored) {
            // the last commit is best effort, as in an application's shutdown
        }
        consumer.close(Duration.ofSeconds(10));
        if (output != null) output.close();
        if (set.partitions().isEmpty() && !set.nodeConfigs().get(member.name()).containsKey("group.instance.id")) {
            lifeEvent("left_group");
        }
    }

    private void lifeEvent(String kind) {
        Map<String, Object> e = HistoryWriter.event("consumer");
        e.put("consumer", member.index());
        e.put("kind", kind);
        history.write(e);
    }

    private void partitionEvents(String kind, Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            Map<String, Object> e = HistoryWriter.event(kind);
            e.put("consumer", member.index());
            e.put("topic", topic);
            e.put("partition", tp.partition());
            history.write(e);
        }
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) return;
        if (transactional() && transactionRecords > 0) commitTransaction();
        if (set.commit().endsWith("after-process")) {
            if (output != null) output.flush();
            Map<TopicPartition, Long> offsets = new HashMap<>();
            for (TopicPartition tp : partitions) if (processed.containsKey(tp)) offsets.put(tp, processed.get(tp));
            commitSync(offsets);
        }
        partitionEvents("revoked", partitions);
        partitions.forEach(processed::remove);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        generation = consumer.groupMetadata().generationId();
        partitionEvents("assigned", partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        if (transactional() && transactionRecords > 0) {
            output.transaction("abort", null, null);
            inTransaction.clear();
            transactionRecords = 0;
        }
        partitionEvents("lost", partitions);
        partitions.forEach(processed::remove);
    }
}
