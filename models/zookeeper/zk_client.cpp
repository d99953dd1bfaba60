#include "models/zookeeper/zk_client.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

void ZkClient::start() {
  assert(state_ == ZkClientState::Stopped && "a client starts once per process");
  session_ = kNoZkSession;
  negotiated_timeout_ = 0;
  last_zxid_ = 0;
  data_watches_.clear();
  exist_watches_.clear();
  child_watches_.clear();
  ++generation_;
  connect();
}

void ZkClient::stop() {
  state_ = ZkClientState::Stopped;
  pending_.clear();
  ++generation_;
}

void ZkClient::close_session(std::function<void()> closed) {
  if (state_ != ZkClientState::Connected) {
    stop();
    if (closed) closed();
    return;
  }
  auto request = std::make_unique<ZkRequest>();
  request->op = ZkOp::CloseSession;
  send(std::move(request), [this, closed = std::move(closed)](const ZkResponse&) {
    stop();
    if (closed) closed();
  });
}

void ZkClient::connect() {
  state_ = ZkClientState::Connecting;
  connection_ = host_.zk_connect();
  auto request = std::make_unique<ZkRequest>();
  request->op = ZkOp::Connect;
  request->session = session_;
  request->session_timeout = requested_timeout_;
  host_.zk_send(connection_, std::move(request));
  // ClientCnxn.primeConnection: the watches still set, behind the connect request.
  if (session_ != kNoZkSession && !(data_watches_.empty() && exist_watches_.empty() && child_watches_.empty())) {
    auto set_watches = std::make_unique<ZkRequest>();
    set_watches->op = ZkOp::SetWatches;
    set_watches->xid = kZkSetWatchesXid;
    set_watches->relative_zxid = last_zxid_;
    set_watches->data_watches.assign(data_watches_.begin(), data_watches_.end());
    set_watches->exist_watches.assign(exist_watches_.begin(), exist_watches_.end());
    set_watches->child_watches.assign(child_watches_.begin(), child_watches_.end());
    host_.zk_send(connection_, std::move(set_watches));
  }
  last_sent_ = last_received_ = host_.zk_now();
  if (liveness_timer_) host_.zk_cancel_timer(liveness_timer_);
  liveness_timer_ = host_.zk_set_timer(session_timeout() / 3, [this, g = generation_] {
    if (g == generation_) liveness_tick();
  });
}

// ClientCnxn.startConnect: with one server, a random wait under a second before trying again.
void ZkClient::reconnect_later() {
  if (state_ == ZkClientState::Stopped) return;
  host_.zk_close(connection_);
  state_ = ZkClientState::Connecting;
  const auto wait = static_cast<SimTime>(host_.zk_random().below(static_cast<std::uint64_t>(milliseconds(1000))));
  host_.zk_set_timer(wait, [this, g = ++generation_] {
    if (g == generation_) connect();
  });
}

// ClientCnxn's send thread: a ping once nothing was sent for a third of the
// timeout; the connection given up once nothing arrived for two thirds of it.
void ZkClient::liveness_tick() {
  const SimTime now = host_.zk_now();
  const SimTime timeout = session_timeout();
  if (now - last_received_ >= timeout * 2 / 3) return reconnect_later();  // "have not heard from server"
  if (state_ == ZkClientState::Connected && now - last_sent_ >= timeout / 3) {
    auto ping = std::make_unique<ZkRequest>();
    ping->op = ZkOp::Ping;
    ping->xid = -2;
    host_.zk_send(connection_, std::move(ping));
    last_sent_ = now;
  }
  // While connecting nothing is pinged: only the connect's own deadline counts.
  const SimTime give_up = last_received_ + timeout * 2 / 3;
  const SimTime next = state_ == ZkClientState::Connected ? std::min(last_sent_ + timeout / 3, give_up) : give_up;
  liveness_timer_ = host_.zk_set_timer(std::max<SimTime>(next - now, 1), [this, g = generation_] {
    if (g == generation_) liveness_tick();
  });
}

void ZkClient::send(std::unique_ptr<ZkRequest> request, Callback callback) {
  if (state_ == ZkClientState::Stopped) return;
  request->xid = next_xid_++;
  const auto [it, inserted] = pending_.emplace(request->xid, Pending{*request, std::move(callback)});
  assert(inserted);
  if (state_ == ZkClientState::Connected) transmit(it->second.request);
}

void ZkClient::transmit(const ZkRequest& request) {
  host_.zk_send(connection_, std::make_unique<ZkRequest>(request));
  last_sent_ = host_.zk_now();
}

void ZkClient::handle(const ZkResponse& response) {
  if (state_ == ZkClientState::Stopped) return;
  last_received_ = host_.zk_now();
  if (response.op == ZkOp::Connect && response.xid != kZkNotificationXid) {
    if (response.error == ZkError::SessionExpired) return expired();
    const bool fresh = session_ != response.session;
    session_ = response.session;
    negotiated_timeout_ = response.session_timeout;
    state_ = ZkClientState::Connected;
    for (const auto& [xid, p] : pending_) transmit(p.request);  // what the lost connection carried, and what waited
    if (fresh && on_session_established) on_session_established();
    return;
  }
  if (response.xid == kZkNotificationXid) {
    note_watch_fired(response);
    auto& handlers = *response.event == ZkEventType::NodeChildrenChanged ? child_handlers_ : data_handlers_;
    const auto h = handlers.find(response.path);
    if (h != handlers.end()) {
      const WatchHandler handler = h->second;  // it may re-register itself
      handler(*response.event);
    }
    return;
  }
  if (response.op == ZkOp::Ping) return;
  last_zxid_ = std::max(last_zxid_, response.zxid);
  const auto it = pending_.find(response.xid);
  if (it == pending_.end()) return;  // answered already (sent twice across a reconnect)
  note_watch_set(it->second.request, response);
  const Callback callback = std::move(it->second.callback);
  pending_.erase(it);
  if (callback) callback(response);
}

void ZkClient::on_connection_closed(ConnectionId connection) {
  if (connection != connection_ || state_ == ZkClientState::Stopped) return;
  reconnect_later();
}

// ZKWatchManager: the server set a watch when it answered a read with one
// (exists of a missing znode: an exist watch)...
void ZkClient::note_watch_set(const ZkRequest& request, const ZkResponse& response) {
  if (!request.watch) return;
  const bool found = response.error == ZkError::Ok;
  switch (request.op) {
    case ZkOp::GetData:
      if (found) data_watches_.insert(request.path);
      break;
    case ZkOp::Exists:
      if (found) data_watches_.insert(request.path);
      else if (response.error == ZkError::NoNode) exist_watches_.insert(request.path);
      break;
    case ZkOp::GetChildren:
      if (found) child_watches_.insert(request.path);
      break;
    default: break;
  }
}

// ...and a notification ends the watches it fired (ZKWatchManager.materialize).
void ZkClient::note_watch_fired(const ZkResponse& notification) {
  const std::string& path = notification.path;
  switch (*notification.event) {
    case ZkEventType::NodeCreated:
    case ZkEventType::NodeDataChanged:
      data_watches_.erase(path);
      exist_watches_.erase(path);
      break;
    case ZkEventType::NodeChildrenChanged: child_watches_.erase(path); break;
    case ZkEventType::NodeDeleted:
      data_watches_.erase(path);
      exist_watches_.erase(path);
      child_watches_.erase(path);
      break;
  }
}

// The session is gone: what waited fails, the owner hears it, a new session starts.
void ZkClient::expired() {
  std::map<std::int32_t, Pending> failed = std::move(pending_);
  pending_.clear();
  session_ = kNoZkSession;
  negotiated_timeout_ = 0;
  last_zxid_ = 0;  // a new ZooKeeper handle (ZooKeeperClient.reinitialize): no watches, no zxid seen
  data_watches_.clear();
  exist_watches_.clear();
  child_watches_.clear();
  for (auto& [xid, p] : failed) {
    ZkResponse response;
    response.op = p.request.op;
    response.xid = xid;
    response.error = ZkError::SessionExpired;
    if (p.callback) p.callback(response);
  }
  if (on_session_expired) on_session_expired();
  if (state_ == ZkClientState::Stopped) return;
  ++generation_;
  connect();
}

void ZkClient::get_data(const std::string& path, bool watch, Callback callback) {
  auto request = std::make_unique<ZkRequest>();
  request->op = ZkOp::GetData;
  request->path = path;
  request->watch = watch;
  send(std::move(request), std::move(callback));
}

void ZkClient::get_children(const std::string& path, bool watch, Callback callback) {
  auto request = std::make_unique<ZkRequest>();
  request->op = ZkOp::GetChildren;
  request->path = path;
  request->watch = watch;
  send(std::move(request), std::move(callback));
}

void ZkClient::exists(const std::string& path, bool watch, Callback callback) {
  auto request = std::make_unique<ZkRequest>();
  request->op = ZkOp::Exists;
  request->path = path;
  request->watch = watch;
  send(std::move(request), std::move(callback));
}

void ZkClient::create(const std::string& path, std::string data, bool ephemeral, Callback callback, bool sequential) {
  auto request = std::make_unique<ZkRequest>();
  request->op = ZkOp::Create;
  request->path = path;
  request->data = std::move(data);
  request->ephemeral = ephemeral;
  request->sequential = sequential;
  send(std::move(request), std::move(callback));
}

void ZkClient::set_data(const std::string& path, std::string data, std::int32_t version, Callback callback) {
  auto request = std::make_unique<ZkRequest>();
  request->op = ZkOp::SetData;
  request->path = path;
  request->data = std::move(data);
  request->version = version;
  send(std::move(request), std::move(callback));
}

}  // namespace ksim::models
