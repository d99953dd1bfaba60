package ksim.groundtruth;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.kafka.common.utils.Utils;

/**
 * The scenario's partitioner, computed by the workload so it numbers each record before the
 * send, as ksim's does (models/client/producer/partitioner.cpp), by the resolved workload's
 * {@code partitioner}: a keyed record ("murmur2-key") goes to toPositive(murmur2(key)) %
 * partitions (Kafka's BuiltInPartitioner, the key being the decimal text of its number); a
 * keyless one to the sticky partition of KIP-794 ("sticky", 3.3+), which moves to another
 * partition, drawn uniformly, after batch.size bytes; or of KIP-480 ("sticky-on-new-batch",
 * 2.4-3.2: DefaultPartitioner's StickyPartitionCache), which moves when the record would open a
 * new batch there, each partition's open batch mirrored and taken as sent linger.ms after its
 * first record, as ksim mirrors it; or ("round-robin": RoundRobinPartitioner, or a keyless record
 * before 2.4) to the next partition in turn, from 0.
 */
public final class KeyedPartitioner {
    /** What a v2 batch holds before its first record (DefaultRecordBatch.RECORD_BATCH_OVERHEAD). */
    private static final int BATCH_HEADER_BYTES = 61;
    private final int partitions;
    private final int batchSizeBytes;
    private final Random random;
    private final String kind;
    private final long lingerNs;
    private int sticky = -1;
    private long stickyBytes;
    private int next;
    private final long[] openBatchBytes;
    private final long[] openBatchStartNs;

    public KeyedPartitioner(int partitions, int batchSizeBytes, Random random, String kind, long lingerNs) {
        this.partitions = partitions;
        this.kind = kind;
        this.lingerNs = lingerNs;
        this.batchSizeBytes = Math.max(1, batchSizeBytes);
        this.random = random;
        this.openBatchBytes = new long[partitions];
        this.openBatchStartNs = new long[partitions];
    }

    /** The partition of a record of {@code recordBytes}, handed to send() at run time {@code nowNs}. */
    public int partition(String key, int recordBytes, long nowNs) {
        if (kind.equals("round-robin")) return Utils.toPositive(next++) % partitions;
        if (key != null) return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
        if (sticky < 0) sticky = random.nextInt(partitions);
        if (kind.equals("sticky-on-new-batch")) return stickyOnNewBatch(recordBytes, nowNs);
        int chosen = sticky;
        stickyBytes += recordBytes;
        if (stickyBytes >= batchSizeBytes) {
            stickyBytes = 0;
            sticky = another();
        }
        return chosen;
    }

    private int stickyOnNewBatch(int recordBytes, long nowNs) {
        if (!hasRoom(sticky, recordBytes, nowNs)) {
            sticky = another();
            if (!hasRoom(sticky, recordBytes, nowNs)) {
                openBatchBytes[sticky] = BATCH_HEADER_BYTES;
                openBatchStartNs[sticky] = nowNs;
            }
        }
        openBatchBytes[sticky] += recordBytes;
        return sticky;
    }

    private boolean hasRoom(int p, int recordBytes, long nowNs) {
        boolean sent = nowNs - openBatchStartNs[p] >= lingerNs;
        return openBatchBytes[p] > 0 && !sent && openBatchBytes[p] + recordBytes <= batchSizeBytes;
    }

    /** StickyPartitionCache.nextPartition: a different partition, drawn uniformly. */
    private int another() {
        if (partitions <= 1) return sticky;
        int draw = random.nextInt(partitions - 1);
        return draw >= sticky ? draw + 1 : draw;
    }
}
