#pragma once
// What a run produced, as a test asserts on it: the delivery verdict over
// what the producers acknowledged, each consumer group's processing, the
// transactions, the invariants found broken, and the scenario's
// expectations; also the whole report as `ksim run --json` and `ksim run`
// give it.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ksim/invariant.hpp"

namespace ksim {

// The producers' records in the committed logs (docs/kafka-model.md). A
// guarantee holds only over something: checked over nothing, every flag is
// false, the verdict is "vacuous" and `vacuous` says what was missing.
struct DeliveryVerdict {
  std::uint64_t produced = 0, acknowledged = 0, failed = 0, pending = 0;
  std::uint64_t lost = 0, unavailable = 0, duplicated = 0, reordered = 0, failed_but_written = 0;
  bool at_most_once = false, at_least_once = false, exactly_once = false;
  // The strongest that held: "exactly-once", "at-least-once", "at-most-once", "none"; or "vacuous".
  std::string verdict;
  std::string vacuous;  // "nothing produced", "nothing acknowledged", "no fault fired, ..."; "" when tested
};

// One consumer group's processing of its topic's committed log.
struct GroupVerdict {
  std::uint64_t processed = 0, committed = 0;
  std::uint64_t unprocessed = 0;  // committed records it never processed
  std::uint64_t duplicates = 0;   // extra processings of committed records
  std::uint64_t out_of_order = 0, lag = 0, rebalances = 0;
  double stop_the_world_partition_s = 0;
  bool at_most_once = false, at_least_once = false, exactly_once = false;
  bool end_to_end_exactly_once = false;  // the producers' delivery and the group's processing together
  std::string vacuous;  // "nothing consumed", ...: the flags are then false; "" when tested
};

struct TransactionsVerdict {
  std::uint64_t committed = 0, aborted = 0, fenced = 0, zombie_writes = 0, hanging = 0, aborted_reads = 0;
  bool exactly_once = false;
  std::string vacuous;  // "no transaction committed", ...: exactly_once is then false
};

struct ExpectationResult {
  std::string name;  // "delivery", "lost", "groups.analytics.duplicates", "invariants"
  bool held = false;
  std::string detail;
};

struct Report {
  std::uint64_t seed = 0;
  std::string trace_hash;  // 16 hex digits: the same scenario, seed and build give the same
  std::chrono::nanoseconds simulated{};
  std::uint64_t events = 0;
  std::optional<DeliveryVerdict> delivery;  // when the scenario has a Kafka cluster
  std::map<std::string, GroupVerdict> groups;  // by group.id
  std::optional<TransactionsVerdict> transactions;  // when a producer is transactional
  std::vector<InvariantViolation> invariants;
  std::vector<ExpectationResult> expectations;  // the scenario's expect:, and "invariants" unless it names them
  bool expectations_held = false;
  std::string json;  // as `ksim run --json` prints it
  std::string text;  // as `ksim run` prints it
};

}  // namespace ksim
