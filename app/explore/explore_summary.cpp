#include "app/explore/explore_summary.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/harness/fault_paths.hpp"
#include "app/harness/protocol_coverage.hpp"
#include "app/report/junit.hpp"

namespace ksim::app {

namespace {

template <class Map>
void add_counts(Map& into, const nlohmann::json& from) {
  for (const auto& [key, value] : from.items()) into[key] += value.template get<std::uint64_t>();
}

}  // namespace

ExploreSummary::ExploreSummary(std::string scenario, std::vector<std::string> overrides, std::uint64_t root_seed,
                               std::size_t runs_planned, std::string shard, const ExploreSpec& spec)
    : scenario_(std::move(scenario)), overrides_(std::move(overrides)), root_seed_(root_seed), runs_planned_(runs_planned) {
  shards_.push_back(shard.empty() ? "1/1" : shard);
  for (const auto& kind : spec.nemesis.kinds) {
    drawn_[kind] = 0;
    fired_[kind] = 0;
    for (const auto& path : fault_path_names()) paths_[kind][path] = 0;
  }
  for (const auto& state : protocol_state_names()) states_[state] = 0;
}

std::string ExploreSummary::replay(const Finding& f) const {
  SwarmDraw draw{f.index, f.seed, overrides_, {}};
  draw.sets.insert(draw.sets.end(), f.sets.begin(), f.sets.end());
  return replay_command(scenario_, draw);
}

void ExploreSummary::add(const SwarmDraw& draw, const RunOutcome& outcome) {
  ++runs_done_;
  for (const auto& kind : draw.kinds) ++drawn_[kind];
  if (outcome.report.is_object()) {
    add_counts(fired_, outcome.report.value("faults_fired", nlohmann::json::object()));
    const nlohmann::json fault_paths = outcome.report.value("fault_paths", nlohmann::json::object());
    for (const auto& [kind, paths] : fault_paths.items()) add_counts(paths_[kind], paths);
    add_counts(states_, outcome.report.value("protocol_states", nlohmann::json::object()));
  }
  if (outcome.kind == OutcomeKind::Passed) ++passed_;
  if (outcome.kind == OutcomeKind::Vacuous) ++vacuous_;
  if (outcome.kind == OutcomeKind::Invalid && invalid_++ == 0) first_invalid_ = outcome.detail;
  if (outcome.is_failure()) {
    findings_.push_back({draw.index, draw.seed, draw.sets, std::string(to_string(outcome.kind)), outcome.check,
                         outcome.detail});
  }
}

void ExploreSummary::print(std::ostream& out) const {
  fmt::print(out, "ksim explore: {}, root seed {}: {} of {} runs ({}), {} passed, {} vacuous, {} invalid, {} finding{}\n",
             scenario_, root_seed_, runs_done_, runs_planned_, fmt::join(shards_, ", "), passed_, vacuous_, invalid_,
             findings_.size(), findings_.size() == 1 ? "" : "s");
  if (vacuous_ > 0) fmt::print(out, "  vacuous: runs whose verdict was over nothing (no fault fired), not findings\n");
  if (invalid_ > 0) fmt::print(out, "  the first invalid draw: {}\n", first_invalid_);
  for (const Finding& f : findings_) {
    fmt::print(out, "\nFAIL run {} (seed {}), {}: {}: {}\n", f.index, f.seed, f.outcome, f.check, f.detail);
    for (const auto& s : f.sets) fmt::print(out, "  drew {}\n", s);
    fmt::print(out, "  replay: {}\n", replay(f));
  }
  fmt::print(out, "\ncoverage: for each fault kind, the runs that drew it, the faults that fired and what they hit\n");
  for (const auto& [kind, runs] : drawn_) {
    const auto fired = fired_.find(kind);
    fmt::print(out, "  {}: drawn in {} runs, {} faults\n", kind, runs, fired == fired_.end() ? 0 : fired->second);
    std::vector<std::string> never;
    const auto paths = paths_.find(kind);
    if (paths == paths_.end()) continue;
    for (const auto& [path, count] : paths->second) {
      if (count == 0) {
        never.push_back(path);
      } else {
        fmt::print(out, "    {} {}\n", count, path);
      }
    }
    if (!never.empty()) fmt::print(out, "    never: {}\n", fmt::join(never, "; "));
  }
  fmt::print(out, "\ncoverage: the protocol states the runs went through, how many times\n");
  std::vector<std::string> never;
  for (const auto& [state, count] : states_) {
    if (count == 0) {
      never.push_back(state);
    } else {
      fmt::print(out, "  {} {}\n", count, state);
    }
  }
  if (!never.empty()) fmt::print(out, "  never: {}\n", fmt::join(never, "; "));
}

void ExploreSummary::write(const std::string& file) const {
  nlohmann::ordered_json j;
  j["scenario"] = scenario_;
  j["overrides"] = overrides_;
  j["root_seed"] = root_seed_;
  j["runs_planned"] = runs_planned_;
  j["shards"] = shards_;
  j["runs_done"] = runs_done_;
  j["passed"] = passed_;
  j["invalid"] = invalid_;
  j["vacuous"] = vacuous_;
  j["first_invalid"] = first_invalid_;
  j["findings"] = nlohmann::ordered_json::array();
  for (const Finding& f : findings_) {
    j["findings"].push_back({{"index", f.index}, {"seed", f.seed}, {"sets", f.sets}, {"outcome", f.outcome},
                             {"check", f.check}, {"detail", f.detail}, {"replay", replay(f)}});
  }
  j["drawn"] = drawn_;
  j["fired"] = fired_;
  j["paths"] = paths_;
  j["states"] = states_;
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file);
  out << j.dump(2) << '\n';
}

void ExploreSummary::write_junit(const std::string& file) const {
  JUnitSuite suite;
  suite.name = "ksim explore " + scenario_;
  suite.properties = {{"root_seed", std::to_string(root_seed_)},
                      {"runs", fmt::format("{} of {}", runs_done_, runs_planned_)},
                      {"shards", fmt::format("{}", fmt::join(shards_, ", "))}};
  const std::string classname = "ksim.explore." + scenario_;
  for (const Finding& f : findings_) {
    std::string details;
    for (const auto& set : f.sets) details += "drew " + set + "\n";
    details += "replay: " + replay(f);
    suite.cases.push_back({fmt::format("run {} (seed {})", f.index, f.seed), classname, JUnitCase::Outcome::Failed,
                           fmt::format("{}: {}: {}", f.outcome, f.check, f.detail), details, 0, ""});
  }
  if (findings_.empty()) {
    suite.cases.push_back({fmt::format("{} runs, {} passed, {} vacuous, {} invalid", runs_done_, passed_, vacuous_, invalid_),
                           classname, JUnitCase::Outcome::Passed, "", "", 0, ""});
  }
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write " + file);
  app::write_junit(out, {suite});
}

ExploreSummary ExploreSummary::merge(const std::vector<std::string>& files) {
  ExploreSummary merged;
  for (const auto& file : files) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read " + file);
    const nlohmann::json j = nlohmann::json::parse(in);
    const auto scenario = j.at("scenario").get<std::string>();
    const auto root_seed = j.at("root_seed").get<std::uint64_t>();
    const auto planned = j.at("runs_planned").get<std::size_t>();
    const auto overrides = j.at("overrides").get<std::vector<std::string>>();
    if (merged.shards_.empty()) {
      merged.scenario_ = scenario, merged.root_seed_ = root_seed, merged.runs_planned_ = planned;
      merged.overrides_ = overrides;
    } else if (scenario != merged.scenario_ || root_seed != merged.root_seed_ || planned != merged.runs_planned_ ||
               overrides != merged.overrides_) {
      throw std::runtime_error(file + " is not a shard of the same exploration (scenario, --set, root seed or runs differ)");
    }
    for (const auto& shard : j.at("shards")) merged.shards_.push_back(shard.get<std::string>());
    merged.runs_done_ += j.at("runs_done").get<std::size_t>();
    merged.passed_ += j.at("passed").get<std::size_t>();
    merged.vacuous_ += j.at("vacuous").get<std::size_t>();
    const auto invalid = j.at("invalid").get<std::size_t>();
    if (merged.invalid_ == 0 && invalid > 0) merged.first_invalid_ = j.at("first_invalid").get<std::string>();
    merged.invalid_ += invalid;
    for (const auto& f : j.at("findings")) {
      merged.findings_.push_back({f.at("index").get<std::size_t>(), f.at("seed").get<std::uint64_t>(),
                                  f.at("sets").get<std::vector<std::string>>(), f.at("outcome").get<std::string>(),
                                  f.at("check").get<std::string>(), f.at("detail").get<std::string>()});
    }
    add_counts(merged.drawn_, j.at("drawn"));
    add_counts(merged.fired_, j.at("fired"));
    for (const auto& [kind, paths] : j.at("paths").items()) add_counts(merged.paths_[kind], paths);
    add_counts(merged.states_, j.value("states", nlohmann::json::object()));
  }
  std::sort(merged.shards_.begin(), merged.shards_.end());
  std::sort(merged.findings_.begin(), merged.findings_.end(),
            [](const Finding& a, const Finding& b) { return a.index < b.index; });
  return merged;
}

}  // namespace ksim::app
