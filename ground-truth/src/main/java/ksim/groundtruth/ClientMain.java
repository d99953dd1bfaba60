package ksim.groundtruth;

import java.nio.file.Path;

/**
 * The entry point of a workload client's JVM:
 * {@code ClientMain RESOLVED.json NODE HISTORY_PART BOOTSTRAP [--restarted]}. The node is a
 * producer, a consumer or a share consumer of the scenario (a consumer runs its transform's producer too).
 */
public final class ClientMain {
    private ClientMain() {}

    public static void main(String[] args) throws Exception {
        Scenario scenario = ScenarioReader.read(Path.of(args[0]));
        String node = args[1];
        boolean restarted = args.length > 4 && args[4].equals("--restarted");
        Roster roster = new Roster(scenario);
        try (HistoryWriter history = new HistoryWriter(Path.of(args[2]))) {
            Roster.Consumer consumer = roster.consumer(node);
            Roster.ShareConsumer shareConsumer = roster.shareConsumer(node);
            if (shareConsumer != null) {
                runShareConsumer(scenario, shareConsumer, history, args[3]);
            } else if (consumer != null) {
                new WorkloadConsumer(scenario, consumer, history, args[3]).run(restarted);
            } else {
                Roster.Writer writer = roster.writer(node);
                if (writer == null) throw new IllegalArgumentException("no client node " + node);
                new WorkloadProducer(scenario, writer, history, args[3]).run();
            }
        }
        System.exit(0);
    }

    /**
     * By name: ShareWorkloadConsumer is compiled only against clients that have KafkaShareConsumer
     * (3.9+, pom.xml); the harness refuses share groups on older releases before any client starts.
     */
    private static void runShareConsumer(Scenario scenario, Roster.ShareConsumer node, HistoryWriter history,
                                         String bootstrap) throws Exception {
        Class<?> type = Class.forName("ksim.groundtruth.ShareWorkloadConsumer");
        Object consumer = type.getConstructor(Scenario.class, Roster.ShareConsumer.class, HistoryWriter.class, String.class)
                .newInstance(scenario, node, history, bootstrap);
        type.getMethod("run").invoke(consumer);
    }
}
