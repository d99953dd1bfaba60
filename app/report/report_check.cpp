#include "app/report/report_check.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

// What only the brokers know, which a history of clients and final logs cannot show.
bool history_gives(const Expectation& e) {
  if (e.section == "delivery") return true;
  if (e.section == "consumer group") {
    return e.figure != "coordinator_loads" && e.figure != "coordinator_load_records" &&
           e.figure != "protocol_upgrades" && e.figure != "protocol_downgrades";
  }
  if (e.section == "share group") return e.figure != "persister_loads" && e.figure != "persister_writes";
  if (e.section == "transactions") {
    return e.figure != "zombie_writes" && e.figure != "hanging" && e.figure != "max_lso_lag" &&
           e.figure != "hanging_threshold_s";
  }
  return false;
}

// The groups of the history's consumers, in the order of their first member;
// a group whose topic is a transform's input has that transform's output.
std::vector<GroupInput> group_inputs(const RecordedHistory& h) {
  std::vector<GroupInput> groups;
  for (std::size_t i = 0; i < h.consumers.size(); ++i) {
    const auto& c = h.consumers[i];
    auto it = std::find_if(groups.begin(), groups.end(), [&](const GroupInput& g) { return g.spec.group == c.group; });
    if (it == groups.end()) {
      groups.push_back({{c.group, c.topic, {}, {}, h.end}, std::nullopt, {}});
      it = groups.end() - 1;
    }
    it->spec.consumers.push_back(static_cast<std::uint32_t>(i));
    it->spec.consumer_names.push_back(c.name);
  }
  for (const auto& [key, inputs] : h.delivery.made_from) {
    if (inputs.empty()) continue;
    for (auto& g : groups) {
      if (g.spec.topic == inputs.front().partition.topic) g.output_topic = key.second.topic;
    }
  }
  return groups;
}

// By group.id: the header's isolation.level, else the scenario's, else
// read_committed (an aborted record read is then reported, not excused).
std::map<std::string, bool> read_committed_groups(const RecordedHistory& h, const Scenario* scenario) {
  std::map<std::string, bool> groups;
  for (const auto& c : h.consumers) {
    std::optional<bool> committed = c.read_committed;
    if (!committed && scenario && scenario->kafka) {
      for (const auto& entry : scenario->kafka->consumers) {
        if (entry.config.group_id == c.group) committed = entry.config.read_committed;
      }
    }
    groups.emplace(c.group, committed.value_or(true));
  }
  return groups;
}

std::vector<ExpectationResult> check_scenario_expectations(const CheckReport& r, const Scenario& scenario) {
  for (const Expectation& e : scenario.expect) {
    const config::Location where{scenario.file, 0, 0};
    if (!history_gives(e)) {
      throw config::ConfigError(where, "expect." + e.name,
                                "a history gives no figure for this (it has the delivery, consumer group, share "
                                "group and transactions sections, without what only the brokers know)");
    }
    const auto& groups = r.kafka.groups;
    if (e.section == "consumer group" &&
        std::none_of(groups.begin(), groups.end(), [&](const GroupFigures& g) { return g.group == e.group; })) {
      throw config::ConfigError(where, "expect." + e.name, "the history has no consumer of group '" + e.group + "'");
    }
    const auto& shares = r.kafka.share_groups;
    if (e.section == "share group" &&
        std::none_of(shares.begin(), shares.end(), [&](const ShareGroupFigures& s) { return s.group == e.group; })) {
      throw config::ConfigError(where, "expect." + e.name, "the history has no share consumer of share group '" + e.group + "'");
    }
    if (e.section == "transactions" && !r.kafka.transactions) {
      throw config::ConfigError(where, "expect." + e.name, "the history has no transactional writer");
    }
  }
  RunReport run;
  run.kafka = r.kafka;
  std::vector<ExpectationResult> results = check_expectations(scenario.expect, run);
  // The cluster's invariants are ksim's to check while it runs; a history has none.
  std::erase_if(results, [](const ExpectationResult& x) { return x.name == "invariants"; });
  return results;
}

}  // namespace

bool CheckReport::expectations_held() const {
  return std::all_of(expectations.begin(), expectations.end(), [](const ExpectationResult& e) { return e.held; });
}

CheckReport make_check_report(const RecordedHistory& h, const Scenario* scenario) {
  CheckReport r;
  r.file = h.file;
  r.source = h.source;
  r.scenario = h.scenario;
  r.seed = h.seed;
  std::string vacuous;
  if (scenario && (!scenario->faults.empty() || !scenario->nemesis.rules.empty()) && h.faults.empty()) {
    vacuous = "no fault fired, though the scenario has faults";
  }
  KafkaFigures& k = r.kafka;
  k.delivery = models::check_delivery(h.delivery, h.logs);
  if (k.delivery.vacuous.empty()) k.delivery.vacuous = vacuous;
  k.offline_partitions = h.logs.offline;
  k.groups = group_figures(group_inputs(h), h.consumption, h.delivery, h.logs, k.delivery, vacuous);
  k.share_groups = share_group_figures(h);
  if (h.has_transactions()) {
    TransactionFigures t;
    t.committed = h.transactions_committed;
    t.aborted = h.transactions_aborted;
    t.fenced = h.transactions_failed;
    check_transaction_output(t, k.delivery, k.groups, read_committed_groups(h, scenario));
    t.vacuous = t.committed == 0 ? "no transaction committed" : vacuous;
    k.transactions = t;
  }
  if (scenario) r.expectations = check_scenario_expectations(r, *scenario);
  return r;
}

nlohmann::ordered_json to_json(const CheckReport& r) {
  nlohmann::ordered_json j;
  j["file"] = r.file;
  j["source"] = r.source;
  j["scenario"] = r.scenario;
  j["seed"] = r.seed ? nlohmann::ordered_json(*r.seed) : nlohmann::ordered_json();
  add_delivery_json(r.kafka.delivery, j);
  j["groups"] = groups_json(r.kafka.groups);
  if (r.kafka.transactions) j["transactions"] = transactions_json(*r.kafka.transactions);
  if (!r.kafka.share_groups.empty()) j["share_groups"] = share_groups_json(r.kafka.share_groups);
  j["expectations"] = expectations_json(r.expectations);
  j["expectations_held"] = r.expectations_held();
  return j;
}

void print_check_report(const CheckReport& r, std::ostream& out) {
  fmt::print(out, "ksim check: {} (from {}, scenario {}{})\n\n", r.file, r.source, r.scenario,
             r.seed ? fmt::format(", seed {}", *r.seed) : "");
  print_delivery(r.kafka.delivery, out);
  print_groups(r.kafka.groups, out);
  if (r.kafka.transactions) print_transactions(*r.kafka.transactions, out);
  print_share_groups(r.kafka.share_groups, out);
  print_expectations(r.expectations, out);
}

}  // namespace ksim::app
