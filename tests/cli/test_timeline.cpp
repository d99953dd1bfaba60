// ksim run --timeline, --perfetto and --junit: what each file holds, that
// drawing a run leaves it as it was, and that bad options are usage errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"
#include "tests/support/source_tree.hpp"

namespace {

using ksim::app::RunArgs;
using nlohmann::json;
namespace fs = std::filesystem;

struct Outputs {
  int status = 0;
  std::string err;
  json report;
  std::string html, perfetto, junit;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / "ksim-test-timeline";
  fs::create_directories(dir);
  return dir / name;
}

Outputs run_drawn(const std::string& scenario, std::vector<std::string> overrides = {}, std::string window = {},
            std::string partition = {}) {
  RunArgs args;
  args.scenario = ksim::testing::kScenarios + scenario + ".yaml";
  args.overrides = std::move(overrides);
  args.json = true;
  args.timeline_file = scratch(scenario + ".html").string();
  args.perfetto_file = scratch(scenario + ".perfetto.json").string();
  args.junit_file = scratch(scenario + ".junit.xml").string();
  args.timeline_window = std::move(window);
  args.partition = std::move(partition);
  std::ostringstream out, err;
  Outputs o;
  o.status = ksim::app::run_command(args, out, err);
  o.err = err.str();
  if (o.status == 2) return o;
  o.report = json::parse(out.str());
  o.html = read_file(args.timeline_file);
  o.perfetto = read_file(args.perfetto_file);
  o.junit = read_file(args.junit_file);
  return o;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

int usage_error(RunArgs args, const std::string& expected) {
  std::ostringstream out, err;
  const int status = ksim::app::run_command(args, out, err);
  INFO(err.str());
  CHECK_THAT(err.str(), Catch::Contains(expected));
  return status;
}

}  // namespace

TEST_CASE("the timeline page draws a row per broker, controller, partition, client and group, and is self-contained",
          "[timeline]") {
  const Outputs o = run_drawn("quickstart", {}, "20s..20.05s", "orders-0");
  REQUIRE(o.status == 0);
  // The golden hash (tests/golden/trace_hashes.txt): drawing a run does not change it.
  std::ifstream golden(std::string(KSIM_SOURCE_DIR) + "/tests/golden/trace_hashes.txt");
  std::string hash;
  for (std::string line; std::getline(golden, line);) {
    if (line.starts_with("scenarios/quickstart.yaml 1 ")) hash = line.substr(28, 16);
  }
  CHECK(o.report["trace_hash"] == hash);
  CHECK(o.html.starts_with("<!DOCTYPE html>"));
  for (const char* row : {"broker-0", "broker-1", "broker-2", "controller", "orders-0", "orders-11", "checkout-0",
                          "analytics-0", "analytics-2", "group analytics"}) {
    INFO(row);
    CHECK(count(o.html, std::string("data-row=\"") + row + "\"") == 1);
  }
  CHECK(count(o.html, "<rect class=\"band\"") == 6);   // the three faults, across the tracks and across the charts
  CHECK(count(o.html, "class=\"s k-fault\"") == 3);
  CHECK(count(o.html, "class=\"s k-down\"") == 1);     // broker-0 crashed at 24s
  CHECK(count(o.html, "class=\"s k-fenced\"") >= 1);   // broker-1, cut off longer than its session
  CHECK(count(o.html, "class=\"m k-election\"") >= 8);
  CHECK(count(o.html, "class=\"s k-rebalance\"") >= 1);
  CHECK(count(o.html, "class=\"s k-generation\"") >= 3);
  CHECK(count(o.html, "class=\"step\"") == 3);         // each broker's leaderships
  CHECK(count(o.html, "<polyline class=\"series\"") >= 8);
  CHECK(count(o.html, "<line class=\"msg ") >= 20);   // the spacetime diagram of orders-0 as broker-1's partition heals
  CHECK_THAT(o.html, Catch::Contains("those carrying partition orders-0"));
  // Nothing is fetched: no external script, style sheet, image or font.
  CHECK(count(o.html, "http") == count(o.html, "http://www.w3.org/2000/svg"));
  CHECK(count(o.html, "<script") == 1);
  CHECK(count(o.html, "src=") == 0);
  CHECK(count(o.html, "<link") == 0);
}

TEST_CASE("the timeline and the Perfetto file are the same from one run to the next", "[timeline]") {
  const Outputs a = run_drawn("chaos", {}, "15s..16s");
  const Outputs b = run_drawn("chaos", {}, "15s..16s");
  CHECK(a.html == b.html);
  CHECK(a.perfetto == b.perfetto);
}

TEST_CASE("a big run's timeline draws the first partitions and says what it left out", "[timeline]") {
  const Outputs o = run_drawn("failover_vs_partitions", {"topics.0.partitions=1500", "drain=5s"}, "10s..10.2s", "events-1200");
  REQUIRE(o.status != 2);
  CHECK(count(o.html, "data-row=\"events-") == 49);  // 48, and the one chosen
  CHECK(count(o.html, "data-row=\"events-1200\"") == 1);
  CHECK_THAT(o.html, Catch::Contains("<li>partitions: 49 of 1500 drawn (the first by topic and number, and the one chosen)</li>"));
  CHECK(json::parse(o.perfetto)["otherData"]["notes"].size() == 1);
}

TEST_CASE("the timeline marks lost records where they were acknowledged, with their ids", "[timeline]") {
  const Outputs o = run_drawn("acks1-leader-crash");
  REQUIRE(o.report["delivery"]["lost"].get<int>() > 0);
  CHECK(count(o.html, "class=\"m k-lost\"") ==
        std::min<std::size_t>(20, o.report["delivery"]["lost"].get<std::size_t>()));
  CHECK_THAT(o.html, Catch::Contains("lost p0/t0-") && Catch::Contains("acknowledged at "));
  const json trace = json::parse(o.perfetto);
  std::size_t lost = 0;
  for (const json& e : trace["traceEvents"]) lost += e["ph"] == "i" && e["cat"] == "lost" ? 1 : 0;
  CHECK(lost == std::min<std::size_t>(20, o.report["delivery"]["lost"].get<std::size_t>()));
}

TEST_CASE("the timeline draws transactions committed and aborted", "[timeline]") {
  const Outputs o = run_drawn("txn-isolation", {"duration=5s", "drain=5s"});
  CHECK(count(o.html, "class=\"s k-txn-commit\"") > 0);
  CHECK(count(o.html, "class=\"s k-txn-abort\"") > 0);
}

TEST_CASE("a request/response scenario has a timeline of its nodes and faults, without series", "[timeline]") {
  const Outputs o = run_drawn("rpc-faults");
  REQUIRE(o.status == 0);
  CHECK(count(o.html, "data-row=\"server-0\"") == 1);
  CHECK(count(o.html, "data-row=\"client-0\"") == 1);
  CHECK_THAT(o.html, Catch::Contains("No time series"));
  CHECK(json::parse(o.perfetto)["traceEvents"].size() > 10);
}

TEST_CASE("the Perfetto file is Chrome trace events: named processes and threads, nested slices, counters, flows",
          "[timeline][perfetto]") {
  const Outputs o = run_drawn("quickstart", {}, "8s..8.2s");
  const json trace = json::parse(o.perfetto);
  REQUIRE(trace["traceEvents"].is_array());
  CHECK(trace["displayTimeUnit"] == "ms");
  std::map<std::string, std::size_t> phases;
  std::map<std::string, int> threads;                                  // thread name -> pid
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> slices;  // (pid, tid) -> [start, end)
  std::set<std::string> counters;
  std::map<int, int> flows;  // bind_id -> out minus in
  for (const json& e : trace["traceEvents"]) {
    const std::string ph = e["ph"];
    ++phases[ph];
    REQUIRE(e["pid"].is_number_integer());
    if (ph == "M" && e["name"] == "thread_name") threads[e["args"]["name"]] = e["pid"];
    if (ph == "X") {
      REQUIRE(e["tid"].is_number_integer());
      REQUIRE(e["dur"].get<double>() >= 0);
      slices[{e["pid"], e["tid"]}].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
      if (e.contains("bind_id")) flows[e["bind_id"]] += e.contains("flow_out") ? 1 : -1;
    }
    if (ph == "C") counters.insert(e["name"]);
    if (ph == "i") CHECK(e["s"] == "t");
  }
  CHECK(phases["M"] > 0);
  CHECK(phases["X"] > 0);
  CHECK(phases["i"] > 0);
  CHECK(phases["C"] > 0);
  for (const char* name : {"broker-0", "controller", "orders-0", "checkout-0", "analytics-0", "group analytics", "faults"}) {
    INFO(name);
    CHECK(threads.contains(name));
  }
  CHECK(threads.at("broker-0") != threads.at("controller"));  // a process per kind of node
  for (const char* counter : {"records/s", "ms", "records", "partitions", "broker-0 leaderships"}) {
    INFO(counter);
    CHECK(counters.contains(counter));
  }
  // On one thread, slices nest or follow each other: never overlap in part
  // (by more than a nanosecond: ts + dur in microseconds rounds).
  constexpr double kNs = 1e-3;
  for (auto& [thread, spans] : slices) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) {
      INFO("pid " << thread.first << " tid " << thread.second);
      CHECK((spans[i].first + kNs >= spans[i - 1].second || spans[i].second <= spans[i - 1].second + kNs));
    }
  }
  REQUIRE_FALSE(flows.empty());
  for (const auto& [id, balance] : flows) CHECK((balance == 0 || balance == 1));  // out and in, or out alone (dropped)
}

TEST_CASE("ksim run --junit writes a test case per expectation and one for the invariants", "[junit]") {
  const Outputs held = run_drawn("quickstart");
  CHECK(held.status == 0);
  CHECK_THAT(held.junit, Catch::StartsWith("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
  CHECK_THAT(held.junit, Catch::Contains(R"(<testsuite name="quickstart" tests="4" failures="0" errors="0" skipped="0")"));
  for (const char* name : {"delivery", "invariant_violations", "groups.analytics.consumption", "invariants"}) {
    INFO(name);
    CHECK(count(held.junit, std::string("<testcase name=\"") + name + "\" classname=\"ksim.quickstart\"") == 1);
  }
  CHECK_THAT(held.junit, Catch::Contains(R"(<property name="replay" value="ksim run )") &&
                             Catch::Contains("quickstart.yaml --seed 1\"/>"));

  const Outputs failed = run_drawn("jbod-skew", {"duration=2s", "expect.lost=\">0\""});
  CHECK(failed.status == 1);  // exit codes as without --junit
  CHECK_THAT(failed.junit, Catch::Contains(R"(tests="3" failures="1")"));
  CHECK_THAT(failed.junit, Catch::Contains(R"(<testcase name="lost" classname="ksim.jbod-skew")"));
  CHECK_THAT(failed.junit, Catch::Contains(R"~(<failure message="lost: 0 (expected &gt;0)" type="ExpectationFailed">)~"));
  CHECK_THAT(failed.junit, Catch::Contains("replay: ksim run ") && Catch::Contains("--set &#39;expect.lost=&quot;&gt;0&quot;&#39;"));
  CHECK_THAT(failed.junit, Catch::Contains(R"(<testcase name="invariants" classname="ksim.jbod-skew" time="0.000"/>)"));
}

TEST_CASE("bad timeline, Perfetto and JUnit options are usage errors, found before the run", "[timeline][cli]") {
  RunArgs args;
  args.scenario = ksim::testing::kScenarios + "quickstart.yaml";
  args.timeline_window = "10s..12s";
  CHECK(usage_error(args, "ksim: --timeline-window: needs --timeline FILE or --perfetto FILE") == 2);
  args.timeline_file = scratch("bad.html").string();
  for (const char* window : {"10s", "12s..10s", "ten..12s", "10s..12"}) {
    args.timeline_window = window;
    CHECK(usage_error(args, "ksim: --timeline-window: expected FROM..TO such as 10s..12s") == 2);
  }
  args.timeline_window = "10s..12s";
  for (const auto& [partition, expected] : std::vector<std::pair<std::string, std::string>>{
           {"order-3", "the scenario has no topic 'order' (did you mean 'orders'?)"},
           {"orders-12", "topic 'orders' has 12 partitions (0 to 11), not 12"},
           {"orders", "expected TOPIC-N such as orders-0, got 'orders'"}}) {
    args.partition = partition;
    CHECK(usage_error(args, "ksim: --partition: " + expected) == 2);
  }
  args.timeline_window.clear();
  args.partition = "orders-3";
  CHECK(usage_error(args, "ksim: --partition: needs --timeline-window FROM..TO") == 2);
  args.partition.clear();
  args.timeline_file.clear();
  for (auto [file, option] : {std::pair{&RunArgs::timeline_file, "--timeline"}, std::pair{&RunArgs::perfetto_file, "--perfetto"},
                              std::pair{&RunArgs::junit_file, "--junit"}}) {
    RunArgs unwritable = args;
    unwritable.*file = "/no/such/dir/out";
    CHECK(usage_error(unwritable, std::string("ksim: ") + option + ": cannot write '/no/such/dir/out'") == 2);
  }
}
