// Offsets and persistence of the group coordinator: OffsetCommit and
// OffsetFetch (Kafka's handleCommitOffsets / handleFetchOffsets), storing
// group metadata, and loading a partition's groups from its log when this
// broker becomes its leader (GroupMetadataManager.loadGroupsAndOffsets).
#include <algorithm>
#include <cassert>
#include <span>

#include "models/coordinator/group_coordinator.hpp"

namespace ksim::models {

Error GroupCoordinator::check_coordinator(const std::string& group) const {
  if (partitions_.empty()) return Error::NotCoordinator;
  const auto partitions = static_cast<std::int32_t>(config_.offsets_topic_num_partitions);
  const auto it = partitions_.find(group_partition(group, partitions));
  if (it == partitions_.end()) return Error::NotCoordinator;
  return it->second.state == LoadState::Loaded ? Error::None : Error::CoordinatorLoadInProgress;
}

GroupCoordinator::Group* GroupCoordinator::find(const std::string& group) {
  const auto it = groups_.find(group);
  return it == groups_.end() ? nullptr : &it->second;
}

GroupCoordinator::Group& GroupCoordinator::find_or_create(const std::string& group) {
  auto [it, fresh] = groups_.try_emplace(group);
  if (fresh) {
    it->second.id = group;
    it->second.partition = group_partition(group, config_.offsets_topic_num_partitions);
  }
  return it->second;
}

// Kafka maps storage errors of the coordinator's append to coordinator errors.
Error coordinator_error(Error append_error) {
  switch (append_error) {
    case Error::None: return Error::None;
    case Error::NotLeaderOrFollower:
    case Error::KafkaStorageError: return Error::NotCoordinator;
    default: return Error::CoordinatorNotAvailable;
  }
}

// The coordinator runtime (4.0+) maps a timed-out write as any other
// (GroupMetadataManager.appendGroupMetadataErrorToResponseError,
// CoordinatorOperationExceptionHelper.handleOperationException:
// COORDINATOR_NOT_AVAILABLE). The classic coordinator before it
// (GroupMetadataManager.storeGroup and storeOffsets, in Scala) answered a
// rebalance whose write timed out REBALANCE_IN_PROGRESS, and passed an offset
// commit's REQUEST_TIMED_OUT through; clients treat the latter as
// COORDINATOR_NOT_AVAILABLE, and the former makes members join again without
// looking the coordinator up.
Error group_write_error(Error append_error, GroupWrite write, bool coordinator_runtime) {
  if (append_error != Error::RequestTimedOut || coordinator_runtime) return coordinator_error(append_error);
  return write == GroupWrite::Metadata ? Error::RebalanceInProgress : Error::RequestTimedOut;
}

// ---- loading and unloading ----

void GroupCoordinator::load(std::int32_t partition, const PartitionLog& log) {
  // Elected again while leading (a new leader epoch, the same leader): the
  // groups stay as they are in memory, rebalances in progress included. Before
  // 3.0 Kafka does not tell the coordinator (ReplicaManager.makeLeaders passes
  // on only new leaders); from 3.0 it skips a partition it owns or is loading
  // (GroupMetadataManager.addLoadingPartition, KAFKA-10614); the 4.0 runtime
  // keeps an active or loading coordinator (CoordinatorRuntime.scheduleLoadOperation).
  if (partitions_.contains(partition)) return;
  const std::uint64_t generation = next_load_generation_++;
  partitions_[partition] = PartitionLoad{LoadState::Loading, generation, {}, {}};
  std::int64_t records = 0;
  for (const RecordBatch& batch : log.batches()) {
    if (batch.is_control()) {  // a transaction marker: pending transactional offsets settle
      for (auto& [id, g] : groups_) {
        if (g.partition == partition) settle(g, batch.producer_id, batch.control == ControlType::Commit);
      }
      continue;
    }
    if (batch.writer != kCoordinatorWriter) continue;
    records += batch.record_count;
    const std::uint64_t id = coordinator_record_id(batch);
    const CoordinatorRecord& record = records_.at(id);
    // A KIP-848 group's member records the cleaner kept without the group's record 0: a later
    // write of the group superseded that record, and that write (written whole) replaces them.
    if (record.consumer_group && batch.run_start > 0) continue;
    if (record.tombstone && (record.metadata || record.consumer_group)) {  // a deleted group
      groups_.erase(record.group);
      consumer_groups_.erase(record.group);
      continue;
    }
    replay(find_or_create(record.group), record, batch.run_start, batch.record_count);
    if (record.consumer_group) replay_consumer_group(partition, id);
  }
  partitions_[partition].records = records;
  if (records > 0) host_.coordinator_publish(GroupLoadStarted{partition, records});
  host_.coordinator_timer(config_.load_time_per_record * records,
                          [this, partition, generation] { finish_load(partition, generation); });
}

// Records [first, first + count) of `record`: those of its batch the log cleaner kept.
void GroupCoordinator::replay(Group& g, const CoordinatorRecord& record, std::int32_t first, std::int32_t count) {
  const auto offsets = std::span(record.offsets).subspan(first, record.offsets.empty() ? 0 : count);
  for (const CommittedOffset& o : offsets) {
    if (record.tombstone) {
      g.offsets.erase(o.partition);
    } else if (record.producer_id != kNoProducerId) {
      g.pending_offsets[record.producer_id][o.partition] = {o, record.written};
    } else {
      g.offsets[o.partition] = {o, record.written};
    }
  }
  // A downgrade's record whose GroupMetadata the cleaner removed (a later one superseded it): its tombstones only.
  if (!record.metadata || first > 0) return;
  // A classic group's metadata replaces a consumer group of that id (Kafka writes its tombstones).
  if (const auto cg = consumer_groups_.find(g.id); cg != consumer_groups_.end()) {
    assert(cg->second.session_timers.empty() && "replayed while loading, before any timer");
    consumer_groups_.erase(cg);
  }
  const GroupMetadataRecord& meta = *record.metadata;
  g.generation = meta.generation;
  g.protocol = meta.protocol;
  g.leader = meta.leader;
  g.members.clear();
  g.static_members.clear();
  g.owners.clear();
  for (const GroupMemberRecord& member : meta.members) {
    g.members[member.member_id].record = member;
    if (member.instance_id) g.static_members[*member.instance_id] = member.member_id;
    for (const TopicPartition tp : member.assignment) g.owners[tp] = member.client_id;
  }
  // Not a transition: a loaded group starts in the state its last record
  // implies, as GroupMetadata.loadGroup constructs it (Empty or Stable).
  g.state = g.members.empty() ? GroupState::Empty : GroupState::Stable;
  // Before 2.1 (no currentStateTimestamp) an Empty group's offsets expire from their commits.
  g.state_since = meta.current_state_timestamp;
}

// Loaded groups start with fresh sessions: their members have session.timeout.ms to heartbeat here.
void GroupCoordinator::finish_load(std::int32_t partition, std::uint64_t generation) {
  const auto it = partitions_.find(partition);
  if (it == partitions_.end() || it->second.generation != generation) return;
  it->second.state = LoadState::Loaded;
  schedule_expiry(partition, generation);
  consumer_groups_loaded(partition);
  for (auto& [id, g] : groups_) {
    if (g.partition != partition) continue;
    for (auto& [member_id, m] : g.members) schedule_session_expiry(g, m);
    // A KIP-848 group is loaded at its group epoch, in the state its members imply.
    const auto cg = consumer_groups_.find(id);
    const std::int32_t generation = cg == consumer_groups_.end() ? g.generation : cg->second.group.group_epoch();
    const std::string state{cg == consumer_groups_.end() ? to_string(g.state) : to_string(cg->second.group.state())};
    host_.coordinator_publish(GroupLoaded{id, generation, state});
    if (history_) {
      history_->coordinator_loads.push_back(
          {id, host_.coordinator_id(), generation, host_.coordinator_now(), it->second.records});
    }
  }
}

void GroupCoordinator::unload(std::int32_t partition) {
  const auto loaded = partitions_.find(partition);
  if (loaded == partitions_.end()) return;
  std::deque<WaitingOperation> waiting = std::move(loaded->second.waiting);
  partitions_.erase(loaded);
  for (const WaitingOperation& w : waiting) w.then(Error::NotLeaderOrFollower);  // answered NOT_COORDINATOR
  unload_consumer_groups(partition);
  for (auto it = share_groups_.begin(); it != share_groups_.end();) {
    if (it->second.partition != partition) {
      ++it;
      continue;
    }
    for (const auto& [id, timer] : it->second.members) host_.coordinator_cancel(timer);
    it = share_groups_.erase(it);
  }
  for (auto it = groups_.begin(); it != groups_.end();) {
    Group& g = it->second;
    if (g.partition != partition) {
      ++it;
      continue;
    }
    host_.coordinator_publish(GroupUnloaded{g.id});
    host_.coordinator_cancel(g.join_timer);
    for (auto& [id, m] : g.members) {
      host_.coordinator_cancel(m.heartbeat_timer);
      if (m.join) reply_join_error(m.join->connection, m.join->correlation_id, Error::NotCoordinator);
      if (m.sync) reply_sync(*m.sync, Error::NotCoordinator);
    }
    it = groups_.erase(it);
  }
}

void GroupCoordinator::reset() {
  partitions_.clear();
  groups_.clear();
  consumer_groups_.clear();
  share_groups_.clear();
}

// ---- storing ----

GroupMetadataRecord GroupCoordinator::metadata_of(const Group& g, const Assignment& assignment) const {
  GroupMetadataRecord meta{g.generation, g.protocol, g.leader, {}, g.state_since};
  for (const auto& [id, m] : g.members) {
    GroupMemberRecord member = m.record;
    const auto it = assignment.find(id);
    member.assignment = it == assignment.end() ? std::vector<TopicPartition>{} : it->second;
    meta.members.push_back(std::move(member));
  }
  return meta;
}

void GroupCoordinator::store_group(const Group& g, const Assignment& assignment, std::function<void(Error)> done,
                                   const std::vector<std::string>* replaced_members) {
  CoordinatorRecord record;
  record.group = g.id;
  record.metadata = metadata_of(g, assignment);
  if (replaced_members) {
    record.consumer_group_tombstone = true;
    record.departed_members = *replaced_members;
  }
  const std::uint64_t id = records_.add(std::move(record));
  append(g.partition, id, std::move(done));
}

// ---- offsets ----

// ClassicGroup.validateOffsetCommit: a transactional commit is not refused
// while the group completes a rebalance; the generation decides.
Error GroupCoordinator::check_commit(const Group* g, const MemberIdentity& member, bool transactional) const {
  const bool outside_group = member.generation < 0 && member.member_id.empty();
  if (!g) return outside_group ? Error::None : Error::IllegalGeneration;
  if (outside_group) return g->state == GroupState::Empty ? Error::None : Error::UnknownMemberId;
  if (const Error e = check_member(*g, member); e != Error::None) return e;
  if (member.generation != g->generation) return Error::IllegalGeneration;
  if (!transactional && g->state == GroupState::CompletingRebalance) return Error::RebalanceInProgress;
  return Error::None;
}

namespace {

// KIP-1251: the partitions a commit refused on their own, answered with `error`,
// and the request's other offsets, which are written.
struct SplitCommit {
  std::vector<CommittedOffset> written;
  std::vector<RefusedOffset> refused;
};

SplitCommit split_commit(const std::vector<CommittedOffset>& offsets, const std::vector<TopicPartition>& stale,
                         Error error) {
  SplitCommit split;
  for (const CommittedOffset& o : offsets) {
    if (std::find(stale.begin(), stale.end(), o.partition) == stale.end()) {
      split.written.push_back(o);
    } else {
      split.refused.push_back({o.partition, error});
    }
  }
  return split;
}

}  // namespace

void GroupCoordinator::handle(ConnectionId c, const OffsetCommitRequest& request) {
  Error error = check_coordinator(request.group);
  Group* g = error == Error::None ? find(request.group) : nullptr;
  std::vector<TopicPartition> stale;
  if (error == Error::None) {
    if (auto verdict = check_consumer_commit(request.group, request.member, request.offsets)) {
      error = verdict->error;
      stale = std::move(verdict->stale);
    } else {
      error = check_commit(g, request.member, false);
    }
  }
  const std::int64_t correlation = request.correlation_id;
  SplitCommit split = split_commit(request.offsets, stale, Error::StaleMemberEpoch);
  if (error != Error::None || split.written.empty()) {
    auto response = std::make_unique<OffsetCommitResponse>();
    response->correlation_id = correlation;
    response->error = error;
    response->refused = std::move(split.refused);
    return host_.coordinator_send(c, std::move(response));
  }
  Group& group = g ? *g : find_or_create(request.group);
  if (group.members.contains(request.member.member_id)) {
    schedule_session_expiry(group, group.members.at(request.member.member_id));
  }
  CoordinatorRecord record;
  record.group = request.group;
  record.offsets = std::move(split.written);
  record.written = host_.coordinator_now();
  for (const CommittedOffset& o : record.offsets) ++group.committing[o.partition];
  const std::uint64_t id = records_.add(std::move(record));
  const std::string name = request.group;
  append(group.partition, id, [this, c, correlation, name, id, refused = std::move(split.refused)](Error append_error) {
    if (Group* committed = find(name)) {
      const CoordinatorRecord& r = records_.at(id);
      for (const CommittedOffset& o : r.offsets) {
        committed->commit_written(o.partition);
        if (append_error == Error::None) committed->offsets[o.partition] = {o, r.written};
      }
    }
    auto response = std::make_unique<OffsetCommitResponse>();
    response->correlation_id = correlation;
    response->error = group_write_error(append_error, GroupWrite::Offsets, config_.coordinator_runtime);
    // A failed write answers every partition of the request with its error.
    if (append_error == Error::None) response->refused = refused;
    host_.coordinator_send(c, std::move(response));
  });
}

void GroupCoordinator::settle(Group& g, ProducerId producer, bool commit) {
  const auto it = g.pending_offsets.find(producer);
  if (it == g.pending_offsets.end()) return;
  if (commit) {
    for (const auto& [tp, o] : it->second) g.offsets[tp] = o;
  }
  g.pending_offsets.erase(it);
}

void GroupCoordinator::complete_transaction(std::int32_t partition, ProducerId producer, bool commit) {
  for (auto& [id, g] : groups_) {
    if (g.partition == partition) settle(g, producer, commit);
  }
}

// KIP-447: offsets that count only if the producer's transaction commits;
// a member of an older generation (a zombie) is rejected like any commit.
// TxnOffsetCommit has no STALE_MEMBER_EPOCH: OffsetMetadataManager answers
// ILLEGAL_GENERATION instead.
void GroupCoordinator::handle(ConnectionId c, const TxnOffsetCommitRequest& request) {
  Error error = check_coordinator(request.group);
  Group* g = error == Error::None ? find(request.group) : nullptr;
  std::vector<TopicPartition> stale;
  // Without group metadata (the API before KIP-447) there is nothing to check the sender against.
  if (error == Error::None && request.member.generation >= 0) {
    if (auto verdict = check_consumer_commit(request.group, request.member, request.offsets)) {
      error = verdict->error == Error::StaleMemberEpoch ? Error::IllegalGeneration : verdict->error;
      stale = std::move(verdict->stale);
    } else {
      error = check_commit(g, request.member, true);
    }
  }
  const std::int64_t correlation = request.correlation_id;
  SplitCommit split = split_commit(request.offsets, stale, Error::IllegalGeneration);
  if (error != Error::None || split.written.empty()) {
    auto response = std::make_unique<TxnOffsetCommitResponse>();
    response->correlation_id = correlation;
    response->error = error;
    response->refused = std::move(split.refused);
    return host_.coordinator_send(c, std::move(response));
  }
  Group& group = g ? *g : find_or_create(request.group);
  CoordinatorRecord record;
  record.group = request.group;
  record.offsets = std::move(split.written);
  record.producer_id = request.producer_id;
  record.producer_epoch = request.producer_epoch;
  record.written = host_.coordinator_now();
  for (const CommittedOffset& o : record.offsets) ++group.committing[o.partition];
  const std::uint64_t id = records_.add(std::move(record));
  const std::string name = request.group;
  append(group.partition, id, [this, c, correlation, name, id, refused = std::move(split.refused)](Error append_error) {
    if (Group* pending = find(name)) {
      const CoordinatorRecord& r = records_.at(id);
      for (const CommittedOffset& o : r.offsets) {
        pending->commit_written(o.partition);
        if (append_error == Error::None) pending->pending_offsets[r.producer_id][o.partition] = {o, r.written};
      }
    }
    auto response = std::make_unique<TxnOffsetCommitResponse>();
    response->correlation_id = correlation;
    response->error = group_write_error(append_error, GroupWrite::Offsets, config_.coordinator_runtime);
    if (append_error == Error::None) response->refused = refused;
    host_.coordinator_send(c, std::move(response));
  });
}

void GroupCoordinator::handle(ConnectionId c, const OffsetFetchRequest& request) {
  auto response = std::make_unique<OffsetFetchResponse>();
  response->correlation_id = request.correlation_id;
  response->error = check_coordinator(request.group);
  if (const Group* g = response->error == Error::None ? find(request.group) : nullptr) {
    // KIP-447 (require_stable): an offset still in an open transaction is not given out.
    for (const auto& [producer, pending] : g->pending_offsets) {
      for (const TopicPartition tp : request.partitions) {
        if (pending.contains(tp)) response->error = Error::UnstableOffsetCommit;
      }
    }
  }
  if (response->error == Error::None) {
    const Group* g = find(request.group);
    for (const TopicPartition tp : request.partitions) {
      CommittedOffset committed{tp, -1, -1};
      if (g && g->offsets.contains(tp)) committed = g->offsets.at(tp).offset;
      response->offsets.push_back(committed);
    }
  }
  host_.coordinator_send(c, std::move(response));
}

}  // namespace ksim::models
