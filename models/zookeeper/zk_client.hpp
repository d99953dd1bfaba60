#pragma once
// A ZooKeeper client as Kafka's ZooKeeperClient drives ZooKeeper's ClientCnxn:
// one session, kept alive by pings when nothing else was sent for a third of
// its timeout; a connection on which nothing arrived for two thirds of it is
// given up and another tried after a random wait under a second (ClientCnxn's
// readTimeout and startConnect). Requests sent while disconnected wait, and
// those in flight on a lost connection are sent again once it is back
// (ZooKeeperClient.retryRequestsUntilConnected). When the server says the
// session expired, every request waiting fails with SESSIONEXPIRED, the owner
// hears it, and a new session starts (ZooKeeperClient.reinitialize).
//
// Watch notifications go to handlers registered by path, which survive a
// session's expiry (the zNodeChangeHandlers registry); a handler re-arms its
// watch by reading again with watch set, as Kafka's do. The client keeps the
// watches the server set and has not fired yet (ZKWatchManager) and the last
// zxid it saw; on a reconnect within the session it sends them with
// SetWatches, so that a notification lost with a connection fires again.
//
// The client is not a node: its host (a broker) keeps the connection, the
// timers and the random stream, and hands it every ZooKeeper response.
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "models/zookeeper/zk_messages.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

class ZkClientHost {
 public:
  virtual ~ZkClientHost() = default;
  virtual SimTime zk_now() const = 0;
  virtual RandomStream& zk_random() = 0;
  virtual ConnectionId zk_connect() = 0;  // a new connection to the ZooKeeper server
  virtual void zk_send(ConnectionId connection, MessagePtr message) = 0;
  virtual void zk_close(ConnectionId connection) = 0;
  virtual TimerId zk_set_timer(SimTime delay, Node::TimerCallback callback) = 0;
  virtual void zk_cancel_timer(TimerId id) = 0;
};

enum class ZkClientState : std::uint8_t { Stopped, Connecting, Connected };

class ZkClient {
 public:
  using Callback = std::function<void(const ZkResponse&)>;
  using WatchHandler = std::function<void(ZkEventType)>;

  ZkClient(ZkClientHost& host, SimTime session_timeout) : host_(host), requested_timeout_(session_timeout) {}

  void start();  // a new session
  void stop();   // the process is gone: the server keeps its session until it expires
  // A clean shutdown: the session and its ephemeral znodes go at once; `closed`
  // runs when the server has done it (at once when not connected).
  void close_session(std::function<void()> closed);

  // Sends `request` (its xid set here); `callback` gets its response.
  void send(std::unique_ptr<ZkRequest> request, Callback callback);
  // Shorthands.
  void get_data(const std::string& path, bool watch, Callback callback);
  void get_children(const std::string& path, bool watch, Callback callback);
  void exists(const std::string& path, bool watch, Callback callback);
  void create(const std::string& path, std::string data, bool ephemeral, Callback callback, bool sequential = false);
  void set_data(const std::string& path, std::string data, std::int32_t version, Callback callback);

  void on_data_change(const std::string& path, WatchHandler handler) { data_handlers_[path] = std::move(handler); }
  void on_child_change(const std::string& path, WatchHandler handler) { child_handlers_[path] = std::move(handler); }
  void forget_data_change(const std::string& path) { data_handlers_.erase(path); }  // unregisterZNodeChangeHandler
  // A new session is open (the first, and each after an expiry); the session expired.
  std::function<void()> on_session_established;
  std::function<void()> on_session_expired;

  bool owns(ConnectionId connection) const { return state_ != ZkClientState::Stopped && connection == connection_; }
  void handle(const ZkResponse& response);
  void on_connection_closed(ConnectionId connection);

  ZkClientState state() const { return state_; }
  ZkSessionId session() const { return session_; }
  SimTime session_timeout() const { return negotiated_timeout_ ? negotiated_timeout_ : requested_timeout_; }
  std::size_t waiting() const { return pending_.size(); }

 private:
  struct Pending {
    ZkRequest request;
    Callback callback;
  };
  void connect();
  void reconnect_later();
  void transmit(const ZkRequest& request);
  void liveness_tick();
  void expired();
  void note_watch_set(const ZkRequest& request, const ZkResponse& response);
  void note_watch_fired(const ZkResponse& notification);

  ZkClientHost& host_;
  SimTime requested_timeout_;
  SimTime negotiated_timeout_ = 0;
  ZkClientState state_ = ZkClientState::Stopped;
  ZkSessionId session_ = kNoZkSession;
  ConnectionId connection_ = 0;
  std::int32_t next_xid_ = 1;
  std::map<std::int32_t, Pending> pending_;  // by xid: sent in this order
  std::map<std::string, WatchHandler> data_handlers_, child_handlers_;
  std::set<std::string> data_watches_, exist_watches_, child_watches_;  // set by the server, not fired yet
  std::int64_t last_zxid_ = 0;  // of the last response (ClientCnxn.lastZxid)
  SimTime last_sent_ = 0, last_received_ = 0;
  TimerId liveness_timer_{};
  std::uint64_t generation_ = 0;  // a stop or expiry outdates the timers set before
};

}  // namespace ksim::models
