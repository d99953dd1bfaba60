#pragma once
// What a broker does that others watch: leadership changes, the high
// watermark, ISR proposals (KIP-497's AlterPartition), truncation, log dir
// failures (KIP-112), appends and transaction markers. Each event is also a
// trace record: kind() and trace() give its kind and fields.
#include <initializer_list>
#include <string_view>

#include "models/protocol/kafka_types.hpp"
#include "sim/observe/trace.hpp"

namespace ksim::models {

using TraceFields = std::initializer_list<TraceField>;

// Kafka's Partition.makeLeader: this broker leads the partition from `epoch` on.
struct BecameLeader {
  BrokerId broker;
  TopicPartition partition;
  Epoch epoch;
  Offset log_end_offset;
  Offset high_watermark;
  std::string_view kind() const { return "broker.become_leader"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"epoch", epoch},
           {"leo", log_end_offset}, {"hw", high_watermark}});
  }
};

// Kafka's Partition.makeFollower.
// KIP-455: a reassignment gave this broker a replica (created empty on its log
// dir with the fewest partitions), or took one away (stopped, its log deleted).
struct ReplicaCreated {
  BrokerId broker;
  TopicPartition partition;
  std::string_view log_dir;
  std::string_view kind() const { return "broker.replica_created"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"log_dir", log_dir}});
  }
};
// KIP-113: a replica's move to another log dir of its broker
// (alterReplicaLogDirs): its future replica created on the target dir, the
// future replica caught up and swapped in (the old log deleted), or the move
// abandoned (a log dir failed, the replica was deleted, another target asked).
enum class LogDirMovePhase : std::uint8_t { Started, Completed, Abandoned };
struct LogDirMoveChanged {
  BrokerId broker;
  TopicPartition partition;
  LogDirMovePhase phase;
  std::string_view from;    // the current log's dir
  std::string_view to;      // the future log's dir
  std::uint64_t bytes;      // the log's size (Completed: what moved)
  std::string_view reason;  // Abandoned: why
  std::string_view kind() const {
    switch (phase) {
      case LogDirMovePhase::Started: return "broker.log_dir_move_started";
      case LogDirMovePhase::Completed: return "broker.log_dir_move_completed";
      case LogDirMovePhase::Abandoned: return "broker.log_dir_move_abandoned";
    }
    return "broker.log_dir_move";
  }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"from", from}, {"to", to},
           {"bytes", bytes}, {"reason", reason}});
  }
};
struct ReplicaDeleted {
  BrokerId broker;
  TopicPartition partition;
  std::uint64_t bytes;  // what its log held
  std::string_view kind() const { return "broker.replica_deleted"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"bytes", bytes}});
  }
};

struct BecameFollower {
  BrokerId broker;
  TopicPartition partition;
  Epoch epoch;
  BrokerId leader;
  Offset log_end_offset;
  std::string_view kind() const { return "broker.become_follower"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"epoch", epoch}, {"leader", leader},
           {"leo", log_end_offset}});
  }
};

// A leader's high watermark moved forward (Partition.maybeIncrementLeaderHW).
struct HighWatermarkAdvanced {
  BrokerId broker;
  TopicPartition partition;
  Offset high_watermark;
  Epoch epoch;
  std::string_view kind() const { return "broker.high_watermark"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"hw", high_watermark}, {"epoch", epoch}});
  }
};

// A leader asks the controller to change the ISR (AlterPartition, KIP-497).
struct IsrChangeProposed {
  BrokerId broker;
  TopicPartition partition;
  std::size_t isr_before;
  std::size_t isr_proposed;
  std::string_view kind() const { return "broker.alter_isr"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"from", isr_before},
           {"to", isr_proposed}});
  }
};

// Why a log lost its tail.
enum class TruncationCause {
  Divergence,     // the leader said where the logs diverge (KIP-101, KIP-279)
  HighWatermark,  // a new follower before KIP-101 truncates to its high watermark
  InsideBatch,    // before KIP-101, a follower fetched from inside a leader's batch
  PowerLoss,      // the machine lost power: what was not flushed is gone
  OutOfRange,     // a follower fetched below its leader's log start offset: it starts again there, empty
};

// A follower's log was truncated. Only Divergence is traced (the others were not, and traces stay as they were).
struct LogTruncated {
  BrokerId broker;
  TopicPartition partition;
  Offset from;
  Offset to;
  TruncationCause cause;
  bool traced() const { return cause == TruncationCause::Divergence || cause == TruncationCause::OutOfRange; }
  std::string_view kind() const { return "broker.truncate"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"from", from}, {"to", to}});
  }
};

// The log cleaner compacted a replica's log (LogCleaner's Cleaner.doClean):
// offsets [from, to) were the dirty section mapped; `bytes_before` of the
// cleaned segments became `bytes_after`.
struct LogCleaned {
  BrokerId broker;
  TopicPartition partition;
  Offset from;
  Offset to;
  std::uint64_t bytes_before;
  std::uint64_t bytes_after;
  std::uint64_t records_removed;
  std::uint64_t tombstones_removed;
  bool traced() const { return true; }
  std::string_view kind() const { return "broker.clean_log"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"from", from}, {"to", to},
           {"bytes_before", bytes_before}, {"bytes_after", bytes_after}, {"records_removed", records_removed},
           {"tombstones_removed", tombstones_removed}});
  }
};

// Retention deleted a replica's oldest segments (UnifiedLog.deleteOldSegments):
// its log start offset moved from `from` to `to`, `bytes` left the log.
struct SegmentsDeleted {
  BrokerId broker;
  TopicPartition partition;
  Offset from;
  Offset to;
  std::uint64_t bytes;
  std::string_view reason;  // "retention.ms", "retention.bytes", "log start offset"
  bool traced() const { return true; }
  std::string_view kind() const { return "broker.delete_segments"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"from", from}, {"to", to},
           {"bytes", bytes}, {"reason", reason}});
  }
};

// KIP-405: a leader copied a segment of a partition to the remote store
// (RemoteLogManager.copyLogSegment, COPY_SEGMENT_FINISHED): offsets `base`..`end`.
struct SegmentCopiedToRemote {
  BrokerId broker;
  TopicPartition partition;
  Offset base;
  Offset end;
  std::uint64_t bytes;
  bool traced() const { return true; }
  std::string_view kind() const { return "broker.copy_to_remote"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"base", base}, {"end", end}, {"bytes", bytes}});
  }
};

// KIP-405: remote retention deleted a partition's oldest remote segments
// (RLMExpirationTask): its log start offset moved from `from` to `to`.
struct RemoteSegmentsDeleted {
  BrokerId broker;
  TopicPartition partition;
  Offset from;
  Offset to;
  std::uint64_t bytes;
  bool traced() const { return true; }
  std::string_view kind() const { return "broker.delete_remote_segments"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"from", from}, {"to", to}, {"bytes", bytes}});
  }
};

// A leader took a committed ISR from the controller in its epoch (its own
// AlterPartition, or the controller's). Not traced: traces stay as they were.
struct IsrUpdated {
  BrokerId broker;
  TopicPartition partition;
  std::size_t isr_size;
  bool traced() const { return false; }
  std::string_view kind() const { return "broker.isr_updated"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"isr", isr_size}});
  }
};

// KIP-112: a log dir went offline, and its replicas with it.
struct LogDirWentOffline {
  BrokerId broker;
  std::string_view path;
  std::string_view reason;
  std::string_view kind() const { return "broker.log_dir_offline"; }
  template <class Write> void trace(Write&& write) const { write({{"path", path}, {"reason", reason}}); }
};

// A controlled shutdown finished: the broker flushed its logs and exits.
struct BrokerShutDown {
  BrokerId broker;
  std::string_view kind() const { return "broker.shutdown"; }
  template <class Write> void trace(Write&& write) const { write({}); }
};

// KIP-380: a push of the ZooKeeper-era controller for the broker's previous
// process (an older broker epoch than its registration's) is refused
// (KafkaApis.isBrokerEpochStale: STALE_BROKER_EPOCH).
struct StalePushRefused {
  BrokerId broker;
  std::int64_t push_epoch;    // the broker epoch the push carries
  std::int64_t broker_epoch;  // this process's
  std::string_view kind() const { return "broker.stale_push"; }
  template <class Write> void trace(Write&& write) const {
    write({{"push_epoch", push_epoch}, {"broker_epoch", broker_epoch}});
  }
};

// A leader appended a producer's batch (ReplicaManager.appendRecords).
struct BatchAppended {
  BrokerId broker;
  TopicPartition partition;
  Offset base_offset;
  std::int32_t records;
  Epoch epoch;
  std::string_view kind() const { return "produce.append"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"offset", base_offset},
           {"records", records}, {"epoch", epoch}});
  }
};

// KIP-98: a retried batch already in the log, answered with its first offset.
struct DuplicateBatch {
  BrokerId broker;
  TopicPartition partition;
  Offset base_offset;
  std::string_view kind() const { return "produce.duplicate"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"offset", base_offset}});
  }
};

// A leader wrote a transaction's commit or abort marker (WriteTxnMarkers).
struct TxnMarkerWritten {
  BrokerId broker;
  TopicPartition partition;
  ProducerId producer;
  bool commit;
  std::string_view kind() const { return "txn.marker"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"producer", producer},
           {"commit", commit ? 1 : 0}});
  }
};

// KIP-932: a share-partition leader handed records to a member, `redelivered`
// of them delivered before (AVAILABLE again after a release or a lock
// expiry). Not traced: ksim explore's coverage counts it.
struct ShareRecordsAcquired {
  BrokerId broker;
  std::string_view group;
  TopicPartition partition;
  std::size_t records;
  std::size_t redelivered;
  bool traced() const { return false; }
  std::string_view kind() const { return "share.acquired"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"topic", partition.topic}, {"partition", partition.partition}, {"records", records},
           {"redelivered", redelivered}});
  }
};

// KIP-932: a share-partition leader took an acquired record back (its lock
// expired, the member released it or left), AVAILABLE again or, at
// group.share.delivery.count.limit, ARCHIVED. Not traced.
struct ShareRecordReleased {
  BrokerId broker;
  std::string_view group;
  TopicPartition partition;
  Offset offset;
  std::string_view why;  // ShareRelease: "lock expired", "released", "member left"
  bool lock_expired;
  bool archived;  // at the delivery count limit
  bool traced() const { return false; }
  std::string_view kind() const { return "share.released"; }
  template <class Write> void trace(Write&& write) const {
    write({{"group", group}, {"topic", partition.topic}, {"partition", partition.partition}, {"offset", offset},
           {"why", why}, {"archived", archived ? 1 : 0}});
  }
};

// KIP-631: the broker applied the committed metadata log up to `to` (its
// end offset), from `from`: what its replica of __cluster_metadata fetched and
// learnt was committed (BrokerMetadataListener / MetadataLoader's publish).
// `since`: when its process first published its image (batches committed before are caught up with).
struct MetadataApplied {
  BrokerId broker;
  Offset from;
  Offset to;
  SimTime since;
  std::size_t partitions;  // partition states it applied
  std::string_view kind() const { return "broker.metadata_applied"; }
  template <class Write> void trace(Write&& write) const {
    write({{"from", from}, {"to", to}, {"partitions", static_cast<std::int64_t>(partitions)}});
  }
};

}  // namespace ksim::models
