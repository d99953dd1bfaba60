#include <catch2/catch.hpp>

#include <set>
#include <sstream>

#include "app/commands/commands.hpp"
#include "app/harness/cluster.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/scenario.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;

using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

TEST_CASE("an empty scenario takes every default and has no nodes", "[scenario]") {
  const Scenario s = parse_scenario("");
  CHECK(s.seed == 1);
  CHECK(s.duration == seconds(10));
  CHECK_FALSE(s.rpc);
  CHECK_FALSE(s.kafka);
  CHECK(s.network.options.connection_reset_timeout == seconds(10));
  CHECK(node_placements(s).empty());
  const Scenario with_rpc = parse_scenario("rpc: {}\n");
  REQUIRE(with_rpc.rpc);
  CHECK(with_rpc.rpc->servers.count == 3);
  CHECK(node_placements(with_rpc).size() == 6);
}

TEST_CASE("a misspelt key names file, line, column and the nearest valid key", "[scenario]") {
  CHECK(scenario_error("seed: 3\nnetwork:\n  racks: [a]\n  jiter: 5ms\n") ==
        "test.yaml:4:3: network.jiter: unknown key 'jiter' (did you mean 'jitter'?)");
}

TEST_CASE("a bad unit is an error at the value", "[scenario]") {
  CHECK(scenario_error("duration: 10 seconds\n") ==
        "test.yaml:1:11: duration: expected a duration like 250ms, got '10 seconds' (unknown unit 'seconds' (use ns, "
        "us, ms, s, m or h))");
}

TEST_CASE("a fault naming an unknown node suggests the nearest name", "[scenario]") {
  CHECK(scenario_error("rpc: {}\nfaults:\n  - {kind: pause, at: 1s, duration: 1s, nodes: [client-0, sever-1]}\n") ==
        "test.yaml:3:59: faults.0.nodes.1: unknown name 'sever-1' (did you mean 'server-1'?)");
}

TEST_CASE("a fault without a kind is an error", "[scenario]") {
  CHECK_THAT(scenario_error("rpc: {}\nfaults:\n  - {at: 1s, duration: 1s, nodes: [server-1]}\n"),
             Catch::Contains("faults.0.kind") && Catch::Contains("required"));
}

TEST_CASE("a key that does not belong to the fault's kind is rejected", "[scenario]") {
  CHECK_THAT(scenario_error("rpc: {}\nfaults:\n  - {kind: pause, at: 1s, duration: 1s, nodes: [server-1], extra: 2s}\n"),
             Catch::StartsWith("test.yaml:3:") && Catch::Contains("unknown key 'extra'"));
}

TEST_CASE("an out-of-range value says the range", "[scenario]") {
  CHECK_THAT(scenario_error("rpc:\n  servers: {count: 0}\n"), Catch::Contains("must be between 1 and 100000, got 0"));
}

TEST_CASE("a group placed in an unknown rack is rejected", "[scenario]") {
  CHECK_THAT(scenario_error("network: {racks: [a, b]}\nrpc:\n  servers: {rack: c}\n"),
             Catch::Contains("rpc.servers.rack"));
}

TEST_CASE("an explicit graph must join known vertices", "[scenario]") {
  CHECK_THAT(scenario_error("rpc: {}\nnetwork:\n  switches: [core]\n  links:\n    - {from: server-0, to: cor}\n"),
             Catch::Contains("unknown vertex 'cor'") && Catch::Contains("did you mean 'core'"));
}

TEST_CASE("override: --set overrides a scenario value, and a bad --set is an error", "[scenario]") {
  config::Document doc = config::Document::from_string("rpc:\n  clients: {count: 2, rate: 10/s}\n", "test.yaml");
  doc.apply_override("rpc.clients.count=5");
  doc.apply_override("network.racks=[x, y]");
  const Scenario s = read_scenario(doc, expectation_catalogue());
  CHECK(s.rpc->clients.count == 5);
  CHECK(s.rpc->client.rate_per_s == 10);
  CHECK(s.network.racks == std::vector<std::string>{"x", "y"});
  config::Document bad = config::Document::from_string("rpc: {}", "test.yaml");
  bad.apply_override("rpc.clients.rat=5/s");
  CHECK_THROWS_WITH(read_scenario(bad, expectation_catalogue()), Catch::Contains("did you mean 'rate'"));
}

TEST_CASE("racks spread nodes round-robin and groups can be pinned to one", "[scenario]") {
  const Scenario s = parse_scenario("network: {racks: [a, b]}\nrpc:\n  servers: {count: 3}\n  clients: {count: 2, rack: b}\n");
  const auto nodes = node_placements(s);
  REQUIRE(nodes.size() == 5);
  CHECK(nodes[0].rack == "a");
  CHECK(nodes[1].rack == "b");
  CHECK(nodes[2].rack == "a");
  CHECK(nodes[3].rack == "b");
  CHECK(nodes[4].rack == "b");
}

TEST_CASE("every documented scenario validates", "[scenario]") {
  std::ostringstream out, err;
  RunArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/rpc-faults.yaml";
  CHECK(validate_command(args, out, err) == kExitOk);
  CHECK(err.str().empty());
}

TEST_CASE("scenario errors exit with status 2 and say where", "[scenario][cli]") {
  std::ostringstream out, err;
  RunArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/rpc-faults.yaml";
  args.overrides = {"duration=ten"};
  CHECK(run_command(args, out, err) == kExitUsage);
  CHECK_THAT(err.str(), Catch::StartsWith("ksim: --set: duration:"));
  args.overrides.clear();
  args.scenario = "no/such/file.yaml";
  CHECK(run_command(args, out, err) == kExitUsage);
  CHECK(validate_command(args, out, err) == kExitUsage);
}

TEST_CASE("an explicit graph routes through its switches, and a disconnected one is an error", "[scenario][network]") {
  const std::string connected =
      "rpc: {servers: {count: 1}, clients: {count: 1, rate: 100/s}}\nduration: 1s\nnetwork:\n"
      "  jitter: 0\n  switches: [s1, s2]\n  links:\n    - {from: server-0, to: s1}\n"
      "    - {from: s1, to: s2, latency: 1ms}\n    - {from: client-0, to: s2}\n";
  const Scenario s = parse_scenario(connected);
  Cluster cluster(s, RunOptions{});
  Topology& t = cluster.sim().topology();
  CHECK(t.route(*t.find("client-0"), *t.find("server-0")).size() == 3);
  cluster.run();
  const auto& stats = cluster.clients()[0]->stats();
  CHECK(stats.completed > 50);
  CHECK(stats.latency.min() > milliseconds(2));  // the 1ms core link, both ways

  const Scenario broken = parse_scenario(
      "rpc: {servers: {count: 1}, clients: {count: 1}}\nnetwork:\n  switches: [s1, s2]\n  links:\n"
      "    - {from: server-0, to: s1}\n    - {from: client-0, to: s2}\n");
  CHECK_THROWS_AS(Cluster(broken, RunOptions{}), config::ConfigError);
}

TEST_CASE("a disk fault must name a log dir the brokers have", "[scenario]") {
  CHECK_THAT(scenario_error("brokers: {count: 1}\nfaults: [{kind: disk_full, at: 1s, duration: 1s, nodes: [broker-0], "
                      "log_dir: /data/1}]\n"),
             Catch::Contains("faults.0.log_dir") && Catch::Contains("did you mean '/data/0'"));
}

TEST_CASE("a nemesis draws disk faults on log dirs of the brokers, and a disk failure is for good", "[scenario][disks]") {
  const std::string jbod = R"(
duration: 20s
brokers: {count: 3, log_dirs: [{path: /a}, {path: /b}]}
topics: [{name: t, partitions: 4}]
producers: [{name: p, topic: t, rate: 200/s}]
nemesis:
  disk_slow: {rate: 0.5/s, duration: 1s, factor: 0.2, targets: [all]}
  disk_full: {rate: 0.2/s, duration: {distribution: uniform, min: 1s, max: 2s}, log_dirs: [/b]}
  disk_failure: {rate: 0.1/s, targets: [broker-1]}
)";
  const RunReport report = ksim::testing::run_inline(jbod);
  CHECK(report.faults_fired.at("disk_slow") > 2);
  CHECK(report.faults_fired.at("disk_full") > 0);
  CHECK(report.faults_fired.at("disk_failure") > 0);
  std::set<std::string> slowed;
  for (const auto& f : report.fault_schedule) {
    const std::string kind = f["kind"];
    if (!kind.starts_with("disk_")) continue;
    REQUIRE(f["nodes"].size() == 1);
    CHECK(f["nodes"][0].get<std::string>().starts_with("broker-"));  // `all`: only brokers have disks
    if (kind == "disk_slow") {
      slowed.insert(f["log_dir"].get<std::string>());
      CHECK(f["factor"] == 0.2);
    }
    if (kind == "disk_full") CHECK(f["log_dir"] == "/b");
    if (kind == "disk_failure") {
      CHECK(f["nodes"][0] == "broker-1");
      CHECK_FALSE(f.contains("duration"));  // for good
    }
  }
  CHECK(slowed == std::set<std::string>{"/a", "/b"});  // default: every log dir
  CHECK_THAT(scenario_error(jbod + "  partition: {rate: 1/s}\n" + "  crash: {rate: 1/s, log_dirs: [/a]}\n"),
             Catch::Contains("nemesis.crash.log_dirs"));
  CHECK_THAT(scenario_error("brokers: {count: 1}\nnemesis: {disk_failure: {rate: 1/s, duration: 1s}}\n"),
             Catch::Contains("a disk_failure is for good"));
  CHECK_THAT(scenario_error("brokers: {count: 1}\nnemesis: {disk_full: {rate: 1/s, log_dirs: [/data/1]}}\n"),
             Catch::Contains("nemesis.disk_full.log_dirs") && Catch::Contains("did you mean '/data/0'"));
  CHECK_THAT(scenario_error("rpc: {}\nnemesis: {disk_slow: {rate: 1/s}}\n"), Catch::Contains("needs a 'brokers' section"));
}

TEST_CASE("consumer group settings are checked: assignors, static ids, expectations", "[scenario][groups]") {
  const std::string cluster = R"(
brokers: {count: 3}
topics: [{name: t, partitions: 4}]
consumers:
)";
  const std::string bad_assignor =
      scenario_error(cluster + "  - {name: app, topic: t, config: {partition.assignment.strategy: cooperative-stiky}}\n");
  CHECK_THAT(bad_assignor, Catch::Contains("unknown assignor 'cooperative-stiky'") &&
                               Catch::Contains("did you mean 'cooperative-sticky'"));
  CHECK_THAT(scenario_error(cluster + "  - {name: app, count: 2, topic: t, config: {group.instance.id: fixed}}\n"),
             Catch::Contains("group.instance.id") && Catch::Contains("{name}"));
  CHECK_THAT(scenario_error(cluster + "  - {name: app, topic: t, commit: after-process}\n"),
             Catch::Contains("sync-after-process"));
  CHECK_THAT(scenario_error(cluster + "  - {name: app, topic: t}\nexpect: {groups: {ap: {duplicates: 0}}}\n"),
             Catch::Contains("no consumer group 'ap'") && Catch::Contains("did you mean 'app'"));
  CHECK_THAT(scenario_error(cluster + "  - {name: app, topic: t}\nexpect: {groups: {app: {duplicate: 0}}}\n"),
             Catch::Contains("duplicates"));
  CHECK_THAT(scenario_error(cluster + "  - {name: app, topic: t, config: {heartbeat.interval.ms: 50s}}\n"),
             Catch::Contains("lower than session.timeout.ms"));
  // A comma-separated list, as in a properties file, and a YAML list are the same.
  const Scenario listed = parse_scenario(cluster + "  - {name: app, topic: t, config: {partition.assignment.strategy: [sticky, range]}}\n");
  const Scenario comma = parse_scenario(cluster + "  - {name: app, topic: t, config: {partition.assignment.strategy: 'sticky, range'}}\n");
  CHECK(listed.kafka->consumers[0].config.partition_assignment_strategy ==
        std::vector<std::string>{"sticky", "range"});
  CHECK(comma.kafka->consumers[0].config.partition_assignment_strategy ==
        listed.kafka->consumers[0].config.partition_assignment_strategy);
  // group.id defaults to the entry's name; a fault may target the group's coordinator.
  const Scenario s = parse_scenario(cluster + "  - {name: app, topic: t}\nfaults: [{kind: crash, at: 1s, nodes: ['coordinator:app']}]\n");
  CHECK(s.kafka->consumers[0].config.group_id == "app");
  CHECK_THAT(scenario_error(cluster + "  - {name: app, topic: t}\nfaults: [{kind: crash, at: 1s, nodes: ['coordinator:ap']}]\n"),
             Catch::Contains("coordinator:app"));
}

TEST_CASE("a broker's topic defaults and the controller's session timeout are read where they belong", "[scenario]") {
  const Scenario s = parse_scenario(
      "brokers:\n  count: 3\n  config: {min.insync.replicas: 2, unclean.leader.election.enable: true,"
      " broker.session.timeout.ms: 5s}\n"
      "topics:\n  - {name: a}\n  - {name: b, config: {min.insync.replicas: 3, unclean.leader.election.enable: false}}\n");
  REQUIRE(s.kafka);
  CHECK(s.kafka->topic_defaults.min_insync_replicas == 2);
  CHECK(s.kafka->topic_defaults.unclean_leader_election_enable);
  CHECK(s.kafka->topics[0].min_insync_replicas == 2);
  CHECK(s.kafka->topics[0].unclean_leader_election_enable);
  CHECK(s.kafka->topics[1].min_insync_replicas == 3);
  CHECK_FALSE(s.kafka->topics[1].unclean_leader_election_enable);
  CHECK(s.kafka->controller.broker_session_timeout == seconds(5));
  const Scenario defaults = parse_scenario("brokers: {count: 3}\ntopics: [{name: a}]\n");
  CHECK(defaults.kafka->topics[0].min_insync_replicas == 1);
  CHECK_FALSE(defaults.kafka->topics[0].unclean_leader_election_enable);
  CHECK(defaults.kafka->controller.broker_session_timeout == seconds(9));
  CHECK(scenario_error("brokers: {count: 3, config: {min.insync.replicas: 0}}\n") ==
        "test.yaml:1:51: brokers.config.min.insync.replicas: must be between 1 and 1000, got 0");
  CHECK(scenario_error("brokers: {count: 3, config: {broker.session.timeout.ms: 0}}\n") ==
        "test.yaml:1:57: brokers.config.broker.session.timeout.ms: must be at least 1ns, got 0");
}

TEST_CASE("acks is read as 0, 1, all or -1, all by default, 1 with the pre-3.0 defaults", "[scenario]") {
  const auto acks_of = [](const std::string& producer) {
    const std::string cluster = "brokers: {count: 3}\ntopics: [{name: t, partitions: 1}]\nproducers:\n  - ";
    return parse_scenario(cluster + producer + "\n").kafka->producers[0].config.acks;
  };
  CHECK(acks_of("{topic: t}") == ksim::models::Acks::All);
  CHECK(acks_of("{topic: t, defaults: pre-3.0}") == ksim::models::Acks::Leader);
  CHECK(acks_of("{topic: t, config: {acks: 0}}") == ksim::models::Acks::None);
  CHECK(acks_of("{topic: t, config: {acks: 1}}") == ksim::models::Acks::Leader);
  CHECK(acks_of("{topic: t, config: {acks: all}}") == ksim::models::Acks::All);
  CHECK(acks_of("{topic: t, config: {acks: -1}}") == ksim::models::Acks::All);
  CHECK_THAT(scenario_error("brokers: {count: 3}\ntopics: [{name: t}]\nproducers: [{topic: t, config: {acks: 2}}]\n"),
             Catch::Contains("acks") && Catch::Contains("one of"));
}

TEST_CASE("partitioner.class: RoundRobinPartitioner by Kafka's class name, the built-in one when unset",
          "[scenario][producer]") {
  const std::string cluster = R"(
brokers: {count: 3}
topics: [{name: t, partitions: 4}]
producers:
)";
  const Scenario round_robin = parse_scenario(
      cluster + "  - {name: p, config: {partitioner.class: org.apache.kafka.clients.producer.RoundRobinPartitioner}}\n");
  CHECK(round_robin.kafka->producers[0].config.partitioner == models::PartitionerClass::RoundRobin);
  CHECK(parse_scenario(cluster + "  - {name: p}\n").kafka->producers[0].config.partitioner ==
        models::PartitionerClass::BuiltIn);
  CHECK(parse_scenario(cluster + "  - {name: p, config: {partitioner.class: "
                                 "org.apache.kafka.clients.producer.internals.DefaultPartitioner}}\n")
            .kafka->producers[0]
            .config.partitioner == models::PartitionerClass::StickyOnNewBatch);
  CHECK_THAT(scenario_error(cluster + "  - {name: p, config: {partitioner.class: RoundRobinPartitioner}}\n"),
             Catch::Contains("partitioner.class") &&
                 Catch::Contains("org.apache.kafka.clients.producer.RoundRobinPartitioner"));
}
