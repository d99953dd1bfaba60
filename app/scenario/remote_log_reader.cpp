// RemoteLogManagerConfig's names and defaults (storage/.../RemoteLogManagerConfig.java).
#include "app/scenario/remote_log_reader.hpp"

#include "app/scenario/release_reader.hpp"

namespace ksim::app {

using config::Bandwidth;
using config::Duration;
using config::MapReader;
using models::Mechanism;

models::RemoteLogConfig read_remote_log_config(MapReader& brokers, MapReader& in, const models::Mechanisms& m) {
  models::RemoteLogConfig c;
  for (const char* key : {"remote.log.storage.system.enable", "remote.log.manager.task.interval.ms", "remote.fetch.max.wait.ms",
                          "remote.log.reader.threads", "remote.log.manager.copier.thread.pool.size"}) {
    reject_absent(in, key, m, Mechanism::TieredStorage);
  }
  c.system_enable = in.get<bool>("remote.log.storage.system.enable", c.system_enable);
  c.task_interval = in.get<Duration>("remote.log.manager.task.interval.ms", c.task_interval, {1, kNever});
  // KIP-1018 (3.8): before it a remote read waited for the fetch's own fetch.max.wait.ms.
  if (m.release() < models::KafkaRelease{3, 8}) {
    c.fetch_max_wait = -1;
    if (in.has("remote.fetch.max.wait.ms")) {
      in.ignore("remote.fetch.max.wait.ms");
      in.reject("remote.fetch.max.wait.ms", "not in Kafka " + m.release().name() +
                                                ": KIP-1018 came in 3.8 (before, a remote read waits for the fetch's fetch.max.wait.ms)");
    }
  }
  c.fetch_max_wait = in.get<Duration>("remote.fetch.max.wait.ms", c.fetch_max_wait, {1, INT32_MAX * 1'000'000LL});
  c.reader_threads = in.get<int>("remote.log.reader.threads", c.reader_threads, {1, 1000});
  c.copier_threads = in.get<int>("remote.log.manager.copier.thread.pool.size", c.copier_threads, {1, 1000});
  MapReader store = brokers.map("remote_storage");
  c.store_latency = store.get<Duration>("latency", c.store_latency, {0, seconds(60)});
  c.store_bytes_per_second = store.get<Bandwidth>("bandwidth", c.store_bytes_per_second, {1.0, 1e13});
  return c;
}

void check_tiered_topic(MapReader& config, const models::TopicSpec& topic, const models::RemoteLogConfig& c,
                        const models::Mechanisms& m) {
  if (!topic.log.remote_storage_enable) return;
  if (!m.has(Mechanism::TieredStorage)) {
    throw config.error("remote.storage.enable", "not in Kafka " + m.release().name() +
                                                    ": KIP-405 (tiered storage) came in 3.6 (or kips: {KIP-405: on})");
  }
  if (!c.system_enable) {
    // TopicConfigs / LogConfig.validateRemoteStorageOnlyIfSystemEnabled.
    throw config.error("remote.storage.enable",
                       "needs the brokers' remote.log.storage.system.enable: true (Kafka: \"Tiered Storage functionality "
                       "is disabled in the broker. Topic cannot be configured with remote log storage.\")");
  }
}

}  // namespace ksim::app
