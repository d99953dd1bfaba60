// The ZooKeeper-era controller (models/controller/zk_controller) against the
// ZooKeeper model, with stand-in brokers that keep the last metadata pushed
// to them: one controller elected, failover after the session timeout with
// every partition state read first, a crashed leader's partitions moving to
// their ISR, and a broker restarted within its session staying registered.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/controller/zk_controller.hpp"
#include "models/zookeeper/zookeeper_server.hpp"
#include "sim/core/simulation.hpp"
#include "tests/support/probe_node.hpp"

using namespace ksim;
using namespace ksim::models;

namespace zk_controller_test {

// A broker as the controller sees it: it takes pushes, answers them and keeps
// what they say; while `refusing`, it closes the connection a push comes on.
class StandInBroker final : public Node {
 public:
  using Node::Node;
  std::map<TopicPartition, PartitionState> partitions;
  std::int32_t controller = -1;
  std::int64_t offset = -1;
  std::int64_t broker_epoch = -2;  // the last push's
  bool refusing = false;
  int refused = 0;

 private:
  void on_message(ConnectionId connection, MessagePtr message) override {
    if (refusing) {
      ++refused;
      return close(connection);
    }
    send(connection, std::make_unique<MetadataUpdateResponse>());
    const auto& update = message_as<MetadataUpdate>(*message);
    broker_epoch = update.broker_epoch;
    if (update.offset < offset) return;  // from a controller of an earlier epoch
    offset = update.offset;
    controller = update.controller;
    for (const PartitionState& s : update.partitions) partitions[s.partition] = s;
  }
};

struct ZkCluster {
  static constexpr int kBrokers = 3;
  ZkCluster(int partitions, ZkControllerConfig config)
      : sim(7, testing::ProbeCluster::make_topology(kBrokers + 1, 100, {1.25e8, microseconds(50)}), NetworkOptions{}),
        events(sim.trace()),
        zookeeper(sim.spawn<ZooKeeperServer>("zookeeper", *sim.topology().find("h0"), ZooKeeperConfig{})) {
    auto directory = std::make_shared<ClusterDirectory>();
    TopicSpec topic;
    topic.partitions = partitions;
    directory->topics.push_back(topic);
    std::vector<std::vector<std::vector<BrokerId>>> assignment(1);
    for (int p = 0; p < partitions; ++p) {
      assignment[0].push_back({p % kBrokers, (p + 1) % kBrokers, (p + 2) % kBrokers});
    }
    for (BrokerId b = 0; b < kBrokers; ++b) {
      const HostId host = *sim.topology().find("h" + std::to_string(b + 1));
      brokers.push_back(&sim.spawn<StandInBroker>("broker-" + std::to_string(b), host));
      directory->broker_nodes.push_back(brokers.back()->id());
    }
    for (BrokerId b = 0; b < kBrokers; ++b) {
      const HostId host = brokers[static_cast<std::size_t>(b)]->host();
      sides.push_back(&sim.spawn<ZkController>("broker-" + std::to_string(b) + ".zk", host, b, config, directory,
                                               zookeeper.id(), events));
      directory->controller_nodes.push_back(sides.back()->id());  // where a broker's ControlledShutdown goes
    }
    zookeeper.seed(zk_data::persistent_paths({partitions}));
    zookeeper.seed_data(zk_data::kControllerEpoch, "0");
    zookeeper.seed_data(zk_data::topic_path(0), zk_data::encode_assignment(assignment[0]));
    for (int p = 0; p < partitions; ++p) {
      const auto& replicas = assignment[0][static_cast<std::size_t>(p)];
      zookeeper.seed_data(zk_data::partition_state_path({0, p}), zk_data::encode({replicas.front(), 0, replicas, 0}));
    }
    zookeeper.start();
    for (auto* b : brokers) b->start();
    for (auto* s : sides) s->start();
  }
  void run_for(SimTime d) { sim.run_until(sim.now() + d); }
  void act(std::function<void()> action) {
    sim.events().schedule_at(sim.now(), [a = std::move(action)]() mutable { a(); });
    sim.run_until(sim.now());
  }
  ZkController* active() {
    ZkController* found = nullptr;
    for (auto* s : sides) {
      if (s->is_active()) {
        REQUIRE(found == nullptr);  // one active controller
        found = s;
      }
    }
    return found;
  }
  // The process of broker b: the broker and its ZooKeeper side.
  void crash(BrokerId b) {
    act([&] {
      brokers[static_cast<std::size_t>(b)]->crash();
      sides[static_cast<std::size_t>(b)]->crash();
    });
  }
  void restart(BrokerId b) {
    act([&] {
      brokers[static_cast<std::size_t>(b)]->restart();
      sides[static_cast<std::size_t>(b)]->restart();
    });
  }

  Simulation sim;
  ModelEventBus events;
  ZooKeeperServer& zookeeper;
  std::vector<StandInBroker*> brokers;
  std::vector<ZkController*> sides;
};

ZkControllerConfig zk_2_8() {
  ZkControllerConfig config;
  config.session_timeout = seconds(18);
  return config;
}

}  // namespace zk_controller_test

using zk_controller_test::ZkCluster;

TEST_CASE("zk controller: one broker wins the election and tells every broker", "[zookeeper][controller]") {
  ZkCluster c(30, zk_controller_test::zk_2_8());
  c.run_for(seconds(1));
  ZkController* active = c.active();
  REQUIRE(active != nullptr);
  CHECK(active->controller_epoch() == 1);
  CHECK(active->partitions().size() == 30);
  for (auto* b : c.brokers) {
    CHECK(b->controller == active->broker_id());
    CHECK(b->partitions.size() == 30);
  }
}

// ControllerChannelManager.RequestSendThread: a request is sent again, 100 ms
// apart, on a new connection until the broker answers it.
TEST_CASE("zk controller: a push refused with its connection is sent again until the broker takes it",
          "[zookeeper][controller]") {
  ZkCluster c(30, zk_controller_test::zk_2_8());
  auto* refuser = c.brokers[2];
  refuser->refusing = true;  // as a broker whose registration has not been answered yet
  c.run_for(seconds(2));
  ZkController* active = c.active();
  REQUIRE(active != nullptr);
  CHECK(refuser->partitions.empty());
  CHECK(refuser->refused > 10);  // every 100 ms
  CHECK(refuser->refused < 25);
  refuser->refusing = false;
  c.run_for(milliseconds(150));
  CHECK(refuser->partitions.size() == 30);  // the failover's full state, sent again
  CHECK(refuser->controller == active->broker_id());
  CHECK(active->stats().pushes_resent > 0);
}

// KIP-380 (2.2): each push names the broker epoch the controller knows for its
// broker, the czxid of its registration, which the broker's side was told.
TEST_CASE("zk controller: a push carries its broker's epoch from 2.2 on", "[zookeeper][controller]") {
  for (const bool epochs : {true, false}) {
    INFO("broker epochs " << epochs);
    auto config = zk_controller_test::zk_2_8();
    config.broker_epochs = epochs;
    ZkCluster c(3, config);
    std::vector<std::int64_t> registered(ZkCluster::kBrokers, -1);
    for (BrokerId b = 0; b < ZkCluster::kBrokers; ++b) {
      c.sides[static_cast<std::size_t>(b)]->on_registered = [&registered, b](std::int64_t epoch) {
        registered[static_cast<std::size_t>(b)] = epoch;
      };
    }
    c.run_for(seconds(2));
    for (BrokerId b = 0; b < ZkCluster::kBrokers; ++b) {
      const auto* node = c.zookeeper.tree().find(zk_data::broker_path(b));
      REQUIRE(node != nullptr);
      CHECK(registered[static_cast<std::size_t>(b)] == node->stat.czxid);
      CHECK(c.brokers[static_cast<std::size_t>(b)]->broker_epoch == (epochs ? node->stat.czxid : -1));
    }
  }
}

TEST_CASE("zk controller: the controller's crash is noticed when its session expires and the next loads every partition",
          "[zookeeper][controller]") {
  for (const bool pipelined : {true, false}) {
    INFO("pipelined reads " << pipelined);
    auto config = zk_controller_test::zk_2_8();
    config.pipelined_reads = pipelined;
    ZkCluster c(2000, config);
    c.run_for(seconds(2));
    const BrokerId first = c.active()->broker_id();
    const SimTime crashed_at = c.sim.now();
    c.crash(first);
    c.run_for(seconds(17));
    CHECK(c.active() == nullptr);  // the old session lives: /controller is still there
    c.run_for(seconds(10));
    ZkController* next = c.active();
    REQUIRE(next != nullptr);
    CHECK(next->broker_id() != first);
    CHECK(next->controller_epoch() == 2);
    CHECK(c.sim.now() - crashed_at > seconds(18));
    // Reading 2000 state znodes one after another takes round trips; pipelined, much less.
    if (pipelined) CHECK(next->stats().last_load_time < milliseconds(300));
    if (!pipelined) CHECK(next->stats().last_load_time > milliseconds(300));
    // The dead broker's partitions have new leaders from their ISR, written to ZooKeeper and pushed.
    for (const auto& [tp, state] : next->partitions()) {
      CHECK(state.leader != first);
      CHECK(std::find(state.isr.begin(), state.isr.end(), first) == state.isr.end());
      const auto stored = zk_data::decode_leader_and_isr(c.zookeeper.tree().find(zk_data::partition_state_path(tp))->data);
      CHECK(stored->leader == state.leader);
      const auto* broker = c.brokers[static_cast<std::size_t>(next->broker_id())];
      CHECK(broker->partitions.at(tp).leader == state.leader);
    }
  }
}

TEST_CASE("zk controller: a broker restarted within its session stays registered and in its ISRs",
          "[zookeeper][controller]") {
  ZkCluster c(30, zk_controller_test::zk_2_8());
  c.run_for(seconds(2));
  const BrokerId controller = c.active()->broker_id();
  const BrokerId victim = (controller + 1) % ZkCluster::kBrokers;
  c.crash(victim);
  c.run_for(seconds(3));
  c.restart(victim);
  c.run_for(seconds(5));
  // NODEEXISTS: its previous session holds /brokers/ids/N; the controller saw nothing.
  CHECK(c.sides[static_cast<std::size_t>(victim)]->stats().registration_conflicts > 0);
  for (const auto& [tp, state] : c.active()->partitions()) {
    CHECK(std::find(state.isr.begin(), state.isr.end(), victim) != state.isr.end());
  }
  // Once that session expires the controller sees the broker go: it leaves the ISRs, then registers anew.
  c.run_for(seconds(20));
  CHECK(c.sides[static_cast<std::size_t>(victim)]->role() == ZkControllerRole::Candidate);
  CHECK(c.active()->stats().leader_elections > 0);
}

TEST_CASE("zk controller: a controlled shutdown moves the broker's leaderships before its session closes",
          "[zookeeper][controller]") {
  for (const bool itself : {false, true}) {
    INFO("the controller shuts down itself: " << itself);
    ZkCluster c(30, zk_controller_test::zk_2_8());
    c.run_for(seconds(2));
    const BrokerId controller = c.active()->broker_id();
    const BrokerId victim = itself ? controller : (controller + 1) % ZkCluster::kBrokers;
    const BrokerId other = (victim + 1) % ZkCluster::kBrokers == controller && !itself
                               ? (victim + 2) % ZkCluster::kBrokers
                               : (victim + 1) % ZkCluster::kBrokers;
    auto& side = *c.sides[static_cast<std::size_t>(victim)];
    c.act([&] { side.request_shutdown(); });
    c.run_for(milliseconds(500));
    // Asked, the controller moved its ten leaderships and took it out of every ISR it followed, then the
    // session closed (not expired): the broker is gone from ZooKeeper at once.
    CHECK(side.state() == NodeState::Crashed);
    CHECK(c.zookeeper.tree().find(zk_data::broker_path(victim)) == nullptr);
    c.run_for(seconds(2));
    ZkController* active = c.active();
    REQUIRE(active != nullptr);
    const ZkController& asked = *c.sides[static_cast<std::size_t>(controller)];
    CHECK(asked.controller_stats().controlled_shutdowns == 1);
    if (!itself) CHECK(asked.stats().leader_elections == 10);
    for (const auto& [tp, state] : active->partitions()) {
      CHECK(state.leader != victim);
      CHECK(std::find(state.isr.begin(), state.isr.end(), victim) == state.isr.end());
    }
    CHECK(c.brokers[static_cast<std::size_t>(other)]->partitions.size() == 30);
  }
}

TEST_CASE("zk controller: a controlled shutdown without an answering controller tries three times, then stops",
          "[zookeeper][controller]") {
  ZkCluster c(30, zk_controller_test::zk_2_8());
  c.run_for(seconds(2));
  const BrokerId controller = c.active()->broker_id();
  const BrokerId victim = (controller + 1) % ZkCluster::kBrokers;
  c.crash(controller);  // its session, and /controller, live on for 18 s
  auto& side = *c.sides[static_cast<std::size_t>(victim)];
  const SimTime asked_at = c.sim.now();
  c.act([&] { side.request_shutdown(); });
  c.run_for(seconds(14));
  CHECK(side.state() == NodeState::Running);  // three tries, each failed and followed by 5 s of backoff
  c.run_for(seconds(2));
  CHECK(side.state() == NodeState::Crashed);
  CHECK(c.sim.now() - asked_at < seconds(18));
  CHECK(c.zookeeper.tree().find(zk_data::broker_path(victim)) == nullptr);
}

TEST_CASE("zk controller: with controlled.shutdown.enable=false the session closes at once", "[zookeeper][controller]") {
  auto config = zk_controller_test::zk_2_8();
  config.controlled_shutdown = false;
  ZkCluster c(30, config);
  c.run_for(seconds(2));
  const BrokerId victim = (c.active()->broker_id() + 1) % ZkCluster::kBrokers;
  auto& side = *c.sides[static_cast<std::size_t>(victim)];
  c.act([&] { side.request_shutdown(); });
  c.run_for(milliseconds(100));
  CHECK(side.state() == NodeState::Crashed);
  c.run_for(seconds(1));
  CHECK(c.active()->controller_stats().controlled_shutdowns == 0);
  CHECK(c.active()->stats().leader_elections == 10);  // the broker change moved them
}
