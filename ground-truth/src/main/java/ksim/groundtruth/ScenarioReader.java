package ksim.groundtruth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the output of {@code ksim validate --resolved} (docs/resolved-scenario.md) into a
 * {@link Scenario}. ksim's reader has already filled every default and checked every value;
 * this only moves fields across, and turns config values into the strings Kafka is given.
 */
public final class ScenarioReader {
    private ScenarioReader() {}

    public static Scenario read(Path resolvedJson) throws IOException {
        return read(Json.parseObject(Files.readString(resolvedJson)));
    }

    /** The Kafka release ksim modelled the scenario on ("3.2": its kafka_version). */
    public static String modelledRelease(Path resolvedJson) throws IOException {
        return str(Json.parseObject(Files.readString(resolvedJson)).get("kafka_version"));
    }

    public static Scenario read(Map<String, Object> s) {
        if (!"ksim-resolved-scenario".equals(s.get("format"))) {
            throw new IllegalArgumentException("not the output of ksim validate --resolved (format is " + s.get("format") + ")");
        }
        if (s.get("brokers") == null) throw new IllegalArgumentException("the scenario has no Kafka cluster (brokers:)");
        String file = str(s.get("file"));
        Map<String, Object> b = obj(s.get("brokers"));
        for (String oldBehaviour : List.of("truncate_to_high_watermark", "consumer_fetch_completes_on_append")) {
            if (Boolean.TRUE.equals(b.get(oldBehaviour))) {
                throw new IllegalArgumentException("brokers." + oldBehaviour + ": an old release's behaviour, which the harness's Kafka does not have");
            }
        }
        Scenario.Brokers brokers = new Scenario.Brokers(integer(b.get("count")), strings(b.get("names")),
                strings(b.get("racks")), config(b.get("config")));
        List<Scenario.Topic> topics = new ArrayList<>();
        for (Object o : list(s.get("topics"))) topics.add(topic(obj(o)));
        List<Scenario.ProducerGroup> producers = new ArrayList<>();
        for (Object o : list(s.get("producers"))) producers.add(producer(obj(o)));
        List<Scenario.ConsumerSet> consumers = new ArrayList<>();
        for (Object o : list(s.get("consumers"))) consumers.add(consumer(obj(o)));
        List<Scenario.ShareConsumerSet> shareConsumers = new ArrayList<>();
        for (Object o : list(s.get("share_consumers"))) shareConsumers.add(shareConsumer(obj(o)));
        List<Scenario.Fault> faults = new ArrayList<>();
        for (Object o : list(s.get("faults"))) faults.add(fault(obj(o)));
        if (s.get("nemesis") != null && !list(obj(s.get("nemesis")).get("rules")).isEmpty()) {
            throw new IllegalArgumentException(file + ": nemesis: random faults are not run on a real cluster (write them under faults:)");
        }
        // Operations: create_topic is run (TopicCreator, from the topics' created_at_ns); the others are not.
        for (Object o : list(s.get("operations"))) {
            Map<String, Object> op = obj(o);
            if ("create_topic".equals(op.get("kind"))) continue;
            throw new IllegalArgumentException(file + ":" + op.get("line") + ": operations: " + op.get("kind")
                    + " is not run by the harness (it runs create_topic only)");
        }
        if (Boolean.TRUE.equals(s.get("has_rpc"))) {
            throw new IllegalArgumentException(file + ": rpc: the request/response workload has no real cluster to run on");
        }
        Map<String, Integer> features = new LinkedHashMap<>();
        Object controller = s.get("controller");
        if (controller != null && obj(controller).get("features") != null) {
            obj(obj(controller).get("features")).forEach((k, v) -> features.put(k, integer(v)));
        }
        // A ZooKeeper-era cluster: the server's tickTime (null with KRaft)
        Long zooKeeperTickNs = s.get("zookeeper") == null ? null : number(obj(s.get("zookeeper")).get("tick_time_ns"));
        return new Scenario(file, str(s.get("name")), number(s.get("duration_ns")), number(s.get("drain_ns")),
                brokers, topics, producers, consumers, shareConsumers, faults, features, zooKeeperTickNs);
    }

    private static Scenario.Topic topic(Map<String, Object> t) {
        List<List<Integer>> assignment = null;
        if (t.get("assignment") != null) {
            assignment = new ArrayList<>();
            for (Object replicas : list(t.get("assignment"))) {
                List<Integer> r = new ArrayList<>();
                for (Object id : list(replicas)) r.add(integer(id));
                assignment.add(r);
            }
        }
        return new Scenario.Topic(str(t.get("name")), integer(t.get("partitions")), integer(t.get("replication_factor")),
                assignment, config(t.get("config")), str(t.get("creation")),
                t.get("created_at_ns") == null ? null : number(t.get("created_at_ns")));
    }

    private static Scenario.ProducerGroup producer(Map<String, Object> p) {
        Map<String, Object> w = obj(p.get("workload"));
        Map<String, Object> k = obj(w.get("keys"));
        Scenario.Keys keys = new Scenario.Keys(str(k.get("distribution")), integer(k.getOrDefault("count", 0L)),
                k.get("exponent") == null ? 1.0 : ((Number) k.get("exponent")).doubleValue());
        if (w.get("paced_by") != null) {
            throw new IllegalArgumentException("producer " + p.get("name") + ": rate: {after_polled_by} (paced by a consumer) is not run on a real cluster");
        }
        boolean closedLoop = Boolean.TRUE.equals(w.get("closed_loop"));
        double rate = w.get("rate_per_s") == null ? 0 : ((Number) w.get("rate_per_s")).doubleValue();
        return new Scenario.ProducerGroup(str(p.get("name")), strings(p.get("nodes")), str(w.get("topic")), closedLoop, rate,
                str(w.get("arrival")), keys, integer(w.get("record_size_min")), integer(w.get("record_size_max")),
                startNs(w), number(w.get("stop_ns")),
                w.get("records_per_transaction") == null ? 0 : integer(w.get("records_per_transaction")),
                w.get("abort_probability") == null ? 0 : ((Number) w.get("abort_probability")).doubleValue(),
                nodeConfigs(strings(p.get("nodes")), p.get("config"), p.get("node_configs")), str(w.get("partitioner")));
    }

    private static Scenario.ConsumerSet consumer(Map<String, Object> c) {
        Map<String, Object> w = obj(c.get("workload"));
        List<Integer> partitions = new ArrayList<>();
        for (Object o : list(w.get("partitions"))) partitions.add(integer(o));
        Scenario.Transform transform = null;
        if (c.get("transform") != null) {
            Map<String, Object> t = obj(c.get("transform"));
            List<Scenario.TransformProducer> producers = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (Object o : list(t.get("producers"))) {
                Map<String, Object> tp = obj(o);
                producers.add(new Scenario.TransformProducer(str(tp.get("name")), str(tp.get("consumer")),
                        tp.get("input_partition") == null ? null : integer(tp.get("input_partition"))));
                names.add(str(tp.get("name")));
            }
            transform = new Scenario.Transform(str(t.get("topic")), integer(t.get("record_size")),
                    Boolean.TRUE.equals(t.get("send_group_metadata")), Boolean.TRUE.equals(t.get("producer_per_partition")),
                    integer(t.getOrDefault("records_per_transaction", 0L)), number(t.getOrDefault("commit_interval_ns", 0L)),
                    producers, nodeConfigs(names, t.get("config"), t.get("node_configs")));
        }
        Object pt = w.get("processing_time");
        Distribution processing = pt == null ? Distribution.ZERO : Distribution.parse(str(obj(pt).get("text")));
        return new Scenario.ConsumerSet(str(c.get("name")), strings(c.get("nodes")), str(c.get("group")), str(c.get("topic")),
                partitions, startNs(w), processing, str(w.get("commit")), transform,
                nodeConfigs(strings(c.get("nodes")), c.get("config"), c.get("node_configs")));
    }

    private static Scenario.ShareConsumerSet shareConsumer(Map<String, Object> c) {
        Map<String, Object> w = obj(c.get("workload"));
        Object pt = w.get("processing_time");
        Distribution processing = pt == null ? Distribution.ZERO : Distribution.parse(str(obj(pt).get("text")));
        Map<String, Object> poison = w.get("poison") == null ? null : obj(w.get("poison"));
        return new Scenario.ShareConsumerSet(str(c.get("name")), strings(c.get("nodes")), str(c.get("share_group")),
                str(c.get("topic")), startNs(w), processing, "sync-after-process".equals(w.get("commit")),
                poison == null ? 0 : number(poison.get("every")), poison == null ? null : str(poison.get("acknowledge")),
                config(c.get("config")));
    }

    private static Scenario.Fault fault(Map<String, Object> f) {
        return new Scenario.Fault(str(f.get("kind")), number(f.get("at_ns")),
                f.get("duration_ns") == null ? null : number(f.get("duration_ns")),
                strings(f.get("targets")), strings(f.get("nodes")), strings(f.get("dynamic_targets")),
                strings(f.get("other_nodes")), Boolean.TRUE.equals(f.get("one_way")),
                f.get("extra_latency_ns") == null ? 0 : number(f.get("extra_latency_ns")),
                Boolean.TRUE.equals(f.get("power_loss")), f.get("line") == null ? 0 : integer(f.get("line")));
    }

    /** Each node's whole config: the group's config with the node's own values over it. */
    private static Map<String, Map<String, String>> nodeConfigs(List<String> nodes, Object config, Object perNode) {
        Map<String, String> common = config(config);
        Map<String, Object> own = perNode == null ? Map.of() : obj(perNode);
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (String node : nodes) {
            Map<String, String> c = new LinkedHashMap<>(common);
            if (own.get(node) != null) c.putAll(config(own.get(node)));
            out.put(node, c);
        }
        return out;
    }

    /** A config map as Kafka is given it: numbers in their own units, lists comma-separated. */
    static Map<String, String> config(Object o) {
        Map<String, String> out = new LinkedHashMap<>();
        if (o == null) return out;
        for (Map.Entry<String, Object> e : obj(o).entrySet()) {
            Object v = e.getValue();
            String text;
            if (v instanceof List<?> l) {
                text = String.join(",", l.stream().map(Object::toString).toList());
            } else if (v instanceof Double d) {
                text = d == Math.rint(d) ? Long.toString(d.longValue()) : Long.toString(Math.round(d));
            } else {
                text = String.valueOf(v);
            }
            out.put(e.getKey(), text);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> obj(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        return o == null ? List.of() : (List<Object>) o;
    }

    private static List<String> strings(Object o) {
        return list(o).stream().map(Object::toString).toList();
    }

    private static String str(Object o) {
        return o == null ? null : o.toString();
    }

    // A client's start: null is once the cluster is ready, which is when this
    // harness starts its clients (after the topics exist), its time 0.
    private static long startNs(Map<String, Object> workload) {
        Object start = workload.get("start_ns");
        return start == null ? 0 : number(start);
    }

    private static long number(Object o) {
        return ((Number) o).longValue();
    }

    private static int integer(Object o) {
        return ((Number) o).intValue();
    }
}
