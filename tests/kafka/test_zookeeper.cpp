// The ZooKeeper model (models/zookeeper/): sessions that outlive their
// connection and expire on tick boundaries, ephemeral znodes that go with
// their session, one-shot watches, conditional writes, atomic multis, and the
// transaction log's group commit.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "models/zookeeper/zk_client.hpp"
#include "models/zookeeper/zookeeper_server.hpp"
#include "sim/core/simulation.hpp"
#include "tests/support/probe_node.hpp"

using namespace ksim;
using namespace ksim::models;

namespace zookeeper_test {

// A process with a ZooKeeper client, as a broker hosts one.
class ZkUser final : public Node, private ZkClientHost {
 public:
  ZkUser(Simulation& sim, std::string name, HostId host, NodeId server, SimTime timeout)
      : Node(sim, std::move(name), host), server_(server), client_(*this, timeout) {
    client_.on_session_established = [this] { ++sessions; };
    client_.on_session_expired = [this] { ++expiries; };
  }
  ZkClient& client() { return client_; }
  int sessions = 0, expiries = 0;
  std::vector<ZkResponse> answers;
  std::vector<std::pair<std::string, ZkEventType>> events;

  // Records each answer in `answers`.
  ZkClient::Callback record() {
    return [this](const ZkResponse& r) { answers.push_back(r); };
  }
  void watch_children(const std::string& path) {
    client_.on_child_change(path, [this, path](ZkEventType t) {
      events.emplace_back(path, t);
      client_.get_children(path, true, nullptr);  // re-arm, as Kafka's handlers do
    });
    client_.get_children(path, true, record());
  }

 private:
  void on_start() override { client_.start(); }
  void on_shutdown_requested() override {
    client_.close_session([this] { crash(CrashKind::Shutdown); });
  }
  void on_crash(CrashKind) override { client_.stop(); }
  void on_message(ConnectionId, MessagePtr message) override { client_.handle(message_as<ZkResponse>(*message)); }
  void on_connection_closed(ConnectionId connection) override { client_.on_connection_closed(connection); }

  SimTime zk_now() const override { return now(); }
  RandomStream& zk_random() override { return rng(); }
  ConnectionId zk_connect() override { return connect(server_); }
  void zk_send(ConnectionId connection, MessagePtr message) override { send(connection, std::move(message)); }
  void zk_close(ConnectionId connection) override { close(connection); }
  TimerId zk_set_timer(SimTime delay, TimerCallback callback) override { return set_timer(delay, std::move(callback)); }
  void zk_cancel_timer(TimerId id) override { cancel_timer(id); }

  NodeId server_;
  ZkClient client_;
};

struct ZkWorld {
  explicit ZkWorld(int users = 2, SimTime timeout = seconds(6))
      : sim(1, testing::ProbeCluster::make_topology(users + 1, 100, {1.25e8, microseconds(50)}), NetworkOptions{}),
        server(sim.spawn<ZooKeeperServer>("zookeeper", *sim.topology().find("h0"), ZooKeeperConfig{})) {
    server.start();
    for (int i = 0; i < users; ++i) {
      const std::string host = "h" + std::to_string(i + 1);
      this->users.push_back(&sim.spawn<ZkUser>("user" + std::to_string(i), *sim.topology().find(host), server.id(), timeout));
      this->users.back()->start();
    }
    run_for(milliseconds(10));
  }
  void run_for(SimTime d) { sim.run_until(sim.now() + d); }
  // Runs `action` as an event of the simulation, now.
  void act(std::function<void()> action) {
    sim.events().schedule_at(sim.now(), [a = std::move(action)]() mutable { a(); });
    sim.run_until(sim.now());
  }
  bool exists(const std::string& path) const { return server.tree().find(path) != nullptr; }

  Simulation sim;
  ZooKeeperServer& server;
  std::vector<ZkUser*> users;
};

}  // namespace zookeeper_test

using zookeeper_test::ZkWorld;

TEST_CASE("zookeeper: an ephemeral znode outlives its crashed owner until the session expires on a tick", "[zookeeper]") {
  ZkWorld w;
  auto& a = *w.users[0];
  auto& b = *w.users[1];
  REQUIRE(a.sessions == 1);
  w.act([&] {
    a.client().create("/brokers", "", false, nullptr);
    a.client().create("/brokers/ids", "", false, nullptr);
    a.client().create("/brokers/ids/0", "{}", true, a.record());
  });
  w.run_for(milliseconds(20));
  REQUIRE(w.exists("/brokers/ids/0"));
  w.act([&] { b.watch_children("/brokers/ids"); });
  w.run_for(milliseconds(20));
  w.act([&] { a.crash(); });
  // A 6 s session expires at the first 2 s tick after 6 s without a ping: within (6 s, 8 s].
  w.run_for(seconds(6) - milliseconds(100));
  CHECK(w.exists("/brokers/ids/0"));
  CHECK(b.events.empty());
  w.run_for(seconds(3));
  CHECK_FALSE(w.exists("/brokers/ids/0"));
  REQUIRE(b.events.size() == 1);
  CHECK(b.events[0] == std::pair{std::string("/brokers/ids"), ZkEventType::NodeChildrenChanged});
  CHECK(w.server.stats().sessions_expired == 1);
  // The restarted process has a new session; its registration succeeds now.
  w.act([&] { a.restart(); });
  w.run_for(milliseconds(20));
  w.act([&] { a.client().create("/brokers/ids/0", "{}", true, a.record()); });
  w.run_for(milliseconds(20));
  CHECK(w.exists("/brokers/ids/0"));
  CHECK(b.events.size() == 2);  // the watch was re-armed
}

TEST_CASE("zookeeper: a process restarted within its session finds its znode taken (NODEEXISTS)", "[zookeeper]") {
  ZkWorld w;
  auto& a = *w.users[0];
  w.act([&] {
    a.client().create("/b", "", false, nullptr);
    a.client().create("/b/0", "{}", true, nullptr);
  });
  w.run_for(milliseconds(20));
  w.act([&] { a.crash(); });
  w.run_for(seconds(1));
  w.act([&] { a.restart(); });
  w.run_for(milliseconds(20));
  w.act([&] { a.client().create("/b/0", "{}", true, a.record()); });
  w.run_for(milliseconds(20));
  REQUIRE(a.answers.size() == 1);
  CHECK(a.answers[0].error == ZkError::NodeExists);
  CHECK(w.server.tree().find("/b/0")->stat.ephemeral_owner != a.client().session());
}

TEST_CASE("zookeeper: a clean close deletes the session's ephemerals at once", "[zookeeper]") {
  ZkWorld w;
  auto& a = *w.users[0];
  w.act([&] { a.client().create("/controller", "{\"brokerid\":0}", true, nullptr); });
  w.run_for(milliseconds(20));
  REQUIRE(w.exists("/controller"));
  w.act([&] { a.request_shutdown(); });
  w.run_for(milliseconds(20));
  CHECK_FALSE(w.exists("/controller"));
  CHECK(w.server.stats().sessions_closed == 1);
}

TEST_CASE("zookeeper: conditional setData and an atomic multi", "[zookeeper]") {
  ZkWorld w;
  auto& a = *w.users[0];
  w.act([&] {
    a.client().create("/state", "isr=[0,1,2]", false, nullptr);
    a.client().set_data("/state", "isr=[0,1]", 0, a.record());
    a.client().set_data("/state", "isr=[0]", 0, a.record());  // version 0 is gone
  });
  w.run_for(milliseconds(20));
  REQUIRE(a.answers.size() == 2);
  CHECK(a.answers[0].error == ZkError::Ok);
  CHECK(a.answers[1].error == ZkError::BadVersion);
  CHECK(w.server.tree().find("/state")->data == "isr=[0,1]");
  CHECK(w.server.tree().find("/state")->stat.version == 1);
  // The controller's registration: create /controller and bump /controller_epoch at its version, or neither.
  const auto multi = [&](std::int32_t epoch_version) {
    auto request = std::make_unique<ZkRequest>();
    request->op = ZkOp::Multi;
    request->ops = {{ZkOp::Create, "/controller", "0", kAnyZkVersion, true},
                    {ZkOp::SetData, "/state", "epoch", epoch_version}};
    a.client().send(std::move(request), a.record());
  };
  w.act([&] { multi(0); });
  w.run_for(milliseconds(20));
  CHECK(a.answers.back().error == ZkError::BadVersion);
  CHECK_FALSE(w.exists("/controller"));
  w.act([&] { multi(1); });
  w.run_for(milliseconds(20));
  CHECK(a.answers.back().error == ZkError::Ok);
  CHECK(w.exists("/controller"));
  CHECK(w.server.tree().find("/state")->data == "epoch");
}

TEST_CASE("zookeeper: a session survives a short cut and expires in a long one", "[zookeeper]") {
  for (const SimTime cut_for : {seconds(2), seconds(12)}) {
    INFO("cut for " << to_seconds(cut_for) << " s");
    ZkWorld w;
    auto& a = *w.users[0];
    w.act([&] { a.client().create("/e", "", true, nullptr); });
    w.run_for(milliseconds(20));
    FaultHandle cut = 0;
    w.act([&] { cut = w.sim.network().faults().add_cut({a.id()}, {w.server.id()}, false); });
    w.run_for(cut_for);
    w.act([&] {
      w.sim.network().faults().remove(cut);
      w.sim.network().release_held_messages();
    });
    w.run_for(seconds(5));
    const bool short_cut = cut_for < seconds(6);
    CHECK(w.exists("/e") == short_cut);
    CHECK(a.expiries == (short_cut ? 0 : 1));
    CHECK(a.sessions == (short_cut ? 1 : 2));  // after an expiry, a new session
    CHECK(a.client().state() == ZkClientState::Connected);
  }
}

TEST_CASE("zookeeper: pipelined writes share the transaction log's fsyncs", "[zookeeper]") {
  ZkWorld w;
  auto& a = *w.users[0];
  w.act([&] {
    a.client().create("/n", "", false, nullptr);
    for (int i = 0; i < 100; ++i) a.client().create("/n/isr_change_", "", false, a.record(), true);
  });
  w.run_for(milliseconds(100));
  REQUIRE(a.answers.size() == 100);
  CHECK(a.answers.front().path == "/n/isr_change_0000000000");
  CHECK(a.answers.back().path == "/n/isr_change_0000000099");
  CHECK(w.server.stats().writes == 101);
  CHECK(w.server.stats().fsyncs < 20);  // 100 writes of 50 us each against 1 ms fsyncs
}

// ClientCnxn.primeConnection and DataTree.setWatches: a notification the server
// sent on a connection the client then gave up on is lost with it, but the
// client still holds the watch; it sends it with SetWatches when it reconnects,
// and the server fires it at once, the znode's children having changed after
// the last zxid the client saw. (Without SetWatches a ZooKeeper-era controller
// never learned of a broker registering meanwhile: found by ksim explore of
// releases/fast-failovers-divergence.)
TEST_CASE("zookeeper: a watch notification lost with a connection fires again when the client reconnects",
          "[zookeeper]") {
  ZkWorld w;
  auto& a = *w.users[0];
  auto& b = *w.users[1];
  w.act([&] {
    a.client().create("/brokers", "", false, nullptr);
    a.client().create("/brokers/ids", "", false, nullptr);
  });
  w.run_for(milliseconds(20));
  w.act([&] { b.watch_children("/brokers/ids"); });
  w.run_for(milliseconds(20));
  FaultHandle cut = 0;
  w.act([&] {
    // Messages to b are held: the notification of a's registration is sent, not delivered.
    cut = w.sim.network().faults().add_cut({w.server.id()}, {b.id()}, true);
    a.client().create("/brokers/ids/0", "{}", true, a.record());
  });
  w.run_for(seconds(5));  // b hears nothing for 4 s (two thirds of its 6 s session) and gives the connection up
  w.act([&] {
    w.sim.network().faults().remove(cut);
    w.sim.network().release_held_messages();
  });
  w.run_for(seconds(3));
  CHECK(b.client().state() == ZkClientState::Connected);
  CHECK(b.sessions == 1);  // the same session, resumed
  REQUIRE(b.events.size() == 1);
  CHECK(b.events[0] == std::pair{std::string("/brokers/ids"), ZkEventType::NodeChildrenChanged});
  // Re-armed by the handler's read: the next registration is heard once.
  w.act([&] { a.client().create("/brokers/ids/1", "{}", true, a.record()); });
  w.run_for(milliseconds(50));
  CHECK(b.events.size() == 2);
}
