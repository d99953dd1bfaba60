#include "app/scenario/producer_config_reader.hpp"
#include "app/scenario/reconnect_backoff_reader.hpp"

#include "app/scenario/kafka_config_names.hpp"
#include "app/scenario/release_reader.hpp"

namespace ksim::app {

using config::Bytes;
using config::Duration;
using config::MapReader;

// Kafka's defaults by the producer's release (ProducerConfig of each): acks=all
// and idempotence from 3.0 (KIP-679), acks=1 and none before; linger.ms=5 from
// 4.0 (KIP-1030); retries=MAX_INT from 2.1 (KIP-91), 0 before.
namespace {

using models::Mechanism;

models::ProducerConfig producer_defaults(const models::Mechanisms& m) {
  models::ProducerConfig c;
  c.mechanisms = m;
  if (!m.has(Mechanism::ProducerSafeDefaults)) {
    c.acks = models::Acks::Leader;
    c.enable_idempotence = false;
  }
  if (!m.has(Mechanism::IdempotentTransactional)) c.enable_idempotence = false;
  if (!m.has(Mechanism::LingerDefault5)) c.linger = 0;
  if (!m.has(Mechanism::DeliveryTimeout)) c.retries = 0;
  return c;
}

models::Acks read_acks(MapReader& config, models::Acks default_value) {
  const std::string text = config.get_choice("acks", {"all", "-1", "0", "1"}, to_string(default_value));
  if (text == "0") return models::Acks::None;
  if (text == "1") return models::Acks::Leader;
  return models::Acks::All;  // "all" or "-1"
}

// partitioner.class, by Kafka's class name; unset (Kafka's null) is the
// release's default: the built-in partitioner from 3.3 (KIP-794), the
// DefaultPartitioner before, which is sticky from 2.4 (KIP-480) and before
// spreads keyless records round robin. Resolved only when given, so that
// the resolved config stays one Kafka accepts.
models::PartitionerClass read_partitioner_class(MapReader& config, const models::Mechanisms& m) {
  const auto default_partitioner = m.has(Mechanism::StickyPartitioner) ? models::PartitionerClass::StickyOnNewBatch
                                                                         : models::PartitionerClass::HashOrRoundRobin;
  if (!config.has("partitioner.class")) {
    return m.has(Mechanism::UniformStickyPartitioner) ? models::PartitionerClass::BuiltIn : default_partitioner;
  }
  constexpr const char* kRoundRobin = "org.apache.kafka.clients.producer.RoundRobinPartitioner";
  constexpr const char* kDefault = "org.apache.kafka.clients.producer.internals.DefaultPartitioner";
  const std::string name = config.get_choice("partitioner.class", {kRoundRobin, kDefault}, kRoundRobin);
  return name == kDefault ? default_partitioner : models::PartitionerClass::RoundRobin;
}

}  // namespace

models::ProducerConfig read_producer_config(MapReader& group, const models::Mechanisms& mechanisms) {
  models::ProducerConfig c = producer_defaults(mechanisms);
  bool idempotence_required = false;
  MapReader in = kafka_config(group, KafkaConfigKind::Producer);
  c.acks = read_acks(in, c.acks);
  const std::optional<bool> idempotence = in.optional<bool>("enable.idempotence");
  c.batch_size = in.get<Bytes>("batch.size", c.batch_size, {1, 1ULL << 30});
  c.linger = in.get<Duration>("linger.ms", c.linger);
  c.partitioner = read_partitioner_class(in, mechanisms);
  // KIP-794's built-in partitioner (3.3+): adaptive by queue sizes, keys used unless ignored.
  if (mechanisms.has(Mechanism::UniformStickyPartitioner)) {
    c.adaptive_partitioning = in.get<bool>("partitioner.adaptive.partitioning.enable", c.adaptive_partitioning);
    c.partitioner_ignore_keys = in.get<bool>("partitioner.ignore.keys", c.partitioner_ignore_keys);
    if (in.get<Duration>("partitioner.availability.timeout.ms", 0) != 0) {
      in.reject("partitioner.availability.timeout.ms",
                "is not modelled: ksim's partitioner never leaves out a broker slow to take batches (0, Kafka's default)");
    }
  } else {
    for (const char* key : {"partitioner.adaptive.partitioning.enable", "partitioner.ignore.keys",
                            "partitioner.availability.timeout.ms"}) {
      reject_absent(in, key, mechanisms, Mechanism::UniformStickyPartitioner);
    }
  }
  c.buffer_memory = in.get<Bytes>("buffer.memory", c.buffer_memory, {1, 1ULL << 40});
  c.max_block = in.get<Duration>("max.block.ms", c.max_block);
  c.max_in_flight_requests_per_connection =
      in.get<int>("max.in.flight.requests.per.connection", c.max_in_flight_requests_per_connection, {1, 1000});
  c.request_timeout = in.get<Duration>("request.timeout.ms", c.request_timeout, {1, kNever});
  c.retries = in.get<std::int64_t>("retries", c.retries, {0, INT32_MAX});
  c.retry_backoff = in.get<Duration>("retry.backoff.ms", c.retry_backoff);
  // Kafka before 3.7 had no exponential backoff (KIP-580): its clients wait retry.backoff.ms each time.
  const bool exponential = mechanisms.has(Mechanism::ExponentialBackoff);
  if (exponential) {
    c.retry_backoff_max = in.get<Duration>("retry.backoff.max.ms", c.retry_backoff_max);
  } else {
    c.retry_backoff_max = c.retry_backoff;
    reject_absent(in, "retry.backoff.max.ms", mechanisms, Mechanism::ExponentialBackoff);
  }
  std::optional<SimTime> delivery_timeout;
  if (mechanisms.has(Mechanism::DeliveryTimeout)) {
    delivery_timeout = in.optional<Duration>("delivery.timeout.ms", {1, kNever});
    c.delivery_timeout = delivery_timeout.value_or(c.delivery_timeout);
  } else {
    // Before KIP-91 a batch expired after request.timeout.ms in the
    // accumulator (RecordAccumulator.abortExpiredBatches), and one in flight
    // only by its request's timeout (Producer::expire_batches).
    reject_absent(in, "delivery.timeout.ms", mechanisms, Mechanism::DeliveryTimeout);
    c.delivery_timeout = kNever;
  }
  c.max_request_size = in.get<Bytes>("max.request.size", c.max_request_size, {1, 1ULL << 31});
  // SO_SNDBUF; -1 leaves it to the OS, whose autotuning grows it to net.ipv4.tcp_wmem's maximum (4 MiB).
  const std::int64_t send_buffer = in.get<std::int64_t>("send.buffer.bytes", 131072, {-1, std::int64_t{1} << 31});
  c.send_buffer_bytes = send_buffer < 0 ? 4ULL << 20 : static_cast<std::uint64_t>(send_buffer);
  c.metadata_max_age = in.get<Duration>("metadata.max.age.ms", c.metadata_max_age);
  read_reconnect_backoff(in, c.reconnect_backoff, c.reconnect_backoff_max);
  c.connection_setup_timeout = read_connection_setup_timeout(in, mechanisms);
  c.transactional_id = in.get<std::string>("transactional.id", "");
  c.transaction_timeout = in.get<Duration>("transaction.timeout.ms", c.transaction_timeout, {1, kNever});
  if (!mechanisms.has(Mechanism::IdempotentTransactional)) {
    if (idempotence) reject_absent(in, "enable.idempotence", mechanisms, Mechanism::IdempotentTransactional);
    if (!c.transactional_id.empty()) reject_absent(in, "transactional.id", mechanisms, Mechanism::IdempotentTransactional);
    c.transactional_id.clear();
  }
  // KafkaProducer.configureDeliveryTimeout: delivery.timeout.ms >= linger.ms + request.timeout.ms,
  // an error when set so, else raised to it.
  if (c.delivery_timeout < c.linger + c.request_timeout) {
    if (delivery_timeout) {
      in.reject("delivery.timeout.ms", "must be at least linger.ms + request.timeout.ms (" +
                                           units::format_duration(c.linger + c.request_timeout) + "), as Kafka requires");
    } else {
      in.warn("request.timeout.ms", "linger.ms + request.timeout.ms is over delivery.timeout.ms's default: "
                                    "Kafka raises delivery.timeout.ms to " + units::format_duration(c.linger + c.request_timeout));
      c.delivery_timeout = c.linger + c.request_timeout;
    }
  }
  // KafkaProducer.configureTransactionState, configureAcks, configureRetries
  // (0.11-2.8; ProducerConfig's postProcessParsedConfig from 3.0): a
  // transactional.id turns idempotence on (with enable.idempotence=false set,
  // an error); idempotence asked for, explicitly or so, sets acks to all and
  // retries to MAX_INT where the user left them (what the user set must agree).
  if (!c.transactional_id.empty() && idempotence == false) {
    throw in.error("enable.idempotence", "false with a transactional.id: Kafka refuses a transactional producer "
                                         "without idempotence");
  }
  if ((idempotence.value_or(false) || !c.transactional_id.empty()) &&
      mechanisms.has(Mechanism::IdempotentTransactional)) {
    if (!in.has("acks")) c.acks = models::Acks::All;
    if (!in.has("retries")) c.retries = INT32_MAX;
  }
  if (!c.transactional_id.empty() && (c.acks != models::Acks::All || idempotence == false)) {
    throw in.error("transactional.id", "a transactional producer needs acks=all and idempotence");
  }
  if (!c.transactional_id.empty()) idempotence_required = true;
  // Idempotence needs acks=all, at most 5 in flight and retries (Kafka's
  // ProducerConfig): asked for explicitly it is an error; left at its default
  // Kafka quietly turns it off.
  const bool compatible = c.acks == models::Acks::All && c.max_in_flight_requests_per_connection <= 5 && c.retries > 0;
  if (idempotence.value_or(false) && !compatible) {
    throw in.error("enable.idempotence", "needs acks=all, max.in.flight.requests.per.connection <= 5 and retries > 0");
  }
  c.enable_idempotence = (idempotence.value_or(c.enable_idempotence) || idempotence_required) && compatible &&
                         mechanisms.has(Mechanism::IdempotentTransactional);
  if (idempotence_required && !compatible) {
    throw in.error("transactional.id", "needs acks=all, max.in.flight.requests.per.connection <= 5 and retries > 0");
  }
  return c;
}

// An idempotent producer's batches carry a producer id, which only format v2
// has: LogValidator fails them on a v0 or v1 topic (UNSUPPORTED_FOR_MESSAGE_FORMAT).
void check_record_format(MapReader& group, const models::ProducerConfig& c, const models::TopicSpec& topic) {
  if (!c.enable_idempotence || topic.record_format == models::RecordFormat::V2) return;
  MapReader config = group.map("config");
  const std::string why = "an idempotent producer cannot write to topic '" + topic.name + "' of record format " +
                          models::record_format_name(topic.record_format) +
                          " (Kafka fails every batch with UNSUPPORTED_FOR_MESSAGE_FORMAT): set enable.idempotence: false, "
                          "or a message.format.version of 0.11.0 or later";
  if (config.has("enable.idempotence")) throw config.error("enable.idempotence", why);
  if (config.has("transactional.id")) throw config.error("transactional.id", why);
  throw group.error("topic", why + " (3.0+ producers are idempotent by default; defaults: pre-3.0 turns it off)");
}

}  // namespace ksim::app
