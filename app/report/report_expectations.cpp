#include "app/report/report_expectations.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/report/report.hpp"
#include "app/scenario/units.hpp"

namespace ksim::app {

namespace {

// A section, and where a run's report keeps its figures (for a consumer
// group's, the group named; null when the run has none).
struct BoundSection {
  ExpectableSection expectable;
  std::function<ExpectationResult(const Expectation&, const RunReport&)> check;
};

template <class Figures, class FiguresOf>
BoundSection bind(const Section<Figures>& section, FiguresOf figures_of) {
  return {expectable(section), [&section, figures_of](const Expectation& e, const RunReport& report) {
            const Figures* figures = figures_of(report, e.group);
            if (figures == nullptr) {
              throw std::logic_error("expectation '" + e.name + "' on the " + std::string(section.name) +
                                     " section, which this run has not (the scenario reader lets none through)");
            }
            const Figure<Figures>& row = figure(section, e.figure);
            return check_figure(e, row.unit, row.value(*figures));
          }};
}

const KafkaFigures* kafka(const RunReport& r, const std::string&) { return r.kafka ? &*r.kafka : nullptr; }
const PerformanceFigures* performance(const RunReport& r, const std::string&) {
  return r.kafka ? &r.kafka->performance : nullptr;
}

const std::vector<BoundSection>& bound_sections() {
  static const std::vector<BoundSection> sections{
      bind(run_section(), [](const RunReport& r, const std::string&) { return &r; }),
      bind(rpc_section(), [](const RunReport& r, const std::string&) { return r.rpc ? &*r.rpc : nullptr; }),
      bind(delivery_section(),
           [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->delivery : nullptr; }),
      bind(produce_section(), kafka),
      bind(consumption_section(), performance),
      bind(replication_section(), performance),
      bind(end_to_end_latency_section(), performance),
      bind(failover_section(),
           [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->performance.failover : nullptr; }),
      bind(cluster_section(), kafka),
      bind(partition_costs_section(),
           [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->partition_costs : nullptr; }),
      bind(availability_section(),
           [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->availability : nullptr; }),
      bind(group_section(),
           [](const RunReport& r, const std::string& group) -> const GroupFigures* {
             if (!r.kafka) return nullptr;
             const auto& groups = r.kafka->groups;
             const auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.group == group; });
             return it == groups.end() ? nullptr : &*it;
           }),
      bind(share_group_section(),
           [](const RunReport& r, const std::string& group) -> const ShareGroupFigures* {
             if (!r.kafka) return nullptr;
             const auto& groups = r.kafka->share_groups;
             const auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.group == group; });
             return it == groups.end() ? nullptr : &*it;
           }),
      bind(transactions_section(),
           [](const RunReport& r, const std::string&) {
             return r.kafka && r.kafka->transactions ? &*r.kafka->transactions : nullptr;
           }),
      bind(quorum_section(), [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->quorum : nullptr; }),
      bind(operations_section(),
           [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->operations : nullptr; }),
      bind(log_dir_moves_section(),
           [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->operations : nullptr; }),
      bind(compaction_section(),
           [](const RunReport& r, const std::string&) { return r.kafka ? &r.kafka->compaction : nullptr; }),
      bind(tiered_section(),
           [](const RunReport& r, const std::string&) { return r.kafka && r.kafka->tiered ? &*r.kafka->tiered : nullptr; }),
      bind(network_section(), [](const RunReport& r, const std::string&) { return &r.network; }),
  };
  return sections;
}

std::uint64_t count_of(const FigureValue& value) {
  if (const auto* n = std::get_if<std::uint64_t>(&value)) return *n;
  if (const auto* n = std::get_if<std::int64_t>(&value)) return static_cast<std::uint64_t>(std::max<std::int64_t>(*n, 0));
  if (const auto* names = std::get_if<std::vector<std::string>>(&value)) return names->size();
  throw std::logic_error("a count expectation on a figure that is not a count");
}

double number_of(const FigureValue& value) {
  if (const auto* x = std::get_if<double>(&value)) return *x;
  return static_cast<double>(count_of(value));
}

// A bound as the report writes it: a duration for a time, else four significant digits.
std::string bound_text(double value, FigureUnit unit) {
  if (unit == FigureUnit::Milliseconds) return units::format_duration(std::llround(value * 1e6));
  if (unit == FigureUnit::Seconds) return units::format_duration(std::llround(value * 1e9));
  return fmt::format("{:.4g}", value);
}

}  // namespace

const ExpectationCatalogue& expectation_catalogue() {
  static const ExpectationCatalogue catalogue = [] {
    ExpectationCatalogue all;
    for (const BoundSection& s : bound_sections()) all.push_back(s.expectable);
    return all;
  }();
  return catalogue;
}

ExpectationResult check_figure(const Expectation& e, FigureUnit unit, const FigureValue& value) {
  switch (e.as) {
    case ExpectAs::Count: {
      if (const auto* x = std::get_if<double>(&value); x && std::isnan(*x)) {  // n/a in this run: fails, never holds
        return {e.name, false, fmt::format("n/a: nothing to count in this run (expected {})", e.count.text())};
      }
      const std::uint64_t actual = count_of(value);
      return {e.name, e.count.holds(actual), fmt::format("{} (expected {})", actual, e.count.text())};
    }
    case ExpectAs::Bound: {
      const double actual = number_of(value);
      if (std::isnan(actual)) return {e.name, false, "no samples: nothing to bound"};
      return {e.name, e.at_most ? actual <= e.bound : actual >= e.bound,
              bound_text(actual, unit) + (e.at_most ? " <= " : " >= ") + bound_text(e.bound, unit)};
    }
    case ExpectAs::Flag: {
      if (const Held* h = std::get_if<Held>(&value); h != nullptr && !h->vacuous.empty()) {
        return {e.name, false, fmt::format("vacuous: {} (expected {})", h->vacuous, e.flag)};
      }
      const bool actual = std::holds_alternative<Held>(value) ? std::get<Held>(value).held : std::get<bool>(value);
      return {e.name, actual == e.flag, fmt::format("{} (expected {})", actual, e.flag)};
    }
    case ExpectAs::Guarantee: {
      const Guarantees& g = std::get<Guarantees>(value);
      return {e.name, g.meets(e.guarantee),
              fmt::format("required {}, verdict {}", e.guarantee,
                          g.vacuous.empty() ? g.verdict() : g.verdict() + ": " + g.vacuous)};
    }
    case ExpectAs::Nothing: break;
  }
  throw std::logic_error("expectation '" + e.name + "' on a figure that cannot be expected");
}

nlohmann::ordered_json expectations_json(const std::vector<ExpectationResult>& results) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& e : results) list.push_back({{"name", e.name}, {"held", e.held}, {"detail", e.detail}});
  return list;
}

void print_expectations(const std::vector<ExpectationResult>& results, std::ostream& out) {
  if (results.empty()) return;
  fmt::print(out, "\nexpectations\n");
  for (const auto& e : results) fmt::print(out, "  [{}] {}: {}\n", e.held ? "ok" : "FAILED", e.name, e.detail);
}

std::vector<ExpectationResult> check_expectations(const std::vector<Expectation>& expected, const RunReport& report) {
  std::vector<ExpectationResult> results;
  for (const Expectation& e : expected) {
    const auto& sections = bound_sections();
    const auto it = std::find_if(sections.begin(), sections.end(),
                                 [&](const BoundSection& s) { return s.expectable.name == e.section; });
    if (it == sections.end()) throw std::logic_error("expectation '" + e.name + "' on no known section");
    results.push_back(it->check(e, report));
  }
  // A broken invariant fails the run, unless the scenario says what to expect
  // of them: of all (invariant_violations), or of divergent replicas alone
  // (replica_divergences), which then fail it no more, while the others still do.
  const auto names = [&](std::string_view figure) {
    return std::any_of(expected.begin(), expected.end(),
                       [&](const Expectation& e) { return e.section == "cluster" && e.figure == figure; });
  };
  if (report.kafka && !names("invariant_violations")) {
    const bool divergence_expected = names("replica_divergences");
    std::vector<models::InvariantViolation> unexpected;
    for (const auto& v : report.kafka->invariants) {
      if (!divergence_expected || v.invariant != models::kReplicaDivergence) unexpected.push_back(v);
    }
    results.push_back({"invariants", unexpected.empty(),
                       unexpected.empty() ? "none broken"
                                          : fmt::format("{} broken, first {}", unexpected.size(),
                                                        models::to_string(unexpected.front()))});
  }
  return results;
}

}  // namespace ksim::app
