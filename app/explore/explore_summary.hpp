#pragma once
// What an exploration found and covered (docs/explore.md): its findings, the
// first ones by run index, each with what the run drew and the command that
// replays it; how many runs passed or drew an invalid scenario; and its
// coverage: for each fault kind, the runs that drew it, the faults that
// fired and what they hit (app/harness/fault_paths.hpp), paths never taken
// included; and the protocol states the runs went through (KIP-848
// reconciliation, share group lock expiry and redelivery, transaction epoch
// bumps: app/harness/protocol_coverage.hpp), those never reached included.
// Written as JSON by --out; shards' files merge into the summary of the
// whole exploration.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "app/explore/run_outcome.hpp"
#include "app/explore/swarm_draw.hpp"
#include "app/scenario/explore_spec.hpp"

namespace ksim::app {

struct Finding {
  std::size_t index = 0;
  std::uint64_t seed = 0;
  std::vector<std::string> sets;
  std::string outcome;  // to_string(OutcomeKind)
  std::string check;
  std::string detail;
};

class ExploreSummary {
 public:
  // `overrides`: the --set every run had before its draw.
  ExploreSummary(std::string scenario, std::vector<std::string> overrides, std::uint64_t root_seed,
                 std::size_t runs_planned, std::string shard, const ExploreSpec& spec);

  void add(const SwarmDraw& draw, const RunOutcome& outcome);
  std::size_t findings() const { return findings_.size(); }
  const std::vector<Finding>& finding_list() const { return findings_; }
  std::size_t runs_done() const { return runs_done_; }
  // runs drawing each kind, faults of each kind fired, and kind -> path -> faults.
  const std::map<std::string, std::uint64_t>& drawn() const { return drawn_; }
  const std::map<std::string, std::uint64_t>& fired() const { return fired_; }
  const std::map<std::string, std::map<std::string, std::uint64_t>>& paths() const { return paths_; }
  // state -> how many times the runs went through it, all runs together.
  const std::map<std::string, std::uint64_t>& states() const { return states_; }

  void print(std::ostream& out) const;
  void write(const std::string& file) const;  // JSON
  // JUnit XML: a failed test case per finding, or one passed case for the whole exploration.
  void write_junit(const std::string& file) const;
  // The summaries of an exploration's shards, as one. Throws std::runtime_error
  // when they are not shards of the same exploration.
  static ExploreSummary merge(const std::vector<std::string>& files);

 private:
  ExploreSummary() = default;
  std::string replay(const Finding& f) const;

  std::string scenario_;
  std::vector<std::string> overrides_;
  std::uint64_t root_seed_ = 0;
  std::size_t runs_planned_ = 0;
  std::vector<std::string> shards_;
  std::size_t runs_done_ = 0, passed_ = 0, invalid_ = 0, vacuous_ = 0;
  std::string first_invalid_;
  std::vector<Finding> findings_;
  std::map<std::string, std::uint64_t> drawn_;
  std::map<std::string, std::uint64_t> fired_;
  std::map<std::string, std::map<std::string, std::uint64_t>> paths_;
  std::map<std::string, std::uint64_t> states_;
};

}  // namespace ksim::app
