// Share consumers in scenarios (KIP-932): consumers entries with
// share_group, where the release has them, what they refuse, and the
// brokers' group.share.* configs.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/scenario_runner.hpp"

using ksim::testing::parse_scenario;
using ksim::testing::scenario_error;

namespace {

std::string share_cluster(const std::string& extra, const std::string& broker_config = "") {
  return "brokers: {count: 3, config: {" + broker_config + "}}\ntopics: [{name: t, partitions: 3}]\n" + extra;
}

std::string share_entry(const std::string& keys, const std::string& config = "") {
  return share_cluster("consumers: [{name: w, count: 2, topic: t, share_group: jobs" + keys + ", config: {" + config +
                       "}}]\n");
}

}  // namespace

TEST_CASE("a consumers entry with share_group is a share consumer, read on 4.1+", "[share][releases]") {
  const auto scenario = parse_scenario(share_entry(", commit: sync-after-process, poison: {every: 7, acknowledge: release}",
                                                   "share.acknowledgement.mode: explicit, max.poll.records: 20"));
  REQUIRE(scenario.kafka->share_consumers.size() == 1);
  CHECK(scenario.kafka->consumers.empty());
  const auto& s = scenario.kafka->share_consumers.front();
  CHECK(s.config.group_id == "jobs");
  CHECK(s.config.acknowledgement_mode == ksim::models::ShareAcknowledgementMode::Explicit);
  CHECK(s.config.max_poll_records == 20);
  CHECK(s.workload.commit_sync);
  CHECK(s.workload.poison_every == 7);
  CHECK(s.workload.poison_acknowledge == ksim::models::AcknowledgeType::Release);
  CHECK(scenario_error("kafka_version: \"4.1\"\n" + share_entry("")) == "no error");
  const auto brokers =
      parse_scenario(share_cluster("", "group.share.record.lock.duration.ms: 5s, group.share.min.record.lock.duration.ms: 5s, group.share.delivery.count.limit: 3"));
  CHECK(brokers.kafka->broker.group_coordinator.share_record_lock_duration == ksim::seconds(5));
  CHECK(brokers.kafka->broker.group_coordinator.share_delivery_count_limit == 3);
}

TEST_CASE("share consumers are refused where they cannot run, with where", "[share][releases]") {
  CHECK_THAT(scenario_error("kafka_version: \"4.0\"\n" + share_entry("")),
             Catch::Contains("test.yaml:4:") && Catch::Contains("share_group needs brokers with share groups (KIP-932, 4.1+)"));
  CHECK_THAT(scenario_error(share_entry(", kafka_version: \"4.0\"")),
             Catch::Contains("share groups need a Kafka 4.1+ client"));
  CHECK_THAT(scenario_error(share_entry("", "group.id: x")), Catch::Contains("group.id: is not a share consumer config"));
  CHECK_THAT(scenario_error(share_entry(", poison: {every: 10}")),
             Catch::Contains("set share.acknowledgement.mode: explicit"));
  CHECK_THAT(scenario_error(share_entry(", partitions: [0]")), Catch::Contains("partitions: is not for a share consumer"));
  CHECK_THAT(scenario_error(share_entry("", "share.acknowledgement.mode: sometimes")), Catch::Contains("sometimes"));
  CHECK_THAT(scenario_error("kafka_version: \"4.0\"\n" + share_cluster("", "group.share.delivery.count.limit: 3")),
             Catch::Contains("group.share.delivery.count.limit: not in Kafka 4.0: KIP-932"));
  CHECK_THAT(scenario_error(share_cluster("", "group.share.delivery.count.limit: 11")),
             Catch::Contains("group.share.delivery.count.limit"));
  CHECK_THAT(scenario_error(share_cluster("consumers: [{name: a, topic: t, config: {group.id: jobs}},\n"
                                          "  {name: b, topic: t, share_group: jobs}]\n")),
             Catch::Contains("'jobs' is a consumer group's group.id"));
  CHECK_THAT(scenario_error(share_entry("") + "expect: {share_groups: {job: {unprocessed: 0}}}\n"),
             Catch::Contains("no share group 'job' (did you mean 'jobs'?)"));
}
