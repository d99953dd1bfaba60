package ksim.groundtruth;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The scenario's cluster features (the resolved {@code controller.features}), set as Kafka's own
 * tools set them: {@code kafka-storage format --feature NAME=LEVEL} (KIP-1022, Kafka 3.9+; the
 * features used here exist from 4.0). A release that lacks a feature runs the scenario only at
 * level 0, which is what that release does.
 */
public final class ClusterFeatures {
    /** KIP-966's eligible leader replicas: a feature since 4.0 (on by default for a new cluster since 4.1). */
    static final String ELR = "eligible.leader.replicas.version";
    /** KIP-890 part 2's transactions v2 at level 2: a feature since 4.0 (2 by default for a new cluster). */
    static final String TRANSACTION_VERSION = "transaction.version";

    private ClusterFeatures() {}

    /** KIP-932's share groups: share.version 1 (a feature since 4.1, on by default for a new cluster since 4.2). */
    static final String SHARE_VERSION = "share.version";

    /** The format tool's arguments: every feature, spelled out, on a release that has them. */
    public static List<String> formatArguments(Scenario s, String kafkaVersion) {
        List<String> args = new ArrayList<>();
        if (!atLeast(kafkaVersion, 4, 0)) return args;
        for (Map.Entry<String, Integer> f : s.features().entrySet()) {
            args.add("--feature");
            args.add(f.getKey() + "=" + f.getValue());
        }
        if (!s.shareConsumers().isEmpty()) {
            args.add("--feature");
            args.add(SHARE_VERSION + "=1");
        }
        return args;
    }

    /** Why the release cannot run the scenario's features, one line each (empty: it can). */
    public static List<String> refusals(Scenario s, String kafkaVersion) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, Integer> f : s.features().entrySet()) {
            if (!f.getKey().equals(ELR) && !f.getKey().equals(TRANSACTION_VERSION)) {
                out.add(s.file() + ": controller.features." + f.getKey() + ": not a feature the harness knows");
            } else if (f.getValue() > 0 && !atLeast(kafkaVersion, 4, 0)) {
                out.add(s.file() + ": controller.features." + f.getKey() + "=" + f.getValue() + ": Kafka " + kafkaVersion
                        + " has no such feature (" + (f.getKey().equals(ELR) ? "KIP-966" : "KIP-890 part 2")
                        + " is in 4.0 and later)");
            }
        }
        if (!s.shareConsumers().isEmpty() && !atLeast(kafkaVersion, 4, 2)) {
            out.add(s.file() + ": share consumers (KIP-932): the harness runs share groups on Kafka 4.2 and later (production ready "
                    + "there), not on " + kafkaVersion);
        }
        if ("true".equals(s.brokers().config().get("remote.log.storage.system.enable")) && !atLeast(kafkaVersion, 3, 6)) {
            out.add(s.file() + ": remote.log.storage.system.enable (KIP-405): the harness's remote storage manager needs "
                    + "Kafka 3.6 or later, not " + kafkaVersion);
        }
        return out;
    }

    /** ksim's newest modelled release (`ksim versions`): a newer real release is compared with it. */
    static final String KSIM_LATEST_RELEASE = "4.3";

    /**
     * The real cluster must run the release ksim modelled (its kafka_version: defaults, mechanisms,
     * the ZooKeeper or KRaft controller), or a newer one than ksim models when ksim modelled its
     * newest. Null when it does, else why not.
     */
    public static String releaseRefusal(String file, String modelled, String kafkaVersion) {
        String[] parts = kafkaVersion.split("[.-]");
        String real = parts[0] + "." + (parts.length > 1 ? parts[1] : "0");
        if (real.equals(modelled)) return null;
        String[] latest = KSIM_LATEST_RELEASE.split("\\.");
        int major = Integer.parseInt(latest[0]);
        int nextMinor = Integer.parseInt(latest[1]) + 1;
        if (modelled.equals(KSIM_LATEST_RELEASE) && atLeast(kafkaVersion, major, nextMinor)) return null;
        return file + ": ksim modelled Kafka " + modelled + " (kafka_version), the cluster would run " + kafkaVersion
                + ": pass --set kafka_version=" + real + " (or run the release the scenario names)";
    }

    /** Whether a release "MAJOR.MINOR[.PATCH]" is at least major.minor. */
    static boolean atLeast(String version, int major, int minor) {
        String[] parts = version.split("[.-]");
        int ma = Integer.parseInt(parts[0]);
        int mi = parts.length > 1 ? Integer.parseInt(parts[1]) : 0;
        return ma > major || (ma == major && mi >= minor);
    }
}
