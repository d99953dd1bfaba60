// Kafka releases in scenarios: kafka_version, a client's own, kips: switches
// and their aliases, and the defaults each release gives
// (models/protocol/kafka_release.hpp, app/scenario/release_reader.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "models/protocol/kafka_release.hpp"
#include "tests/support/scenario_runner.hpp"

using ksim::models::KafkaRelease;
using ksim::models::Mechanism;
using ksim::models::Mechanisms;
using ksim::models::parse_release;
using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

const std::string kBase = R"(
brokers: {count: 3}
topics: [{name: t, partitions: 3}]
)";

std::string with(const std::string& extra) { return kBase + extra; }

}  // namespace

TEST_CASE("releases parse from 0.10 to the latest, with patch levels, and nothing else", "[releases]") {
  CHECK(parse_release("4.3") == KafkaRelease{4, 3});
  CHECK(parse_release("3.9.1") == KafkaRelease{3, 9});
  CHECK(parse_release("0.10") == KafkaRelease{0, 10});
  CHECK(parse_release("0.10.2.1") == KafkaRelease{0, 10});
  CHECK(parse_release("0.11.0") == KafkaRelease{0, 11});
  CHECK(parse_release("2.8") == KafkaRelease{2, 8});
  for (const char* bad : {"2.9", "4.4", "0.9", "3", "3.", ".3", "3.x", "", "1.0.0.0", "-1.0"}) {
    INFO(bad);
    CHECK_FALSE(parse_release(bad).has_value());
  }
  CHECK(ksim::models::modelled_releases().front() == KafkaRelease{0, 10});
  CHECK(ksim::models::modelled_releases().back() == ksim::models::kLatestRelease);
}

TEST_CASE("a release has the mechanisms of its own and earlier releases", "[releases]") {
  const Mechanisms v24(KafkaRelease{2, 4});
  CHECK(v24.has(Mechanism::StickyPartitioner));
  CHECK(v24.has(Mechanism::LeaderEpochTruncation));
  CHECK_FALSE(v24.has(Mechanism::ProducerEpochBump));
  CHECK_FALSE(v24.has(Mechanism::ProducerSafeDefaults));
  CHECK_FALSE(Mechanisms(KafkaRelease{4, 0}).has(Mechanism::EligibleLeaderReplicas));  // available, off by default
  CHECK(Mechanisms(KafkaRelease{4, 1}).has(Mechanism::EligibleLeaderReplicas));
  CHECK_FALSE(Mechanisms(KafkaRelease{0, 10}).has(Mechanism::IdempotentTransactional));
  for (const auto& info : ksim::models::mechanisms()) {
    INFO(info.key);
    CHECK(ksim::models::mechanism_of(info.key) == info.mechanism);
    CHECK(ksim::models::parse_release(info.since.name()).has_value());
  }
}

TEST_CASE("each release gives its defaults to brokers, topics and clients", "[releases]") {
  const auto latest = parse_scenario(with("producers: [{name: p}]\nconsumers: [{name: c}]\n"));
  const auto& k = *latest.kafka;
  CHECK(k.release.release == ksim::models::kLatestRelease);
  CHECK(k.producers[0].config.acks == ksim::models::Acks::All);
  CHECK(k.producers[0].config.enable_idempotence);
  CHECK(k.producers[0].config.linger == ksim::milliseconds(5));
  CHECK(k.controller.eligible_leader_replicas);  // a new 4.1+ cluster

  const auto old = parse_scenario(with("kafka_version: \"2.0\"\nproducers: [{name: p}]\nconsumers: [{name: c}]\n"));
  const auto& o = *old.kafka;
  CHECK(o.producers[0].config.acks == ksim::models::Acks::Leader);
  CHECK_FALSE(o.producers[0].config.enable_idempotence);
  CHECK(o.producers[0].config.linger == 0);
  CHECK(o.producers[0].config.retries == 0);  // KIP-91 came in 2.1
  CHECK(o.producers[0].config.partitioner == ksim::models::PartitionerClass::HashOrRoundRobin);
  CHECK(o.consumers[0].config.session_timeout == ksim::seconds(10));
  CHECK(o.consumers[0].config.partition_assignment_strategy == std::vector<std::string>{"range"});
  CHECK(o.broker.replica_lag_time_max == ksim::seconds(10));
  CHECK_FALSE(o.controller.eligible_leader_replicas);
  CHECK_FALSE(o.broker.transaction_partition_verification_enable);

  const auto oldest = parse_scenario(with("kafka_version: \"0.10\"\n"));
  CHECK(oldest.kafka->topics[0].unclean_leader_election_enable);  // KIP-106 came in 0.11
  CHECK(oldest.kafka->topics[0].record_format == ksim::models::RecordFormat::V1);
  CHECK(oldest.kafka->broker.group_coordinator.group_initial_rebalance_delay == 0);
  CHECK_FALSE(oldest.kafka->broker.fetch_sessions);
}

TEST_CASE("a client runs its own release against the brokers'", "[releases]") {
  const auto s = parse_scenario(with("kafka_version: \"3.9\"\nproducers: [{name: old, kafka_version: \"2.8\"}, {name: same}]\n"));
  CHECK(s.kafka->producers[0].release == KafkaRelease{2, 8});
  CHECK(s.kafka->producers[0].config.acks == ksim::models::Acks::Leader);
  CHECK(s.kafka->producers[1].release == KafkaRelease{3, 9});
  CHECK(s.kafka->producers[1].config.acks == ksim::models::Acks::All);
  CHECK(s.kafka->producers[1].config.linger == 0);  // 3.9's
}

TEST_CASE("kips switches a mechanism against the release, and the old escape hatches are its aliases", "[releases]") {
  const auto switched = parse_scenario(with("kips: {KIP-966: off, KIP-101: off}\n"));
  CHECK_FALSE(switched.kafka->controller.eligible_leader_replicas);
  CHECK_FALSE(switched.kafka->broker.mechanisms.has(Mechanism::LeaderEpochTruncation));
  const auto alias = parse_scenario(R"(
brokers: {count: 3, truncate_to_high_watermark: true}
topics: [{name: t}]
producers: [{name: p, defaults: pre-3.0}]
)");
  CHECK_FALSE(alias.kafka->broker.mechanisms.has(Mechanism::LeaderEpochTruncation));
  const auto& p = alias.kafka->producers[0].config;
  CHECK(p.acks == ksim::models::Acks::Leader);
  CHECK_FALSE(p.enable_idempotence);
  CHECK(p.linger == 0);
  CHECK(p.retry_backoff_max == p.retry_backoff);
  CHECK_FALSE(p.mechanisms.has(Mechanism::LeaderDiscovery));
  CHECK(p.partitioner == ksim::models::PartitionerClass::BuiltIn);  // the alias keeps the latest client's partitioner
}

TEST_CASE("releases, switches and configs a release lacks are errors that say why", "[releases]") {
  CHECK_THAT(scenario_error(with("kafka_version: \"2.9\"\n")),
             Catch::Contains("kafka_version: '2.9' is not a modelled release (did you mean '2.8'?)"));
  CHECK_THAT(scenario_error(with("kafka_version: \"4.4\"\n")), Catch::Contains("(did you mean '4.3'?)"));
  CHECK_THAT(scenario_error(with("kips: {kip-9666: off}\n")), Catch::Contains("did you mean 'KIP-966'?"));
  CHECK_THAT(scenario_error(with("kips: {KIP-841: off}\n")), Catch::Contains("ksim does not model Kafka without KIP-841"));
  CHECK(scenario_error(with("kips: {KIP-113: on}\n")) == "no error");  // log dir moves: modelled
  CHECK(scenario_error(with("kips: {KIP-890-part2: on}\n")) == "no error");  // transactions v2: modelled
  // ZooKeeper mode: no quorum of KRaft controllers, no zookeeper: section with KRaft.
  CHECK(scenario_error(with("kips: {KIP-500: off}\n")) == "no error");
  CHECK(scenario_error(with("kafka_version: \"2.8\"\ncontrollers: {count: 3}\n")) == "no error");  // a warning
  CHECK_THAT(scenario_error(with("zookeeper: {rack: r1}\n")), Catch::Contains("runs KRaft: ZooKeeper is for releases before 3.3"));
  CHECK_THAT(scenario_error(with("kafka_version: \"0.10\"\nproducers: [{name: p, config: {enable.idempotence: true}}]\n")),
             Catch::Contains("enable.idempotence: not in Kafka 0.10: KIP-98 (idempotent and transactional producers) came in 0.11"));
  CHECK_THAT(scenario_error(with("kafka_version: \"2.2\"\nconsumers: [{name: c, config: {group.instance.id: x}}]\n")),
             Catch::Contains("group.instance.id: not in Kafka 2.2: KIP-345"));
  CHECK_THAT(scenario_error(with("kafka_version: \"2.3\"\nconsumers: [{name: c, config: {partition.assignment.strategy: "
                                 "cooperative-sticky}}]\n")),
             Catch::Contains("'cooperative-sticky' is not in Kafka 2.3: KIP-429 brought it in 2.4"));
  CHECK_THAT(scenario_error(with("kafka_version: \"2.0\"\nproducers: [{name: p, config: {delivery.timeout.ms: 5s}}]\n")),
             Catch::Contains("delivery.timeout.ms: not in Kafka 2.0: KIP-91"));
  CHECK_THAT(scenario_error("kips: {KIP-101: off}\nbrokers: {count: 3, truncate_to_high_watermark: false}\n"),
             Catch::Contains("contradicts kips: KIP-101"));
  CHECK_THAT(scenario_error("rpc: {servers: {count: 1}, clients: {count: 1}}\nkafka_version: \"3.9\"\n"),
             Catch::Contains("needs a 'brokers' section"));
}

TEST_CASE("offsets.retention.minutes: 1 day before 2.0 (KIP-186) and 7 days after, KIP-211 expiry from 2.1", "[releases]") {
  const auto at = [](const char* release) {
    return parse_scenario(with(std::string("kafka_version: \"") + release + "\"\n")).kafka->broker.group_coordinator;
  };
  CHECK(at("1.1").offsets_retention == ksim::minutes(24 * 60));
  CHECK_FALSE(at("1.1").expire_when_empty);
  CHECK(at("2.0").offsets_retention == ksim::minutes(7 * 24 * 60));
  CHECK_FALSE(at("2.0").expire_when_empty);
  CHECK(at("2.1").expire_when_empty);
  CHECK_FALSE(at("2.3").expire_unsubscribed);
  CHECK(at("2.4").expire_unsubscribed);
  CHECK(at("4.3").offsets_retention_check_interval == ksim::minutes(10));
  const std::string topics = "topics: [{name: t, partitions: 3}]\n";
  const auto set = parse_scenario("brokers: {count: 3, config: {offsets.retention.minutes: 1, "
                                  "offsets.retention.check.interval.ms: 5s}}\n" + topics)
                       .kafka->broker.group_coordinator;
  CHECK(set.offsets_retention == ksim::minutes(1));
  CHECK(set.offsets_retention_check_interval == ksim::seconds(5));
  CHECK_THAT(scenario_error("brokers: {count: 3, config: {offsets.retention.minutes: 0}}\n" + topics),
             Catch::Contains("offsets.retention.minutes"));
}

TEST_CASE("a transactional.id or enable.idempotence=true turns on idempotence, acks=all and retries as Kafka 2.x does",
          "[releases]") {
  // KafkaProducer.configureTransactionState / configureAcks / configureRetries at 2.4: acks and retries left
  // unset are overridden; what the user set must agree; a transactional.id with idempotence off is refused.
  const auto producer = [](const std::string& config) {
    return parse_scenario(with("kafka_version: \"2.0\"\nproducers: [{name: p, config: " + config + "}]\n"))
        .kafka->producers[0]
        .config;
  };
  const auto txn = producer("{transactional.id: t}");
  CHECK(txn.acks == ksim::models::Acks::All);
  CHECK(txn.enable_idempotence);
  CHECK(txn.retries == INT32_MAX);  // 2.0's default is 0
  const auto idempotent = producer("{enable.idempotence: true}");
  CHECK(idempotent.acks == ksim::models::Acks::All);
  CHECK(idempotent.enable_idempotence);
  CHECK(producer("{}").acks == ksim::models::Acks::Leader);  // nothing asked: 2.0's defaults
  CHECK_THAT(scenario_error(with("kafka_version: \"2.0\"\nproducers: [{name: p, config: {transactional.id: t, acks: 1}}]\n")),
             Catch::Contains("needs acks=all"));
  CHECK_THAT(scenario_error(with("producers: [{name: p, config: {transactional.id: t, enable.idempotence: false}}]\n")),
             Catch::Contains("enable.idempotence"));
  CHECK_THAT(scenario_error(with("kafka_version: \"2.0\"\nproducers: [{name: p, config: {enable.idempotence: true, retries: 0}}]\n")),
             Catch::Contains("retries > 0"));
}
