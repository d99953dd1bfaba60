package ksim.groundtruth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * A KRaft cluster on this machine: one dedicated controller (node id 1000) and the scenario's
 * brokers (node ids 0..N-1, as ksim's assignments name them), each its own JVM, with storage
 * formatted by Kafka's own StorageTool. On a release ksim models with ZooKeeper (before 3.3) that
 * server is a standalone ZooKeeper instead, "zookeeper" as ksim names it (the ZooKeeper jar the release's broker
 * depends on), and the brokers elect the controller among themselves, as ksim's ZooKeeper-era
 * cluster does. Every server listens on 127.0.0.1 and is reached only through the proxies of its
 * {@link AddressPlan}.
 */
public final class KafkaCluster implements AutoCloseable {
    public static final int CONTROLLER_NODE_ID = 1000;
    private final Scenario scenario;
    private final AddressPlan addresses;
    private final Path dir;
    private final ProcessLauncher launcher;
    private final LinkRules rules = new LinkRules();
    private final Map<String, List<LinkProxy>> proxies = new LinkedHashMap<>();
    private final Map<String, NodeProcess> servers = new LinkedHashMap<>();
    private final List<String> formatArguments;
    private final boolean zookeeper;
    private Admin admin;

    /** {@code zookeeper}: the ZooKeeper era (no storage to format; formatArguments unused). */
    public KafkaCluster(Scenario scenario, AddressPlan addresses, Path dir, ProcessLauncher launcher,
                        List<String> formatArguments, boolean zookeeper) {
        this.formatArguments = formatArguments;
        this.zookeeper = zookeeper;
        this.scenario = scenario;
        this.addresses = addresses;
        this.dir = dir;
        this.launcher = launcher;
    }

    public LinkRules rules() {
        return rules;
    }

    public NodeProcess server(String name) {
        NodeProcess s = servers.get(name);
        if (s == null) throw new IllegalArgumentException("no server " + name);
        return s;
    }

    /** Every server by name: "controller" (or "zookeeper"), then "broker-0", "broker-1", ... */
    public Map<String, NodeProcess> servers() {
        return java.util.Collections.unmodifiableMap(servers);
    }

    public Admin admin() {
        return admin;
    }

    /** Formats every server's storage, starts the proxies and the servers, creates the topics. */
    public void start() throws Exception {
        String clusterId = newClusterId();
        Path hostsDir = Files.createDirectories(dir.resolve("hosts"));
        Map<String, Process> formats = new LinkedHashMap<>();
        for (String server : addresses.servers()) {
            Path nodeDir = Files.createDirectories(dir.resolve(server));
            Path props = nodeDir.resolve("server.properties");
            Path hosts = hostsDir.resolve(server);
            addresses.writeHostsFile(server, hosts);
            String heap = System.getProperty("ksim.server.heap", "256m");
            if (zookeeper && server.equals(addresses.quorum())) {
                writeProperties(props, zooKeeperProperties(server, nodeDir.resolve("data")));
                servers.put(server, new NodeProcess(server, "org.apache.zookeeper.server.ZooKeeperServerMain",
                        List.of(props.toString()), hosts, dir.resolve(server + ".log"), launcher, heap));
                continue;
            }
            writeProperties(props, serverProperties(server, nodeDir.resolve("data")));
            if (!zookeeper) formats.put(server, format(server, props, hosts, clusterId));
            servers.put(server, new NodeProcess(server, "kafka.Kafka", List.of(props.toString()), hosts,
                    dir.resolve(server + ".log"), launcher, heap));
        }
        for (Map.Entry<String, Process> f : formats.entrySet()) awaitFormat(f.getKey(), f.getValue());
        startProxies();
        for (NodeProcess s : servers.values()) s.start();
        admin = Admin.create(adminProperties());
        awaitBrokers();
        createTopics();
    }

    private void startProxies() throws IOException {
        for (String server : addresses.servers()) {
            for (int source : addresses.allIds()) {
                int destination = addresses.id(server); // a server's calls to itself too (AddPartitionsToTxn)
                proxies.computeIfAbsent(server, s -> new ArrayList<>()).add(new LinkProxy(source, destination,
                        addresses.advertisedPort(server), addresses.realPort(server), rules));
            }
        }
    }

    /**
     * A standalone ZooKeeper with the scenario's tickTime (ksim's zookeeper.tick_time, 2 s by
     * default: sessions of 4 to 40 s), no admin server, any number of connections.
     */
    private Map<String, String> zooKeeperProperties(String server, Path data) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("dataDir", data.toString());
        p.put("clientPortAddress", "127.0.0.1");
        p.put("clientPort", Integer.toString(addresses.realPort(server)));
        long tickNs = scenario.zooKeeperTickNs() == null ? 2_000_000_000L : scenario.zooKeeperTickNs();
        p.put("tickTime", Long.toString(Math.max(1, tickNs / 1_000_000)));
        p.put("maxClientCnxns", "0");
        p.put("admin.enableServer", "false");
        return p;
    }

    /** A ZooKeeper-era broker: registered in the run's ZooKeeper, reached through its proxy. */
    private Map<String, String> zooKeeperBrokerProperties(int broker) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("broker.id", Integer.toString(broker));
        p.put("zookeeper.connect", AddressPlan.hostname(addresses.quorum()) + ":" + addresses.advertisedPort(addresses.quorum()));
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT");
        return p;
    }

    private Map<String, String> serverProperties(String server, Path data) {
        Map<String, String> p = new LinkedHashMap<>();
        if (zookeeper) {
            int broker = Integer.parseInt(server.substring("broker-".length()));
            p.putAll(zooKeeperBrokerProperties(broker));
            p.put("log.dirs", data.toString());
            brokerProperties(p, server, broker);
            return p;
        }
        String voter = CONTROLLER_NODE_ID + "@" + AddressPlan.hostname("controller") + ":"
                + addresses.advertisedPort("controller");
        p.put("controller.quorum.voters", voter);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        p.put("log.dirs", data.toString());
        if (server.equals("controller")) {
            p.put("process.roles", "controller");
            p.put("node.id", Integer.toString(CONTROLLER_NODE_ID));
            p.put("listeners", "CONTROLLER://127.0.0.1:" + addresses.realPort(server));
            // Brokers reach the controller by the endpoint it registers: the proxied one
            p.put("advertised.listeners", "CONTROLLER://" + AddressPlan.hostname(server) + ":" + addresses.advertisedPort(server));
            // the controller's own: broker.session.timeout.ms, and the topics' defaults it applies
            p.putAll(scenario.brokers().config());
        } else {
            int broker = Integer.parseInt(server.substring("broker-".length()));
            p.put("process.roles", "broker");
            p.put("node.id", Integer.toString(broker));
            brokerProperties(p, server, broker);
        }
        allowShortShareLocks(p);
        remoteStorage(p);
        return p;
    }

    /** A broker's listener, rack, internal topics and threads, then the scenario's brokers.config. */
    private void brokerProperties(Map<String, String> p, String server, int broker) {
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + addresses.realPort(server));
        p.put("advertised.listeners", "PLAINTEXT://" + AddressPlan.hostname(server) + ":" + addresses.advertisedPort(server));
        p.put("inter.broker.listener.name", "PLAINTEXT");
        if (broker < scenario.brokers().racks().size()) p.put("broker.rack", scenario.brokers().racks().get(broker));
        int internalRf = Math.min(3, addresses.brokerCount());
        p.put("offsets.topic.replication.factor", Integer.toString(internalRf));
        p.put("transaction.state.log.replication.factor", Integer.toString(internalRf));
        p.put("transaction.state.log.min.isr", Integer.toString(Math.min(2, internalRf)));
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("auto.create.topics.enable", "false");
        p.putAll(scenario.brokers().config());
    }

    /**
     * KIP-405: with remote.log.storage.system.enable the brokers need a RemoteStorageManager: the
     * harness's FileRemoteStorage, in a directory every broker of the run shares (an object store),
     * and the topic-based remote log metadata manager on the brokers' listener.
     */
    private void remoteStorage(Map<String, String> p) {
        if (!"true".equals(p.get("remote.log.storage.system.enable"))) return;
        // by name: compiled only against the 3.6+ storage API (pom.xml); refused before 3.6
        p.put("remote.log.storage.manager.class.name", "ksim.groundtruth.FileRemoteStorage");
        p.put("rsm.config.dir", dir.resolve("remote-store").toString());
        p.put("remote.log.metadata.manager.listener.name", "PLAINTEXT");
        p.put("rlmm.config.remote.log.metadata.topic.replication.factor", Integer.toString(Math.min(3, addresses.brokerCount())));
    }

    /**
     * KIP-932: Kafka refuses a group.share.record.lock.duration.ms below
     * group.share.min.record.lock.duration.ms (15 s by default, ShareGroupConfig); ksim's scenarios
     * may lock for less (10 s), so the bound is lowered to the scenario's lock, which the broker allows.
     */
    private static void allowShortShareLocks(Map<String, String> p) {
        String lock = p.get("group.share.record.lock.duration.ms");
        if (lock == null || p.containsKey("group.share.min.record.lock.duration.ms")) return;
        if (Long.parseLong(lock) < 15_000) p.put("group.share.min.record.lock.duration.ms", lock);
    }

    /**
     * A KRaft cluster id as Kafka's Uuid.randomUuid().toString() makes one (16 random bytes,
     * URL-safe base64 without padding, never starting with '-'); by hand, as Uuid is not in the
     * clients before 2.8.
     */
    private static String newClusterId() {
        while (true) {
            java.util.UUID u = java.util.UUID.randomUUID();
            byte[] bytes = java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits())
                    .putLong(u.getLeastSignificantBits()).array();
            String id = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            if (!id.startsWith("-")) return id;
        }
    }

    private static void writeProperties(Path file, Map<String, String> values) throws IOException {
        StringBuilder s = new StringBuilder("# written by the ksim ground-truth harness\n");
        values.forEach((k, v) -> s.append(k).append('=').append(v).append('\n'));
        Files.writeString(file, s.toString());
    }

    /** Starts Kafka's StorageTool on the server's properties (all servers format at once). */
    private Process format(String server, Path props, Path hosts, String clusterId) throws IOException {
        List<String> args = new ArrayList<>(List.of("format", "-t", clusterId, "-c", props.toString()));
        args.addAll(formatArguments);
        return launcher.startJava(NodeProcess.jvmOptions("128m", hosts), "kafka.tools.StorageTool", args,
                dir.resolve(server + "-format.log"));
    }

    private void awaitFormat(String server, Process p) throws Exception {
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("StorageTool format failed for " + server + ": "
                    + Files.readString(dir.resolve(server + "-format.log")));
        }
    }

    public Properties adminProperties() {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, addresses.bootstrapServers());
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private void awaitBrokers() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (true) {
            try {
                Collection<?> nodes = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                if (nodes.size() == addresses.brokerCount()) return;
            } catch (Exception notYet) {
                // the brokers are still starting
            }
            for (NodeProcess s : servers.values()) {
                if (!s.isRunning()) throw new IllegalStateException(s.name() + " exited while starting: see " + dir.resolve(s.name() + ".log"));
            }
            if (System.nanoTime() > deadline) throw new IllegalStateException("the brokers did not all register in 90 s");
            Thread.sleep(200);
        }
    }

    /** The topics the cluster starts with; those a create_topic operation creates wait for it (TopicCreator). */
    private void createTopics() throws Exception {
        List<NewTopic> topics = new ArrayList<>();
        for (Scenario.Topic t : scenario.topics()) {
            if (!t.createdLater()) topics.add(newTopic(t));
        }
        admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        awaitLeaders(scenario.topics().stream().filter(t -> !t.createdLater()).map(Scenario.Topic::name).toList());
    }

    /** The Admin API's NewTopic for a scenario topic: its assignment, or its partitions and replication factor. */
    public static NewTopic newTopic(Scenario.Topic t) {
        NewTopic topic;
        if (t.assignment() != null && !t.assignment().isEmpty()) {
            Map<Integer, List<Integer>> assignment = new HashMap<>();
            for (int p = 0; p < t.assignment().size(); p++) assignment.put(p, t.assignment().get(p));
            topic = new NewTopic(t.name(), assignment);
        } else {
            topic = new NewTopic(t.name(), t.partitions(), (short) t.replicationFactor());
        }
        return topic.configs(t.config());
    }

    /** Waits until every partition of these topics has a leader with its full replica set in sync. */
    public void awaitLeaders(List<String> topicNames) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try {
                Map<String, TopicDescription> d = AdminCompat.describeTopics(admin, topicNames, 5);
                boolean ready = true;
                for (TopicDescription td : d.values()) {
                    for (TopicPartitionInfo p : td.partitions()) {
                        if (p.leader() == null || p.isr().size() < p.replicas().size()) ready = false;
                    }
                }
                if (ready) return;
            } catch (Exception notYet) {
                // metadata is still propagating
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("partitions of " + topicNames + " have no leader after 60 s");
    }

    /**
     * Makes the group and transaction coordinators ready before the workload starts, as they are
     * in ksim: a FindCoordinator for each group and transactional.id creates __consumer_offsets
     * and __transaction_state, and this waits until each answers.
     */
    public void prepareCoordinators(Collection<String> groups, Collection<String> transactionalIds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (String group : groups) {
            while (true) {
                try {
                    admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS);
                    break;
                } catch (Exception notYet) {
                    // Kafka 4.x: an unknown group is the answer of a coordinator that is ready
                    if (notYet.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) break;
                    if (System.nanoTime() > deadline) throw new IllegalStateException("no coordinator for group " + group, notYet);
                    Thread.sleep(500);
                }
            }
        }
        for (String id : transactionalIds) {
            while (true) {
                try {
                    AdminCompat.transactionCoordinator(admin, id, 10);
                    break;
                } catch (Exception e) {
                    // an unknown transactional.id is the answer of a coordinator that is ready
                    if (AdminCompat.isUnknownTransactionalId(e)) break;
                    if (System.nanoTime() > deadline) throw new IllegalStateException("no coordinator for transactional.id " + id, e);
                    Thread.sleep(500);
                }
            }
        }
        List<String> internal = new ArrayList<>();
        if (!groups.isEmpty()) internal.add("__consumer_offsets");
        if (!transactionalIds.isEmpty()) internal.add("__transaction_state");
        if (!internal.isEmpty()) awaitLeaders(internal);
    }

    /**
     * KIP-932: each share group starts from the log start offset (group config
     * share.auto.offset.reset=earliest, set before any member joins), so the group's records are the
     * whole log whenever its share-partitions are initialised; ksim's start when the members join at
     * time 0, before anything is produced, which is the same offset.
     */
    public void shareGroupsFromEarliest(Collection<String> shareGroups) throws Exception {
        for (String group : shareGroups) {
            org.apache.kafka.common.config.ConfigResource r =
                    new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.valueOf("GROUP") /* 4.0+: not in older clients */, group);
            org.apache.kafka.clients.admin.AlterConfigOp op = new org.apache.kafka.clients.admin.AlterConfigOp(
                    new org.apache.kafka.clients.admin.ConfigEntry("share.auto.offset.reset", "earliest"),
                    org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET);
            admin.incrementalAlterConfigs(Map.of(r, List.of(op))).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** The server has died: its proxies stop listening, so callers are refused. */
    public void serverDown(String server) {
        for (LinkProxy p : proxies.getOrDefault(server, List.of())) {
            try {
                p.close();
            } catch (IOException ignored) {
                // closed anyway
            }
        }
    }

    /** The server is starting again: its proxies listen again once its own listener accepts. */
    public void serverStarting(String server) {
        Thread t = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (System.nanoTime() < deadline && server(server).isRunning()) {
                try (java.net.Socket probe = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), addresses.realPort(server))) {
                    for (LinkProxy p : proxies.getOrDefault(server, List.of())) p.open();
                    return;
                } catch (IOException notYet) {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "await-" + server);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() {
        if (admin != null) admin.close(java.time.Duration.ofSeconds(2));
        for (NodeProcess s : servers.values()) s.crash();
        for (String server : proxies.keySet()) serverDown(server);
    }
}
