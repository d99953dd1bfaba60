#pragma once
// What a run of `ksim run --json` in a worker process came to, for
// `ksim explore` and `ksim shrink` (docs/explore.md): it passed; it failed a
// check (an expectation of the scenario, the invariants among them); it
// crashed the simulator (a signal, an unexpected exit status); it did not
// finish within its bound of events; or its draw made an invalid scenario.
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "app/sweep/sweep_workers.hpp"

namespace ksim::app {

// The bound of events of a run of ksim explore or ksim shrink, unless --max-events says otherwise.
constexpr std::uint64_t kDefaultRunMaxEvents = 50'000'000;

// Vacuous: it failed only because a verdict was over nothing (no fault fired,
// nothing acknowledged): a draw that tested nothing, not a finding.
enum class OutcomeKind { Passed, Failed, Crashed, Unfinished, Invalid, Vacuous };
std::string_view to_string(OutcomeKind kind);

struct RunOutcome {
  OutcomeKind kind = OutcomeKind::Passed;
  // The check that failed first: an expectation's name ("delivery"), the
  // invariant's name for "invariants", "crash" or "unfinished"; and what it said.
  std::string check;
  std::string detail;
  nlohmann::json report;  // the run's report, when it printed one

  bool is_failure() const { return kind == OutcomeKind::Failed || kind == OutcomeKind::Crashed || kind == OutcomeKind::Unfinished; }
};

RunOutcome classify(const sweep::Finished& finished);

}  // namespace ksim::app
