// KIP-932's share-partition at its leader (SharePartition.java).
#include "models/coordinator/share_partition.hpp"

#include <cassert>

namespace ksim::models {

std::string_view to_string(ShareRecordState state) {
  switch (state) {
    case ShareRecordState::Available: return "AVAILABLE";
    case ShareRecordState::Acquired: return "ACQUIRED";
    case ShareRecordState::Acknowledged: return "ACKNOWLEDGED";
    case ShareRecordState::Archived: return "ARCHIVED";
  }
  return "?";
}

bool legal(ShareRecordState from, ShareRecordState to) {
  switch (from) {
    case ShareRecordState::Available: return to == ShareRecordState::Acquired;
    case ShareRecordState::Acquired: return to != ShareRecordState::Acquired;
    case ShareRecordState::Acknowledged:
    case ShareRecordState::Archived: return false;
  }
  return false;
}

std::string_view to_string(ShareRelease why) {
  switch (why) {
    case ShareRelease::LockExpired: return "lock expired";
    case ShareRelease::Released: return "released";
    case ShareRelease::MemberLeft: return "member left";
  }
  return "?";
}

std::string_view to_string(AcknowledgeType type) {
  switch (type) {
    case AcknowledgeType::Accept: return "ACCEPT";
    case AcknowledgeType::Release: return "RELEASE";
    case AcknowledgeType::Reject: return "REJECT";
  }
  return "?";
}

SharePartition::SharePartition(std::string group, TopicPartition tp, SharePartitionConfig config,
                               const PersistedSharePartition* persisted, Offset reset_offset, Observer observer)
    : group_(std::move(group)), tp_(tp), config_(config), observer_(std::move(observer)) {
  if (!persisted || persisted->start_offset < 0) {
    start_ = end_ = reset_offset;
    return;
  }
  // SharePartition.maybeInitialize: the start offset and the state batches; what was
  // acquired when the state was written comes back AVAILABLE (locks are not persisted).
  start_ = end_ = persisted->start_offset;
  for (const auto& [offset, r] : persisted->records) {
    assert(offset >= end_ && "persisted records are in order, from the start offset");
    for (; end_ < offset; ++end_) records_[end_] = InFlight{ShareRecordState::Acknowledged, 0, {}, 0};
    records_[offset] = InFlight{r.state, r.delivery_count, {}, 0};
    end_ = offset + 1;
  }
  advance_start();
}

void SharePartition::transition(InFlight& record, ShareRecordState next) {
  assert(legal(record.state, next) && "RecordState.validateTransition");
  record.state = next;
}

void SharePartition::emit(Offset offset, const InFlight& record, ShareOutcome outcome, ShareRelease why,
                          SimTime now) const {
  if (observer_) observer_({group_, tp_, offset, outcome, why, record.member, record.delivery_count, now});
}

std::vector<AcquiredRecord> SharePartition::acquire(const std::string& member, const PartitionLog& log, Offset upper,
                                                    std::int32_t max_records, SimTime now) {
  expire_locks(now);  // a lock whose timer has not fired yet (its broker was paused) has ended all the same
  std::vector<AcquiredRecord> acquired;
  const auto take = [&](Offset offset, InFlight& record, const RecordBatch& batch) {
    transition(record, ShareRecordState::Acquired);
    ++record.delivery_count;
    record.member = member;
    record.lock_until = now + config_.lock_duration;
    const auto bytes = static_cast<std::uint32_t>(batch.bytes / static_cast<std::uint64_t>(batch.record_count));
    acquired.push_back({tp_, offset, batch.writer, batch.first_record + static_cast<std::uint64_t>(offset - batch.base_offset),
                        bytes, record.delivery_count, batch.create_time});
  };
  const auto full = [&] { return static_cast<std::int32_t>(acquired.size()) >= max_records; };
  // Redeliveries first: AVAILABLE records in flight, lowest offset first (nextFetchOffset).
  for (auto& [offset, record] : records_) {
    if (full()) return acquired;
    if (record.state != ShareRecordState::Available) continue;
    const RecordBatch* batch = log.batch_at(offset);
    if (!batch || offset >= upper) continue;  // truncated away, or above a new leader's high watermark
    take(offset, record, *batch);
  }
  // New records, while fewer than max.record.locks are in flight (canAcquireRecords).
  while (!full() && end_ < upper && end_ - start_ < config_.max_record_locks) {
    const RecordBatch* batch = log.batch_at(end_);
    if (!batch) break;
    InFlight& record = records_[end_];
    if (batch->is_control()) {
      record.state = ShareRecordState::Acknowledged;  // a marker is never delivered
    } else {
      take(end_, record, *batch);
    }
    ++end_;
  }
  advance_start();
  return acquired;
}

void SharePartition::release(Offset offset, InFlight& record, ShareRelease why, SimTime now) {
  if (record.delivery_count >= config_.delivery_count_limit) {
    transition(record, ShareRecordState::Archived);
    emit(offset, record, ShareOutcome::DeliveryLimit, why, now);
  } else {
    transition(record, ShareRecordState::Available);
    emit(offset, record, ShareOutcome::Released, why, now);
  }
  record.member.clear();
}

Error SharePartition::acknowledge(const std::string& member, Offset offset, AcknowledgeType type, SimTime now) {
  expire_locks(now);
  const auto it = records_.find(offset);
  if (it == records_.end() || it->second.state != ShareRecordState::Acquired || it->second.member != member) {
    return Error::InvalidRecordState;  // its lock expired (and maybe someone else has it), or never held
  }
  InFlight& record = it->second;
  switch (type) {
    case AcknowledgeType::Accept:
      transition(record, ShareRecordState::Acknowledged);
      emit(offset, record, ShareOutcome::Accepted, ShareRelease::Released, now);
      break;
    case AcknowledgeType::Reject:
      transition(record, ShareRecordState::Archived);
      emit(offset, record, ShareOutcome::Rejected, ShareRelease::Released, now);
      break;
    case AcknowledgeType::Release: release(offset, record, ShareRelease::Released, now); break;
  }
  advance_start();
  return Error::None;
}

std::size_t SharePartition::expire_locks(SimTime now) {
  std::size_t released = 0;
  for (auto& [offset, record] : records_) {
    if (record.state != ShareRecordState::Acquired || record.lock_until > now) continue;
    release(offset, record, ShareRelease::LockExpired, now);
    ++released;
  }
  if (released > 0) advance_start();
  return released;
}

std::size_t SharePartition::release_member(const std::string& member, SimTime now) {
  std::size_t released = 0;
  for (auto& [offset, record] : records_) {
    if (record.state != ShareRecordState::Acquired || record.member != member) continue;
    release(offset, record, ShareRelease::MemberLeft, now);
    ++released;
  }
  if (released > 0) advance_start();
  return released;
}

void SharePartition::advance_start() {
  while (!records_.empty()) {
    const auto first = records_.begin();
    if (first->first != start_) break;
    const ShareRecordState s = first->second.state;
    if (s != ShareRecordState::Acknowledged && s != ShareRecordState::Archived) break;
    records_.erase(first);
    ++start_;
  }
}

bool SharePartition::has_available(Offset upper) const {
  for (const auto& [offset, record] : records_) {
    if (record.state == ShareRecordState::Available && offset < upper) return true;
  }
  return end_ < upper && end_ - start_ < config_.max_record_locks;
}

std::optional<SimTime> SharePartition::next_lock_expiry() const {
  std::optional<SimTime> first;
  for (const auto& [offset, record] : records_) {
    if (record.state == ShareRecordState::Acquired && (!first || record.lock_until < *first)) first = record.lock_until;
  }
  return first;
}

PersistedSharePartition SharePartition::persisted() const {
  PersistedSharePartition p;
  p.start_offset = start_;
  for (const auto& [offset, record] : records_) {
    const ShareRecordState s = record.state == ShareRecordState::Acquired ? ShareRecordState::Available : record.state;
    p.records[offset] = {s, record.delivery_count};
  }
  return p;
}

std::optional<SharePartition::Broken> SharePartition::check(SimTime now) const {
  const std::string where = group_ + ": ";
  if (start_ > end_) {
    return Broken{"share_start_within_end", where + "SPSO " + std::to_string(start_) + " > SPEO " + std::to_string(end_)};
  }
  if (static_cast<Offset>(records_.size()) != end_ - start_) {
    return Broken{"share_start_within_end", where + "the in-flight records do not cover [SPSO, SPEO)"};
  }
  for (const auto& [offset, record] : records_) {
    const std::string at = where + "offset " + std::to_string(offset) + " ";
    if (record.state == ShareRecordState::Acquired && (record.member.empty() || record.lock_until < now)) {
      return Broken{"share_acquired_records_locked", at + "is ACQUIRED without a live acquisition lock"};
    }
    if (record.delivery_count > config_.delivery_count_limit ||
        (record.state == ShareRecordState::Available && record.delivery_count >= config_.delivery_count_limit)) {
      return Broken{"share_delivery_count_within_limit",
                    at + to_string(record.state).data() + " after " + std::to_string(record.delivery_count) +
                        " deliveries (limit " + std::to_string(config_.delivery_count_limit) + ")"};
    }
  }
  return std::nullopt;
}

}  // namespace ksim::models
