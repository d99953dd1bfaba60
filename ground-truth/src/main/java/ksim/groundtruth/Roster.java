package ksim.groundtruth;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who is who in a history (the header's {@code writers}, {@code consumers} and {@code share_consumers}): every producer
 * node, then every transform's producer, numbered in that order; every consumer node; every share consumer node. The
 * harness and each client compute it from the same scenario, so their indexes agree.
 */
public final class Roster {
    /** A writer: a workload producer or a transform's output producer (living in its consumer's JVM, {@code node}). */
    public record Writer(int index, String name, Map<String, String> config, String topic, String node) {
        public String transactionalId() {
            return config.get("transactional.id");
        }

        public boolean idempotent() {
            return Boolean.parseBoolean(config.getOrDefault("enable.idempotence", "false")) || transactionalId() != null;
        }

        public String acks() {
            String acks = config.getOrDefault("acks", "all");
            return acks.equals("-1") ? "all" : acks;
        }
    }

    public record Consumer(int index, String name, Scenario.ConsumerSet set) {}

    /** A share consumer node (KIP-932): its index among the share consumers (the header's {@code share_consumers}). */
    public record ShareConsumer(int index, String name, Scenario.ShareConsumerSet set) {}

    private final List<Writer> writers = new ArrayList<>();
    private final List<Consumer> consumers = new ArrayList<>();
    private final List<ShareConsumer> shareConsumers = new ArrayList<>();
    private final Map<String, Scenario.ProducerGroup> producerGroupOf = new LinkedHashMap<>();

    public Roster(Scenario scenario) {
        for (Scenario.ProducerGroup g : scenario.producers()) {
            for (String node : g.nodes()) {
                writers.add(new Writer(writers.size(), node, g.nodeConfigs().get(node), g.topic(), node));
                producerGroupOf.put(node, g);
            }
        }
        for (Scenario.ConsumerSet c : scenario.consumers()) {
            if (c.transform() == null) continue;
            for (Scenario.TransformProducer p : c.transform().producers()) {
                writers.add(new Writer(writers.size(), p.name(), c.transform().nodeConfigs().get(p.name()), c.transform().topic(),
                        p.consumer()));
            }
        }
        for (Scenario.ConsumerSet c : scenario.consumers()) {
            for (String node : c.nodes()) consumers.add(new Consumer(consumers.size(), node, c));
        }
        for (Scenario.ShareConsumerSet c : scenario.shareConsumers()) {
            for (String node : c.nodes()) shareConsumers.add(new ShareConsumer(shareConsumers.size(), node, c));
        }
    }

    public List<Writer> writers() {
        return writers;
    }

    public List<Consumer> consumers() {
        return consumers;
    }

    public List<ShareConsumer> shareConsumers() {
        return shareConsumers;
    }

    public ShareConsumer shareConsumer(String name) {
        for (ShareConsumer c : shareConsumers) if (c.name().equals(name)) return c;
        return null;
    }

    /** The share groups, each once, in the order of their first consumer. */
    public List<String> shareGroups() {
        return shareConsumers.stream().map(c -> c.set().group()).distinct().toList();
    }

    public Writer writer(String name) {
        for (Writer w : writers) if (w.name().equals(name)) return w;
        return null;
    }

    public Consumer consumer(String name) {
        for (Consumer c : consumers) if (c.name().equals(name)) return c;
        return null;
    }

    public Scenario.ProducerGroup producerGroupOf(String node) {
        return producerGroupOf.get(node);
    }

    /** The transform producer of a consumer node (EOS-v2: one per consumer), or null. */
    public Writer transformWriterOf(Consumer c) {
        if (c.set().transform() == null) return null;
        for (Scenario.TransformProducer p : c.set().transform().producers()) {
            if (p.consumer().equals(c.name())) return writer(p.name());
        }
        return null;
    }

    public List<String> groups() {
        return consumers.stream().map(c -> c.set().group()).distinct().toList();
    }

    public List<String> transactionalIds() {
        return writers.stream().map(Writer::transactionalId).filter(java.util.Objects::nonNull).distinct().toList();
    }

    /** Every process the workload runs: producer nodes and consumer nodes (a transform's producer lives in its consumer). */
    public List<String> clientNodes() {
        List<String> nodes = new ArrayList<>(producerGroupOf.keySet());
        for (Consumer c : consumers) nodes.add(c.name());
        for (ShareConsumer c : shareConsumers) nodes.add(c.name());
        return nodes;
    }
}
