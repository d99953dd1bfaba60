// Moving a replica to another log dir of its broker, online (KIP-113, Kafka
// 1.1+): ReplicaManager.alterReplicaLogDirs creates a future replica on the
// target dir (Partition.maybeCreateFutureReplica) and hands it to a
// ReplicaAlterLogDirsThread, which fetches from the current replica through
// LocalLeaderEndPoint: one partition at a time per thread (the lowest topic and
// partition first, then the same one until it is done), up to
// replica.fetch.max.bytes per fetch, from the page cache or the current dir's
// disk, appended to the future log on the target dir's disk (with a CPU model,
// on the mover's thread at a replica fetcher's cost). Before each copy
// the future log truncates to where it agrees with the current one by leader
// epochs (the current replica may have truncated, or lost its unflushed tail).
// When a copy leaves the future log at the current log end offset, the future
// replica takes the current one's place (Partition.maybeReplaceCurrentWithFutureReplica,
// LogManager.replaceCurrentWithFutureLog) and the old log is deleted
// file.delete.delay.ms later. replica.alter.log.dirs.io.max.bytes.per.second
// throttles the copies (ReplicationQuotaManager's Rate): over it, a thread
// backs off replica.fetch.backoff.ms. A future replica survives a restart (its
// "-future" directory is loaded) and the copy resumes; a failed target dir
// abandons the move (handleLogDirFailure: removeFutureLocalReplica). In KRaft
// with KIP-858 (3.7+) the caught-up future replica is promoted only once the
// controller accepted its new dir (broker_dir_assignments.cpp).
#include <algorithm>

#include "models/broker/broker.hpp"
#include "models/log/log_divergence.hpp"

namespace ksim::models {

std::vector<Error> Broker::alter_replica_log_dirs(const std::vector<std::pair<TopicPartition, std::string>>& moves) {
  std::vector<Error> errors;
  for (const auto& [tp, path] : moves) {
    const auto dir = std::find_if(log_dirs_.begin(), log_dirs_.end(), [&](const LogDir& d) { return d.spec.path == path; });
    if (dir == log_dirs_.end()) {
      errors.push_back(Error::LogDirNotFound);
    } else if (!dir->online) {
      errors.push_back(Error::KafkaStorageError);  // "Log directory ... is offline"
    } else {
      errors.push_back(start_log_dir_move(tp, static_cast<std::size_t>(dir - log_dirs_.begin())));
    }
  }
  return errors;
}

Error Broker::start_log_dir_move(TopicPartition tp, std::size_t target) {
  Replica* r = replica(tp);
  if (r && !replica_online(*r)) return Error::KafkaStorageError;  // HostedPartition.Offline
  if (r && r->future && r->future->log_dir != target) abandon_move(*r, "another log dir asked for");
  // LogManager.maybeUpdatePreferredLogDir: a replica created here later goes to `target`.
  preferred_dirs_[tp] = target;
  if (!r) return Error::ReplicaNotAvailable;
  if (r->log_dir == target || r->future) return Error::None;  // already there, or on its way
  // Partition.maybeCreateFutureReplica: no future log while a log dir is offline (LogManager.getOrCreateLog).
  if (std::any_of(log_dirs_.begin(), log_dirs_.end(), [](const LogDir& d) { return !d.online; })) {
    return Error::KafkaStorageError;
  }
  r->future = std::make_unique<Replica>(tp, id_, target);
  Replica& f = *r->future;
  f.configure_log(&topic(tp).log);
  // Its fetch starts at its high watermark (0), below the current log start:
  // OFFSET_OUT_OF_RANGE makes it start again there (truncateFullyAndStartAt).
  f.truncate_fully_and_start_at(r->log().log_start_offset());
  ++log_dirs_[target].partitions;
  publish(LogDirMoveChanged{id_, tp, LogDirMovePhase::Started, log_dirs_[r->log_dir].spec.path,
                            log_dirs_[target].spec.path, r->log().size_bytes(), {}});
  wake_mover(mover_of(tp));
  return Error::None;
}

std::size_t Broker::log_dir_moves_in_progress() const {
  return static_cast<std::size_t>(
      std::count_if(replicas_.begin(), replicas_.end(), [](const auto& entry) { return entry.second.future != nullptr; }));
}

std::vector<ReplicaPlacement> Broker::replica_placements() const {
  std::vector<ReplicaPlacement> placements;
  for (const auto& [tp, r] : replicas_) placements.push_back({tp, r.log_dir, r.log().size_bytes()});
  return placements;
}

std::vector<bool> Broker::log_dirs_online() const {
  std::vector<bool> online;
  for (const LogDir& d : log_dirs_) online.push_back(d.online);
  return online;
}

// num.replica.alter.log.dirs.threads, by default one per log dir.
std::size_t Broker::mover_of(TopicPartition tp) const {
  const int threads = config_.num_replica_alter_log_dirs_threads > 0 ? config_.num_replica_alter_log_dirs_threads
                                                                      : static_cast<int>(log_dirs_.size());
  return (static_cast<std::uint32_t>(tp.topic) * 31u + static_cast<std::uint32_t>(tp.partition)) %
         static_cast<std::uint32_t>(threads);
}

void Broker::wake_mover(std::size_t mover, SimTime delay) {
  if (movers_.size() <= mover) movers_.resize(mover + 1);
  if (movers_[mover].scheduled || !is_running()) return;
  movers_[mover].scheduled = true;
  set_timer(delay, [this, mover] {
    movers_[mover].scheduled = false;
    mover_step(mover);
  });
}

// AbstractFetcherThread.maybeFetch with LocalLeaderEndPoint.buildFetch: no fetch while over the quota.
void Broker::mover_step(std::size_t mover) {
  Replica* r = next_move(mover);
  if (!r) return;  // idle until a move is added
  if (alter_log_dirs_quota_.exceeded(now())) return wake_mover(mover, config_.replica_fetch_backoff);
  copy_to_future(*r, mover);
}

// LocalLeaderEndPoint.selectPartitionToFetch: the partition in progress while
// it can be fetched, else the lowest by topic name and partition.
Broker::Replica* Broker::next_move(std::size_t mover) {
  const auto movable = [&](const Replica* r) { return r && r->future && replica_online(*r) && mover_of(r->tp()) == mover; };
  LogDirMover& m = movers_[mover];
  if (m.in_progress) {
    if (Replica* r = replica(*m.in_progress); movable(r)) return r;
    m.in_progress.reset();
  }
  Replica* best = nullptr;
  for (auto& [tp, r] : replicas_) {
    if (!movable(&r)) continue;
    if (!best || std::pair(topic(tp).name, tp.partition) < std::pair(topic(best->tp()).name, best->tp().partition)) {
      best = &r;
    }
  }
  if (best) m.in_progress = best->tp();
  return best;
}

// One fetch from the current replica: the future log first truncates to where
// the two agree (ReplicaAlterLogDirsThread.truncate), or starts again at the
// current log start if retention deleted what it would fetch; then it reads up
// to replica.fetch.max.bytes (FetchIsolation.LOG_END) through the page cache.
void Broker::copy_to_future(Replica& r, std::size_t mover) {
  Replica& f = *r.future;
  const Offset agreed = agreed_end(f.log(), r.log());
  if (agreed < f.log().log_end_offset()) {
    f.truncate_to(agreed);
    f.drop_durability_above_log_end();
  }
  if (f.log().log_end_offset() < r.log().log_start_offset()) {
    free_disk_later(f.log_dir, f.truncate_fully_and_start_at(r.log().log_start_offset()));
    f.durability.clear();
  }
  const Offset from = f.log().log_end_offset();
  if (from == r.log().log_end_offset()) {
    if (may_promote(r)) promote_future(r);  // else the mover waits for the controller's answer (KIP-858)
    return;
  }
  const auto batches = r.log().read(from, config_.replica_fetch_max_bytes);
  std::uint64_t bytes = 0;
  for (const RecordBatch& b : batches) bytes += b.bytes;
  const Offset upto = batches.back().next_offset();
  const SimTime read = cache_read_done(r, from, bytes);
  movers_[mover].scheduled = true;  // busy until the read is appended
  set_timer(read - now(), [this, tp = r.tp(), from, upto, mover] {
    movers_[mover].scheduled = false;
    append_copy(tp, from, upto, mover);
  });
}

// ReplicaAlterLogDirsThread.processPartitionData: the batches read, as the
// current log has them now, appended to the future log on its dir; its high
// watermark and log start offset follow the current log's.
void Broker::append_copy(TopicPartition tp, Offset from, Offset upto, std::size_t mover) {
  Replica* r = replica(tp);
  const bool still_copying = r && r->future && replica_online(*r) && r->future->log().log_end_offset() == from &&
                             from >= r->log().log_start_offset() && from <= r->log().log_end_offset();
  if (!still_copying) return mover_step(mover);  // it changed while the read was on its way
  Replica& f = *r->future;
  SimTime returns_at = now();
  std::uint64_t bytes = 0;
  std::int64_t batches = 0;
  for (const RecordBatch& b : r->log().read(from, UINT64_MAX, upto)) {
    if (!write_to_disk(f, b.bytes, b.record_count, returns_at)) return;  // the target dir failed: the move is abandoned
    f.append_as_follower(b);
    bytes += b.bytes;
    ++batches;
  }
  if (mover_threads_) {  // with a CPU model: the mover's thread appends as a replica fetcher does (broker_threads.cpp)
    const BrokerCpuCosts& c = config_.cpu_costs;
    const auto cost = c.partition + batches * c.batch +
                      static_cast<SimTime>(c.follower_ns_per_byte * static_cast<double>(bytes));
    mover_threads_->grow_to(mover + 1);
    returns_at = std::max(returns_at, mover_threads_->run(now(), cost, mover));
  }
  maybe_flush(f, returns_at);
  f.follow_high_watermark(r->log().high_watermark());
  for (const DeletedSegments& d : f.follow_log_start_offset(r->log().log_start_offset(), now())) {
    free_disk_later(f.log_dir, d.bytes);
  }
  alter_log_dirs_quota_.record(bytes, now());
  if (f.log().log_end_offset() == r->log().log_end_offset() && may_promote(*r)) return promote_future(*r);
  wake_mover(mover, returns_at - now());
}

// The future replica, caught up, becomes the replica; the old log is renamed
// for deletion and leaves its disk file.delete.delay.ms later.
void Broker::promote_future(Replica& r) {
  Replica& f = *r.future;
  const std::size_t from = r.log_dir;
  r.adopt_log_of(f);  // `f` holds the old log now
  r.log_dir = f.log_dir;
  std::swap(r.durability, f.durability);
  std::swap(r.cache_marks, f.cache_marks);
  std::swap(r.newest_cache_mark, f.newest_cache_mark);
  r.last_flush = f.last_flush;
  --log_dirs_[from].partitions;
  const std::uint64_t old_bytes = f.log().size_bytes();
  free_disk_later(from, old_bytes);
  publish(LogDirMoveChanged{id_, r.tp(), LogDirMovePhase::Completed, log_dirs_[from].spec.path,
                            log_dirs_[r.log_dir].spec.path, r.log().size_bytes(), {}});
  r.future.reset();
  r.promotion = FuturePromotion::None;
  changed(r);
  const std::size_t mover = mover_of(r.tp());
  movers_[mover].in_progress.reset();
  wake_mover(mover);
}

// Partition.removeFutureLocalReplica: the future log goes (deleted, unless its dir failed).
void Broker::abandon_move(Replica& r, std::string_view reason) {
  Replica& f = *r.future;
  publish(LogDirMoveChanged{id_, r.tp(), LogDirMovePhase::Abandoned, log_dirs_[r.log_dir].spec.path,
                            log_dirs_[f.log_dir].spec.path, f.log().size_bytes(), reason});
  --log_dirs_[f.log_dir].partitions;
  if (log_dirs_[f.log_dir].online) free_disk_later(f.log_dir, f.log().size_bytes());
  r.future.reset();
  // KIP-858 (ReplicaAlterLogDirsThread.removePartitions): the controller may
  // have the target dir already: "Reverting reassignment for canceled future replica".
  if (std::exchange(r.promotion, FuturePromotion::None) != FuturePromotion::None) assign_dir(r, std::nullopt);
}

// ReplicaManager.handleLogDirFailure: a future replica on the failed dir is
// removed; so is one whose current replica was there (it went offline with it).
void Broker::abandon_moves_on(std::size_t log_dir) {
  for (auto& [tp, r] : replicas_) {
    if (!r.future) continue;
    if (r.future->log_dir == log_dir) abandon_move(r, "target log dir failed");
    else if (r.log_dir == log_dir) abandon_move(r, "source log dir failed");
  }
}

// ReplicaManager.maybeAddLogDirFetchers: after a restart the future replicas
// found on disk resume their copies once the partitions are online again.
void Broker::resume_log_dir_moves() {
  for (const auto& [tp, r] : replicas_) {
    if (r.future && replica_online(r)) wake_mover(mover_of(tp));
  }
}

}  // namespace ksim::models
