#pragma once
// The scenario's expectations checked against the report's figures, and the
// catalogue of the figures an expectation may name, drawn from the report's
// figure tables. The scenario reader, a layer below, receives the catalogue
// (app/scenario/expectations.hpp says why): pass expectation_catalogue() to
// read_scenario.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/report/figure_table.hpp"
#include "app/scenario/expectations.hpp"

namespace ksim::app {

struct RunReport;

struct ExpectationResult {
  std::string name;  // the expectation's key path: "lost", "groups.app.lag", "transactions.hanging"
  bool held = false;
  std::string detail;  // "0.973 >= 0.9"
};

// The sections whose figures exist whenever their scope does (so not, for
// example, the utilisation, which needs a profile), each with its figures
// that `expect:` may name.
const ExpectationCatalogue& expectation_catalogue();

// In the order the scenario wrote them.
std::vector<ExpectationResult> check_expectations(const std::vector<Expectation>& expected, const RunReport& report);

// [{name, held, detail}], as the JSON reports have them; the text report's lines.
nlohmann::ordered_json expectations_json(const std::vector<ExpectationResult>& results);
void print_expectations(const std::vector<ExpectationResult>& results, std::ostream& out);

// One expectation against the value of its figure, of `unit`.
ExpectationResult check_figure(const Expectation& e, FigureUnit unit, const FigureValue& value);

}  // namespace ksim::app
