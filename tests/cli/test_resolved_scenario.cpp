// ksim validate --resolved: the scenario with every default filled in, as
// the ground-truth harness reads it (docs/resolved-scenario.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"
#include "app/scenario/kafka_config_names.hpp"
#include "tests/support/source_tree.hpp"

namespace {

using nlohmann::json;

using ksim::testing::kScenarios;

struct Resolved {
  int status = 0;
  json scenario;
  std::string err;
};

Resolved resolve(const std::string& file, std::vector<std::string> overrides = {}) {
  ksim::app::RunArgs args;
  args.scenario = file;
  args.overrides = std::move(overrides);
  args.resolved = true;
  std::ostringstream out;
  std::ostringstream err;
  Resolved r;
  r.status = ksim::app::validate_command(args, out, err);
  r.err = err.str();
  if (r.status == 0) r.scenario = json::parse(out.str());
  return r;
}

bool known(ksim::app::KafkaConfigKind kind, const std::string& name) {
  const auto& names = ksim::app::kafka_config_names(kind);
  return std::binary_search(names.begin(), names.end(), name);
}

// Every key of a `config` map is a real Kafka config of its kind, so the harness can hand the map to Kafka.
void check_config_names(const json& config, ksim::app::KafkaConfigKind kind) {
  REQUIRE(config.is_object());
  for (const auto& [key, value] : config.items()) {
    INFO(key);
    CHECK(known(kind, key));
    CHECK(!value.is_null());
  }
}

}  // namespace

TEST_CASE("every scenario file resolves, with Kafka's names as config keys", "[cli][resolved]") {
  using ksim::app::KafkaConfigKind;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".yaml" || entry.path().parent_path().filename() == "profiles") continue;
    INFO(entry.path().string());
    const Resolved r = resolve(entry.path().string());
    REQUIRE(r.status == 0);
    const json& s = r.scenario;
    CHECK(s["format"] == "ksim-resolved-scenario");
    CHECK(s["version"] == 1);
    CHECK(s["duration_ns"].get<std::int64_t>() > 0);
    CHECK(s["nodes"].size() > 0);
    ++files;
    if (!s.contains("brokers")) continue;
    check_config_names(s["brokers"]["config"], KafkaConfigKind::Broker);
    CHECK(s["brokers"]["names"].size() == s["brokers"]["count"].get<std::size_t>() + s["brokers"]["added"].size());
    for (const auto& t : s["topics"]) check_config_names(t["config"], KafkaConfigKind::Topic);
    for (const auto& p : s["producers"]) check_config_names(p["config"], KafkaConfigKind::Producer);
    for (const auto& c : s["consumers"]) {
      check_config_names(c["config"], KafkaConfigKind::Consumer);
      if (!c["transform"].is_null()) check_config_names(c["transform"]["config"], KafkaConfigKind::Producer);
    }
    if (s.contains("share_consumers")) {
      for (const auto& c : s["share_consumers"]) {
        // ShareConsumerConfig: ConsumerConfig's names plus share.acknowledgement.mode
        json config = c["config"];
        CHECK(config.contains("share.acknowledgement.mode"));
        config.erase("share.acknowledgement.mode");
        check_config_names(config, KafkaConfigKind::Consumer);
      }
    }
    for (const auto& f : s["faults"]) {
      // Every fault names its nodes, resolved, unless its target is known only while running.
      CHECK((!f["nodes"].empty() || !f["dynamic_targets"].empty() || !f["links"].empty()));
    }
  }
  CHECK(files >= 35);
}

TEST_CASE("the resolved quickstart has the file's values and Kafka's defaults", "[cli][resolved]") {
  const Resolved r = resolve(kScenarios + "quickstart.yaml");
  REQUIRE(r.status == 0);
  const json& s = r.scenario;
  CHECK(s["name"] == "quickstart");
  CHECK(s["seed"] == 1);
  CHECK(s["duration_ns"] == 30'000'000'000LL);
  CHECK(s["drain_ns"] == 30'000'000'000LL);
  CHECK(s["brokers"]["names"] == json({"broker-0", "broker-1", "broker-2"}));
  CHECK(s["brokers"]["racks"] == json({"r1", "r2", "r3"}));
  CHECK(s["controller"]["name"] == "controller");
  CHECK(s["controllers"]["count"] == 1);
  CHECK(s["controllers"]["names"] == json({"controller"}));
  CHECK(s["controllers"]["config"]["controller.quorum.fetch.timeout.ms"] == 2000);
  const json& broker = s["brokers"]["config"];
  CHECK(broker["replica.lag.time.max.ms"] == 10000);   // from the file, in Kafka's milliseconds
  CHECK(broker["broker.session.timeout.ms"] == 9000);  // Kafka's default
  CHECK(broker["min.insync.replicas"] == 1);
  CHECK(broker["unclean.leader.election.enable"] == false);
  CHECK(broker["offsets.topic.replication.factor"] == 3);
  CHECK(broker["group.initial.rebalance.delay.ms"] == 3000);
  REQUIRE(s["topics"].size() == 1);
  CHECK(s["topics"][0]["name"] == "orders");
  CHECK(s["topics"][0]["partitions"] == 12);
  CHECK(s["topics"][0]["replication_factor"] == 3);
  CHECK(s["topics"][0]["config"]["min.insync.replicas"] == 2);
  const json& producer = s["producers"][0];
  CHECK(producer["name"] == "checkout");
  CHECK(producer["nodes"] == json({"checkout-0"}));
  CHECK(producer["config"]["acks"] == "all");
  CHECK(producer["config"]["enable.idempotence"] == true);
  CHECK(producer["config"]["linger.ms"] == 5);
  CHECK(producer["config"]["batch.size"] == 16384);
  CHECK(producer["config"]["request.timeout.ms"] == 5000);
  CHECK(producer["config"]["delivery.timeout.ms"] == 120000);
  CHECK(producer["config"]["max.in.flight.requests.per.connection"] == 5);
  CHECK(!producer["config"].contains("transactional.id"));
  CHECK(producer["workload"]["rate_per_s"] == 5000.0);
  CHECK(producer["workload"]["record_size_min"] == 200);
  CHECK(producer["workload"]["record_size_max"] == 1000);
  CHECK(producer["workload"]["keys"]["distribution"] == "uniform");
  CHECK(producer["workload"]["start_ns"] == 1'000'000'000LL);
  CHECK(producer["workload"]["stop_ns"] == 30'000'000'000LL);
  const json& consumer = s["consumers"][0];
  CHECK(consumer["group"] == "analytics");
  CHECK(consumer["nodes"].size() == 3);
  CHECK(consumer["config"]["group.id"] == "analytics");
  CHECK(consumer["config"]["auto.offset.reset"] == "earliest");
  CHECK(consumer["config"]["enable.auto.commit"] == true);
  CHECK(consumer["config"]["session.timeout.ms"] == 45000);
  CHECK(consumer["config"]["partition.assignment.strategy"][0] == "org.apache.kafka.clients.consumer.RangeAssignor");
  REQUIRE(s["faults"].size() == 3);
  CHECK(s["faults"][0]["kind"] == "partition");
  CHECK(s["faults"][0]["at_ns"] == 8'000'000'000LL);
  CHECK(s["faults"][0]["until_ns"] == 20'000'000'000LL);
  CHECK(s["faults"][0]["nodes"] == json({"broker-1"}));
  CHECK(s["faults"][1]["extra_latency_ns"] == 1'500'000'000LL);
  CHECK(s["faults"][2]["power_loss"] == false);
  CHECK(s["expect"].size() == 3);
}

TEST_CASE("a value given with --set shows up in the resolved scenario", "[cli][resolved]") {
  const Resolved r = resolve(kScenarios + "quickstart.yaml",
                             {"duration=3s", "producers.0.config[linger.ms]=7", "brokers.config[min.insync.replicas]=2",
                              "faults.0.nodes=[brokers]", "consumers.0.config[group.instance.id]=\"{name}-static\""});
  REQUIRE(r.status == 0);
  const json& s = r.scenario;
  CHECK(s["duration_ns"] == 3'000'000'000LL);
  CHECK(s["producers"][0]["config"]["linger.ms"] == 7);
  CHECK(s["producers"][0]["workload"]["stop_ns"] == 3'000'000'000LL);
  CHECK(s["brokers"]["config"]["min.insync.replicas"] == 2);
  CHECK(s["faults"][0]["nodes"] == json({"broker-0", "broker-1", "broker-2"}));
  CHECK(s["consumers"][0]["config"]["group.instance.id"] == "{name}-static");
  CHECK(s["consumers"][0]["node_configs"]["analytics-1"]["group.instance.id"] == "analytics-1-static");
}

TEST_CASE("a resolved producer config read back gives the same config", "[cli][resolved]") {
  // The writer prints what the reader resolved: fed back as the scenario's own
  // config, each value must be read as itself.
  for (const char* file : {"quickstart.yaml", "acks1-leader-crash.yaml", "retries-duplicates.yaml", "txn-zombie.yaml"}) {
    INFO(file);
    const Resolved first = resolve(kScenarios + file);
    REQUIRE(first.status == 0);
    std::vector<std::string> sets;
    for (const auto& [key, value] : first.scenario["producers"][0]["config"].items()) {
      if (value.is_number_integer() && value.get<std::int64_t>() == INT64_MAX) continue;
      sets.push_back("producers.0.config[" + key + "]=" + (value.is_string() ? value.get<std::string>() : value.dump()));
    }
    const Resolved second = resolve(kScenarios + file, sets);
    INFO(second.err);
    REQUIRE(second.status == 0);
    CHECK(second.scenario["producers"][0]["config"] == first.scenario["producers"][0]["config"]);
  }
}

TEST_CASE("validate --resolved gives the same errors as validate", "[cli][resolved]") {
  const Resolved r = resolve(kScenarios + "quickstart.yaml", {"producers.0.config[linger.ms]=soon"});
  CHECK(r.status == 2);
  CHECK(r.err.find("--set") != std::string::npos);
  CHECK(r.err.find("linger.ms") != std::string::npos);
  CHECK(resolve("no-such-file.yaml").status == 2);
}

TEST_CASE("per-node transactional ids of a transform follow the cluster's naming", "[cli][resolved]") {
  const Resolved r = resolve(kScenarios + "eos-transform.yaml");
  REQUIRE(r.status == 0);
  bool found = false;
  for (const auto& c : r.scenario["consumers"]) {
    if (c["transform"].is_null()) continue;
    const json& t = c["transform"];
    CHECK(t["producers"].size() == t["node_configs"].size());
    for (const auto& [node, config] : t["node_configs"].items()) {
      const std::string id = config["transactional.id"];
      CHECK(id.find('{') == std::string::npos);
      found = true;
    }
  }
  CHECK(found);
}

TEST_CASE("share consumers are resolved with their share group, acknowledgement mode and poison records",
          "[cli][resolved]") {
  const Resolved poison = resolve(kScenarios + "share-poison-record.yaml");
  REQUIRE(poison.status == 0);
  REQUIRE(poison.scenario["share_consumers"].size() == 1);
  const json& c = poison.scenario["share_consumers"][0];
  CHECK(c["share_group"] == "payments");
  CHECK(c["topic"] == "payments");
  CHECK(c["nodes"] == json::array({"payments-0", "payments-1"}));
  CHECK(c["config"]["share.acknowledgement.mode"] == "explicit");
  CHECK(c["config"]["max.poll.records"] == 100);
  CHECK(c["workload"]["poison"]["every"] == 500);
  CHECK(c["workload"]["poison"]["acknowledge"] == "release");
  CHECK(c["workload"]["commit"] == "none");
  CHECK(c["workload"]["start_ns"].is_null());
  const Resolved slow = resolve(kScenarios + "share-slow-consumer.yaml");
  REQUIRE(slow.status == 0);
  REQUIRE(slow.scenario["share_consumers"].size() == 2);
  CHECK(slow.scenario["share_consumers"][1]["config"]["share.acknowledgement.mode"] == "implicit");
  CHECK(slow.scenario["share_consumers"][1]["workload"]["poison"].is_null());
  CHECK(slow.scenario["share_consumers"][1]["workload"]["processing_time"]["mean_ns"] == 400'000'000.0);
  // A scenario without share consumers has no such key (the harness reads none).
  const Resolved quickstart = resolve(kScenarios + "quickstart.yaml");
  REQUIRE(quickstart.status == 0);
  CHECK(!quickstart.scenario.contains("share_consumers"));
}

TEST_CASE("operations are resolved for a runner to perform or refuse, and a created topic says when",
          "[cli][resolved][create-topic]") {
  const Resolved created = resolve(kScenarios + "create-topic.yaml");
  REQUIRE(created.status == 0);
  REQUIRE(created.scenario["operations"].size() == 1);
  const json& op = created.scenario["operations"][0];
  CHECK(op["kind"] == "create_topic");
  CHECK(op["at_ns"] == 15'000'000'000LL);
  CHECK(op["topic"] == "orders");
  CHECK(op["line"].get<int>() > 0);
  CHECK(created.scenario["topics"][0]["created_at_ns"] == 15'000'000'000LL);
  CHECK(created.scenario["brokers"]["config"]["auto.create.topics.enable"] == false);
  // The cluster starts with the other scenarios' topics; their operations are listed all the same.
  const Resolved added = resolve(kScenarios + "add-broker.yaml");
  REQUIRE(added.status == 0);
  CHECK(added.scenario["topics"][0]["created_at_ns"].is_null());
  REQUIRE(added.scenario["operations"].size() == 2);
  CHECK(added.scenario["operations"][0]["kind"] == "add_broker");
  CHECK(added.scenario["operations"][0]["topic"].is_null());
  CHECK(added.scenario["operations"][1]["kind"] == "generate_reassignment");
}

// The harness creates each topic with its resolved configs, and a release
// before tiered storage refuses its topic configs ("Unknown topic config
// name: remote.storage.enable", Kafka 2.8.2).
TEST_CASE("a topic's resolved configs are those of the modelled release", "[cli][resolved]") {
  const Resolved before = resolve(kScenarios + "ground-truth/acks1-leader-crash.yaml", {"kafka_version=2.8"});
  REQUIRE(before.status == 0);
  const json& old_config = before.scenario["topics"][0]["config"];
  CHECK(!old_config.contains("remote.storage.enable"));
  CHECK(old_config["min.insync.replicas"] == 1);
  CHECK(before.scenario["zookeeper"]["tick_time_ns"] == 2'000'000'000LL);  // the harness's ZooKeeper tickTime
  const Resolved now = resolve(kScenarios + "ground-truth/acks1-leader-crash.yaml");
  REQUIRE(now.status == 0);
  CHECK(now.scenario["topics"][0]["config"]["remote.storage.enable"] == false);
  CHECK(!now.scenario.contains("zookeeper"));
}
