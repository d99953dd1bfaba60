// Input as users give it: bounded and text-only files, every error at once,
// warnings, bare numbers under Kafka's .ms names, Kafka configs ksim does not
// model, config_file properties, --seed and dotted --set names.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/scenario.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;
using namespace ksim::app;
using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

namespace fs = std::filesystem;

// A scratch folder of files, removed at the end.
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("ksim-input-" + std::to_string(::getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  }
};

struct Outcome {
  int status = 0;
  std::string out, err;
};

Outcome run(RunArgs args, bool validate = false) {
  std::ostringstream out, err;
  Outcome o;
  o.status = validate ? validate_command(args, out, err) : run_command(args, out, err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

Outcome validate(const std::string& path, std::vector<std::string> overrides = {}) {
  RunArgs args;
  args.scenario = path;
  args.overrides = std::move(overrides);
  return run(args, true);
}

const std::string kCluster =
    "brokers: {count: 1}\n"
    "topics: [{name: t}]\n";

}  // namespace

TEST_CASE("an empty file, a directory and a scenario without nodes exit 2 with a located message", "[input]") {
  Scratch s;
  const Outcome empty = validate(s.write("empty.yaml", "# nothing\n"));
  CHECK(empty.status == kExitUsage);
  CHECK_THAT(empty.err, Catch::Contains("empty.yaml:1:1: the scenario is empty"));
  const Outcome dir = validate(s.dir.string());
  CHECK(dir.status == kExitUsage);
  CHECK_THAT(dir.err, Catch::Contains("is a directory"));
  const Outcome nothing = validate(s.write("name.yaml", "name: x\n"));
  CHECK(nothing.status == kExitUsage);
  CHECK_THAT(nothing.err, Catch::Contains("nothing to simulate"));
}

TEST_CASE("binary and huge input get a short message, never an echo", "[input]") {
  Scratch s;
  const Outcome nul = validate(s.write("nul.yaml", std::string("brokers: 1\nname: a\0b\n", 22)));
  CHECK(nul.status == kExitUsage);
  CHECK_THAT(nul.err, Catch::Contains("nul.yaml:2:8: not a text file: a NUL byte"));
  const Outcome latin1 = validate(s.write("latin1.yaml", "name: caf\xe9\n"));
  CHECK_THAT(latin1.err, Catch::Contains("latin1.yaml:1:10: not a text file: a byte that is not UTF-8"));
  const Outcome huge = validate(s.write("huge.yaml", "name: x\n" + std::string(5 << 20, '#')));
  CHECK(huge.status == kExitUsage);
  CHECK_THAT(huge.err, Catch::Contains("is larger than 4 MiB"));
  // /dev/urandom never ends: the read stops at the cap.
  const Outcome device = validate("/dev/urandom");
  CHECK(device.status == kExitUsage);
  CHECK(device.err.size() < 300);
  // A long bad value is shown as an excerpt.
  const Outcome long_value = validate(s.write("long.yaml", kCluster + "duration: " + std::string(5000, 'x') + "\n"));
  CHECK(long_value.status == kExitUsage);
  CHECK_THAT(long_value.err, Catch::Contains("xxx...'"));
  CHECK(long_value.err.size() < 400);
}

TEST_CASE("a FIFO as the scenario ends instead of waiting", "[input]") {
  Scratch s;
  const std::string fifo = (s.dir / "pipe.yaml").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const Outcome o = validate(fifo);  // no writer: read at once as empty
  CHECK(o.status == kExitUsage);
}

TEST_CASE("a profile name too long for a file name is an error at the key, not an exception", "[input]") {
  const std::string error = scenario_error(kCluster + "profile: " + std::string(251, 'p') + "\n");
  CHECK_THAT(error, Catch::StartsWith("test.yaml:3:10: profile: not a profile name"));
  CHECK_THAT(scenario_error(kCluster + "profile: ../../etc/passwd\n"), Catch::Contains("not a profile name"));
  CHECK_THAT(scenario_error(kCluster + "expect: {lost: \"99999999999999999999999\"}\n"),
             Catch::Contains("expect.lost: the count '99999999999999999999999' is too large"));
}

TEST_CASE("all the errors of a file are reported at once, in line order", "[input]") {
  const std::string yaml =
      "brokers:\n"
      "  count: zero\n"                       // 2
      "  config: {replica.lag.time.max.ms: soon, lingr.ms: 5}\n"  // 3
      "topics: [{name: t, partitions: -1}]\n"  // 4
      "duration: 10 seconds\n"                 // 5
      "netwrk: {}\n";                          // 6
  try {
    parse_scenario(yaml);
    FAIL("no error");
  } catch (const config::ConfigErrors& e) {
    std::vector<int> lines;
    for (const auto& one : e.errors()) lines.push_back(one.location().line);
    CHECK(lines == std::vector<int>{2, 3, 3, 4, 5, 6});
    CHECK(e.location().line == 2);
    CHECK_THAT(e.what(), Catch::Contains("test.yaml:6:1: netwrk: unknown key 'netwrk' (did you mean 'network'?)"));
  }
  // At most 20 are listed.
  std::string many = kCluster + "faults:\n";
  for (int i = 0; i < 30; ++i) many += "  - {kind: crash, at: 1s, duration: x" + std::to_string(i) + ", nodes: [broker-0]}\n";
  const std::string error = scenario_error(many);
  CHECK_THAT(error, Catch::EndsWith("... and 10 more errors"));
}

TEST_CASE("faults after the end of the run and a nemesis ending before it starts are errors", "[input]") {
  CHECK_THAT(scenario_error(kCluster + "duration: 10s\ndrain: 5s\nfaults: [{kind: crash, at: 16s, nodes: [broker-0]}]\n"),
             Catch::Contains("test.yaml:5:28: faults.0.at: is after the end of the run (15s: duration + drain)"));
  CHECK(scenario_error(kCluster + "duration: 10s\ndrain: 5s\nfaults: [{kind: crash, at: 15s, nodes: [broker-0]}]\n") ==
        "no error");
  CHECK_THAT(scenario_error(kCluster + "nemesis: {start: 5s, end: 2s, crash: {rate: 1/s}}\n"),
             Catch::Contains("nemesis.start: is after nemesis.end (2s)"));
  // --set shortening the run (a quick look at a scenario) leaves the later faults out, silently.
  auto doc = config::Document::from_string(kCluster + "faults: [{kind: crash, at: 40s, nodes: [broker-0]}]\n", "t.yaml");
  doc.apply_override("duration=2s");
  const Scenario s = read_scenario(doc, expectation_catalogue());
  CHECK(s.warnings.empty());
  CHECK(s.faults.size() == 1);
}

TEST_CASE("a broker heartbeat longer than the session timeout is a warning, in the report too", "[input]") {
  const std::string yaml = kCluster + "duration: 1s\ndrain: 1s\n"
                                      "brokers: {count: 1, config: {broker.heartbeat.interval.ms: 10s}}\n";
  const Scenario s = parse_scenario("brokers:\n  count: 1\n  config: {broker.heartbeat.interval.ms: 10s}\ntopics: [{name: t}]\n");
  REQUIRE(s.warnings.size() == 1);
  CHECK(s.warnings[0].text() ==
        "test.yaml:3:42: brokers.config.broker.heartbeat.interval.ms: is longer than broker.session.timeout.ms (9s): "
        "the controller fences every broker between two heartbeats");
  Scratch scratch;
  RunArgs args;
  args.scenario = scratch.write("hb.yaml", "brokers:\n  count: 1\n  config: {broker.heartbeat.interval.ms: 10s}\n"
                                           "topics: [{name: t}]\nduration: 1s\ndrain: 1s\n");
  const Outcome text = run(args);
  CHECK_THAT(text.err, Catch::Contains("ksim: warning: " + args.scenario + ":3:42:"));
  CHECK_THAT(text.out, Catch::Contains("warning: " + args.scenario + ":3:42:"));
  args.json = true;
  const Outcome json = run(args);
  const auto report = nlohmann::json::parse(json.out);
  REQUIRE(report["warnings"].size() == 1);
  CHECK(report["ignored_configs"].empty());
}

TEST_CASE("a test-only model mutation is off by default, named, and a warning when on", "[input][mutations]") {
  CHECK_FALSE(parse_scenario(kCluster).kafka->broker.mutations.stale_alter_partition_answer);
  const Scenario on = parse_scenario(kCluster + "mutations: {stale_alter_partition_answer: true}\n");
  CHECK(on.kafka->broker.mutations.stale_alter_partition_answer);
  REQUIRE(on.warnings.size() == 1);
  CHECK_THAT(on.warnings[0].text(), Catch::StartsWith("test.yaml:3:43: mutations.stale_alter_partition_answer: a "
                                                      "test-only model mutation"));
  CHECK(parse_scenario(kCluster + "mutations: {stale_alter_partition_answer: false}\n").warnings.empty());
  CHECK_THAT(scenario_error(kCluster + "mutations: {stale_alter_partition_answers: true}\n"),
             Catch::Contains("did you mean 'stale_alter_partition_answer'"));
  CHECK_THAT(scenario_error("rpc: {}\nmutations: {stale_alter_partition_answer: true}\n"),
             Catch::Contains("mutations: needs a 'brokers' section"));
  Scratch scratch;
  const Outcome resolved = validate(scratch.write("m.yaml", kCluster + "mutations: {stale_alter_partition_answer: true}\n"));
  CHECK(resolved.status == kExitOk);
  RunArgs args;
  args.scenario = scratch.write("r.yaml", kCluster + "mutations: {stale_alter_partition_answer: true}\n");
  args.resolved = true;
  const Outcome json = run(args, true);
  CHECK(nlohmann::json::parse(json.out)["brokers"]["mutations"]["stale_alter_partition_answer"] == true);
}

TEST_CASE("min.insync.replicas over the replication factor is a warning: every acks=all write needs all replicas", "[input]") {
  const Scenario own = parse_scenario("brokers: {count: 3}\ntopics: [{name: t, config: {min.insync.replicas: 4}}]\n");
  REQUIRE(own.warnings.size() == 1);
  CHECK(own.warnings[0].text() == "test.yaml:2:50: topics.0.config.min.insync.replicas: 4 is over the replication "
                                  "factor (3): Kafka 3.7+ caps it there, so every acks=all write needs all replicas "
                                  "in sync (before 3.7 every one failed with NOT_ENOUGH_REPLICAS)");
  const Scenario inherited = parse_scenario(
      "brokers: {count: 3, config: {min.insync.replicas: 2}}\ntopics: [{name: t, replication_factor: 1}]\n");
  REQUIRE(inherited.warnings.size() == 1);
  CHECK_THAT(inherited.warnings[0].text(),
             Catch::Contains("topics.0.replication_factor: is under the brokers' min.insync.replicas (2)"));
  CHECK(parse_scenario("brokers: {count: 3}\ntopics: [{name: t, config: {min.insync.replicas: 3}}]\n").warnings.empty());
}

TEST_CASE("a Kafka config named .ms takes a bare number of milliseconds", "[input]") {
  const Scenario s = parse_scenario(
      "brokers: {count: 1, config: {replica.lag.time.max.ms: 10000, broker.session.timeout.ms: '12000'}}\n"
      "topics: [{name: t}]\n"
      "producers: [{config: {linger.ms: 5, request.timeout.ms: 1500, delivery.timeout.ms: 120000}}]\n"
      "consumers: [{config: {session.timeout.ms: 45000, heartbeat.interval.ms: 3000}}]\n");
  CHECK(s.kafka->broker.replica_lag_time_max == seconds(10));
  CHECK(s.kafka->controller.broker_session_timeout == seconds(12));
  CHECK(s.kafka->producers[0].config.linger == milliseconds(5));
  CHECK(s.kafka->producers[0].config.request_timeout == milliseconds(1500));
  CHECK(s.kafka->consumers[0].config.session_timeout == seconds(45));
  CHECK(s.kafka->producers[0].config.linger == parse_scenario(kCluster + "producers: [{config: {linger.ms: 5ms}}]\n")
                                                   .kafka->producers[0].config.linger);
  // Not a Kafka .ms name: a unit is still needed.
  CHECK_THAT(scenario_error(kCluster + "duration: 5\n"), Catch::Contains("missing unit"));
}

TEST_CASE("a Kafka config ksim does not model is named so, an unknown one gets a suggestion", "[input]") {
  CHECK(scenario_error(kCluster + "producers: [{config: {compression.type: lz4}}]\n") ==
        "test.yaml:3:23: producers.0.config.compression.type: 'compression.type' is a Kafka producer config that ksim "
        "does not model (see docs/kafka-model.md; ksim run --ignore-unmodelled accepts it and lists it in the report)");
  CHECK_THAT(scenario_error("brokers: {config: {log.cleaner.io.buffer.size: 1}}\n"), Catch::Contains("a Kafka broker config"));
  CHECK_THAT(scenario_error(kCluster + "consumers: [{config: {socket.send.buffer.bytes: 1}}]\n"),
             Catch::Contains("unknown key"));  // a broker config, not a consumer's
  CHECK_THAT(scenario_error("brokers: {}\ntopics: [{name: t, config: {segment.index.bytes: 4096}}]\n"),
             Catch::Contains("a Kafka topic config"));
  for (const std::string& yaml : {std::string("brokers: {config: {ssl.truststore.location: /x}}\ntopics: [{name: t}]\n"),
                                  kCluster + "producers: [{config: {ssl.truststore.location: /x}}]\n",
                                  kCluster + "consumers: [{config: {ssl.truststore.location: /x}}]\n"}) {
    CHECK_THAT(scenario_error(yaml), Catch::Contains("that ksim does not model"));
  }
  CHECK_THAT(scenario_error(kCluster + "producers: [{config: {lingr.ms: 5}}]\n"),
             Catch::Contains("unknown key 'lingr.ms' (did you mean 'linger.ms'?)"));
  CHECK_THAT(scenario_error(kCluster + "producers: [{config: {delivery.timeout.ms: 1000}}]\n"),
             Catch::Contains("must be at least linger.ms + request.timeout.ms"));
}

TEST_CASE("ksim run with --ignore-unmodelled accepts Kafka's other configs and the report lists them", "[input]") {
  Scratch s;
  RunArgs args;
  args.scenario = s.write("p.yaml", kCluster + "producers: [{rate: 10/s, config: {compression.type: lz4}}]\n"
                                               "duration: 1s\ndrain: 1s\n");
  CHECK(run(args).status == kExitUsage);
  args.ignore_unmodelled = true;
  args.json = true;
  const Outcome o = run(args);
  REQUIRE(o.status == kExitOk);
  const auto report = nlohmann::json::parse(o.out);
  REQUIRE(report["ignored_configs"].size() == 1);
  CHECK(report["ignored_configs"][0] == args.scenario + ":3:35: producers.0.config.compression.type: not modelled, ignored");
  args.json = false;
  CHECK_THAT(run(args).out, Catch::Contains("ignored: " + args.scenario + ":3:35"));
}

TEST_CASE("config_file: a properties file under config:, located at its own lines", "[input]") {
  Scratch s;
  s.write("producer.properties",
          "# a Kafka client's properties\n"
          "acks=1\n"
          "linger.ms = 20\n"
          "batch.size: 32768\n"
          "retries=3\n");
  const std::string scenario = s.write("with-file.yaml",
      kCluster + "producers:\n  - config_file: producer.properties\n    config: {retries: 7}\n");
  config::Document doc = config::Document::load_file(scenario);
  const Scenario sc = read_scenario(doc, expectation_catalogue());
  const auto& c = sc.kafka->producers[0].config;
  CHECK(c.acks == models::Acks::Leader);
  CHECK(c.linger == milliseconds(20));
  CHECK(c.batch_size == 32768);
  CHECK(c.retries == 7);  // config: wins
  s.write("bad.properties", "acks=1\n\nlinger.ms=soon\ncompression.type=zstd\n");
  const std::string bad = s.write("bad.yaml", kCluster + "producers: [{config_file: bad.properties}]\n");
  const Outcome o = validate(bad);
  CHECK(o.status == kExitUsage);
  const std::string props = (s.dir / "bad.properties").string();
  CHECK_THAT(o.err, Catch::Contains("ksim: " + props + ":3:"));
  CHECK_THAT(o.err, Catch::Contains("producers.0.config.linger.ms: expected a duration"));
  CHECK_THAT(o.err, Catch::Contains("ksim: " + props + ":4:1: producers.0.config.compression.type: 'compression.type' is a Kafka producer config"));
  const Outcome missing = validate(s.write("missing.yaml", kCluster + "producers: [{config_file: nope.properties}]\n"));
  CHECK_THAT(missing.err, Catch::Contains("producers.0.config_file:"));
  CHECK_THAT(missing.err, Catch::Contains("cannot read the file"));
}

TEST_CASE("a --seed outside 0..2^64-1 is an error, and a dotted --set name gets the bracket form", "[input][cli]") {
  RunArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/rpc-faults.yaml";
  for (const std::string seed : {"-1", "18446744073709551616", "1e3", ""}) {
    args.seed_text = seed;
    const Outcome o = run(args, true);
    CHECK(o.status == kExitUsage);
    CHECK_THAT(o.err, Catch::StartsWith("ksim: --seed: expected a seed from 0 to 18446744073709551615"));
  }
  args.seed_text = "18446744073709551615";
  CHECK(run(args, true).status == kExitOk);
  const Outcome dotted = validate(std::string(KSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                                  {"consumers.0.config.auto.offset.reset=earliest"});
  CHECK(dotted.status == kExitUsage);
  CHECK_THAT(dotted.err, Catch::Contains("--set 'consumers.0.config[auto.offset.reset]=earliest'"));
}

TEST_CASE("two network vertices of one name are an error, not an exception when the cluster is built", "[input]") {
  CHECK_THAT(scenario_error("network: {racks: [a, a]}\n" + kCluster), Catch::Contains("two vertices of the network are named 'rack:a'"));
  CHECK_THAT(scenario_error(kCluster + "network: {switches: [broker-0], links: [{from: broker-0, to: broker-0}]}\n"),
             Catch::Contains("named 'broker-0'"));
  CHECK_THAT(scenario_error(kCluster + "producers: [{name: c-producer}]\n"
                                       "consumers: [{name: c, transform: {topic: t}}]\n"),
             Catch::Contains("named 'c-producer-0'"));
}

TEST_CASE("flush.ms and log.flush.interval.ms without the log flusher's interval are warnings: Kafka ignores them",
          "[input]") {
  const Scenario topic = parse_scenario("brokers: {count: 1}\ntopics: [{name: t, config: {flush.ms: 0}}]\n");
  REQUIRE(topic.warnings.size() == 1);
  CHECK_THAT(topic.warnings[0].text(), Catch::Contains("topics.0.config.flush.ms: has no effect"));
  const Scenario broker = parse_scenario("brokers: {count: 1, config: {log.flush.interval.ms: 1s}}\ntopics: [{name: t}]\n");
  REQUIRE(broker.warnings.size() == 1);
  CHECK_THAT(broker.warnings[0].text(), Catch::Contains("log.flush.scheduler.interval.ms"));
  const Scenario scheduled = parse_scenario(
      "brokers: {count: 1, config: {log.flush.scheduler.interval.ms: 100ms, log.flush.interval.ms: 1s}}\n"
      "topics: [{name: t, config: {flush.ms: 0}}]\n");
  CHECK(scheduled.warnings.empty());
}

TEST_CASE("transaction.timeout.ms over the brokers' transaction.max.timeout.ms is refused, as Kafka's InitProducerId does",
          "[input][transactions]") {
  const std::string over = scenario_error(
      "brokers: {count: 3}\ntopics: [{name: t}]\nproducers:\n"
      "  - {name: p, config: {transactional.id: x, transaction.timeout.ms: 900001}}\n");
  CHECK_THAT(over, Catch::Contains("test.yaml:4:"));
  CHECK_THAT(over, Catch::Contains("producers.0.config.transaction.timeout.ms"));
  CHECK_THAT(over, Catch::Contains("INVALID_TRANSACTION_TIMEOUT"));
  // At the maximum, or with the maximum raised, it is accepted.
  CHECK(scenario_error("brokers: {count: 3}\ntopics: [{name: t}]\nproducers:\n"
                       "  - {name: p, config: {transactional.id: x, transaction.timeout.ms: 900000}}\n") == "no error");
  CHECK(scenario_error("brokers: {count: 3, config: {transaction.max.timeout.ms: 3600000}}\ntopics: [{name: t}]\n"
                       "producers:\n  - {name: p, config: {transactional.id: x, transaction.timeout.ms: 900001}}\n") ==
        "no error");
}

TEST_CASE("a producer paced by a consumer names a consumer entry of its own topic", "[input]") {
  const std::string two_topics = "brokers: {count: 1}\ntopics: [{name: t}, {name: u}]\n";
  CHECK(scenario_error(two_topics + "producers: [{name: p, rate: {after_polled_by: c}}]\nconsumers: [{name: c}]\n") ==
        "no error");
  CHECK_THAT(scenario_error(two_topics + "producers: [{name: p, rate: {after_polled_by: nobody}}]\nconsumers: [{name: c}]\n"),
             Catch::Contains("producers.0.rate.after_polled_by: names no consumer entry"));
  CHECK_THAT(scenario_error(two_topics + "producers: [{name: p, rate: {after_polled_by: c}}]\nconsumers: [{name: c, topic: u}]\n"),
             Catch::Contains("names a consumer of another topic"));
  CHECK_THAT(scenario_error(two_topics + "producers: [{name: p, rate: {after_polld_by: c}}]\nconsumers: [{name: c}]\n"),
             Catch::Contains("after_polled_by"));
}
