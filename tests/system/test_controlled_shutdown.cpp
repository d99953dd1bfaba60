// KRaft's controlled shutdown, from the broker's trace: how long it takes
// (BrokerLifecycleManager, BrokerHeartbeatManager) and what the leaving
// broker may still do meanwhile (Partition.isReplicaIsrEligible).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/scenario/config_reader.hpp"

using namespace ksim;

namespace {

struct ShutdownWindow {
  SimTime started = -1;  // the controller began the controlled shutdown
  SimTime exited = -1;   // the broker stopped
  int isr_expansions_proposed = 0;  // by any leader, between the two
  bool delivered_exactly_once = false;
  std::set<SimTime> election_times;                       // of the leaderships moved, between the two
  int elections = 0;
  std::map<std::string, std::set<SimTime>> applied_times;  // by broker: when it became leader or follower, between the two
};

ShutdownWindow shut_down_broker_1(std::uint64_t seed) {
  config::Document document = config::Document::from_string(R"(
duration: 20s
drain: 10s
network: {racks: [a, b, c]}
brokers: {count: 3}
topics: [{name: t, partitions: 6, replication_factor: 3, config: {min.insync.replicas: 2}}]
producers:
  - {name: p, topic: t, rate: 2000/s, record_size: 100B}
faults:
  - {kind: shutdown, at: 8s, duration: 6s, nodes: [broker-1]}
)",
                                                             "inline.yaml");
  document.apply_override("seed=" + std::to_string(seed));
  const app::Scenario scenario = app::read_scenario(document, app::expectation_catalogue());
  std::ostringstream trace;
  app::RunOptions options;
  options.trace_out = &trace;
  app::Cluster cluster(scenario, options);
  cluster.run();
  ShutdownWindow window;
  window.delivered_exactly_once = app::make_report(cluster, 0).kafka->delivery.exactly_once();
  std::istringstream lines(trace.str());
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json event = nlohmann::json::parse(line);
    const std::string kind = event["kind"];
    const SimTime t = event["t_ns"];
    if (kind == "controller.controlled_shutdown" && event["broker"] == 1 && window.started < 0) window.started = t;
    if (kind == "broker.shutdown" && event["node"] == "broker-1" && window.exited < 0) window.exited = t;
    const bool between = window.started >= 0 && window.exited < 0;
    if (kind == "controller.elect" && between) {
      window.election_times.insert(t);
      ++window.elections;
    }
    if ((kind == "broker.become_leader" || kind == "broker.become_follower") && between) {
      window.applied_times[event["node"]].insert(t);
    }
    if (kind == "broker.alter_isr" && window.started >= 0 && window.exited < 0 &&
        event["to"] > event["from"]) {
      ++window.isr_expansions_proposed;
    }
  }
  return window;
}

}  // namespace

// BrokerHeartbeatManager grants the shutdown only once the broker leads
// nothing and every active broker has reported, in its own heartbeat (every
// broker.heartbeat.interval.ms, 2 s), the metadata that moved the
// leaderships; the leaving broker asks again 50 ms after the first answer,
// then every 2 s. Meanwhile it still fetches, and no leader may propose it
// back into an ISR (KIP-841). Before, ksim let it exit one heartbeat round
// trip (about 0.1 ms) after it asked.
TEST_CASE("a controlled shutdown waits until the other brokers have the new metadata, and the broker stays out of ISRs",
          "[kafka][controller]") {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    INFO("seed " << seed);
    const ShutdownWindow window = shut_down_broker_1(seed);
    REQUIRE(window.started >= 0);
    REQUIRE(window.exited > window.started);
    const SimTime took = window.exited - window.started;
    CHECK(took >= milliseconds(50));
    CHECK(took <= milliseconds(2200));  // the 50 ms retry, then at most one heartbeat interval
    CHECK(window.isr_expansions_proposed == 0);
    CHECK(window.delivered_exactly_once);
  }
}

// ReplicationControlManager.generateLeaderAndIsrUpdates: the leaving broker's
// leaderships move in the event that started its controlled shutdown, one
// batch of records that every broker applies in one delta, so a follower's
// fetcher starts with all of its new partitions. ksim elected and published
// them one at a time until 2026-12, and a follower's fetch parked with the
// first partition held up the others (the 0.5 s produce maximum of the 3.9
// rolling restart, seed 1).
TEST_CASE("a controlled shutdown moves all the broker's leaderships in one batch that each broker applies at once",
          "[kafka][controller]") {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    INFO("seed " << seed);
    const ShutdownWindow window = shut_down_broker_1(seed);
    REQUIRE(window.elections >= 2);  // broker-1 led two of the six partitions
    CHECK(window.election_times.size() == 1);
    CHECK(*window.election_times.begin() - window.started == window.elections * microseconds(200));
    REQUIRE(window.applied_times.size() == 3);
    for (const auto& [broker, times] : window.applied_times) {
      INFO(broker);
      CHECK(times.size() == 1);
    }
  }
}
