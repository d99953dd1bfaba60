package ksim.groundtruth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who talks to whom, encoded in loopback addresses. Every process (server or client) has a
 * small number, its address id; a server (the controller, or ZooKeeper on a ZooKeeper-era
 * cluster, as ksim names them, and each broker) also has a hostname (broker-0.ksim). Process S reaches server D at 127.0.S.D, through its own hosts file
 * (-Djdk.net.hosts.file), on D's proxy port; the proxy listening there knows the connection goes
 * from S to D and forwards it to D's real listener on 127.0.0.1.
 */
public final class AddressPlan {
    public static final int CONTROLLER_ID = 1;
    public static final int HARNESS_ID = 250;
    private static final int FIRST_BROKER_ID = 2;
    private static final int FIRST_CLIENT_ID = 20;

    private final int basePort;
    private final int brokers;
    private final String quorum;
    private final Map<String, Integer> ids = new LinkedHashMap<>();

    /** {@code quorum}: the server that is not a broker, "controller" (KRaft) or "zookeeper". */
    public AddressPlan(int basePort, int brokers, List<String> clientNames, String quorum) {
        if (FIRST_BROKER_ID + brokers > FIRST_CLIENT_ID) throw new IllegalArgumentException("at most 18 brokers");
        if (FIRST_CLIENT_ID + clientNames.size() >= HARNESS_ID) throw new IllegalArgumentException("too many clients");
        this.basePort = basePort;
        this.brokers = brokers;
        this.quorum = quorum;
        ids.put(quorum, CONTROLLER_ID);
        for (int b = 0; b < brokers; b++) ids.put(brokerName(b), FIRST_BROKER_ID + b);
        for (int c = 0; c < clientNames.size(); c++) ids.put(clientNames.get(c), FIRST_CLIENT_ID + c);
        ids.put("harness", HARNESS_ID);
    }

    public static String brokerName(int broker) {
        return "broker-" + broker;
    }

    public static String hostname(String server) {
        return server + ".ksim";
    }

    public int brokerCount() {
        return brokers;
    }

    /** The node's address id, the S or D of 127.0.S.D. */
    public int id(String node) {
        Integer id = ids.get(node);
        if (id == null) throw new IllegalArgumentException("no node named " + node);
        return id;
    }

    public String nameOf(int id) {
        for (Map.Entry<String, Integer> e : ids.entrySet()) if (e.getValue() == id) return e.getKey();
        return "node-" + id;
    }

    public List<Integer> allIds() {
        return new ArrayList<>(ids.values());
    }

    /** The server that is not a broker: "controller" or "zookeeper". */
    public String quorum() {
        return quorum;
    }

    /** The controller (or ZooKeeper) and every broker: the processes with a listener. */
    public List<String> servers() {
        List<String> servers = new ArrayList<>();
        servers.add(quorum);
        for (int b = 0; b < brokers; b++) servers.add(brokerName(b));
        return servers;
    }

    /** The port a server is known by (its proxies listen there). */
    public int advertisedPort(String server) {
        return basePort + id(server);
    }

    /** The port of the server's own listener, on 127.0.0.1, reached only through the proxies. */
    public int realPort(String server) {
        return basePort + 100 + id(server);
    }

    public static String linkAddress(int source, int destination) {
        return "127.0." + source + "." + destination;
    }

    public String bootstrapServers() {
        StringBuilder s = new StringBuilder();
        for (int b = 0; b < brokers; b++) {
            if (b > 0) s.append(',');
            s.append(hostname(brokerName(b))).append(':').append(advertisedPort(brokerName(b)));
        }
        return s.toString();
    }

    /** Writes the hosts file of process {@code node}: every server's hostname at 127.0.NODE.SERVER. */
    public void writeHostsFile(String node, Path file) throws IOException {
        StringBuilder s = new StringBuilder("127.0.0.1 localhost\n");
        try {
            String machine = Files.readString(Path.of("/etc/hostname")).trim();
            if (!machine.isEmpty()) s.append("127.0.0.1 ").append(machine).append('\n');
        } catch (IOException ignored) {
            // no /etc/hostname: the JVM's own name lookups then fail harmlessly
        }
        for (String server : servers()) {
            s.append(linkAddress(id(node), id(server))).append(' ').append(hostname(server)).append('\n');
        }
        Files.writeString(file, s.toString());
    }
}
