#pragma once
// A share-partition at its leader (KIP-932; Kafka's SharePartition,
// core/src/main/java/kafka/server/share/SharePartition.java): the in-flight
// records of one topic-partition for one share group, between the
// share-partition start offset (SPSO: every record before it is done) and
// the end offset (SPEO: the next record not yet fetched). Each in-flight
// record is AVAILABLE, ACQUIRED by one member under an acquisition lock
// (group.share.record.lock.duration.ms), ACKNOWLEDGED or ARCHIVED, with the
// number of times it was delivered.
//
// - acquire: AVAILABLE records first (redeliveries), then new ones up to the
//   high watermark, while fewer than group.share.partition.max.record.locks
//   records are in flight (SharePartition.canAcquireRecords); each delivery
//   counts one.
// - acknowledge: ACCEPT -> ACKNOWLEDGED, REJECT -> ARCHIVED, RELEASE ->
//   AVAILABLE, or ARCHIVED once group.share.delivery.count.limit deliveries
//   were made (InFlightState.tryUpdateState); only the holder may.
// - a lock that expires releases the record the same way
//   (releaseAcquisitionLockOnTimeout), and so does the member leaving
//   (releaseAcquiredRecords).
// - the SPSO moves past ACKNOWLEDGED and ARCHIVED records at its front
//   (maybeUpdateCachedStateAndOffsets).
//
// Simplifications: state is kept per record (Kafka per batch, splitting into
// per-offset state when acknowledgements differ); new records are acquired
// one by one up to the limit (Kafka acquires whole fetched batches and may
// pass it); control records are acknowledged without delivery.
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/coordinator/share_state_store.hpp"
#include "models/history/share_history.hpp"
#include "models/log/partition_log.hpp"
#include "models/protocol/share_group_messages.hpp"

namespace ksim::models {

struct SharePartitionConfig {
  SimTime lock_duration = seconds(30);  // group.share.record.lock.duration.ms
  std::int32_t delivery_count_limit = 5;  // group.share.delivery.count.limit
  std::int32_t max_record_locks = 200;    // group.share.partition.max.record.locks
};

class SharePartition {
 public:
  using Observer = std::function<void(const ShareLeaderEvent&)>;
  // From the persisted state, or (none) starting at `reset_offset` (share.auto.offset.reset).
  SharePartition(std::string group, TopicPartition tp, SharePartitionConfig config,
                 const PersistedSharePartition* persisted, Offset reset_offset, Observer observer);

  // Up to `max_records` records for `member`, locked until now + lock duration.
  std::vector<AcquiredRecord> acquire(const std::string& member, const PartitionLog& log, Offset upper,
                                      std::int32_t max_records, SimTime now);
  Error acknowledge(const std::string& member, Offset offset, AcknowledgeType type, SimTime now);
  // Releases every acquired record whose lock ended by `now`; how many.
  std::size_t expire_locks(SimTime now);
  std::size_t release_member(const std::string& member, SimTime now);  // the member left
  // Whether acquire could return something now (AVAILABLE records, or new ones below `upper`).
  bool has_available(Offset upper) const;
  std::optional<SimTime> next_lock_expiry() const;

  PersistedSharePartition persisted() const;
  Offset start_offset() const { return start_; }
  Offset end_offset() const { return end_; }
  std::size_t in_flight() const { return records_.size(); }
  // Its invariants (models/check/cluster_invariants.cpp): the first broken, by name, with what was seen.
  struct Broken {
    std::string_view invariant;
    std::string detail;
  };
  std::optional<Broken> check(SimTime now) const;
  TopicPartition partition() const { return tp_; }

 private:
  struct InFlight {
    ShareRecordState state = ShareRecordState::Available;
    std::int16_t delivery_count = 0;
    std::string member;
    SimTime lock_until = 0;
  };
  void transition(InFlight& record, ShareRecordState next);
  // ACQUIRED -> AVAILABLE, or ARCHIVED at the delivery count limit.
  void release(Offset offset, InFlight& record, ShareRelease why, SimTime now);
  void advance_start();
  void emit(Offset offset, const InFlight& record, ShareOutcome outcome, ShareRelease why, SimTime now) const;

  std::string group_;
  TopicPartition tp_;
  SharePartitionConfig config_;
  Observer observer_;
  Offset start_ = 0;  // SPSO
  Offset end_ = 0;    // one past the last offset in flight (Kafka's endOffset + 1)
  std::map<Offset, InFlight> records_;  // [start_, end_), every offset
};

}  // namespace ksim::models
