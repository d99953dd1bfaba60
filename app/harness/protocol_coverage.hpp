#pragma once
// The protocol states a run went through, for `ksim explore`'s coverage
// (docs/explore.md): KIP-848 reconciliation (a member revoking, acquiring,
// waiting for partitions another still holds, fenced by its member epoch,
// removed at its rebalance timeout), the group coordinator's fencing by cause
// (a classic member not rejoining within its rebalance timeout, a member of
// either protocol at its session timeout) and its loading of a group after a
// failover, KIP-932 share groups (an acquisition
// lock expiring, a record redelivered, one archived at the delivery count
// limit) and epoch bumps of transactions (KIP-890 part 2's at every EndTxn,
// an exhausted epoch renewing the producer id, a bump fencing a producer).
// Counted from the model events, as the fault paths are; it changes nothing
// that runs.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/events/model_event.hpp"

namespace ksim::app {

// state -> how many times the run went through it.
using ProtocolStateCounts = std::map<std::string, std::uint64_t>;

// Every state counted, in the order reports list them.
const std::vector<std::string>& protocol_state_names();

class ProtocolCoverage {
 public:
  ProtocolCoverage();
  void on_event(const models::ModelEvent& event);
  const ProtocolStateCounts& counts() const { return counts_; }

 private:
  ProtocolStateCounts counts_;  // every name, 0 until seen
};

}  // namespace ksim::app
