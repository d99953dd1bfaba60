// The ZooKeeper-era controller's work once active: broker changes, leader
// elections and ISR changes, each written to ZooKeeper at the partition
// state's version before brokers hear of it (LeaderAndIsr, UpdateMetadata),
// and the leader side of ISR changes before KIP-497.
#include <algorithm>

#include "models/controller/zk_controller.hpp"
#include "models/protocol/replica_list.hpp"

namespace ksim::models {

// processTopicChange -> onNewPartitionCreation: a new topic's partitions get
// their first leader (the first live replica in assignment order) and ISR
// (its live replicas), created in ZooKeeper, then told to the brokers.
void ZkController::topic_change() {
  if (role_ == ZkControllerRole::Loading) topics_changed_ = true;
  if (role_ != ZkControllerRole::Active) return;
  zk_.get_children(zk_data::kTopics, true, [this, g = generation_](const ZkResponse& topics) {
    if (g != generation_) return;
    std::vector<std::int32_t> created;
    for (const std::string& name : topics.children) {
      const std::int32_t t = std::stoi(name.substr(5));
      if (!topics_.contains(t)) created.push_back(t);
    }
    read_assignments(created, [this, created] {
      for (const std::int32_t t : created) {
        if (topics_.insert(t).second) create_partition_states(t);
      }
    });
  });
}

void ZkController::create_partition_states(std::int32_t topic) {
  const std::string partitions = zk_data::topic_path(topic) + "/partitions";
  zk_.create(partitions, "", false, nullptr);
  for (std::int32_t p = 0; p < partition_count(topic); ++p) {
    const TopicPartition tp{topic, p};
    if (partitions_.contains(tp)) continue;  // created before
    PartitionState state;
    state.partition = tp;
    assign(state);
    if (state.replicas.empty()) continue;  // not in the topic's assignment
    for (const BrokerId b : state.replicas) {
      if (live(b)) state.isr.push_back(b);
    }
    if (state.isr.empty()) state.isr = state.replicas;  // NewPartition: no live replica yet; elected when one comes
    state.leader = live(state.isr.front()) ? state.isr.front() : kNoBroker;
    zk_.create(partitions + "/" + std::to_string(p), "", false, nullptr);
    zk_.create(zk_data::partition_state_path(tp), zk_data::encode({state.leader, 0, state.isr, epoch_}), false,
               [this, state, g = generation_](const ZkResponse& r) {
                 if (g != generation_ || r.error != ZkError::Ok) return;
                 partitions_[state.partition] = state;
                 pending_push_.push_back(state);
               });
  }
}

// processLogDirEventNotification: each notification's broker and replicas
// go offline (onReplicasBecomeOffline), then the notifications are deleted.
void ZkController::log_dir_events() {
  if (role_ == ZkControllerRole::Loading) log_dir_events_ = true;
  if (role_ != ZkControllerRole::Active) return;
  zk_.get_children(zk_data::kLogDirEvents, true, [this, g = generation_](const ZkResponse& list) {
    if (g != generation_) return;
    for (const std::string& child : list.children) {
      const std::string path = zk_data::kLogDirEvents + "/" + child;
      zk_.get_data(path, false, [this, path, g](const ZkResponse& n) {
        if (g != generation_ || n.error != ZkError::Ok) return;
        const auto [broker, offline] = zk_data::decode_log_dir_event(n.data);
        replicas_offline(broker, offline);
        auto remove = std::make_unique<ZkRequest>();
        remove->op = ZkOp::Delete;
        remove->path = path;
        zk_.send(std::move(remove), nullptr);
      });
    }
  });
}

void ZkController::replicas_offline(BrokerId broker, const std::vector<TopicPartition>& partitions) {
  for (const TopicPartition tp : partitions) {
    offline_replicas_.insert({tp, broker});
    const auto it = partitions_.find(tp);
    if (it == partitions_.end()) continue;
    PartitionState& state = it->second;
    PartitionState proposed = state;
    std::erase(proposed.isr, broker);
    if (state.leader == broker) {
      if (!leaderless_since_.contains(tp)) {
        leaderless_since_[tp] = now();
        ++controller_stats_.offline_transitions;
      }
      proposed.leader = choose_leader(proposed);
      if (proposed.leader == kNoBroker) {
        state.leader = kNoBroker;
        pending_push_.push_back(state);
        continue;
      }
      if (!contains(proposed.isr, proposed.leader)) proposed.isr = {proposed.leader};
    } else if (proposed.isr == state.isr || proposed.isr.empty()) {
      continue;
    }
    ++proposed.leader_epoch;
    write_state(std::move(proposed));
  }
  flush_pushes();
}

// processBrokerChange: the registrations now, with their epochs.
void ZkController::broker_change() {
  if (role_ == ZkControllerRole::Loading) brokers_changed_ = true;
  if (role_ != ZkControllerRole::Active) return;
  zk_.get_children(zk_data::kBrokerIds, true, [this, g = generation_](const ZkResponse& ids) {
    if (g != generation_ || ids.error != ZkError::Ok) return;
    auto current = std::make_shared<std::map<BrokerId, std::int64_t>>();
    auto left = std::make_shared<std::size_t>(ids.children.size());
    if (ids.children.empty()) return brokers_read({});
    for (const std::string& id : ids.children) {
      const BrokerId b = std::stoi(id);
      zk_.exists(zk_data::broker_path(b), false, [this, b, current, left, g](const ZkResponse& r) {
        if (g != generation_) return;
        if (r.stat) (*current)[b] = r.stat->czxid;
        if (--*left == 0) brokers_read(std::move(*current));
      });
    }
  });
}

void ZkController::brokers_read(std::map<BrokerId, std::int64_t> current) {
  std::vector<BrokerId> added, dead, bounced;
  for (const auto& [b, epoch] : current) {
    if (!live_.contains(b)) added.push_back(b);
    // KIP-380: a registration newer than the one known is a broker that restarted in between.
    else if (config_.broker_epochs && live_.at(b) != 0 && epoch != live_.at(b)) bounced.push_back(b);
  }
  for (const auto& [b, epoch] : live_) {
    if (!current.contains(b)) dead.push_back(b);
  }
  live_ = std::move(current);
  std::vector<BrokerId> failed = dead;
  failed.insert(failed.end(), bounced.begin(), bounced.end());
  remove_channels(failed);  // a bounced broker's channel starts anew (removeBroker, then addBroker)
  if (!failed.empty()) on_broker_failure(failed);
  std::vector<BrokerId> started = added;
  started.insert(started.end(), bounced.begin(), bounced.end());
  if (!started.empty()) on_broker_startup(started);
}

// onBrokerFailure -> onReplicasBecomeOffline: partitions the brokers led go
// offline and get leaders where they can; their other ISRs lose them.
void ZkController::on_broker_failure(const std::vector<BrokerId>& dead) {
  for (const BrokerId b : dead) shutting_down_.erase(b);
  for (auto& [tp, state] : partitions_) {
    const bool led = contains(dead, state.leader);
    std::vector<BrokerId> isr = state.isr;
    std::erase_if(isr, [&](BrokerId b) { return contains(dead, b); });
    if (!led && isr == state.isr) continue;
    PartitionState proposed = state;
    if (led) {
      if (!leaderless_since_.contains(tp)) {
        leaderless_since_[tp] = now();
        ++controller_stats_.offline_transitions;
      }
      proposed.isr = isr;
      proposed.leader = kNoBroker;
      const BrokerId leader = choose_leader(proposed);
      if (leader == kNoBroker) {
        // OfflinePartition with no eligible replica: ZooKeeper keeps the last state; brokers hear "no leader".
        state.leader = kNoBroker;
        pending_push_.push_back(state);
        continue;
      }
      proposed.leader = leader;
      if (!contains(proposed.isr, leader)) proposed.isr = {leader};  // unclean
      ++proposed.leader_epoch;
    } else {
      // ReplicaStateMachine's OfflineReplica: removeReplicasFromIsr, a new leader epoch (LeaderAndIsr.newLeaderAndIsr).
      if (isr.empty()) continue;  // the last member stays
      proposed.isr = isr;
      ++proposed.leader_epoch;
    }
    write_state(std::move(proposed));
  }
  flush_pushes();
}

// onBrokerStartup: every broker learns the new one; it gets every partition it
// hosts; partitions without a leader may now have one.
void ZkController::on_broker_startup(const std::vector<BrokerId>& started) {
  std::erase_if(offline_replicas_, [&](const auto& r) { return contains(started, r.second); });
  push_all(started);
  push({}, live_brokers());
  elect_offline_partitions();
  resume_reassignments([&](const zk_data::PartitionAssignment& a) {
    return std::any_of(started.begin(), started.end(), [&](BrokerId b) { return contains(target_replicas(a), b); });
  });
  flush_pushes();
}

void ZkController::elect_offline_partitions() {
  for (auto& [tp, state] : partitions_) {
    if (state.leader != kNoBroker && live(state.leader)) continue;
    PartitionState proposed = state;
    proposed.leader = choose_leader(state);
    if (proposed.leader == kNoBroker) continue;
    if (!contains(proposed.isr, proposed.leader)) proposed.isr = {proposed.leader};
    ++proposed.leader_epoch;
    write_state(std::move(proposed));
  }
}

// OfflinePartitionLeaderElectionStrategy: the first live replica in assignment
// order that is in the ISR; with unclean.leader.election.enable, any live one.
BrokerId ZkController::choose_leader(const PartitionState& state) const {
  for (const BrokerId b : state.replicas) {
    if (usable(b, state.partition) && contains(state.isr, b)) return b;
  }
  if (!directory_->topics.at(static_cast<std::size_t>(state.partition.topic)).unclean_leader_election_enable) {
    return kNoBroker;
  }
  for (const BrokerId b : state.replicas) {
    if (usable(b, state.partition)) return b;
  }
  return kNoBroker;
}

// KafkaZkClient.updateLeaderAndIsr: a setData at the version the controller
// read. A stale version (a leader wrote its ISR in between, before KIP-497)
// fails the write; the caller's `done` hears it, and without one the state is
// read again and what the controller wanted redone on it (below).
void ZkController::write_state(PartitionState proposed, std::function<void(bool)> done) {
  // PartitionStateMachine.electLeaderForPartitions and ReplicaStateMachine's
  // removeReplicasFromIsr retry the partitions whose update failed on a
  // version (`updatesToRetry`): the state read again, an election is made
  // anew on it (a new epoch, even for the same leader), an ISR change drops
  // from it the brokers no longer registered (the last member stays).
  const auto redo_on_fresh_state = [this](TopicPartition tp, bool election) {
    zk_.get_data(zk_data::partition_state_path(tp), false, [this, tp, election, g = generation_](const ZkResponse& r) {
      if (g != generation_ || r.error != ZkError::Ok || !r.stat || !partitions_.contains(tp)) return;
      const auto read = zk_data::decode_leader_and_isr(r.data);
      if (!read) return;
      PartitionState& state = partitions_.at(tp);
      state.leader_epoch = read->leader_epoch;
      state.isr = read->isr;
      state.partition_epoch = r.stat->version;
      PartitionState proposed = state;
      if (election) {
        proposed.leader = choose_leader(state);
        if (proposed.leader == kNoBroker) {
          state.leader = kNoBroker;  // still offline: brokers hear "no leader"
          pending_push_.push_back(state);
          return flush_pushes();
        }
        if (!contains(proposed.isr, proposed.leader)) proposed.isr = {proposed.leader};
      } else {
        state.leader = read->leader;
        proposed.leader = read->leader;
        std::erase_if(proposed.isr, [&](BrokerId b) { return !live(b); });
        if (proposed.isr == state.isr || proposed.isr.empty()) return;
      }
      ++proposed.leader_epoch;
      write_state(std::move(proposed));
    });
  };
  const TopicPartition tp = proposed.partition;
  const bool election = proposed.leader != partitions_.at(tp).leader;
  zk_data::LeaderAndIsr data{proposed.leader, proposed.leader_epoch, proposed.isr, epoch_};
  ++writes_in_flight_;
  zk_.set_data(zk_data::partition_state_path(tp), zk_data::encode(data), proposed.partition_epoch,
               [this, proposed, election, redo_on_fresh_state, done = std::move(done), g = generation_](const ZkResponse& r) mutable {
                 if (g != generation_) return;
                 --writes_in_flight_;
                 if (r.error != ZkError::Ok) {
                   ++stats_.stale_writes;
                   if (done) return done(false);
                   if (r.error == ZkError::BadVersion) redo_on_fresh_state(proposed.partition, election);
                   return;
                 }
                 ++stats_.isr_writes;
                 proposed.partition_epoch = r.stat ? r.stat->version : proposed.partition_epoch + 1;
                 PartitionState& state = partitions_.at(proposed.partition);
                 const bool unclean = election && !contains(state.isr, proposed.leader);
                 state = proposed;
                 if (election) {
                   ++stats_.leader_elections;
                   stats_.unclean_elections += unclean ? 1 : 0;
                   ControllerStats& cs = controller_stats_;
                   ++cs.elections;
                   cs.unclean_elections += unclean ? 1 : 0;
                   const Election e{now(), proposed.partition, proposed.leader, proposed.leader_epoch,
                                    unclean ? ElectedFrom::OutOfSyncReplica : ElectedFrom::Isr};
                   if (cs.first_elections.size() < ControllerStats::kElectionsKept) cs.first_elections.push_back(e);
                   if (const auto since = leaderless_since_.find(proposed.partition); since != leaderless_since_.end()) {
                     cs.max_leaderless = std::max(cs.max_leaderless, now() - since->second);
                     leaderless_since_.erase(since);
                   }
                   publish(LeaderElected{proposed.partition, proposed.leader, proposed.leader_epoch, unclean,
                                         proposed.isr.size()});
                 } else {
                   ++controller_stats_.isr_changes;
                   publish(IsrCommitted{proposed.partition, proposed.isr.size(), proposed.partition_epoch});
                 }
                 pending_push_.push_back(state);
                 if (done) done(true);
               });
}

// AlterIsr (KIP-497, 2.7+) at the controller: checked against its context, written, answered, announced.
void ZkController::handle_alter_isr(ConnectionId connection, const AlterPartitionRequest& request) {
  auto response = std::make_unique<AlterPartitionResponse>();
  response->proposed_leader_epoch = request.leader_epoch;
  response->proposed_partition_epoch = request.partition_epoch;
  response->proposed_isr = request.new_isr;
  const auto it = partitions_.find(request.partition);
  if (role_ != ZkControllerRole::Active || it == partitions_.end()) {
    response->error = Error::NotController;
    send(connection, std::move(response));
    return;
  }
  const PartitionState& state = it->second;
  response->state = state;
  if (request.leader_epoch != state.leader_epoch || request.leader != state.leader) {
    response->error = Error::FencedLeaderEpoch;
  } else if (request.partition_epoch != state.partition_epoch) {
    response->error = Error::InvalidUpdateVersion;
  }
  if (response->error != Error::None) {
    send(connection, std::move(response));
    return;
  }
  PartitionState proposed = state;
  proposed.isr = request.new_isr;
  auto answer = std::shared_ptr<AlterPartitionResponse>(response.release());
  write_state(proposed, [this, connection, answer](bool written) {
    const TopicPartition tp = answer->state.partition;
    answer->state = partitions_.at(tp);
    if (!written) answer->error = Error::InvalidUpdateVersion;
    send(connection, std::make_unique<AlterPartitionResponse>(*answer));
    // After the answer: a reassignment the ISR expansion may complete.
    if (written && reassigning_.contains(tp)) check_reassignment(tp, false);
  });
}

// Before KIP-497 the leader writes its ISR itself (ReplicationUtils.updateLeaderAndIsr),
// at the zkVersion it knows, and records the change for the controller.
void ZkController::leader_writes_isr(ConnectionId connection, const AlterPartitionRequest& request) {
  const zk_data::LeaderAndIsr data{request.leader, request.leader_epoch, request.new_isr, epoch_};
  const std::string path = zk_data::partition_state_path(request.partition);
  // The leader's answer: the znode's version once written, nullopt when not.
  auto answer = [this, connection, proposed = std::make_shared<AlterPartitionRequest>(request)](
                    std::optional<std::int32_t> version) {
    auto response = std::make_unique<AlterPartitionResponse>();
    response->proposed_leader_epoch = proposed->leader_epoch;
    response->proposed_partition_epoch = proposed->partition_epoch;
    response->proposed_isr = proposed->new_isr;
    response->state.partition = proposed->partition;
    response->state.leader = proposed->leader;
    response->state.leader_epoch = proposed->leader_epoch;
    response->state.isr = proposed->new_isr;
    if (version) {
      response->state.partition_epoch = *version;
      isr_changed_.insert(proposed->partition);  // ReplicaManager.recordIsrChange
      last_isr_change_ = now();
    } else {
      // "Cached zkVersion not equal to that in zookeeper, skip updating ISR": the ISR stays
      // as it was (tried again at the next check, and fails until a LeaderAndIsr).
      response->error = Error::InvalidUpdateVersion;
      response->not_written = true;
      response->state.partition_epoch = proposed->partition_epoch;
    }
    send(connection, std::move(response));
  };
  zk_.set_data(path, zk_data::encode(data), request.partition_epoch, [this, path, data, answer](const ZkResponse& r) {
    if (r.error == ZkError::Ok && r.stat) return answer(r.stat->version);
    if (r.error != ZkError::BadVersion) return answer(std::nullopt);
    // ReplicationUtils.checkLeaderAndIsrZkData: a write sent again after its
    // connection was lost (KafkaZkClient.retryRequestUntilConnected) fails on
    // the version its first try moved; the znode holding what it writes, it
    // succeeded, at the znode's version.
    zk_.get_data(path, false, [data, answer](const ZkResponse& read) {
      const auto written = read.error == ZkError::Ok && read.stat ? zk_data::decode_leader_and_isr(read.data)
                                                                   : std::nullopt;
      const bool same = written && written->leader == data.leader && written->leader_epoch == data.leader_epoch &&
                        written->isr == data.isr && written->controller_epoch == data.controller_epoch;
      answer(same ? std::optional<std::int32_t>(read.stat->version) : std::nullopt);
    });
  });
}

// ReplicaManager.maybePropagateIsrChanges, every 2.5 s: when no change came for
// 5 s, or the last announcement is 60 s old.
void ZkController::propagate_isr_changes() {
  if (!isr_changed_.empty() && zk_.state() == ZkClientState::Connected &&
      (last_isr_change_ + seconds(5) < now() || last_isr_propagation_ + seconds(60) < now())) {
    const std::vector<TopicPartition> changed(isr_changed_.begin(), isr_changed_.end());
    zk_.create(zk_data::kIsrChangePrefix, zk_data::encode_isr_changes(changed), false, nullptr, true);
    isr_changed_.clear();
    last_isr_propagation_ = now();
  }
  set_timer(milliseconds(2500), [this] { propagate_isr_changes(); });
}

// processIsrChangeNotification: read each notification and the partitions it
// names, tell every broker, delete the notifications.
void ZkController::isr_change_notifications() {
  if (role_ == ZkControllerRole::Loading) isr_changes_ = true;
  if (role_ != ZkControllerRole::Active) return;
  zk_.get_children(zk_data::kIsrChangeNotifications, true, [this, g = generation_](const ZkResponse& list) {
    if (g != generation_) return;
    for (const std::string& child : list.children) {
      const std::string path = zk_data::kIsrChangeNotifications + "/" + child;
      zk_.get_data(path, false, [this, path, g](const ZkResponse& n) {
        if (g != generation_) return;
        for (const TopicPartition tp : zk_data::decode_isr_changes(n.data)) {
          zk_.get_data(zk_data::partition_state_path(tp), false, [this, tp, g](const ZkResponse& r) {
            const auto state = zk_data::decode_leader_and_isr(r.data);
            if (g != generation_ || !state || !r.stat || !partitions_.contains(tp)) return;
            PartitionState& s = partitions_.at(tp);
            s.leader = state->leader;
            s.leader_epoch = state->leader_epoch;
            s.isr = state->isr;
            s.partition_epoch = r.stat->version;
            pending_push_.push_back(s);
            if (reassigning_.contains(tp)) check_reassignment(tp, false);
          });
        }
        auto remove = std::make_unique<ZkRequest>();
        remove->op = ZkOp::Delete;
        remove->path = path;
        zk_.send(std::move(remove), nullptr);
      });
    }
  });
}

std::vector<BrokerId> ZkController::live_brokers() const {
  std::vector<BrokerId> brokers;
  for (const auto& [b, epoch] : live_) brokers.push_back(b);
  return brokers;
}

}  // namespace ksim::models
