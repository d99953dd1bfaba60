package ksim.groundtruth;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of a scenario on a real cluster:
 * {@code GroundTruthRun RESOLVED.json HISTORY.jsonl WORK_DIR KAFKA_VERSION RUN BASE_PORT}.
 * Starts the cluster, the workload's processes and the fault schedule, stops the workload at
 * the scenario's end (duration plus drain), reads the final logs and writes the history. Its JVM
 * must be started with -Djdk.net.hosts.file=WORK_DIR/hosts/harness (written here before the
 * first name lookup). Every process it starts dies with it.
 */
public final class GroundTruthRun {
    /** Time for the clients' JVMs to start before the run's clock reads 0. */
    private static final long CLIENT_START_SLACK_NS = 8_000_000_000L;

    private GroundTruthRun() {}

    public static void main(String[] args) throws Exception {
        Path resolved = Path.of(args[0]);
        Path historyOut = Path.of(args[1]);
        Path work = Files.createDirectories(Path.of(args[2]));
        String kafkaVersion = args[3];
        int run = Integer.parseInt(args[4]);
        int basePort = Integer.parseInt(args[5]);
        Scenario scenario;
        try {
            scenario = ScenarioReader.read(resolved);
        } catch (IllegalArgumentException refusedScenario) {
            System.err.println("ground-truth: " + refusedScenario.getMessage());
            System.exit(2);
            return;
        }
        List<String> refused = FaultInjector.refusals(scenario);
        refused.addAll(unsupportedWorkload(scenario));
        refused.addAll(ClusterFeatures.refusals(scenario, kafkaVersion));
        String release = ClusterFeatures.releaseRefusal(scenario.file(), ScenarioReader.modelledRelease(resolved), kafkaVersion);
        if (release != null) refused.add(release);
        if (!new Roster(scenario).transactionalIds().isEmpty() && !AdminCompat.canDescribeTransactions()) {
            refused.add(scenario.file() + ": transactions: the harness makes the transaction coordinator ready with the Admin "
                    + "API's describeTransactions, which Kafka " + kafkaVersion + " lacks (KIP-664, 3.0)");
        }
        if (!refused.isEmpty()) {
            refused.forEach(System.err::println);
            System.exit(2);
        }
        Roster roster = new Roster(scenario);
        AddressPlan addresses = new AddressPlan(basePort, scenario.brokers().count(), roster.clientNodes(),
                scenario.zooKeeper() ? "zookeeper" : "controller");
        Files.createDirectories(work.resolve("hosts"));
        addresses.writeHostsFile("harness", Path.of(System.getProperty("jdk.net.hosts.file")));
        int status = 1;
        try (ProcessLauncher launcher = new ProcessLauncher(System.getProperty("java.class.path"));
             KafkaCluster cluster = new KafkaCluster(scenario, addresses, work, launcher,
                     ClusterFeatures.formatArguments(scenario, kafkaVersion),
                     scenario.zooKeeper())) {
            log("starting the cluster (Kafka " + kafkaVersion + ", " + scenario.brokers().count() + " brokers)");
            cluster.start();
            List<String> groups = new ArrayList<>(roster.groups());
            groups.addAll(roster.shareGroups());
            cluster.prepareCoordinators(groups, roster.transactionalIds());
            cluster.shareGroupsFromEarliest(roster.shareGroups());
            log("cluster ready");
            RunClock.startRunAt(RunClock.wallNowNs() + CLIENT_START_SLACK_NS);
            Path parts = Files.createDirectories(work.resolve("history-parts"));
            List<Path> partFiles = new ArrayList<>();
            Path harnessPart = parts.resolve("harness.jsonl");
            partFiles.add(harnessPart);
            Map<String, NodeProcess> clients = new LinkedHashMap<>();
            for (String node : roster.clientNodes()) {
                Path hosts = work.resolve("hosts").resolve(node);
                addresses.writeHostsFile(node, hosts);
                Path part = parts.resolve(node + ".jsonl");
                partFiles.add(part);
                clients.put(node, new NodeProcess(node, ClientMain.class.getName(),
                        List.of(resolved.toAbsolutePath().toString(), node, part.toString(), addresses.bootstrapServers()),
                        hosts, work.resolve(node + ".log"), launcher, System.getProperty("ksim.client.heap", "96m")));
            }
            try (HistoryWriter harnessHistory = new HistoryWriter(harnessPart)) {
                for (NodeProcess c : clients.values()) c.start();
                FaultInjector faults = new FaultInjector(scenario, addresses, cluster, clients, roster, harnessHistory);
                faults.start();
                TopicCreator creator = new TopicCreator(scenario, cluster);
                creator.start();
                log("workload running for " + (scenario.durationNs() + scenario.drainNs()) / 1_000_000 + " ms");
                RunClock.sleepUntil(scenario.durationNs() + scenario.drainNs());
                for (NodeProcess c : clients.values()) c.crash();
                creator.stop();
                faults.stop();
                long end = RunClock.now();
                log("reading the final logs");
                List<Map<String, Object>> finals = new FinalLogReader(scenario, cluster.admin(), addresses.bootstrapServers()).read();
                HistoryMerger.write(historyOut, HistoryMerger.header(scenario, roster, kafkaVersion, run, end, faults.fired()),
                        partFiles, ShareLeaderEvents.derive(scenario, roster, partFiles), finals);
            }
            log("history written to " + historyOut);
            status = 0;
        } catch (Exception e) {
            System.err.println("ground-truth run failed: " + e);
            e.printStackTrace();
        }
        System.exit(status);
    }

    private static List<String> unsupportedWorkload(Scenario s) {
        List<String> out = new ArrayList<>();
        for (Scenario.ProducerGroup g : s.producers()) {
            if (g.closedLoop()) out.add(s.file() + ": producer " + g.name() + ": rate: max (a closed loop) is not run on a real cluster");
        }
        for (Scenario.ConsumerSet c : s.consumers()) {
            if (c.transform() != null && c.transform().producerPerPartition()) {
                out.add(s.file() + ": consumer " + c.name() + ": transform.producer_per_partition (EOS-v1) is not run on a real cluster");
            }
        }
        return out;
    }

    private static void log(String message) {
        System.err.printf("[ground-truth %7.1fs] %s%n", RunClock.now() / 1e9, message);
    }
}
