package ksim.groundtruth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The heap a real Kafka server holds for a scenario's topics, with nothing produced:
 * {@code HeapFootprint RESOLVED.json OUT.json WORK_DIR KAFKA_VERSION BASE_PORT SETTLE_SECONDS}.
 * Starts the scenario's cluster (as {@link GroundTruthRun} does), waits until every broker has a
 * log for each of its replicas and then SETTLE_SECONDS more (the fetchers running, the metadata
 * applied), and asks each server's JVM for its live objects with {@code jcmd PID
 * GC.class_histogram} (a full collection first, so only what is reachable counts). Writes, per
 * server, the live heap's bytes and instances and the largest classes. Run by
 * ground-truth/heap-per-partition, which varies the partition count and fits bytes per replica.
 */
public final class HeapFootprint {
    private static final int TOP_CLASSES = 25;

    private HeapFootprint() {}

    public static void main(String[] args) throws Exception {
        Path resolved = Path.of(args[0]);
        Path out = Path.of(args[1]);
        Path work = Files.createDirectories(Path.of(args[2]));
        String kafkaVersion = args[3];
        int basePort = Integer.parseInt(args[4]);
        long settleSeconds = Long.parseLong(args[5]);
        Scenario scenario = ScenarioReader.read(resolved);
        AddressPlan addresses = new AddressPlan(basePort, scenario.brokers().count(), List.of(),
                scenario.zooKeeper() ? "zookeeper" : "controller");
        Files.createDirectories(work.resolve("hosts"));
        addresses.writeHostsFile("harness", Path.of(System.getProperty("jdk.net.hosts.file")));
        int status = 1;
        try (ProcessLauncher launcher = new ProcessLauncher(System.getProperty("java.class.path"));
             KafkaCluster cluster = new KafkaCluster(scenario, addresses, work, launcher,
                     ClusterFeatures.formatArguments(scenario, kafkaVersion),
                     scenario.zooKeeper())) {
            cluster.start();
            awaitReplicasOnDisk(cluster.admin(), scenario);
            Thread.sleep(TimeUnit.SECONDS.toMillis(settleSeconds));
            Map<String, Object> servers = new LinkedHashMap<>();
            for (Map.Entry<String, NodeProcess> s : cluster.servers().entrySet()) {
                servers.put(s.getKey(), histogram(s.getValue().pid()));
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("kafka_version", kafkaVersion);
            result.put("brokers", scenario.brokers().count());
            List<Object> topics = new ArrayList<>();
            for (Scenario.Topic t : scenario.topics()) {
                topics.add(Map.of("name", t.name(), "partitions", t.partitions(), "replication_factor", t.replicationFactor()));
            }
            result.put("topics", topics);
            result.put("servers", servers);
            Files.writeString(out, Json.write(result) + "\n");
            status = 0;
        } catch (Exception e) {
            System.err.println("heap footprint failed: " + e);
            e.printStackTrace();
        }
        System.exit(status);
    }

    /**
     * Waits until every broker has created a log for each replica assigned to it. KRaft creates a
     * partition with its whole replica set in the ISR, so a leader and a full ISR in the metadata
     * say nothing of whether the brokers have applied it: their log dirs do.
     */
    private static void awaitReplicasOnDisk(Admin admin, Scenario scenario) throws Exception {
        List<String> names = scenario.topics().stream().map(Scenario.Topic::name).toList();
        Map<Integer, Integer> expected = new TreeMap<>();
        for (TopicDescription d : AdminCompat.describeTopics(admin, names, 60).values()) {
            for (TopicPartitionInfo p : d.partitions()) {
                for (Node replica : p.replicas()) expected.merge(replica.id(), 1, Integer::sum);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        while (true) {
            Map<Integer, Integer> onDisk = new TreeMap<>();
            admin.describeLogDirs(expected.keySet()).allDescriptions().get(60, TimeUnit.SECONDS).forEach((broker, dirs) -> {
                int replicas = 0;
                for (LogDirDescription dir : dirs.values()) {
                    for (TopicPartition tp : dir.replicaInfos().keySet()) {
                        if (names.contains(tp.topic())) ++replicas;
                    }
                }
                onDisk.put(broker, replicas);
            });
            if (onDisk.equals(expected)) return;
            if (System.nanoTime() > deadline) throw new IllegalStateException("replicas on disk " + onDisk + ", assigned " + expected);
            Thread.sleep(1000);
        }
    }

    /** jcmd's class histogram of live objects: the total and the largest classes by bytes. */
    private static Map<String, Object> histogram(long pid) throws IOException, InterruptedException {
        if (pid < 0) throw new IllegalStateException("a server is not running");
        Process jcmd = new ProcessBuilder("jcmd", Long.toString(pid), "GC.class_histogram").redirectErrorStream(true).start();
        String text = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!jcmd.waitFor(120, TimeUnit.SECONDS) || jcmd.exitValue() != 0) throw new IllegalStateException("jcmd failed: " + text);
        Map<String, Object> h = new LinkedHashMap<>();
        List<Object> top = new ArrayList<>();
        for (String line : text.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[0].equals("Total")) {
                h.put("live_instances", Long.parseLong(f[1]));
                h.put("live_bytes", Long.parseLong(f[2]));
            } else if (f.length >= 4 && f[0].endsWith(":") && top.size() < TOP_CLASSES) {
                top.add(Map.of("class", f[3], "instances", Long.parseLong(f[1]), "bytes", Long.parseLong(f[2])));
            }
        }
        if (!h.containsKey("live_bytes")) throw new IllegalStateException("no total in jcmd's histogram: " + text);
        h.put("top_classes", top);
        return h;
    }
}
