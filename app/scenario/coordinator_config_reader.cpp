// The brokers' coordinator configs (coordinator_config_reader.hpp).
#include "app/scenario/coordinator_config_reader.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "app/scenario/release_reader.hpp"
#include "models/coordinator/consumer_group_assignor.hpp"

namespace ksim::app {

using config::Bytes;
using config::Duration;
using config::MapReader;
using models::Mechanism;

namespace {

// A broker refuses to start with `key` outside [min_key, max_key]
// (GroupCoordinatorConfig's and ShareGroupConfig's requires); both bounds are
// configs a user may move, as the scenarios that time out in seconds do.
void check_bounds(MapReader& in, const std::string& key, SimTime value, const std::string& min_key, SimTime min_default,
                  const std::string& max_key, SimTime max_default, const models::Mechanisms& m, Mechanism mechanism) {
  reject_absent(in, min_key, m, mechanism);
  reject_absent(in, max_key, m, mechanism);
  const SimTime low = in.get<Duration>(min_key, min_default, {1, kNever});
  const SimTime high = in.get<Duration>(max_key, max_default, {1, kNever});
  if (high < low) return in.reject(max_key, "must be at least " + min_key);
  const std::string& at = in.has(key) ? key : (value < low ? min_key : max_key);
  if (value < low) in.reject(at, key + " is below " + min_key + ": Kafka refuses to start; lower " + min_key + " too");
  if (value > high) in.reject(at, key + " is above " + max_key + ": Kafka refuses to start; raise " + max_key + " too");
}

// KIP-932's share groups (group.share.*: GroupCoordinatorConfig and ShareGroupConfig).
void read_share_group_config(MapReader& in, models::GroupCoordinatorConfig& g, const models::Mechanisms& m) {
  for (const char* key : {"group.share.heartbeat.interval.ms", "group.share.session.timeout.ms",
                          "group.share.record.lock.duration.ms", "group.share.delivery.count.limit",
                          "group.share.partition.max.record.locks"}) {
    reject_absent(in, key, m, Mechanism::ShareGroups);
  }
  g.share_heartbeat_interval = in.get<Duration>("group.share.heartbeat.interval.ms", g.share_heartbeat_interval, {1, kNever});
  g.share_session_timeout = in.get<Duration>("group.share.session.timeout.ms", g.share_session_timeout, {1, kNever});
  if (g.share_heartbeat_interval >= g.share_session_timeout) {
    in.reject("group.share.heartbeat.interval.ms", "must be lower than group.share.session.timeout.ms");
  }
  check_bounds(in, "group.share.heartbeat.interval.ms", g.share_heartbeat_interval, "group.share.min.heartbeat.interval.ms",
               seconds(5), "group.share.max.heartbeat.interval.ms", seconds(15), m, Mechanism::ShareGroups);
  check_bounds(in, "group.share.session.timeout.ms", g.share_session_timeout, "group.share.min.session.timeout.ms",
               seconds(45), "group.share.max.session.timeout.ms", seconds(60), m, Mechanism::ShareGroups);
  // ShareGroupConfig's ranges: the lock 1 s to 1 h, the delivery limit 2 to 10, the locks 100 to 10000.
  g.share_record_lock_duration = in.get<Duration>("group.share.record.lock.duration.ms", g.share_record_lock_duration,
                                                  {seconds(1), minutes(60)});
  check_bounds(in, "group.share.record.lock.duration.ms", g.share_record_lock_duration,
               "group.share.min.record.lock.duration.ms", seconds(15), "group.share.max.record.lock.duration.ms",
               seconds(60), m, Mechanism::ShareGroups);
  g.share_delivery_count_limit = in.get<int>("group.share.delivery.count.limit", g.share_delivery_count_limit, {2, 10});
  g.share_partition_max_record_locks =
      in.get<int>("group.share.partition.max.record.locks", g.share_partition_max_record_locks, {100, 10000});
}

// KIP-848's consumer groups (4.0+): the broker times and assigns them.
void read_consumer_group_config(MapReader& in, models::GroupCoordinatorConfig& g, const models::Mechanisms& m) {
  for (const char* key : {"group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms", "group.consumer.assignors",
                          "group.consumer.migration.policy", "group.consumer.max.size"}) {
    reject_absent(in, key, m, Mechanism::ConsumerGroupProtocol);
  }
  // KIP-848's online migration (ConsumerGroupMigrationPolicy; an internal config, bidirectional by default).
  using Policy = models::GroupCoordinatorConfig::MigrationPolicy;
  const std::string policy = in.get_choice("group.consumer.migration.policy", {"bidirectional", "upgrade", "downgrade", "disabled"},
                                           "bidirectional");
  g.consumer_migration_policy = policy == "disabled"    ? Policy::Disabled
                                : policy == "upgrade"   ? Policy::Upgrade
                                : policy == "downgrade" ? Policy::Downgrade
                                                        : Policy::Bidirectional;
  g.consumer_max_size = in.get<int>("group.consumer.max.size", g.consumer_max_size, {1, INT32_MAX});
  g.consumer_heartbeat_interval =
      in.get<Duration>("group.consumer.heartbeat.interval.ms", g.consumer_heartbeat_interval, {1, kNever});
  g.consumer_session_timeout = in.get<Duration>("group.consumer.session.timeout.ms", g.consumer_session_timeout, {1, kNever});
  if (g.consumer_heartbeat_interval >= g.consumer_session_timeout) {
    in.reject("group.consumer.heartbeat.interval.ms", "must be lower than group.consumer.session.timeout.ms");
  }
  check_bounds(in, "group.consumer.heartbeat.interval.ms", g.consumer_heartbeat_interval,
               "group.consumer.min.heartbeat.interval.ms", seconds(5), "group.consumer.max.heartbeat.interval.ms",
               seconds(15), m, Mechanism::ConsumerGroupProtocol);
  check_bounds(in, "group.consumer.session.timeout.ms", g.consumer_session_timeout, "group.consumer.min.session.timeout.ms",
               seconds(45), "group.consumer.max.session.timeout.ms", seconds(60), m, Mechanism::ConsumerGroupProtocol);
  std::vector<std::string> names;
  if (in.has_list("group.consumer.assignors")) {
    config::ListReader list = in.list("group.consumer.assignors");
    for (std::size_t i = 0; i < list.size(); ++i) names.push_back(list.at<std::string>(i));
  } else if (const auto text = in.optional<std::string>("group.consumer.assignors")) {
    std::string name;
    for (const char ch : *text + ",") {
      if (ch != ',' && ch != ' ') {
        name += ch;
      } else if (!name.empty()) {
        names.push_back(std::exchange(name, {}));
      }
    }
  } else {
    return;
  }
  if (names.empty()) throw in.error("group.consumer.assignors", "needs at least one assignor");
  g.consumer_assignors.clear();
  for (const std::string& name : names) {
    const auto assignor = models::make_server_assignor(name);
    if (!assignor) {
      throw in.error("group.consumer.assignors", "unknown assignor '" + config::excerpt(name) + "'; known: uniform, range");
    }
    g.consumer_assignors.emplace_back(assignor->name());
  }
}

// offsets.retention.minutes: 7 days from 2.0 (KIP-186), 1 day before; KIP-211
// (2.1) and KIP-496 (2.4) changed which offsets expire (group_coordinator_expiry.cpp).
void read_offsets_retention(MapReader& in, models::GroupCoordinatorConfig& g, const models::Mechanisms& m) {
  if (!m.has(Mechanism::OffsetsRetentionWeek)) g.offsets_retention = minutes(24 * 60);
  g.expire_when_empty = m.has(Mechanism::OffsetExpiryWhenEmpty);
  g.expire_unsubscribed = m.release() >= models::KafkaRelease{2, 4};
  const auto retention = in.get<std::int64_t>("offsets.retention.minutes", g.offsets_retention / minutes(1), {1, INT32_MAX});
  g.offsets_retention = minutes(1) * retention;
  g.offsets_retention_check_interval =
      in.get<Duration>("offsets.retention.check.interval.ms", g.offsets_retention_check_interval, {1, kNever});
}

}  // namespace

void read_group_coordinator_config(MapReader& in, models::GroupCoordinatorConfig& g, const models::Mechanisms& m) {
  // KIP-134 (0.11): a new group's first rebalance waits 3 s for more members; before, it did not.
  if (!m.has(Mechanism::InitialRebalanceDelay)) g.group_initial_rebalance_delay = 0;
  g.assignment_epochs = m.has(Mechanism::AssignmentEpochs);
  g.coordinator_runtime = m.release() >= models::KafkaRelease{4, 0};
  reject_absent(in, "group.initial.rebalance.delay.ms", m, Mechanism::InitialRebalanceDelay);
  g.offsets_topic_num_partitions = in.get<int>("offsets.topic.num.partitions", g.offsets_topic_num_partitions, {1, 10000});
  g.offsets_topic_replication_factor =
      in.get<int>("offsets.topic.replication.factor", g.offsets_topic_replication_factor, {1, 1000});
  g.offsets_topic_segment_bytes = in.get<Bytes>("offsets.topic.segment.bytes", g.offsets_topic_segment_bytes, {1, INT32_MAX});
  g.offsets_commit_timeout = in.get<Duration>("offsets.commit.timeout.ms", g.offsets_commit_timeout, {1, kNever});
  read_offsets_retention(in, g, m);
  g.group_initial_rebalance_delay =
      in.get<Duration>("group.initial.rebalance.delay.ms", g.group_initial_rebalance_delay);
  g.group_min_session_timeout = in.get<Duration>("group.min.session.timeout.ms", g.group_min_session_timeout);
  g.group_max_session_timeout = in.get<Duration>("group.max.session.timeout.ms", g.group_max_session_timeout);
  reject_absent(in, "group.max.size", m, Mechanism::GroupMaxSize);  // KIP-389 (2.2): a full classic group refuses joins
  g.classic_max_size = in.get<int>("group.max.size", g.classic_max_size, {1, INT32_MAX});
  read_consumer_group_config(in, g, m);
  read_share_group_config(in, g, m);
}

void read_txn_coordinator_config(MapReader& in, models::BrokerConfig& c) {
  models::TxnCoordinatorConfig& t = c.transaction_coordinator;
  t.partitions = in.get<int>("transaction.state.log.num.partitions", t.partitions, {1, 10000});
  t.replication_factor = in.get<int>("transaction.state.log.replication.factor", t.replication_factor, {1, 1000});
  t.segment_bytes = in.get<Bytes>("transaction.state.log.segment.bytes", t.segment_bytes, {1, INT32_MAX});
  t.min_isr = in.get<int>("transaction.state.log.min.isr", t.min_isr, {1, 1000});
  t.max_timeout = in.get<Duration>("transaction.max.timeout.ms", t.max_timeout, {1, kNever});
  t.transactional_id_expiration =
      in.get<Duration>("transactional.id.expiration.ms", t.transactional_id_expiration, {milliseconds(1), kNever});
  t.expiration_check_interval = in.get<Duration>("transaction.remove.expired.transaction.cleanup.interval.ms",
                                                 t.expiration_check_interval, {milliseconds(1), kNever});
  t.abort_check_interval = in.get<Duration>("transaction.abort.timed.out.transaction.cleanup.interval.ms",
                                            t.abort_check_interval, {1, kNever});
  c.transaction_partition_verification_enable =
      in.get<bool>("transaction.partition.verification.enable", c.transaction_partition_verification_enable);
  // KAFKA-18654 (4.0): the leader's retries of a transactions-v2 add.
  for (const char* key : {"add.partitions.to.txn.retry.backoff.ms", "add.partitions.to.txn.retry.backoff.max.ms"}) {
    if (in.has(key) && c.mechanisms.release() < models::KafkaRelease{4, 0}) {
      in.ignore(key);
      in.reject(key, "not in Kafka " + c.mechanisms.release().name() + ": it came in 4.0 (KAFKA-18654)");
    }
  }
  c.add_partitions_to_txn_retry_backoff =
      in.get<Duration>("add.partitions.to.txn.retry.backoff.ms", c.add_partitions_to_txn_retry_backoff, {milliseconds(1), kNever});
  c.add_partitions_to_txn_retry_backoff_max =
      in.get<Duration>("add.partitions.to.txn.retry.backoff.max.ms", c.add_partitions_to_txn_retry_backoff_max, {0, kNever});
}

}  // namespace ksim::app
