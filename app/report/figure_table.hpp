#pragma once
// A report section's table: one row per figure, {name, accessor, unit, ...}.
//
// A figure's name is written once, in its row: it is the figure's JSON key
// within its section's JSON object (a dotted name nests, "latency_ms.p99"),
// and what `expect:` calls it unless the row keeps an older key for scenario
// files (`expect_key`). The JSON (add_json), the text report's figure lines
// (print_figures), the checks of `expect:` (report_expectations.cpp) and the
// scenario reader's list of what an expectation may name (expectable(), see
// app/scenario/expectations.hpp for why the reader receives it) all read a
// figure through its row. What is not a figure (the examples of lost
// records, a group's rebalance log, log dirs) is written beside the tables.
#include <concepts>
#include <cstdint>
#include <functional>
#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/scenario/expectations.hpp"
#include "sim/observe/histogram.hpp"

namespace ksim::app {

// Which delivery guarantees held; the verdict is the strongest. Checked
// over nothing (`vacuous` says what was missing: "nothing acknowledged"),
// none holds and only "none" is met: the verdict is "vacuous", or "none" when
// one was violated all the same (nothing consumed, so nothing duplicated,
// but everything unprocessed).
struct Guarantees {
  bool at_most_once = false;
  bool at_least_once = false;
  bool exactly_once = false;
  std::string vacuous;
  // At-least-once could not be decided (records not reached by the end): the
  // verdict is "incomplete" where it would have been "at-most-once".
  std::string incomplete;
  std::string verdict() const;  // "exactly-once", "at-least-once", "at-most-once", "incomplete", "none" or "vacuous"
  bool meets(std::string_view required) const;  // one of the first four ("none" always holds)
};

// Whether one guarantee held: in the JSON true only when it held over
// something; in the text "held", "VIOLATED" or "vacuous". An expectation on
// it fails when it is vacuous, whatever it expects.
struct Held {
  bool held = false;
  std::string vacuous;  // what was missing, "" when something was checked
  bool held_over_something() const { return held && vacuous.empty(); }
};

// A figure's value: in the JSON a number, a boolean, a string, a list of
// strings or, for guarantees, their verdict.
using FigureValue =
    std::variant<std::uint64_t, std::int64_t, double, bool, std::string, std::vector<std::string>, Guarantees, Held>;

inline FigureValue figure_value(bool v) { return v; }
template <std::unsigned_integral T>
FigureValue figure_value(T v) {
  return static_cast<std::uint64_t>(v);
}
template <std::signed_integral T>
FigureValue figure_value(T v) {
  return static_cast<std::int64_t>(v);
}
template <std::floating_point T>
FigureValue figure_value(T v) {
  return static_cast<double>(v);
}
inline FigureValue figure_value(std::string v) { return v; }
inline FigureValue figure_value(std::vector<std::string> v) { return v; }
inline FigureValue figure_value(Guarantees v) { return v; }
inline FigureValue figure_value(Held v) { return v; }

// The accessor of a member or a const member function without arguments:
// `of<&models::DeliveryReport::lost>`.
template <auto Member>
constexpr auto of = [](const auto& figures) -> FigureValue { return figure_value(std::invoke(Member, figures)); };

template <class Figures>
struct Figure {
  std::string_view name;                  // the JSON key within the section's object
  FigureValue (*value)(const Figures&);   // the accessor
  FigureUnit unit = FigureUnit::Count;
  std::string_view label = {};            // in the text report's lines; "" leaves it out of them
  bool new_line = false;                  // starts a new line of the text report
  ExpectAs expect = ExpectAs::Nothing;    // whether and how `expect:` may name it
  std::string_view description = {};     // for docs/scenarios.md, for a figure `expect:` may name
  std::string_view expect_key = {};       // its `expect:` key, when not `name` (the key scenario files have used)
  int significant = 0;                    // in the text, this many significant digits (a histogram's precision); 0: the unit's
};

template <class Figures>
struct Section {
  std::string_view name;   // "delivery", "rpc workload", ...
  SectionScope scope = SectionScope::Run;
  std::string_view json;   // where its figures go in the report's JSON: "delivery"; "" at the top
  std::span<const Figure<Figures>> figures;
};

// A histogram's percentile `p` in milliseconds; NaN without samples (the
// JSON's null, the text's "n/a"; a bound on it fails: there is nothing to bound).
double percentile_ms(const Histogram& histogram, double p);

// "/delivery/latency_ms/p99" for figure "latency_ms.p99" at "delivery".
std::string json_pointer(std::string_view at, std::string_view name);
nlohmann::ordered_json figure_json(const FigureValue& value);
// As the text report shows it: "5.800ms", "4826 records/s", "held".
std::string format_figure(const FigureValue& value, FigureUnit unit, int significant = 0);

// A text report's lines of figures: "  label value  label value".
class FigureLines {
 public:
  explicit FigureLines(std::ostream& out) : out_(out) {}
  void add(std::string_view label, const FigureValue& value, FigureUnit unit, bool new_line, int significant = 0);
  void finish();  // ends the last line

 private:
  std::ostream& out_;
  std::string line_;
};

// The section's figures into `j`, at `at` (by default the section's own place).
template <class Figures>
void add_json(const Section<Figures>& section, const Figures& figures, nlohmann::ordered_json& j, std::string_view at) {
  for (const Figure<Figures>& row : section.figures) {
    j[nlohmann::ordered_json::json_pointer(json_pointer(at, row.name))] = figure_json(row.value(figures));
  }
}
template <class Figures>
void add_json(const Section<Figures>& section, const Figures& figures, nlohmann::ordered_json& j) {
  add_json(section, figures, j, section.json);
}

template <class Figures>
void print_figures(const Section<Figures>& section, const Figures& figures, std::ostream& out) {
  FigureLines lines(out);
  for (const Figure<Figures>& row : section.figures) {
    if (!row.label.empty()) lines.add(row.label, row.value(figures), row.unit, row.new_line, row.significant);
  }
  lines.finish();
}

template <class Figures>
const Figure<Figures>& figure(const Section<Figures>& section, std::string_view name) {
  for (const Figure<Figures>& row : section.figures) {
    if (row.name == name) return row;
  }
  throw std::logic_error("no figure '" + std::string(name) + "' in the " + std::string(section.name) + " section");
}

// What the scenario reader needs to know of the section's figures.
template <class Figures>
ExpectableSection expectable(const Section<Figures>& section) {
  ExpectableSection out{section.name, section.scope, {}};
  for (const Figure<Figures>& row : section.figures) {
    if (row.expect == ExpectAs::Nothing) continue;
    out.figures.push_back({row.name, row.expect_key.empty() ? row.name : row.expect_key, row.expect, row.unit,
                           row.description});
  }
  return out;
}

}  // namespace ksim::app
