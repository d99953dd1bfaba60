// KRaft with several log dirs (JBOD, KIP-858, Kafka 3.7+). The controller
// records which log dir holds each replica (PartitionRegistration.directories)
// so that it knows which partitions a failed dir takes down:
//
// - The broker tells it through AssignReplicasToDirs (AssignmentsManager,
//   dir_assignments.hpp): for a replica it creates (the controller places new
//   replicas UNASSIGNED on a broker with several dirs), for one whose recorded
//   dir differs from its log's (ReplicaManager.maybeUpdateTopicAssignment),
//   and before a KIP-113 move ends: the caught-up future replica is promoted
//   only once the controller accepted the new dir
//   (ReplicaAlterLogDirsThread.maybePromoteFutureReplica); a move abandoned
//   after that names the old dir again.
// - A failed dir goes into the next heartbeat at once (BrokerLifecycleManager.
//   propagateDirectoryFailure, OfflineLogDirs); a broker whose report is not
//   answered within log.dir.failure.timeout.ms shuts down. One whose
//   metadata log dir fails halts (ReplicaManager.handleLogDirFailure), as
//   every broker does when its last dir fails (LogManager).
//
// Before 3.7 a KRaft broker tells the controller nothing: its replicas on a
// failed dir stay leaders and ISR members in the metadata, unavailable, until
// the broker stops. Simplified: a broker with a single log dir sends no
// assignments (the controller records that dir for it, ClusterControlManager.
// defaultDir, and its failure halts the broker anyway).
#include <algorithm>

#include "models/broker/broker.hpp"

namespace ksim::models {

bool Broker::assigns_dirs() const {
  return !zookeeper_mode() && log_dirs_.size() > 1 && config_.mechanisms.has(Mechanism::DirectoryAssignment);
}

const std::string& Broker::metadata_log_dir() const {
  return config_.metadata_log_dir.empty() ? log_dirs_.front().spec.path : config_.metadata_log_dir;
}

// The topics the cluster was formatted with: their replicas' dirs are known to the controller from the start.
std::optional<std::int32_t> Broker::recorded_log_dir(TopicPartition tp) const {
  const Replica* r = replica(tp);
  if (!r || !assigns_dirs()) return std::nullopt;
  return static_cast<std::int32_t>(r->log_dir);
}

// ReplicaManager.maybeUpdateTopicAssignment: the metadata records another dir
// than the one holding the replica's log (or none). A replica moving between
// dirs is left to its move.
void Broker::assign_dir(const Replica& r, std::optional<std::int32_t> recorded) {
  if (!assigns_dirs() || !replica_online(r) || r.future) return;
  const auto actual = static_cast<std::int32_t>(r.log_dir);
  if (recorded == actual) return;
  dir_assignments_.queue(r.tp(), actual);
  schedule_dir_assignments();
}

// ReplicaAlterLogDirsThread.maybePromoteFutureReplica, for a caught-up future replica.
bool Broker::may_promote(Replica& r) {
  if (!assigns_dirs()) return true;  // DirectoryEventHandler.NOOP: at once
  switch (r.promotion) {
    case FuturePromotion::None:
      r.promotion = FuturePromotion::Queued;
      dir_assignments_.queue(r.tp(), static_cast<std::int32_t>(r.future->log_dir));
      schedule_dir_assignments();
      return false;
    case FuturePromotion::Queued: return false;  // "Waiting for AssignReplicasToDirsRequest to succeed"
    case FuturePromotion::Accepted: return true;
  }
  return false;
}

// AssignmentsManager.rescheduleMaybeSendAssignmentsEvent: an earlier send stands.
void Broker::schedule_dir_assignments() {
  if (!dir_assignments_.has_ready() || !is_running()) return;
  const SimTime due = now() + dir_assignments_.send_delay();
  if (dir_assignments_due_ != kNever && dir_assignments_due_ <= due) return;
  dir_assignments_due_ = due;
  set_timer(due - now(), [this, due] {
    if (dir_assignments_due_ != due) return;  // an earlier send took its place
    dir_assignments_due_ = kNever;
    send_dir_assignments();
  });
}

// AssignmentsManager.maybeSendAssignments: one request at a time, over the
// controller channel; one unanswered for the channel's timeout is lost.
void Broker::send_dir_assignments() {
  if (dir_assignments_.in_flight()) return;  // its answer schedules the next
  if (!controller_channel_ready()) return schedule_dir_assignments();
  auto request = std::make_unique<AssignReplicasToDirsRequest>();
  request->assignments = dir_assignments_.take_batch([&](TopicPartition tp) { return replica(tp) != nullptr; });
  if (request->assignments.empty()) return;
  request->broker = id_;
  request->incarnation = incarnation();
  request->correlation_id = static_cast<std::int64_t>(++dir_assignments_sent_);
  send(controller_connection(), std::move(request));
  set_timer(config_.controller_request_timeout, [this, sent = dir_assignments_sent_] {
    if (sent != dir_assignments_sent_ || !dir_assignments_.in_flight()) return;
    dir_assignments_.lost();
    schedule_dir_assignments();
  });
}

void Broker::handle_assign_dirs_response(const AssignReplicasToDirsResponse& response) {
  if (static_cast<std::uint64_t>(response.correlation_id) != dir_assignments_sent_ || !dir_assignments_.in_flight()) {
    return;  // an answer to a request given up for lost
  }
  for (const auto& [tp, dir] : dir_assignments_.answered(response.error, response.results)) {
    Replica* r = replica(tp);
    if (r && r->future && r->promotion == FuturePromotion::Queued &&
        r->future->log_dir == static_cast<std::size_t>(dir)) {
      r->promotion = FuturePromotion::Accepted;
      wake_mover(mover_of(tp));
    }
  }
  schedule_dir_assignments();
}

// ReplicaManager.handleLogDirFailure after the dir's replicas went offline.
void Broker::report_failed_log_dir(std::size_t index) {
  LogDir& dir = log_dirs_[index];
  dir.offline_since = now();
  dir.offline_acknowledged = false;
  const bool kip858 = !zookeeper_mode() && config_.mechanisms.has(Mechanism::DirectoryAssignment);
  const bool none_left = std::none_of(log_dirs_.begin(), log_dirs_.end(), [](const LogDir& d) { return d.online; });
  if (none_left || (kip858 && dir.spec.path == metadata_log_dir())) {
    // "Shutdown broker because all log dirs ... have failed" / "the metadata log dir ... has failed": Exit.halt.
    set_timer(0, [this] { crash(CrashKind::Process); });
    return;
  }
  if (kip858) {
    set_timer(config_.log_dir_failure_timeout, [this, index, process = incarnation()] {
      // OfflineDirBrokerFailureEvent: "Shutting down because couldn't communicate offline log dir"
      if (process == incarnation() && is_running() && !log_dirs_[index].offline_acknowledged) request_shutdown();
    });
  }
  // With ZooKeeper the broker's own side writes a log dir event notification
  // naming the replicas gone offline; in KRaft (3.7+) the heartbeat names the dir.
  send_heartbeat();
}

}  // namespace ksim::models
