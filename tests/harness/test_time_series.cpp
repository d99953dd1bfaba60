// The report's time series (models/check/time_series_tracker.hpp): sampled
// between events at report.sample_interval, so the run is the same with any
// interval; what each figure shows through the quickstart's incidents.
#include <catch2/catch.hpp>

#include <algorithm>

#include "tests/support/scenario_runner.hpp"

namespace {

using ksim::testing::run_scenario;
using nlohmann::json;

const json& sample_at(const json& samples, double t_s) {
  for (const json& s : samples) {
    if (s["t_s"].get<double>() == Approx(t_s)) return s;
  }
  FAIL("no sample at " << t_s);
  return samples.front();
}

double max_between(const json& samples, const char* figure, double from_s, double to_s) {
  double high = 0;
  for (const json& s : samples) {
    const double t = s["t_s"].get<double>();
    if (t >= from_s && t <= to_s && !s[figure].is_null()) high = std::max(high, s[figure].get<double>());
  }
  return high;
}

}  // namespace

TEST_CASE("the report's time series has a sample per interval and leaves the run as it was", "[timeseries]") {
  const auto every_second = run_scenario("quickstart", 1);
  const auto every_250ms = run_scenario("quickstart", 1, {"report.sample_interval=250ms"});
  REQUIRE(every_second.status == 0);
  CHECK(every_250ms.report["trace_hash"] == every_second.report["trace_hash"]);
  CHECK(every_250ms.report["delivery"] == every_second.report["delivery"]);
  const json& series = every_second.report["timeseries"];
  CHECK(series["interval_s"].get<double>() == 1.0);
  CHECK(series["samples"].size() == 60);  // 30s and a drain of 30s
  CHECK(every_250ms.report["timeseries"]["samples"].size() == 240);
  CHECK(every_250ms.report["timeseries"]["interval_s"].get<double>() == 0.25);
  for (const char* key : {"t_s", "produced_records_per_s", "consumed_records_per_s", "produce_latency_p50_ms",
                          "produce_latency_p99_ms", "e2e_latency_p50_ms", "e2e_latency_p99_ms", "consumer_lag_records",
                          "unwritable_partitions", "unreadable_partitions", "offline_partitions",
                          "under_replicated_partitions"}) {
    INFO(key);
    CHECK(series["samples"][0].contains(key));
  }
}

TEST_CASE("the time series shows the quickstart's incidents where they happen", "[timeseries]") {
  const auto run = run_scenario("quickstart", 1);
  const json& samples = run.report["timeseries"]["samples"];
  // Before the partition at 8s: 5,000 records/s acknowledged, latency in milliseconds, nothing unavailable.
  const json& steady = sample_at(samples, 5);
  CHECK(steady["produced_records_per_s"].get<double>() == Approx(5000).epsilon(0.05));
  CHECK(steady["produce_latency_p99_ms"].get<double>() < 50);
  CHECK(steady["unwritable_partitions"] == 0);
  CHECK(steady["under_replicated_partitions"] == 0);
  // broker-1 cut off from 8s to 20s: acks=all writes stall until it leaves the ISR, then the ISRs are short.
  CHECK(max_between(samples, "unwritable_partitions", 9, 14) > 0);
  CHECK(max_between(samples, "under_replicated_partitions", 15, 20) > 0);
  CHECK(max_between(samples, "produced_records_per_s", 16, 22) > 5000);  // the backlog drains
  // broker-0 crashes at 24s for 3s: the partitions it led wait for an election.
  CHECK(max_between(samples, "unwritable_partitions", 24, 27) > 0);
  // The workload stops at 30s; by the end nothing is unavailable and the group has caught up.
  const json& last = samples.back();
  CHECK(last["t_s"].get<double>() == 60);
  CHECK(last["produced_records_per_s"] == 0);
  CHECK(last["produce_latency_p50_ms"].is_null());  // nothing acknowledged in the interval
  CHECK(last["unwritable_partitions"] == 0);
  CHECK(last["consumer_lag_records"] == 0);
  // Records acknowledged and processed add up to the report's totals, interval by interval.
  double acknowledged = 0, processed = 0;
  for (const json& s : samples) {
    acknowledged += s["produced_records_per_s"].get<double>();
    processed += s["consumed_records_per_s"].get<double>();
  }
  CHECK(acknowledged == run.report["delivery"]["acknowledged"].get<double>());
  CHECK(processed >= acknowledged);
}

TEST_CASE("report.sample_interval is read strictly, and --sample-interval sets it", "[timeseries]") {
  using ksim::testing::scenario_error;
  const std::string base = "brokers: {count: 1}\ntopics: [{name: t, partitions: 1}]\n";
  CHECK(ksim::testing::parse_scenario(base).report.sample_interval == ksim::seconds(1));
  CHECK(ksim::testing::parse_scenario(base + "report: {sample_interval: 250ms}\n").report.sample_interval ==
        ksim::milliseconds(250));
  CHECK_THAT(scenario_error(base + "report: {sample_intervall: 1s}\n"),
             Catch::Contains("unknown key 'sample_intervall'") && Catch::Contains("did you mean 'sample_interval'"));
  CHECK_THAT(scenario_error(base + "report: {sample_interval: 10us}\n"), Catch::Contains("report.sample_interval"));
  CHECK_THAT(scenario_error(base + "report: {sample_interval: fast}\n"), Catch::Contains("report.sample_interval"));

  ksim::app::RunArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  args.sample_interval = "5s";
  args.overrides = {"duration=10s", "drain=5s"};
  args.json = true;
  std::ostringstream out, err;
  REQUIRE(ksim::app::run_command(args, out, err) == 0);
  CHECK(json::parse(out.str())["timeseries"]["samples"].size() == 3);
  for (const char* bad : {"0", "fast", "500us", "-1s"}) {
    args.sample_interval = bad;
    std::ostringstream o, e;
    CHECK(ksim::app::run_command(args, o, e) == ksim::app::kExitUsage);
    CHECK_THAT(e.str(), Catch::Contains("ksim: --sample-interval: expected a duration of at least 1ms"));
  }
}

TEST_CASE("partitions without a leader count as offline while the controller has none for them", "[timeseries]") {
  // RF 1: the partitions broker-0 leads have no other replica; it crashes for good at 2s.
  const auto run = run_scenario("quickstart", 1,
                                {"topics.0.replication_factor=1", "topics.0.config[min.insync.replicas]=1",
                                 "faults=[{kind: crash, at: 2s, nodes: [broker-0]}]", "duration=20s", "drain=2s",
                                 "expect={}"});
  const json& samples = run.report["timeseries"]["samples"];
  CHECK(sample_at(samples, 1)["offline_partitions"] == 0);
  // Once its session has expired (9s) the controller fences it and elects no one: 4 of the 12 are offline.
  const double offline = max_between(samples, "offline_partitions", 12, 22);
  CHECK(offline > 0);
  CHECK(offline < 12);
  CHECK(sample_at(samples, 22)["offline_partitions"].get<double>() == offline);
  CHECK(sample_at(samples, 22)["unwritable_partitions"].get<double>() >= offline);
  CHECK(sample_at(samples, 22)["under_replicated_partitions"] == 0);  // offline, not under-replicated, as Kafka counts them
}
