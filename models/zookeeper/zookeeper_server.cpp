#include "models/zookeeper/zookeeper_server.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

ZooKeeperServer::ZooKeeperServer(Simulation& sim, std::string name, HostId host, ZooKeeperConfig config)
    : Node(sim, std::move(name), host), config_(config) {}

void ZooKeeperServer::seed(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    [[maybe_unused]] const auto created = tree_.create(path, "", kNoZkSession, false);
    assert(created.error == ZkError::Ok && "seeded paths are new, parents first");
  }
}

void ZooKeeperServer::seed_data(const std::string& path, std::string data) {
  if (!tree_.find(path)) seed({path});
  tree_.set_data(path, std::move(data), kAnyZkVersion);
}

void ZooKeeperServer::admin_create(const std::string& path, std::string data) {
  std::string created;
  [[maybe_unused]] const ZkError error = apply_write(kNoZkSession, {ZkOp::Create, path, std::move(data)}, &created);
  assert(error == ZkError::Ok && "an admin creates new znodes under existing parents");
  ++stats_.writes;
}

// A restarted server rebuilds its session tracker from the log: every session gets a full timeout.
void ZooKeeperServer::on_start() {
  for (auto& [id, session] : sessions_) {
    session.connected = false;
    session.last_commit_at = 0;
    touch(session);
  }
  data_watches_.clear();  // in memory only: the clients set them again as they reconnect
  child_watches_.clear();
  busy_until_ = now();
  fsync_start_ = -1;
  fsync_end_ = now();
  set_timer(config_.tick_time - now() % config_.tick_time, [this] { tick(); });
}

void ZooKeeperServer::on_crash(CrashKind) {
  connections_.clear();
  scheduled_.clear();  // uncommitted writes are lost; their clients resend
}

bool ZooKeeperServer::is_write(ZkOp op) {
  return op == ZkOp::Create || op == ZkOp::Delete || op == ZkOp::SetData || op == ZkOp::Multi ||
         op == ZkOp::CloseSession;
}

void ZooKeeperServer::on_message(ConnectionId connection, MessagePtr message) {
  auto request = take_message<ZkRequest>(std::move(message));
  if (request->op == ZkOp::Connect) return connect_session(connection, *request);
  const auto c = connections_.find(connection);
  if (c == connections_.end()) return;  // not a session's connection (any more): the client reconnects
  Session& session = sessions_.at(c->second);
  touch(session);
  if (request->op == ZkOp::SetWatches) return set_watches(c->second, *request);
  if (request->op == ZkOp::Ping) {
    auto pong = std::make_unique<ZkResponse>();
    pong->op = ZkOp::Ping;
    pong->xid = request->xid;
    return respond(c->second, std::move(pong));
  }
  schedule(c->second, std::move(request));
}

// ZooKeeperServer.processConnectRequest: a new session, or the resumption of a live one.
void ZooKeeperServer::connect_session(ConnectionId connection, const ZkRequest& request) {
  auto response = std::make_unique<ZkResponse>();
  response->op = ZkOp::Connect;
  ZkSessionId id = request.session;
  if (id == kNoZkSession) {
    id = next_session_++;
    Session fresh;
    fresh.timeout = std::clamp(request.session_timeout, 2 * config_.tick_time, 20 * config_.tick_time);
    sessions_.emplace(id, std::move(fresh));
    ++stats_.sessions_created;
  } else if (!sessions_.contains(id)) {
    response->error = ZkError::SessionExpired;
    response->session = id;
    send(connection, std::move(response));
    return;
  }
  Session& session = sessions_.at(id);
  if (session.connected && session.connection != connection) {
    connections_.erase(session.connection);  // the old connection is closed, and its watches go with it
    drop_watches(id);
  }
  session.connection = connection;
  session.connected = true;
  connections_[connection] = id;
  touch(session);
  response->session = id;
  response->session_timeout = session.timeout;
  send(connection, std::move(response));
}

// NIOServerCnxn.close -> DataTree.removeCnxn: a connection's watches end with it.
void ZooKeeperServer::drop_watches(ZkSessionId id) {
  for (auto* watches : {&data_watches_, &child_watches_}) {
    for (auto it = watches->begin(); it != watches->end();) {
      it->second.erase(id);
      it = it->second.empty() ? watches->erase(it) : std::next(it);
    }
  }
}

// DataTree.setWatches: each watch the client holds is set again, or fires at
// once if its znode changed after the last transaction the client saw (a
// notification lost with the connection, or a change made while it was away).
void ZooKeeperServer::set_watches(ZkSessionId session, const ZkRequest& request) {
  for (const std::string& path : request.data_watches) {
    const Znode* node = tree_.find(path);
    if (!node) notify(session, path, ZkEventType::NodeDeleted);
    else if (node->stat.mzxid > request.relative_zxid) notify(session, path, ZkEventType::NodeDataChanged);
    else data_watches_[path].insert(session);
  }
  for (const std::string& path : request.exist_watches) {
    if (tree_.find(path)) notify(session, path, ZkEventType::NodeCreated);
    else data_watches_[path].insert(session);
  }
  for (const std::string& path : request.child_watches) {
    const Znode* node = tree_.find(path);
    if (!node) notify(session, path, ZkEventType::NodeDeleted);
    else if (node->stat.pzxid > request.relative_zxid) notify(session, path, ZkEventType::NodeChildrenChanged);
    else child_watches_[path].insert(session);
  }
}

void ZooKeeperServer::on_connection_closed(ConnectionId connection) {
  const auto c = connections_.find(connection);
  if (c == connections_.end()) return;
  if (auto s = sessions_.find(c->second); s != sessions_.end() && s->second.connection == connection) {
    s->second.connected = false;
    drop_watches(c->second);
  }
  connections_.erase(c);
}

// ExpiryQueue: the session expires at the first tick boundary after its timeout.
void ZooKeeperServer::touch(Session& session) {
  const SimTime deadline = now() + session.timeout;
  session.expires_at = (deadline / config_.tick_time + 1) * config_.tick_time;
}

void ZooKeeperServer::tick() {
  std::vector<ZkSessionId> expired;
  for (const auto& [id, session] : sessions_) {
    if (session.expires_at <= now()) expired.push_back(id);
  }
  for (const ZkSessionId id : expired) expire(id, false);
  set_timer(config_.tick_time, [this] { tick(); });
}

// PrepRequestProcessor's closeSession: the session's ephemeral znodes go, firing their watches.
void ZooKeeperServer::expire(ZkSessionId id, bool closed_by_client) {
  for (const std::string& path : tree_.ephemerals_of(id)) {
    tree_.remove(path, kAnyZkVersion);
    fire(path, ZkEventType::NodeDeleted, data_watches_);
    fire(path, ZkEventType::NodeDeleted, child_watches_);
    fire(ZnodeTree::parent_of(path), ZkEventType::NodeChildrenChanged, child_watches_);
    changed(path);
  }
  drop_watches(id);
  Session& session = sessions_.at(id);
  if (session.connected) {
    connections_.erase(session.connection);
    if (!closed_by_client) close(session.connection);  // the client learns it when it reconnects
  }
  sessions_.erase(id);
  ++(closed_by_client ? stats_.sessions_closed : stats_.sessions_expired);
}

// One request processor: each request takes its turn; a write commits after
// the fsync it joins, a read runs once its session's writes have committed.
void ZooKeeperServer::schedule(ZkSessionId session_id, std::unique_ptr<ZkRequest> request) {
  Session& session = sessions_.at(session_id);
  const bool write = is_write(request->op);
  busy_until_ = std::max(busy_until_, now()) + (write ? config_.write_time : config_.read_time);
  SimTime at = busy_until_;
  if (write) {
    if (at > fsync_start_) {  // the fsync that would take it has started: the next one
      fsync_start_ = std::max(at, fsync_end_);
      fsync_end_ = fsync_start_ + config_.fsync_latency;
      ++stats_.fsyncs;
    }
    at = fsync_end_;
    session.last_commit_at = at;
  } else {
    at = std::max(at, session.last_commit_at);
  }
  const std::uint64_t seq = next_scheduled_++;
  scheduled_.emplace(seq, std::pair{session_id, std::move(request)});
  set_timer(at - now(), [this, seq] {
    const auto it = scheduled_.find(seq);
    if (it == scheduled_.end()) return;
    auto [session, request] = std::move(it->second);
    scheduled_.erase(it);
    if (sessions_.contains(session)) execute(session, *request);
  });
}

ZkError ZooKeeperServer::check_multi(const std::vector<ZkMultiOp>& ops) const {
  for (const ZkMultiOp& op : ops) {  // each against the tree as the ops before it leave it (creates only matter here)
    const Znode* node = tree_.find(op.path);
    const bool created_before = std::any_of(ops.begin(), ops.begin() + (&op - ops.data()), [&](const ZkMultiOp& o) {
      return o.op == ZkOp::Create && o.path == op.path;
    });
    if (op.op == ZkOp::Create && (node || created_before)) return ZkError::NodeExists;
    if (op.op == ZkOp::Create && !tree_.find(ZnodeTree::parent_of(op.path))) return ZkError::NoNode;
    if (op.op != ZkOp::Create && !node && !created_before) return ZkError::NoNode;
    if (op.op != ZkOp::Create && node && op.version != kAnyZkVersion && op.version != node->stat.version) {
      return ZkError::BadVersion;
    }
  }
  return ZkError::Ok;
}

ZkError ZooKeeperServer::apply_write(ZkSessionId session, const ZkMultiOp& op, std::string* created) {
  switch (op.op) {
    case ZkOp::Create: {
      const auto result = tree_.create(op.path, op.data, op.ephemeral ? session : kNoZkSession, op.sequential);
      if (result.error != ZkError::Ok) return result.error;
      if (created) *created = result.path;
      fire(result.path, ZkEventType::NodeCreated, data_watches_);
      fire(ZnodeTree::parent_of(result.path), ZkEventType::NodeChildrenChanged, child_watches_);
      changed(result.path);
      return ZkError::Ok;
    }
    case ZkOp::Delete: {
      const ZkError error = tree_.remove(op.path, op.version);
      if (error != ZkError::Ok) return error;
      fire(op.path, ZkEventType::NodeDeleted, data_watches_);
      fire(op.path, ZkEventType::NodeDeleted, child_watches_);
      fire(ZnodeTree::parent_of(op.path), ZkEventType::NodeChildrenChanged, child_watches_);
      changed(op.path);
      return ZkError::Ok;
    }
    case ZkOp::SetData: {
      const ZkError error = tree_.set_data(op.path, op.data, op.version);
      if (error == ZkError::Ok) {
        fire(op.path, ZkEventType::NodeDataChanged, data_watches_);
        changed(op.path);
      }
      return error;
    }
    default: assert(false && "not a write of one znode"); return ZkError::Ok;
  }
}

void ZooKeeperServer::execute(ZkSessionId session, const ZkRequest& request) {
  auto response = std::make_unique<ZkResponse>();
  response->op = request.op;
  response->xid = request.xid;
  const auto stat_of = [&](const std::string& path) -> std::optional<ZnodeStat> {
    const Znode* node = tree_.find(path);
    return node ? std::optional(node->stat) : std::nullopt;
  };
  switch (request.op) {
    case ZkOp::Create: {
      ++stats_.writes;
      std::string created;
      response->error = apply_write(
          session, {ZkOp::Create, request.path, request.data, kAnyZkVersion, request.ephemeral, request.sequential},
          &created);
      response->path = created;
      break;
    }
    case ZkOp::Delete:
    case ZkOp::SetData:
      ++stats_.writes;
      response->error = apply_write(session, {request.op, request.path, request.data, request.version}, nullptr);
      response->stat = stat_of(request.path);
      break;
    case ZkOp::Multi:
      ++stats_.writes;
      response->error = check_multi(request.ops);
      if (response->error != ZkError::Ok) break;
      for (const ZkMultiOp& op : request.ops) {
        std::string created;
        [[maybe_unused]] const ZkError error = apply_write(session, op, op.op == ZkOp::Create ? &created : nullptr);
        assert(error == ZkError::Ok && "a checked multi applies");
      }
      break;
    case ZkOp::GetData:
    case ZkOp::Exists:
      ++stats_.reads;
      if (const Znode* node = tree_.find(request.path)) {
        response->stat = node->stat;
        if (request.op == ZkOp::GetData) response->data = node->data;
      } else {
        response->error = ZkError::NoNode;
      }
      // getData watches only an existing znode; exists watches its creation too.
      if (request.watch && (response->error == ZkError::Ok || request.op == ZkOp::Exists)) {
        data_watches_[request.path].insert(session);
      }
      break;
    case ZkOp::GetChildren:
      ++stats_.reads;
      if (auto names = tree_.children(request.path)) {
        response->children = std::move(*names);
        if (request.watch) child_watches_[request.path].insert(session);
      } else {
        response->error = ZkError::NoNode;
      }
      break;
    case ZkOp::CloseSession:
      respond(session, std::move(response));
      expire(session, true);
      return;
    case ZkOp::Connect:
    case ZkOp::Ping:
    case ZkOp::SetWatches: assert(false && "answered on arrival"); break;
  }
  respond(session, std::move(response));
}

void ZooKeeperServer::fire(const std::string& path, ZkEventType type,
                           std::map<std::string, std::set<ZkSessionId>>& watches) {
  const auto it = watches.find(path);
  if (it == watches.end()) return;
  const std::set<ZkSessionId> sessions = std::move(it->second);
  watches.erase(it);  // one-shot
  for (const ZkSessionId s : sessions) notify(s, path, type);
}

void ZooKeeperServer::notify(ZkSessionId session, const std::string& path, ZkEventType type) {
  auto event = std::make_unique<ZkResponse>();
  event->xid = kZkNotificationXid;
  event->path = path;
  event->event = type;
  ++stats_.notifications;
  respond(session, std::move(event));
}

void ZooKeeperServer::respond(ZkSessionId session, std::unique_ptr<ZkResponse> response) {
  const auto s = sessions_.find(session);
  if (s == sessions_.end()) return;
  if (!s->second.connected) return;  // lost with its connection: the client resends, and sets its watches again
  if (response->xid != kZkNotificationXid) response->zxid = tree_.last_zxid();
  send(s->second.connection, std::move(response));
}

}  // namespace ksim::models
