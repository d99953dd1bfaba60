#pragma once
// Tiered storage's remote tier (KIP-405): what the remote store holds of each
// partition, as Kafka's RemoteLogMetadataManager lists it (the segments
// COPY_SEGMENT_FINISHED, oldest first) with the segments' data the
// RemoteStorageManager keeps. One store for the whole cluster, as an object
// store is: every broker sees a segment once its copy finished (Kafka's
// TopicBasedRemoteLogMetadataManager publishes it through the
// __remote_log_metadata topic; ksim leaves that topic's delay out).
//
// No timing here: the brokers' RemoteLogManager decides when to copy, read and
// expire (models/broker/broker_tiered.cpp), and the remote store's latency and
// bandwidth are charged there.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

// One segment in remote storage (RemoteLogSegmentMetadata with its data).
struct RemoteLogSegment {
  Offset base_offset = 0;
  Offset end_offset = 0;            // the last offset it holds (endOffset, inclusive)
  std::uint64_t bytes = 0;          // segmentSizeInBytes
  SimTime largest_timestamp = -1;   // maxTimestampMs: remote retention.ms reads it
  BrokerId copied_by = kNoBroker;   // the leader that copied it (brokerId)
  Epoch leader_epoch = 0;           // the copying leader's epoch
  std::vector<RecordBatch> batches;
};

// A partition's remote log: segments from its log start offset, in order of their end offsets.
class RemotePartitionLog {
 public:
  // The partition's log start offset (UnifiedLog.logStartOffset under tiered
  // storage): 0 until remote retention deletes a segment, then the end of the
  // last one deleted plus one.
  Offset log_start_offset() const { return log_start_offset_; }
  // The last offset copied (highestOffsetInRemoteStorage); -1 when none was.
  Offset highest_offset() const { return highest_offset_; }
  std::uint64_t size_bytes() const { return size_bytes_; }
  const std::vector<RemoteLogSegment>& segments() const { return segments_; }

  // A copy finished. Precondition: it ends past the highest offset copied.
  void add(RemoteLogSegment segment);
  // The segment holding `offset`; null when no segment does.
  const RemoteLogSegment* segment_containing(Offset offset) const;
  // RemoteLogManager.read: the batches of the segment holding `offset`, from
  // the one containing it, up to `max_bytes` (at least one batch); within that
  // segment only, as Kafka reads one remote segment per fetch.
  std::span<const RecordBatch> read(Offset offset, std::uint64_t max_bytes) const;
  // The batches of every segment overlapping [from, to), in offset order.
  std::vector<RecordBatch> batches_between(Offset from, Offset to) const;

  // RLMExpirationTask.cleanupExpiredRemoteLogSegments: deletes from the oldest
  // the segments whose largest timestamp is more than `retention_ms` before
  // `now` (-1: no limit) and, while remote plus `local_only_bytes` exceed
  // `retention_bytes` (-1: no limit), those that fit in the excess; the log
  // start offset moves past them. Returns the deleted segments.
  std::vector<RemoteLogSegment> expire(SimTime now, SimTime retention_ms, std::int64_t retention_bytes,
                                       std::uint64_t local_only_bytes);

 private:
  std::vector<RemoteLogSegment> segments_;
  Offset log_start_offset_ = 0;
  Offset highest_offset_ = -1;
  std::uint64_t size_bytes_ = 0;
};

// The remote store of the whole cluster, by partition.
class RemoteStorage {
 public:
  RemotePartitionLog& log(TopicPartition tp) { return logs_[tp]; }
  // Null when nothing of the partition was ever copied.
  const RemotePartitionLog* find(TopicPartition tp) const;
  Offset log_start_offset(TopicPartition tp) const;
  Offset highest_offset(TopicPartition tp) const;
  std::uint64_t size_bytes() const;
  const std::map<TopicPartition, RemotePartitionLog>& logs() const { return logs_; }

 private:
  std::map<TopicPartition, RemotePartitionLog> logs_;
};

}  // namespace ksim::models
