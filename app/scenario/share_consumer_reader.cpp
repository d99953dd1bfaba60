// A scenario's share consumers (KIP-932): a `consumers` entry with
// `share_group: NAME` joins that share group instead of a consumer group.
// Its Kafka configs are a share consumer's (KafkaShareConsumer's subset of
// ConsumerConfig plus share.acknowledgement.mode); the consumer group
// configs are refused with it.
#include "app/scenario/distribution_reader.hpp"
#include "app/scenario/kafka_config_names.hpp"
#include "app/scenario/kafka_entry_readers.hpp"
#include "app/scenario/reconnect_backoff_reader.hpp"

namespace ksim::app {

using config::Duration;
using config::MapReader;
using models::Mechanism;

namespace {

models::ShareConsumerConfig read_share_consumer_config(MapReader& in, const models::Mechanisms& m) {
  models::ShareConsumerConfig c;
  // ShareConsumerConfig refuses what only a consumer group member has.
  for (const char* key : {"group.id", "group.instance.id", "group.protocol", "group.remote.assignor", "enable.auto.commit",
                          "auto.commit.interval.ms", "auto.offset.reset", "isolation.level", "session.timeout.ms",
                          "heartbeat.interval.ms", "partition.assignment.strategy", "max.poll.interval.ms"}) {
    if (!in.has(key)) continue;
    in.reject(key, "is not a share consumer config (the share group is the entry's share_group; the broker's "
                   "group.share.* configs time and reset it)");
    in.ignore(key);
  }
  const std::string mode = in.get_choice("share.acknowledgement.mode", {"implicit", "explicit"}, "implicit");
  c.acknowledgement_mode =
      mode == "explicit" ? models::ShareAcknowledgementMode::Explicit : models::ShareAcknowledgementMode::Implicit;
  c.max_poll_records = in.get<int>("max.poll.records", c.max_poll_records, {1, 1000000});
  c.fetch_max_wait = in.get<Duration>("fetch.max.wait.ms", c.fetch_max_wait, {0, kNever});
  c.request_timeout = in.get<Duration>("request.timeout.ms", c.request_timeout, {1, kNever});
  c.retry_backoff = in.get<Duration>("retry.backoff.ms", c.retry_backoff, {1, kNever});
  c.retry_backoff_max = in.get<Duration>("retry.backoff.max.ms", c.retry_backoff_max, {1, kNever});
  read_reconnect_backoff(in, c.reconnect_backoff, c.reconnect_backoff_max);
  c.connection_setup_timeout = read_connection_setup_timeout(in, m);
  return c;
}

}  // namespace

KafkaSpec::ShareConsumerGroup read_share_consumer(MapReader in, const std::vector<models::TopicSpec>& topics,
                                                  const std::vector<std::string>& racks, const ReleaseSpec& release) {
  KafkaSpec::ShareConsumerGroup group;
  group.name = in.get<std::string>("name", "consumer");
  group.nodes = read_group(in, group.nodes, racks);
  const ClientRelease client = read_client_release(in, release, false);
  group.release = client.release;
  if (!client.mechanisms.has(Mechanism::ShareGroups)) {
    throw in.error("share_group", "share groups need a Kafka 4.1+ client (KIP-932: preview in 4.1, production ready "
                                  "in 4.2); this entry's is " + client.release.name());
  }
  MapReader config = kafka_config(in, KafkaConfigKind::Consumer);
  group.config = read_share_consumer_config(config, client.mechanisms);
  group.config.group_id = in.required<std::string>("share_group");
  if (group.config.group_id.empty()) throw in.error("share_group", "needs a group name");
  const std::optional<SimTime> start = read_client_start(in);
  group.start = start.value_or(0);
  group.start_when_ready = !start;
  group.workload.topic = read_topic_index(in, topics);
  group.workload.processing_time = config::read_distribution(in, "processing_time", Distribution::constant(0));
  // commit: sync-after-process is commitSync() after each poll's records; none
  // (the default) leaves the acknowledgements to the next poll.
  group.workload.commit_sync = in.get_choice("commit", {"none", "sync-after-process"}, "none") == "sync-after-process";
  if (in.has_map("poison")) {
    MapReader poison = in.map("poison");
    group.workload.poison_every = poison.get<std::uint64_t>("every", 0, {1, 1000000000});
    const std::string ack = poison.get_choice("acknowledge", {"reject", "release"}, "reject");
    group.workload.poison_acknowledge = ack == "release" ? models::AcknowledgeType::Release : models::AcknowledgeType::Reject;
    if (group.config.acknowledgement_mode != models::ShareAcknowledgementMode::Explicit) {
      throw in.error("poison", "an application that rejects or releases a record acknowledges explicitly: set "
                               "share.acknowledgement.mode: explicit");
    }
  } else {
    in.ignore("poison");
  }
  for (const char* key : {"partitions", "transform"}) {
    if (in.has(key)) throw in.error(key, "is not for a share consumer (share groups assign every partition to every member)");
  }
  group.kafka_config = config.resolved();
  return group;
}

}  // namespace ksim::app
