package ksim.groundtruth;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.common.utils.Utils;

/**
 * The scenario's partitioner, computed by the workload so it numbers each record before the
 * send, as ksim's does (models/client/producer/partitioner.cpp): a keyed record goes to
 * toPositive(murmur2(key)) % partitions (Kafka's BuiltInPartitioner, the key being the decimal
 * text of its number); a keyless one to the sticky partition of KIP-794, which moves to another
 * partition, drawn uniformly, after batch.size bytes. With partitioner.class
 * RoundRobinPartitioner every record goes to the next partition in turn, from 0.
 */
public final class KeyedPartitioner {
    private final int partitions;
    private final int batchSizeBytes;
    private final Random random;
    private int sticky = -1;
    private long stickyBytes;
    private final boolean roundRobin;
    private int next;

    public KeyedPartitioner(int partitions, int batchSizeBytes, Random random, boolean roundRobin) {
        this.partitions = partitions;
        this.roundRobin = roundRobin;
        this.batchSizeBytes = Math.max(1, batchSizeBytes);
        this.random = random;
    }

    public int partition(String key, int recordBytes) {
        if (roundRobin) return Utils.toPositive(next++) % partitions;
        if (key != null) return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
        if (sticky < 0) sticky = random.nextInt(partitions);
        int chosen = sticky;
        stickyBytes += recordBytes;
        if (stickyBytes >= batchSizeBytes) {
            stickyBytes = 0;
            if (partitions > 1) {
                int draw = random.nextInt(partitions - 1);
                sticky = draw >= sticky ? draw + 1 : draw;
            }
        }
        return chosen;
    }
}
