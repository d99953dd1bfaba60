package ksim.groundtruth;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * Tiered storage's remote store for the ground-truth cluster (KIP-405): a RemoteStorageManager that
 * keeps each copied segment, its indexes and its producer snapshot in a directory shared by the
 * brokers (rsm.config.dir), one sub-directory per segment id. The brokers load it by
 * remote.log.storage.manager.class.name when a scenario turns remote.log.storage.system.enable on
 * (KafkaCluster). Kafka's own LocalTieredStorage does the same for its tests but is not in a
 * published jar.
 */
public final class FileRemoteStorage implements RemoteStorageManager {
    private Path root;

    @Override
    public void configure(Map<String, ?> configs) {
        Object dir = configs.get("dir");
        if (dir == null) throw new IllegalArgumentException("FileRemoteStorage needs rsm.config.dir");
        root = Path.of(dir.toString());
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path segmentDir(RemoteLogSegmentMetadata m) {
        return root.resolve(m.remoteLogSegmentId().id().toString());
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata m,
                                                                                  LogSegmentData data)
            throws RemoteStorageException {
        try {
            Path dir = Files.createDirectories(segmentDir(m));
            copy(data.logSegment(), dir.resolve("segment"));
            copy(data.offsetIndex(), dir.resolve(IndexType.OFFSET.name()));
            copy(data.timeIndex(), dir.resolve(IndexType.TIMESTAMP.name()));
            if (data.transactionIndex().isPresent()) copy(data.transactionIndex().get(), dir.resolve(IndexType.TRANSACTION.name()));
            copy(data.producerSnapshotIndex(), dir.resolve(IndexType.PRODUCER_SNAPSHOT.name()));
            ByteBuffer epochs = data.leaderEpochIndex().duplicate();
            byte[] bytes = new byte[epochs.remaining()];
            epochs.get(bytes);
            Files.write(dir.resolve(IndexType.LEADER_EPOCH.name()), bytes);
            return Optional.empty();
        } catch (IOException e) {
            throw new RemoteStorageException("copying " + m.remoteLogSegmentId(), e);
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        if (from != null && Files.exists(from)) Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int startPosition) throws RemoteStorageException {
        return fetchLogSegment(m, startPosition, Integer.MAX_VALUE);
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata m, int startPosition, int endPosition)
            throws RemoteStorageException {
        try {
            byte[] all = Files.readAllBytes(segmentDir(m).resolve("segment"));
            int from = Math.min(startPosition, all.length);
            int to = endPosition == Integer.MAX_VALUE ? all.length : Math.min(all.length, endPosition + 1);
            return new ByteArrayInputStream(Arrays.copyOfRange(all, from, Math.max(from, to)));
        } catch (IOException e) {
            throw new RemoteStorageException("reading " + m.remoteLogSegmentId(), e);
        }
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata m, IndexType indexType) throws RemoteStorageException {
        Path file = segmentDir(m).resolve(indexType.name());
        try {
            if (!Files.exists(file)) {
                if (indexType == IndexType.TRANSACTION) return new ByteArrayInputStream(new byte[0]);
                throw new RemoteStorageException("no " + indexType + " index for " + m.remoteLogSegmentId());
            }
            return new ByteArrayInputStream(Files.readAllBytes(file));
        } catch (IOException e) {
            throw new RemoteStorageException("reading " + indexType + " of " + m.remoteLogSegmentId(), e);
        }
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata m) throws RemoteStorageException {
        Path dir = segmentDir(m);
        if (!Files.exists(dir)) return;
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new RemoteStorageException("deleting " + m.remoteLogSegmentId(), e);
        }
    }

    @Override
    public void close() {}
}
