package ksim.groundtruth;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;

/**
 * Injects the scenario's faults for real at their times, each on a thread of its own that
 * undoes it at its end: crash (kill -9, restart with the same data dir), pause (SIGSTOP and
 * SIGCONT), shutdown (SIGTERM: a broker's controlled shutdown, a client's close(); restart),
 * partition (the proxies hold the bytes between the two sides) and latency spike (the proxies
 * delay every byte to or from the targets). {@link #refusals} names those it cannot make real.
 */
public final class FaultInjector {
    private final Scenario scenario;
    private final AddressPlan addresses;
    private final KafkaCluster cluster;
    private final Map<String, NodeProcess> clients;
    private final Roster roster;
    private final HistoryWriter history;
    private final List<Map<String, Object>> fired = Collections.synchronizedList(new ArrayList<>());
    private final List<Thread> threads = new ArrayList<>();
    private final List<Runnable> undoAtEnd = Collections.synchronizedList(new ArrayList<>());

    public FaultInjector(Scenario scenario, AddressPlan addresses, KafkaCluster cluster, Map<String, NodeProcess> clients,
                         Roster roster, HistoryWriter history) {
        this.scenario = scenario;
        this.addresses = addresses;
        this.cluster = cluster;
        this.clients = clients;
        this.roster = roster;
        this.history = history;
    }

    /** One message per fault the harness cannot make real on this machine (empty: all can be). */
    public static List<String> refusals(Scenario s) {
        List<String> out = new ArrayList<>();
        for (Scenario.Fault f : s.faults()) {
            String why = switch (f.kind()) {
                case "crash" -> f.powerLoss() ? "power_loss: a process cannot lose its unflushed writes without a machine to power off" : null;
                case "pause", "shutdown", "partition", "latency_spike" -> null;
                case "jitter_burst" -> "jitter_burst is not injected by the harness's proxies";
                case "link_slowdown" -> "link_slowdown: the proxies do not limit bandwidth";
                case "disk_slow", "disk_full", "disk_failure" -> f.kind() + ": the brokers' log dirs are plain directories of this machine's disk";
                default -> "unknown fault kind";
            };
            if (why != null) out.add(f.where(s.file()) + ": fault " + f.kind() + " cannot be made real: " + why);
        }
        return out;
    }

    /** The faults that fired, with the time each really did (the header's {@code faults}). */
    public List<Map<String, Object>> fired() {
        return fired;
    }

    public void start() {
        for (Scenario.Fault f : scenario.faults()) {
            Thread t = new Thread(() -> run(f), "fault-" + f.kind() + "-" + f.line());
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** Stops the schedule and undoes what is still in force (heals, resumes), so the final logs can be read. */
    public void stop() {
        for (Thread t : threads) t.interrupt();
        for (Thread t : threads) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(70));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<Runnable> undo;
        synchronized (undoAtEnd) {
            undo = new ArrayList<>(undoAtEnd);
        }
        for (Runnable r : undo) r.run();
    }

    private void run(Scenario.Fault f) {
        try {
            RunClock.sleepUntil(f.atNs());
            List<String> nodes = targets(f);
            if (nodes.isEmpty()) return;  // its target stood for nobody (a partition without a leader): missed, as in ksim
            Map<String, Object> record = new LinkedHashMap<>();
            record.put("kind", f.kind());
            record.put("at", RunClock.now());
            record.put("nodes", nodes);
            Runnable undo = apply(f, nodes);
            fired.add(record);
            if (f.durationNs() == null || f.durationNs() == 0) {
                if (!f.kind().equals("crash") && !f.kind().equals("shutdown")) undoAtEnd.add(undo);
                return;
            }
            undoAtEnd.add(undo);
            try {
                RunClock.sleepUntil(f.atNs() + f.durationNs());
            } finally {
                undoAtEnd.remove(undo);
            }
            undo.run();
        } catch (InterruptedException end) {
            // the run ended first
        } catch (Exception e) {
            System.err.println("fault at " + f.where(scenario.file()) + " failed: " + e);
            e.printStackTrace();
        }
    }

    private List<String> targets(Scenario.Fault f) throws Exception {
        List<String> nodes = new ArrayList<>(f.nodes());
        for (String target : f.dynamicTargets()) {
            if (target.startsWith("coordinator:")) {
                String group = target.substring("coordinator:".length());
                ConsumerGroupDescription d = cluster.admin().describeConsumerGroups(List.of(group)).all()
                        .get(10, TimeUnit.SECONDS).get(group);
                nodes.add(AddressPlan.brokerName(d.coordinator().id()));
            } else if (target.startsWith("txn-coordinator:")) {
                String id = target.substring("txn-coordinator:".length());
                nodes.add(AddressPlan.brokerName(AdminCompat.transactionCoordinator(cluster.admin(), id, 10)));
            } else if (target.startsWith("leader:")) {
                // The broker leading TOPIC-P now, as ksim's Cluster::leader_of_topic_partition: none when it has no leader.
                String rest = target.substring("leader:".length());
                int dash = rest.lastIndexOf('-');
                String topic = rest.substring(0, dash);
                int partition = Integer.parseInt(rest.substring(dash + 1));
                TopicDescription d = AdminCompat.describeTopics(cluster.admin(), List.of(topic), 10).get(topic);
                Node leader = d.partitions().get(partition).leader();
                if (leader != null && !leader.isEmpty()) nodes.add(AddressPlan.brokerName(leader.id()));
            }
        }
        return nodes;
    }

    private NodeProcess process(String node) {
        NodeProcess client = clients.get(node);
        return client != null ? client : cluster.server(node);
    }

    private Runnable apply(Scenario.Fault f, List<String> nodes) throws Exception {
        switch (f.kind()) {
            case "crash": {
                for (String n : nodes) {
                    process(n).crash();
                    if (!clients.containsKey(n)) cluster.serverDown(n);
                    Roster.Consumer c = roster.consumer(n);
                    if (c != null) consumerEvent(c, "crashed");
                    Roster.ShareConsumer sc = roster.shareConsumer(n);
                    if (sc != null) shareCrash(sc);
                }
                return () -> restart(nodes);
            }
            case "shutdown": {
                for (String n : nodes) {
                    process(n).shutdown();
                    if (!clients.containsKey(n)) cluster.serverDown(n);
                }
                return () -> restart(nodes);
            }
            case "pause": {
                for (String n : nodes) process(n).pause();
                return () -> nodes.forEach(n -> process(n).resume());
            }
            case "partition":
                return partition(f, nodes);
            case "latency_spike":
                return latencySpike(f, nodes);
            default:
                throw new IllegalStateException("fault " + f.kind() + " cannot be made real");
        }
    }

    private void restart(List<String> nodes) {
        for (String n : nodes) {
            try {
                NodeProcess p = process(n);
                if (p.isRunning()) continue;
                if (clients.containsKey(n)) {
                    p.start(List.of("--restarted"));
                } else {
                    p.start();
                    cluster.serverStarting(n);
                }
            } catch (Exception e) {
                System.err.println("cannot restart " + n + ": " + e);
            }
        }
    }

    private Set<Integer> ids(List<String> nodes) {
        Set<Integer> ids = new HashSet<>();
        for (String n : nodes) ids.add(addresses.id(n));
        return ids;
    }

    private Runnable partition(Scenario.Fault f, List<String> nodes) {
        Set<Integer> side = ids(nodes);
        Set<Integer> other = f.otherNodes().isEmpty() ? new HashSet<>(addresses.allIds()) : ids(f.otherNodes());
        other.removeAll(side);
        other.remove(AddressPlan.HARNESS_ID);
        LinkRules rules = cluster.rules();
        for (int a : side) {
            for (int b : other) {
                rules.cut(a, b);
                if (!f.oneWay()) rules.cut(b, a);
            }
        }
        return () -> {
            for (int a : side) {
                for (int b : other) {
                    rules.heal(a, b);
                    if (!f.oneWay()) rules.heal(b, a);
                }
            }
        };
    }

    private Runnable latencySpike(Scenario.Fault f, List<String> nodes) {
        Set<Integer> targets = ids(nodes);
        List<int[]> directions = new ArrayList<>();
        for (int a : addresses.allIds()) {
            for (int b : addresses.allIds()) {
                if (a != b && (targets.contains(a) || targets.contains(b))) directions.add(new int[] {a, b});
            }
        }
        LinkRules rules = cluster.rules();
        for (int[] d : directions) rules.addDelay(d[0], d[1], f.extraLatencyNs());
        return () -> {
            for (int[] d : directions) rules.removeDelay(d[0], d[1], f.extraLatencyNs());
        };
    }

    /** KIP-932: a share consumer's process killed (ksim: ShareConsumer::on_crash). */
    private void shareCrash(Roster.ShareConsumer c) {
        Map<String, Object> e = HistoryWriter.event("share_crash");
        e.put("consumer", c.index());
        history.write(e);
    }

    private void consumerEvent(Roster.Consumer c, String kind) {
        Map<String, Object> e = HistoryWriter.event("consumer");
        e.put("consumer", c.index());
        e.put("kind", kind);
        history.write(e);
    }
}
