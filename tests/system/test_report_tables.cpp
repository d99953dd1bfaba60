// The report's figure tables (app/report/figure_table.hpp): what each row
// names is in the JSON with the value its accessor gives, and an expectation
// on any figure holds when it states the figure's value and fails when it
// does not.
#include <catch2/catch.hpp>

#include <set>
#include <sstream>
#include <string>

#include "app/report/report.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;

namespace {

struct Run {
  RunReport report;
  nlohmann::ordered_json json;
};

Run run(const std::string& name, const std::vector<std::string>& overrides = {}) {
  config::Document document = config::Document::load_file(std::string(KSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
  for (const auto& o : overrides) document.apply_override(o);
  const Scenario scenario = read_scenario(document, expectation_catalogue());
  Cluster cluster(scenario, RunOptions{});
  cluster.run();
  Run r{make_report(cluster, 0), {}};
  r.json = to_json(r.report);
  return r;
}

// Runs that between them have every section, and figures that fail a guarantee.
const std::vector<Run>& runs() {
  static const std::vector<Run> all{
      run("eos-transform"),                                  // transactions, a transform's output, groups
      run("steady-state", {"duration=2s", "drain=1s"}),      // a profile: utilisation, the analytic model
      run("rpc-faults", {"duration=5s"}),                    // the rpc workload
      run("acks1-leader-crash"),                             // delivery short of exactly-once, a failover
      run("consumer-commit-before-process", {"duration=12s"}),  // a group short of exactly-once
      run("kraft-quorum-failover"),                          // a controller quorum and its failovers
      run("share-poison-record", {"duration=6s", "drain=4s"}),  // a share group (KIP-932)
      run("reassign-partitions", {"duration=12s", "drain=3s"}),  // an operation, partition reassignments (KIP-455)
      run("compacted-topic", {"duration=20s", "drain=5s"}),  // the log cleaner (cleanup.policy=compact)
      run("tiered-storage", {"duration=70s", "drain=5s"}),    // tiered storage (KIP-405)
  };
  return all;
}

template <class Figures>
void check_rows(const Section<Figures>& section, const Figures& figures, const nlohmann::ordered_json& json,
                std::string_view at, std::set<std::string>& seen) {
  std::set<std::string_view> names;
  for (const Figure<Figures>& row : section.figures) {
    INFO(section.name << ": " << row.name << " at /" << at);
    CHECK(names.insert(row.name).second);
    const nlohmann::ordered_json::json_pointer pointer(json_pointer(at, row.name));
    REQUIRE(json.contains(pointer));
    CHECK(json.at(pointer) == figure_json(row.value(figures)));
  }
  seen.insert(std::string(section.name));
}

// Where the JSON keeps the figures an expectation of `e`'s section names.
const nlohmann::ordered_json& figures_json(const Run& r, const Expectation& e) {
  if (e.section == rpc_section().name) return r.json.at("workload");
  if (e.section == delivery_section().name) return r.json.at("delivery");
  if (e.section == transactions_section().name) return r.json.at("transactions");
  if (e.section == network_section().name) return r.json.at("network");
  if (e.section == end_to_end_latency_section().name) return r.json.at("end_to_end_latency_ms");
  if (e.section == availability_section().name) return r.json.at("availability");
  if (e.section == partition_costs_section().name) return r.json.at("partition_costs");
  if (e.section == quorum_section().name) return r.json.at("controller").at("quorum");
  if (e.section == operations_section().name) return r.json.at("reassignments");
  if (e.section == log_dir_moves_section().name) return r.json.at("log_dir_moves");
  if (e.section == compaction_section().name) return r.json.at("compaction");
  if (e.section == tiered_section().name) return r.json.at("tiered_storage");
  if (e.section == group_section().name) {
    for (const auto& g : r.json.at("groups")) {
      if (g.at("group") == e.group) return g;
    }
  }
  if (e.section == share_group_section().name) {
    for (const auto& g : r.json.at("share_groups")) {
      if (g.at("group") == e.group) return g;
    }
  }
  return r.json;
}

bool has_section(const Run& r, const ExpectableSection& s) {
  // Its latest_kept is vacuous, so any expectation on it fails, without a compacted topic that was cleaned.
  if (s.name == compaction_section().name) return r.report.kafka && r.report.kafka->compaction.vacuous.empty();
  switch (s.scope) {
    case SectionScope::Run: return true;
    case SectionScope::Rpc: return r.report.rpc.has_value();
    case SectionScope::Kafka:
    case SectionScope::Group: return r.report.kafka.has_value();
    case SectionScope::Transactions: return r.report.kafka && r.report.kafka->transactions;
    case SectionScope::ShareGroup: return r.report.kafka && !r.report.kafka->share_groups.empty();
    case SectionScope::Tiered: return r.report.kafka && r.report.kafka->tiered;
  }
  return false;
}

// An expectation that `f` is what the JSON says (held) or something else (!held).
Expectation stating(const Run& r, const ExpectableSection& s, const ExpectableFigure& f, const std::string& group,
                    bool held) {
  Expectation e;
  e.name = std::string(f.key);
  e.section = std::string(s.name);
  e.group = group;
  e.figure = std::string(f.figure);
  e.as = f.as;
  const nlohmann::ordered_json& value = figures_json(r, e).at(nlohmann::ordered_json::json_pointer(json_pointer("", f.figure)));
  switch (f.as) {
    case ExpectAs::Count: {
      // n/a (null) in this run: nothing holds
      const std::uint64_t actual = value.is_array() ? value.size() : value.is_null() ? 0 : value.get<std::uint64_t>();
      e.count = {"==", held ? actual : actual + 1};
      break;
    }
    case ExpectAs::Bound:
      e.at_most = held;  // at most what it is, at least one more; without samples (null) nothing holds
      e.bound = value.is_null() ? 0 : value.get<double>() + (held ? 0 : 1);
      break;
    case ExpectAs::Flag: e.flag = held == value.get<bool>(); break;
    case ExpectAs::Guarantee: e.guarantee = held ? value.get<std::string>() : "exactly-once"; break;
    case ExpectAs::Nothing: break;
  }
  return e;
}

}  // namespace

TEST_CASE("every figure table row's name is in the JSON with the value its accessor gives", "[report]") {
  std::set<std::string> seen;
  for (const Run& r : runs()) {
    const nlohmann::ordered_json& j = r.json;
    check_rows(run_section(), r.report, j, run_section().json, seen);
    check_rows(network_section(), r.report.network, j, network_section().json, seen);
    if (r.report.rpc) check_rows(rpc_section(), *r.report.rpc, j, rpc_section().json, seen);
    if (!r.report.kafka) continue;
    const KafkaFigures& k = *r.report.kafka;
    check_rows(delivery_section(), k.delivery, j, delivery_section().json, seen);
    check_rows(produce_section(), k, j, produce_section().json, seen);
    check_rows(cluster_section(), k, j, cluster_section().json, seen);
    check_rows(partition_costs_section(), k.partition_costs, j, partition_costs_section().json, seen);
    check_rows(quorum_section(), k.quorum, j, quorum_section().json, seen);
    check_rows(operations_section(), k.operations, j, operations_section().json, seen);
    check_rows(log_dir_moves_section(), k.operations, j, log_dir_moves_section().json, seen);
    check_rows(compaction_section(), k.compaction, j, compaction_section().json, seen);
    const PerformanceFigures& p = k.performance;
    check_rows(consumption_section(), p, j, consumption_section().json, seen);
    check_rows(replication_section(), p, j, replication_section().json, seen);
    check_rows(failover_section(), p.failover, j, failover_section().json, seen);
    check_rows(end_to_end_latency_section(), p, j, end_to_end_latency_section().json, seen);
    check_rows(availability_section(), k.availability, j, availability_section().json, seen);
    if (p.utilization) {
      check_rows(profile_section(), p, j, profile_section().json, seen);
      check_rows(utilization_section(), *p.utilization, j, utilization_section().json, seen);
      check_rows(bottleneck_section(), *p.utilization, j, bottleneck_section().json, seen);
    }
    if (p.analytic) {
      check_rows(analytic_section(), *p.analytic, j, analytic_section().json, seen);
      check_rows(utilization_section(), p.analytic->utilization, j, "analytic.utilization", seen);
    }
    for (std::size_t i = 0; i < k.groups.size(); ++i) {
      const std::string at = "groups." + std::to_string(i);
      check_rows(group_section(), k.groups[i], j, at, seen);
      if (k.groups[i].transform) check_rows(transform_output_section(), *k.groups[i].transform, j, at + ".output", seen);
    }
    if (k.transactions) check_rows(transactions_section(), *k.transactions, j, transactions_section().json, seen);
    if (k.tiered) check_rows(tiered_section(), *k.tiered, j, tiered_section().json, seen);
    for (std::size_t i = 0; i < k.share_groups.size(); ++i) {
      check_rows(share_group_section(), k.share_groups[i], j, "share_groups." + std::to_string(i), seen);
    }
  }
  CHECK(seen.size() == 25);  // every section; these runs have them all
  for (const ExpectableSection& s : expectation_catalogue()) CHECK(seen.contains(std::string(s.name)));
}

TEST_CASE("an expectation on each figure holds when it states the figure's value and fails otherwise", "[report]") {
  std::set<std::string> failed;  // "section: key"
  for (const Run& r : runs()) {
    for (const ExpectableSection& s : expectation_catalogue()) {
      if (!has_section(r, s)) continue;
      std::vector<std::string> groups{""};
      if (s.scope == SectionScope::Group) {
        groups.clear();
        for (const auto& g : r.report.kafka->groups) groups.push_back(g.group);
      }
      if (s.scope == SectionScope::ShareGroup) {
        groups.clear();
        for (const auto& g : r.report.kafka->share_groups) groups.push_back(g.group);
      }
      for (const std::string& group : groups) {
        for (const ExpectableFigure& f : s.figures) {
          INFO(r.report.file << ": " << s.name << " " << group << " " << f.key);
          const auto results = check_expectations({stating(r, s, f, group, true), stating(r, s, f, group, false)}, r.report);
          const bool no_samples = (f.as == ExpectAs::Bound && results[0].detail.starts_with("no samples")) ||
                                  (f.as == ExpectAs::Count && results[0].detail.starts_with("n/a"));
          CHECK((results[0].held || no_samples));
          // Where exactly-once held no guarantee can fail: there is none stronger.
          if (f.as == ExpectAs::Guarantee && results[1].detail.ends_with("verdict exactly-once")) continue;
          CHECK_FALSE(results[1].held);
          failed.insert(std::string(s.name) + ": " + std::string(f.key));
        }
      }
    }
  }
  for (const ExpectableSection& s : expectation_catalogue()) {
    for (const ExpectableFigure& f : s.figures) {
      INFO("no run made an expectation on " << s.name << ": " << f.key << " fail");
      CHECK(failed.contains(std::string(s.name) + ": " + std::string(f.key)));
    }
  }
}

TEST_CASE("an expectation on each section of the report can fail the run", "[report][cli]") {
  struct Case {
    std::string scenario;
    std::vector<std::string> overrides;
    std::string expectation;
  };
  const std::vector<Case> cases{
      {"rpc-faults", {"duration=3s", "expect.max_completed_fraction=0.1"}, "max_completed_fraction"},
      {"jbod-skew", {"duration=2s", "drain=1s", "expect.produced=0"}, "produced"},
      {"jbod-skew", {"duration=2s", "drain=1s", "expect.invariant_violations='>0'"}, "invariant_violations"},
      {"quickstart", {"duration=5s", "expect.groups.analytics.processed=0"}, "groups.analytics.processed"},
      {"txn-zombie", {"duration=5s", "expect.transactions.committed=0"}, "transactions.committed"},
      {"kraft-quorum-failover", {"expect.max_controller_failover=1ms"}, "max_controller_failover"},
  };
  for (const Case& c : cases) {
    INFO(c.scenario << ": " << c.expectation);
    const auto r = ksim::testing::run_scenario(c.scenario, 1, c.overrides);
    CHECK(r.status == kExitExpectationFailed);
    bool found = false;
    for (const auto& e : r.report["expectations"]) {
      if (e["name"] != c.expectation) continue;
      found = true;
      CHECK_FALSE(e["held"].get<bool>());
    }
    CHECK(found);
  }
}

TEST_CASE("the text report shows integer figures exactly, a 64-bit seed too", "[report]") {
  RunReport r;
  r.seed = 18446744073709551615ULL;
  r.trace_records = 9007199254740993ULL;  // 2^53 + 1: a double would round it
  std::ostringstream out;
  print_report(r, out);
  CHECK_THAT(out.str(), Catch::Contains("seed 18446744073709551615") && Catch::Contains("trace records 9007199254740993"));
}

TEST_CASE("the network counters add up: every message sent is delivered, dropped or in flight", "[report]") {
  // chaos: crashes, pauses, cuts and shutdowns reset and close connections
  // with messages on them; quickstart ends with nothing cut.
  for (const char* name : {"chaos", "quickstart", "rolling-restart"}) {
    const auto run = ksim::testing::run_scenario(name, 1);
    INFO(name);
    const auto& n = run.report["network"];
    const auto sent = n["messages_sent"].get<std::uint64_t>();
    CHECK(sent > 0);
    CHECK(sent == n["messages_delivered"].get<std::uint64_t>() + n["messages_dropped"].get<std::uint64_t>() +
                      n["messages_in_flight"].get<std::uint64_t>());
    if (std::string(name) == "chaos") CHECK(n["messages_dropped"].get<std::uint64_t>() > 0);
  }
}
