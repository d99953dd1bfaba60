// The scenario reader's `expect:` section: every name comes from the
// report's figure tables (app/report/report_expectations.hpp), so a name no
// table has, or one for a section the scenario lacks, is a located error.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/report/report_expectations.hpp"
#include "app/scenario/scenario.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;

using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

const std::string kKafka = "brokers: {count: 3}\ntopics: [{name: t, partitions: 2}]\nproducers: [{name: p, topic: t}]\n";
const std::string kTransactional =
    "brokers: {count: 3}\ntopics: [{name: t, partitions: 2}]\n"
    "producers: [{name: p, topic: t, config: {transactional.id: tx}}]\n";

// What docs/scenarios.md says of the comparison an expectation makes.
std::string comparison(const ExpectableFigure& f) {
  switch (f.as) {
    case ExpectAs::Count: return "a count (`0`) or a comparison (`\">0\"`, `\">=3\"`, `\"<10\"`)";
    case ExpectAs::Flag: return "`true` or `false`";
    case ExpectAs::Guarantee: return "`none`, `at-most-once`, `at-least-once` or `exactly-once`";
    case ExpectAs::Bound:
      switch (f.unit) {
        case FigureUnit::Fraction: return "at most, at least: a fraction (`0.9`, `90%`)";
        case FigureUnit::Milliseconds:
        case FigureUnit::Seconds: return "at most, at least: a duration (`250ms`)";
        case FigureUnit::Bytes: return "at most, at least: a size (`16KiB`)";
        case FigureUnit::PerSecond:
        case FigureUnit::RecordsPerSecond: return "at most, at least: a rate (`1000/s`)";
        case FigureUnit::BytesPerSecond: return "at most, at least: a bandwidth (`100MB/s`)";
        case FigureUnit::Count:
        case FigureUnit::Records: return "at most, at least: a count";
        default: return "at most, at least: a number";
      }
    case ExpectAs::Nothing: break;
  }
  return "";
}

std::string key_path(const ExpectableSection& section, const ExpectableFigure& f) {
  const std::string key(f.key);
  const std::string prefix = section.scope == SectionScope::Transactions ? "transactions."
                             : section.scope == SectionScope::Group      ? "groups.GROUP."
                             : section.scope == SectionScope::ShareGroup ? "share_groups.GROUP."
                                                                         : "";
  if (f.as == ExpectAs::Bound) return "`" + prefix + "max_" + key + "`, `" + prefix + "min_" + key + "`";
  return "`" + prefix + key + "`";
}

// The table of docs/scenarios.md's `expect` section, as the figure tables give it.
std::string expect_keys_table() {
  std::string table = "| key | report section | value | meaning |\n|---|---|---|---|\n";
  for (const ExpectableSection& section : expectation_catalogue()) {
    for (const ExpectableFigure& f : section.figures) {
      table += "| " + key_path(section, f) + " | " + std::string(section.name) + " | " + comparison(f) + " | " +
               std::string(f.description) + " |\n";
    }
  }
  return table;
}

// The text of `file` between the two lines that hold `begin` and `end`.
std::string between(const std::string& file, const std::string& begin, const std::string& end) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  const std::string all = text.str();
  const auto from = all.find(begin);
  const auto to = all.find(end);
  if (from == std::string::npos || to == std::string::npos) return "(markers not found)";
  const auto start = all.find('\n', from) + 1;
  return all.substr(start, all.rfind('\n', to) + 1 - start);
}

}  // namespace

TEST_CASE("an unknown expectation name is a located error suggesting the nearest figure", "[scenario][expect]") {
  CHECK(scenario_error(kKafka + "expect:\n  delivery: at-least-once\n  lsot: 0\n") ==
        "test.yaml:6:3: expect.lsot: unknown key 'lsot' (did you mean 'lost'?)");
  CHECK(scenario_error(kKafka + "consumers: [{name: app, topic: t}]\nexpect:\n  groups:\n    app: {rebalance: 1}\n") ==
        "test.yaml:7:11: expect.groups.app.rebalance: unknown key 'rebalance' (did you mean 'rebalances'?)");
  CHECK(scenario_error("rpc: {}\nexpect: {max_p99_latncy: 1s}\n") ==
        "test.yaml:2:10: expect.max_p99_latncy: unknown key 'max_p99_latncy' (did you mean 'max_p99_latency'?)");
}

TEST_CASE("a misspelt transaction expectation is an error, not a check of another figure", "[scenario][expect]") {
  // check_kafka's chain of names once fell through to the hanging transactions for a name it did not know.
  CHECK(scenario_error(kTransactional + "expect:\n  transactions: {comitted: '>0'}\n") ==
        "test.yaml:5:18: expect.transactions.comitted: unknown key 'comitted' (did you mean 'committed'?)");
  const Scenario s = parse_scenario(kTransactional + "expect:\n  transactions: {aborted: 0, hanging: '<2'}\n");
  REQUIRE(s.expect.size() == 2);
  CHECK(s.expect[0].name == "transactions.aborted");
  CHECK(s.expect[0].figure == "aborted");
  CHECK(s.expect[1].figure == "hanging");
  CHECK(s.expect[1].count.op == "<");
  CHECK(s.expect[1].count.value == 2);
}

TEST_CASE("an rpc expectation in a Kafka scenario is an error saying why", "[scenario][expect]") {
  CHECK(scenario_error(kKafka + "expect: {max_p99_latency: 10ms}\n") ==
        "test.yaml:4:27: expect.max_p99_latency: 'max_p99_latency' is a figure of the rpc workload section, and this "
        "scenario has no rpc workload (no rpc: section)");
  CHECK_THAT(scenario_error(kKafka + "expect: {min_completed_fraction: 0.9}\n"),
             Catch::Contains("expect.min_completed_fraction") && Catch::Contains("no rpc workload"));
}

TEST_CASE("an expectation on a section the scenario lacks is an error saying why", "[scenario][expect]") {
  CHECK(scenario_error("rpc: {}\nexpect:\n  lost: 0\n") ==
        "test.yaml:3:9: expect.lost: 'lost' is a figure of the delivery section, and this scenario has no Kafka "
        "cluster (no brokers: section)");
  CHECK(scenario_error(kKafka + "expect:\n  transactions:\n    hanging: 0\n") ==
        "test.yaml:6:14: expect.transactions.hanging: 'hanging' is a figure of the transactions section, and this "
        "scenario has no transactional producer (no transactional.id)");
  CHECK_THAT(scenario_error(kKafka + "consumers: [{name: app, topic: t}]\nexpect: {groups: {ap: {lag: 0}}}\n"),
             Catch::Contains("expect.groups.ap") && Catch::Contains("no consumer group 'ap' (did you mean 'app'?)"));
}

TEST_CASE("expectations are read in their figure's unit, in the order written", "[scenario][expect]") {
  const Scenario s = parse_scenario("rpc: {}\nexpect: {max_p99_latency: 250ms, min_completed_fraction: 90%, max_timeouts: 3}\n");
  REQUIRE(s.expect.size() == 3);
  CHECK(s.expect[0].section == "rpc workload");
  CHECK(s.expect[0].figure == "latency_ms.p99");
  CHECK(s.expect[0].at_most);
  CHECK(s.expect[0].bound == 250.0);  // the figure is in milliseconds
  CHECK(s.expect[1].figure == "completed_fraction");
  CHECK_FALSE(s.expect[1].at_most);
  CHECK(s.expect[1].bound == Approx(0.9));
  CHECK(s.expect[2].figure == "timed_out");
  CHECK(s.expect[2].bound == 3.0);
  CHECK_THAT(scenario_error("rpc: {}\nexpect: {min_completed_fraction: 1.5}\n"),
             Catch::Contains("expect.min_completed_fraction") && Catch::Contains("between 0 and 1"));
  CHECK_THAT(scenario_error(kKafka + "expect: {lost: some}\n"), Catch::Contains("expected a count or a comparison"));
  CHECK_THAT(scenario_error(kKafka + "expect: {delivery: exactly-one}\n"), Catch::Contains("did you mean 'exactly-once'"));
  const Scenario g = parse_scenario(kKafka + "consumers: [{name: app, topic: t}]\n"
                                             "expect: {groups: {app: {end_to_end: at-least-once, max_stop_the_world_partition_s: 2}}}\n");
  REQUIRE(g.expect.size() == 2);
  CHECK(g.expect[0].name == "groups.app.end_to_end");
  CHECK(g.expect[0].group == "app");
  CHECK(g.expect[0].figure == "end_to_end.verdict");
  CHECK(g.expect[0].guarantee == "at-least-once");
  CHECK(g.expect[1].figure == "stop_the_world_partition_s");
}

TEST_CASE("each expectation key names one figure, and every expectable figure is described", "[scenario][expect]") {
  std::size_t figures = 0;
  for (const ExpectableSection& section : expectation_catalogue()) {
    for (const ExpectableFigure& f : section.figures) {
      INFO(section.name << ": " << f.figure);
      CHECK_FALSE(f.description.empty());
      if (f.as == ExpectAs::Bound) CHECK(boundable(f.unit));
      ++figures;
    }
  }
  CHECK(figures >= 30);
  CHECK_NOTHROW(parse_scenario(""));  // the reader refuses a catalogue in which two figures share a key
}

TEST_CASE("docs/scenarios.md lists the expect keys the figure tables have", "[scenario][expect][docs]") {
  const std::string documented = between(std::string(KSIM_SOURCE_DIR) + "/docs/scenarios.md",
                                         "<!-- expect-keys: begin", "<!-- expect-keys: end");
  const std::string expected = expect_keys_table();
  const bool in_step = documented == expected;
  const auto file = std::filesystem::temp_directory_path() / "ksim-expect-keys.md";
  if (!in_step) std::ofstream(file) << expected;
  INFO("docs/scenarios.md should hold, between its expect-keys markers, what " << file.string() << " holds");
  CHECK(in_step);
}
