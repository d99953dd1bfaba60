package ksim.groundtruth;

import java.util.List;
import java.util.Map;

/**
 * The scenario as the harness needs it, taken from {@code ksim validate --resolved} (every
 * default filled in by ksim's own reader; docs/resolved-scenario.md, read by
 * {@link ScenarioReader}). Times are ns; Kafka configs are strings in Kafka's own units, ready
 * for a properties file or a client's Properties.
 */
public record Scenario(String file, String name, long durationNs, long drainNs,
                       Brokers brokers, List<Topic> topics, List<ProducerGroup> producers,
                       List<ConsumerSet> consumers, List<ShareConsumerSet> shareConsumers, List<Fault> faults,
                       Map<String, Integer> features, Long zooKeeperTickNs) {

    /**
     * Whether ksim modelled the cluster on ZooKeeper (a release before 3.3, or KIP-500 off on
     * 3.3-3.9: the resolved scenario's zookeeper section), and so the harness runs it on ZooKeeper.
     */
    public boolean zooKeeper() {
        return zooKeeperTickNs != null;
    }

    public record Brokers(int count, List<String> names, List<String> racks, Map<String, String> config) {}

    /**
     * {@code creation}: "start" (the cluster starts with it), "operation" (a create_topic operation creates it at
     * {@code createdAtNs}, null otherwise) or "auto" (a broker creates it when a client asks: auto.create.topics.enable).
     */
    public record Topic(String name, int partitions, int replicationFactor, List<List<Integer>> assignment,
                        Map<String, String> config, String creation, Long createdAtNs) {
        public boolean createdLater() {
            return !"start".equals(creation);
        }
    }

    /** Keys: "none", "uniform" or "zipf" over {@code count} keys. */
    public record Keys(String distribution, int count, double exponent) {}

    /** A producer group; {@code nodeConfigs} holds each node's whole config. */
    public record ProducerGroup(String name, List<String> nodes, String topic, boolean closedLoop, double ratePerSecond,
                                String arrival, Keys keys, int recordSizeMin, int recordSizeMax, long startNs,
                                long stopNs, int recordsPerTransaction, double abortProbability,
                                Map<String, Map<String, String>> nodeConfigs, String partitioner) {}

    /** A transform's output producer, one per consumer (EOS-v2) or per input partition (EOS-v1). */
    public record TransformProducer(String name, String consumer, Integer inputPartition) {}

    public record Transform(String topic, int recordSize, boolean sendGroupMetadata, boolean producerPerPartition,
                            int recordsPerTransaction, long commitIntervalNs, List<TransformProducer> producers,
                            Map<String, Map<String, String>> nodeConfigs) {}

    public record ConsumerSet(String name, List<String> nodes, String group, String topic, List<Integer> partitions,
                              long startNs, Distribution processingTime, String commit, Transform transform,
                              Map<String, Map<String, String>> nodeConfigs) {}

    /**
     * A share consumer entry (KIP-932, {@code share_group: NAME}): {@code poisonEvery} 0 for none, else every record
     * whose number is {@code poisonEvery - 1} modulo it fails and is acknowledged {@code poisonAcknowledge}
     * ("reject" or "release"); {@code config} the KafkaShareConsumer's configs (share.acknowledgement.mode among them).
     */
    public record ShareConsumerSet(String name, List<String> nodes, String group, String topic, long startNs,
                                   Distribution processingTime, boolean commitSync, long poisonEvery,
                                   String poisonAcknowledge, Map<String, String> config) {
        public boolean explicit() {
            return "explicit".equals(config.get("share.acknowledgement.mode"));
        }
    }

    /** One fault of the schedule; {@code line} is its line in the scenario file. */
    public record Fault(String kind, long atNs, Long durationNs, List<String> targets, List<String> nodes,
                        List<String> dynamicTargets, List<String> otherNodes, boolean oneWay, long extraLatencyNs,
                        boolean powerLoss, int line) {
        public String where(String file) {
            return file + ":" + line;
        }
    }

    public Topic topic(String name) {
        return topics.get(topicIndex(name));
    }

    public int topicIndex(String name) {
        for (int i = 0; i < topics.size(); i++) if (topics.get(i).name().equals(name)) return i;
        throw new IllegalArgumentException("no topic " + name);
    }
}
