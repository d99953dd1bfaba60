package ksim.groundtruth;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A share consumer node (KIP-932): a KafkaShareConsumer of its share group that polls, spends
 * the scenario's processing time on each record, and acknowledges as ksim's ShareConsumer does
 * (models/client/share_consumer/share_consumer_fetch.cpp): implicitly (the next poll accepts the
 * poll's records) or explicitly (ACCEPT, or the scenario's REJECT/RELEASE for a poison record,
 * each as it is done). Records {@code share_member}, {@code share_deliver}, {@code share_process},
 * and a {@code share_ack} for each acknowledgement the leader accepted, as the
 * AcknowledgementCommitCallback reports it (the client sees no other leader outcome; the lock
 * expiries are inferred from the redeliveries when the history is written: {@link ShareLeaderEvents}).
 * SIGTERM is a clean stop: close() (the leader releases what the member holds), exit.
 */
public final class ShareWorkloadConsumer {
    /** An acknowledgement sent and not yet answered: its type and the delivery it acknowledges. */
    private record Pending(AcknowledgeType type, int deliveryCount) {}

    private final Roster.ShareConsumer member;
    private final Scenario.ShareConsumerSet set;
    private final HistoryWriter history;
    private final String bootstrap;
    private final int topic;
    private final int deliveryCountLimit;
    private final Random random;
    private final Map<String, Pending> pending = new HashMap<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile boolean finished;
    private KafkaShareConsumer<String, byte[]> consumer;
    private String memberId;
    private long processingDebtNs;

    public ShareWorkloadConsumer(Scenario scenario, Roster.ShareConsumer member, HistoryWriter history, String bootstrap) {
        this.member = member;
        this.set = member.set();
        this.history = history;
        this.bootstrap = bootstrap;
        this.topic = scenario.topicIndex(set.topic());
        this.deliveryCountLimit = Integer.parseInt(scenario.brokers().config().getOrDefault("group.share.delivery.count.limit", "5"));
        this.random = new Random(member.name().hashCode() * 31L + System.nanoTime());
    }

    private Properties properties() {
        Properties p = new Properties();
        p.putAll(set.config());
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, member.name());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, set.group());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    public void run() throws IOException, InterruptedException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (finished) return;
            stopping = true;
            if (consumer != null) consumer.wakeup();
            try {
                stopped.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                // exiting anyway
            }
        }, "clean-stop"));
        try {
            runUntilStopped();
        } finally {
            finished = true;
            stopped.countDown();
        }
    }

    private void runUntilStopped() throws IOException, InterruptedException {
        // ksim's member id: NAME/INCARNATION (a process's own; a restarted consumer has a new one)
        memberId = member.name() + "/" + earlierLives();
        consumer = new KafkaShareConsumer<>(properties());
        consumer.setAcknowledgementCommitCallback(this::acknowledged);
        RunClock.sleepUntil(set.startNs());
        Map<String, Object> joined = HistoryWriter.event("share_member");
        joined.put("consumer", member.index());
        joined.put("member", memberId);
        history.write(joined);
        try {
            consumer.subscribe(List.of(set.topic()));
            while (!stopping) pollOnce();
        } catch (WakeupException stop) {
            // SIGTERM: a clean stop
        }
        consumer.close(Duration.ofSeconds(10));
    }

    /** How many lives this node had before this one: the share_member events of its history part. */
    private int earlierLives() throws IOException {
        if (!Files.exists(history.path())) return 0;
        int lives = 0;
        for (String line : Files.readAllLines(history.path())) if (line.contains("\"event\":\"share_member\"")) lives++;
        return lives;
    }

    private void pollOnce() {
        ConsumerRecords<String, byte[]> records;
        try {
            records = consumer.poll(Duration.ofMillis(100));
        } catch (WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            System.err.println("share poll failed: " + e);
            return;
        }
        for (ConsumerRecord<String, byte[]> r : records) clientEvent("share_deliver", r, null);
        for (ConsumerRecord<String, byte[]> r : records) {
            if (stopping) break;
            spendProcessingTime();
            boolean failed = poison(r);
            clientEvent("share_process", r, failed);
            AcknowledgeType type = AcknowledgeType.ACCEPT;
            if (failed) type = "release".equals(set.poisonAcknowledge()) ? AcknowledgeType.RELEASE : AcknowledgeType.REJECT;
            // implicit mode: the next poll accepts every record of this one
            if (set.explicit()) consumer.acknowledge(r, type);
            pending.put(key(r.partition(), r.offset()), new Pending(type, deliveryCount(r)));
        }
        if (set.commitSync()) consumer.commitSync();
    }

    private boolean poison(ConsumerRecord<String, byte[]> r) {
        RecordIdentity id = RecordIdentity.parse(r.value());
        return set.poisonEvery() > 0 && id != null && id.record() % set.poisonEvery() == set.poisonEvery() - 1;
    }

    private static int deliveryCount(ConsumerRecord<String, byte[]> r) {
        return r.deliveryCount().map(Short::intValue).orElse(-1);
    }

    private static String key(int partition, long offset) {
        return partition + ":" + offset;
    }

    private void clientEvent(String kind, ConsumerRecord<String, byte[]> r, Boolean failed) {
        RecordIdentity id = RecordIdentity.parse(r.value());
        Map<String, Object> e = HistoryWriter.event(kind);
        e.put("consumer", member.index());
        e.put("topic", topic);
        e.put("partition", r.partition());
        e.put("offset", r.offset());
        e.put("writer", id == null ? -1 : id.writer());
        e.put("record", id == null ? -1 : id.record());
        e.put("delivery_count", deliveryCount(r));
        if (failed != null) e.put("failed", failed);
        history.write(e);
    }

    /**
     * The AcknowledgementCommitCallback (called in poll()'s thread): an acknowledgement without an
     * exception is the leader's outcome for the record (SharePartition.acknowledge): ACCEPT
     * acknowledged it, REJECT archived it, RELEASE made it available again, or archived it when its
     * delivery count had reached group.share.delivery.count.limit. A failed one
     * (INVALID_RECORD_STATE: the lock had expired) says nothing the history records.
     */
    private void acknowledged(Map<TopicIdPartition, Set<Long>> offsets, Exception error) {
        offsets.forEach((tip, set) -> {
            for (long offset : set) {
                Pending p = pending.remove(key(tip.partition(), offset));
                if (error != null || p == null) continue;
                Map<String, Object> e = HistoryWriter.event("share_ack");
                e.put("group", this.set.group());
                e.put("topic", topic);
                e.put("partition", tip.partition());
                e.put("offset", offset);
                e.put("outcome", outcome(p));
                e.put("why", "released");
                e.put("member", memberId);
                e.put("delivery_count", p.deliveryCount());
                history.write(e);
            }
        });
    }

    private String outcome(Pending p) {
        return switch (p.type()) {
            case ACCEPT -> "accept";
            case REJECT -> "reject";
            default -> p.deliveryCount() >= deliveryCountLimit ? "archive_delivery_limit" : "release";
        };
    }

    /** Sleeps the records' processing time, in sleeps of at least a millisecond so that short times add up right. */
    private void spendProcessingTime() {
        processingDebtNs += set.processingTime().sample(random);
        if (processingDebtNs < 1_000_000) return;
        long start = System.nanoTime();
        LockSupport.parkNanos(processingDebtNs);
        processingDebtNs -= System.nanoTime() - start;
    }
}
