#pragma once
// A ZooKeeper ensemble of one server (ZooKeeperServer with its request
// processors and SessionTrackerImpl), as Kafka's ZooKeeper mode uses it:
//
// - Sessions: a client connects asking for a timeout, negotiated into
//   [2, 20] x tickTime. Every request (pings included) renews it; the session
//   tracker expires a session at the first tick boundary after its timeout
//   passed without one (ExpiryQueue.roundToNextInterval). An expired
//   session's ephemeral znodes are deleted, which fires their watches. A
//   session outlives its connection: a client may reconnect and resume it
//   until it expires (so a crashed broker stays registered for the timeout).
// - Requests run one at a time (read_time, write_time each); a write commits
//   once its transaction log fsync ends, writes ready while one runs sharing
//   the next (SyncRequestProcessor's group commit); a read waits for its
//   session's earlier writes (CommitProcessor), so each session sees its own
//   order.
// - Watches are one-shot and belong to a session: getData and exists watch a
//   znode, getChildren its children. A notification for a session without a
//   connection waits for its reconnect (the client's SetWatches).
// - A crash loses nothing committed (the transaction log); sessions restart
//   with a full timeout, as a restarted server rebuilds its session tracker.
//
// Simplifications (docs/kafka-model.md): one server, not an ensemble (no
// leader election, no quorum writes); ACLs, quotas and TTL nodes are absent.
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "models/zookeeper/zk_messages.hpp"
#include "models/zookeeper/znode_tree.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct ZooKeeperConfig {
  SimTime tick_time = milliseconds(2000);  // tickTime
  SimTime read_time = microseconds(20);    // a read's work on the server
  SimTime write_time = microseconds(50);   // a write's work before its fsync
  SimTime fsync_latency = milliseconds(1); // the transaction log's fsync (dataLogDir's disk)
};

struct ZooKeeperStats {
  std::uint64_t sessions_created = 0;
  std::uint64_t sessions_expired = 0;
  std::uint64_t sessions_closed = 0;
  std::uint64_t reads = 0;
  std::uint64_t writes = 0;
  std::uint64_t fsyncs = 0;
  std::uint64_t notifications = 0;
};

class ZooKeeperServer final : public Node {
 public:
  ZooKeeperServer(Simulation& sim, std::string name, HostId host, ZooKeeperConfig config);

  const ZnodeTree& tree() const { return tree_; }
  const ZooKeeperStats& stats() const { return stats_; }
  const ZooKeeperConfig& config() const { return config_; }
  bool has_session(ZkSessionId session) const { return sessions_.contains(session); }
  // Hears the path of every committed change (a create, setData or delete; an expired session's ephemerals).
  void observe_changes(std::function<void(const std::string& path)> observer) { observers_.push_back(std::move(observer)); }

  // The persistent znodes a formatted cluster has before anything starts (parents first), and their data.
  void seed(const std::vector<std::string>& paths);
  void seed_data(const std::string& path, std::string data);
  // A persistent znode written now by a tool outside the sessions (kafka-topics.sh
  // creating a topic), committed at once: its watches fire.
  void admin_create(const std::string& path, std::string data);

 private:
  struct Session {
    SimTime timeout = 0;
    SimTime expires_at = 0;
    ConnectionId connection = 0;
    bool connected = false;
    SimTime last_commit_at = 0;  // when its last write commits: its reads wait for it
  };

  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;

  void connect_session(ConnectionId connection, const ZkRequest& request);
  void touch(Session& session);
  void tick();
  void expire(ZkSessionId id, bool closed_by_client);
  void drop_watches(ZkSessionId id);
  void set_watches(ZkSessionId session, const ZkRequest& request);
  void schedule(ZkSessionId session, std::unique_ptr<ZkRequest> request);
  void execute(ZkSessionId session, const ZkRequest& request);
  ZkError apply_write(ZkSessionId session, const ZkMultiOp& op, std::string* created);
  ZkError check_multi(const std::vector<ZkMultiOp>& ops) const;
  void fire(const std::string& path, ZkEventType type, std::map<std::string, std::set<ZkSessionId>>& watches);
  void notify(ZkSessionId session, const std::string& path, ZkEventType type);
  void respond(ZkSessionId session, std::unique_ptr<ZkResponse> response);
  static bool is_write(ZkOp op);

  ZooKeeperConfig config_;
  ZnodeTree tree_;  // durable: the snapshot and transaction log
  std::map<ZkSessionId, Session> sessions_;  // durable ids and timeouts (the session tracker rebuilds)
  std::map<ConnectionId, ZkSessionId> connections_;
  std::map<std::uint64_t, std::pair<ZkSessionId, std::unique_ptr<ZkRequest>>> scheduled_;  // by sequence
  std::uint64_t next_scheduled_ = 0;
  ZkSessionId next_session_ = 1;
  // Held for a session's current connection (a ServerCnxn is the watcher): its
  // close drops them, and the client re-arms them with SetWatches.
  std::map<std::string, std::set<ZkSessionId>> data_watches_, child_watches_;
  SimTime busy_until_ = 0;      // the request processor
  SimTime fsync_start_ = -1;    // the fsync that starts last, and when it ends
  SimTime fsync_end_ = 0;
  ZooKeeperStats stats_;
  std::vector<std::function<void(const std::string&)>> observers_;
  void changed(const std::string& path) {
    for (const auto& o : observers_) o(path);
  }
};

}  // namespace ksim::models
