// The scenario reader's `expect:` section: every name comes from the
// report's figure tables (app/report/report_expectations.hpp), so a name no
// table has, or one for a section the scenario lacks, is a located error.
#include <catch2/catch.hpp>

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
