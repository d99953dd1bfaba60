// KIP-144: a client reconnects to a broker that refuses it after
// reconnect.backoff.ms x 2^(failed attempts), 20% jitter, capped at
// reconnect.backoff.max.ms (ClusterConnectionStates); when only
// reconnect.backoff.ms is given, the maximum is that value and the backoff is
// constant (CommonClientConfigs.postProcessReconnectBackoffConfigs).
#include <catch2/catch.hpp>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::parse_scenario;
using ksim::testing::run_inline;

namespace {

// One broker, down from 2 s to 11 s: every connect the producer makes meanwhile is refused.
std::string broker_down_for_9s(const std::string& producer_config) {
  return R"(
name: reconnect
duration: 12s
drain: 0s
brokers: {count: 1}
topics: [{name: t, partitions: 1, replication_factor: 1}]
producers:
  - name: p
    topic: t
    rate: 100/s
    record_size: 100B
    config: {)" + producer_config + R"(}
faults:
  - {kind: crash, at: 2s, duration: 9s, nodes: [broker-0]}
)";
}

std::uint64_t refused(const std::string& producer_config, std::uint64_t seed) {
  return run_inline(broker_down_for_9s(producer_config), seed).network.connections_refused;
}

}  // namespace

TEST_CASE("a producer's reconnects to a dead broker back off exponentially up to reconnect.backoff.max.ms",
          "[client][kip-144]") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    // 50, 100, 200, 400, 800 ms, then about 1 s apart (+-20%): 5 attempts in
    // the first 1.55 s, then about one a second for the remaining ~7.4 s.
    const std::uint64_t exponential = refused("", seed);
    CHECK(exponential >= 10);
    CHECK(exponential <= 15);
    // The same when both are given explicitly.
    CHECK(refused("reconnect.backoff.ms: 50ms, reconnect.backoff.max.ms: 1s", seed) == exponential);
    // A larger maximum spaces the late attempts further: 50 ms doubling to 4 s
    // (6.35 s for the first 7 attempts).
    const std::uint64_t slower = refused("reconnect.backoff.max.ms: 4s", seed);
    CHECK(slower < exponential);
    CHECK(slower >= 6);
    CHECK(slower <= 9);
    // Only reconnect.backoff.ms given: a constant 50 ms (+-20%), about 180 attempts in 9 s.
    const std::uint64_t constant = refused("reconnect.backoff.ms: 50ms", seed);
    CHECK(constant >= 140);
    CHECK(constant <= 230);
  }
}

TEST_CASE("reconnect.backoff.max.ms defaults to reconnect.backoff.ms when only that is given", "[client][kip-144]") {
  const auto s = parse_scenario(R"(
brokers: {count: 1}
topics: [{name: t}]
producers:
  - {name: only, topic: t, config: {reconnect.backoff.ms: 200ms}}
  - {name: both, topic: t, config: {reconnect.backoff.ms: 200ms, reconnect.backoff.max.ms: 5s}}
  - {name: none, topic: t}
consumers:
  - {name: c, topic: t, config: {reconnect.backoff.ms: 300ms}}
)");
  const auto& p = s.kafka->producers;
  CHECK(p[0].config.reconnect_backoff == ksim::milliseconds(200));
  CHECK(p[0].config.reconnect_backoff_max == ksim::milliseconds(200));
  CHECK(p[1].config.reconnect_backoff_max == ksim::seconds(5));
  CHECK(p[2].config.reconnect_backoff == ksim::milliseconds(50));
  CHECK(p[2].config.reconnect_backoff_max == ksim::seconds(1));
  CHECK(s.kafka->consumers[0].config.reconnect_backoff_max == ksim::milliseconds(300));
}
