package ksim.groundtruth;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The scenario's create_topic operations: each topic whose {@code createdAtNs} is set is created
 * with the Admin API at that time of the run, as {@code kafka-topics --create} would, on a thread
 * of its own. The answer (or Kafka's error) goes to the harness's log.
 */
public final class TopicCreator {
    private final Scenario scenario;
    private final KafkaCluster cluster;
    private final List<Thread> threads = new ArrayList<>();

    public TopicCreator(Scenario scenario, KafkaCluster cluster) {
        this.scenario = scenario;
        this.cluster = cluster;
    }

    public void start() {
        for (Scenario.Topic t : scenario.topics()) {
            if (t.createdAtNs() == null) continue;  // at the start, or by a broker (auto.create.topics.enable)
            Thread thread = new Thread(() -> create(t), "create-topic-" + t.name());
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    public void stop() {
        for (Thread t : threads) t.interrupt();
    }

    private void create(Scenario.Topic t) {
        try {
            RunClock.sleepUntil(t.createdAtNs());
            long at = RunClock.now();
            cluster.admin().createTopics(List.of(KafkaCluster.newTopic(t))).all().get(60, TimeUnit.SECONDS);
            System.err.println("create_topic " + t.name() + ": created at " + at / 1_000_000 + " ms of the run");
        } catch (InterruptedException end) {
            // the run ended first
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            System.err.println("create_topic " + t.name() + " failed: " + e.getCause());
        }
    }
}
