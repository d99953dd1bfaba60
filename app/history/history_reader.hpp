#pragma once
// Reads a history (docs/history.md) into what ksim's checkers read: the
// delivery history, the final logs and the consumption history, as a run
// records them. Every error names file:line and the field (config::ConfigError).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/history/consumption_history.hpp"
#include "models/history/delivery_history.hpp"
#include "models/history/share_history.hpp"

namespace ksim::app {

struct RecordedHistory {
  std::string file;
  std::string source;    // "ksim", "kafka-4.1.1"
  std::string scenario;  // the scenario file it ran
  std::optional<std::uint64_t> seed;  // ksim's
  std::optional<std::int64_t> run;    // the harness's run index
  SimTime end = 0;       // when the workload stopped and the final logs were read
  struct Topic {
    std::string name;
    std::int32_t partitions = 1;
  };
  struct Writer {
    std::string name;
    std::optional<std::string> transactional_id;
    std::string acks;
    bool idempotent = false;
    std::string node;  // the process it lives in (a transform's producer: its consumer's); its own name by default
  };
  struct Consumer {
    std::string name;
    std::string group;
    std::int32_t topic = 0;
    std::optional<bool> read_committed;  // from isolation_level, when the header gives it
  };
  struct Fault {
    std::string kind;
    SimTime at = 0;
    std::vector<std::string> nodes;
  };
  std::vector<Topic> topics;
  std::vector<Writer> writers;
  std::vector<Consumer> consumers;
  std::vector<Fault> faults;
  // KIP-932 share groups (the header's "share_groups"; members are "share_consumers").
  struct ShareGroup {
    std::string name;
    std::int32_t delivery_count_limit = 5;
    SimTime record_lock_duration = 30'000'000'000;
  };
  std::vector<ShareGroup> share_groups;

  models::DeliveryHistory delivery;       // a transactional writer's records count as acknowledged when committed
  models::ConsumptionHistory consumption;  // rebalances from the callbacks (below)
  models::FinalLogs logs;                 // a batch per run of consecutive records
  models::ShareHistory share;             // its consumers from the header's "share_consumers"; events in time order
  std::uint64_t transactions_committed = 0, transactions_aborted = 0, transactions_failed = 0;

  bool has_transactions() const;  // a writer has a transactional.id
};

// Throws config::ConfigError naming file:line. A rebalance is what a client
// sees of one: from the first callback of a burst (assigned, revoked or lost)
// to the first moment every partition of the topic has an owner again.
RecordedHistory read_history(const std::string& path);

}  // namespace ksim::app
