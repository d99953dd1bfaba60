#include "app/scenario/producer_config_reader.hpp"

#include "app/scenario/kafka_config_names.hpp"

namespace ksim::app {

using config::Bytes;
using config::Duration;
using config::MapReader;

// Kafka's defaults by release: "current" (3.0+ acks=all and idempotence,
// KIP-679; 4.0 linger.ms=5) or "pre-3.0" (acks=1, no idempotence, linger.ms=0).
namespace {

models::ProducerConfig producer_defaults(MapReader& in) {
  const std::string defaults = in.get_choice("defaults", {"current", "pre-3.0"}, "current");
  models::ProducerConfig c;
  if (defaults == "pre-3.0") {
    c.acks = models::Acks::Leader;
    c.enable_idempotence = false;
    c.linger = 0;
    c.kip_951_leader_discovery = false;
  }
  return c;
}

models::Acks read_acks(MapReader& config, models::Acks default_value) {
  const std::string text = config.get_choice("acks", {"all", "-1", "0", "1"}, to_string(default_value));
  if (text == "0") return models::Acks::None;
  if (text == "1") return models::Acks::Leader;
  return models::Acks::All;  // "all" or "-1"
}

// partitioner.class, by Kafka's class name; unset (Kafka's
// null) is the built-in partitioner, and is resolved only when given, so
// that the resolved config stays one Kafka accepts.
models::PartitionerClass read_partitioner_class(MapReader& config) {
  if (!config.has("partitioner.class")) return models::PartitionerClass::BuiltIn;
  constexpr const char* kRoundRobin = "org.apache.kafka.clients.producer.RoundRobinPartitioner";
  constexpr const char* kDefault = "org.apache.kafka.clients.producer.internals.DefaultPartitioner";
  const std::string name = config.get_choice("partitioner.class", {kRoundRobin, kDefault}, kRoundRobin);
  return name == kDefault ? models::PartitionerClass::StickyOnNewBatch : models::PartitionerClass::RoundRobin;
}

}  // namespace

models::ProducerConfig read_producer_config(MapReader& group) {
  models::ProducerConfig c = producer_defaults(group);
  bool idempotence_required = false;
  MapReader in = kafka_config(group, KafkaConfigKind::Producer);
  c.acks = read_acks(in, c.acks);
  const std::optional<bool> idempotence = in.optional<bool>("enable.idempotence");
  c.batch_size = in.get<Bytes>("batch.size", c.batch_size, {1, 1ULL << 30});
  c.linger = in.get<Duration>("linger.ms", c.linger);
  c.partitioner = read_partitioner_class(in);
  c.buffer_memory = in.get<Bytes>("buffer.memory", c.buffer_memory, {1, 1ULL << 40});
  c.max_block = in.get<Duration>("max.block.ms", c.max_block);
  c.max_in_flight_requests_per_connection =
      in.get<int>("max.in.flight.requests.per.connection", c.max_in_flight_requests_per_connection, {1, 1000});
  c.request_timeout = in.get<Duration>("request.timeout.ms", c.request_timeout, {1, kNever});
  c.retries = in.get<std::int64_t>("retries", c.retries, {0, INT32_MAX});
  c.retry_backoff = in.get<Duration>("retry.backoff.ms", c.retry_backoff);
  // Kafka before 3.7 had no exponential backoff (KIP-580): pre-3.0 clients wait retry.backoff.ms each time.
  const bool pre_3_0 = group.get<std::string>("defaults", "current") == "pre-3.0";
  c.retry_backoff_max = in.get<Duration>("retry.backoff.max.ms", pre_3_0 ? c.retry_backoff : c.retry_backoff_max);
  const std::optional<SimTime> delivery_timeout = in.optional<Duration>("delivery.timeout.ms", {1, kNever});
  c.delivery_timeout = delivery_timeout.value_or(c.delivery_timeout);
  c.max_request_size = in.get<Bytes>("max.request.size", c.max_request_size, {1, 1ULL << 31});
  c.metadata_max_age = in.get<Duration>("metadata.max.age.ms", c.metadata_max_age);
  c.reconnect_backoff = in.get<Duration>("reconnect.backoff.ms", c.reconnect_backoff);
  c.transactional_id = in.get<std::string>("transactional.id", "");
  c.transaction_timeout = in.get<Duration>("transaction.timeout.ms", c.transaction_timeout, {1, kNever});
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
  c.enable_idempotence = (idempotence.value_or(c.enable_idempotence) || idempotence_required) && compatible;
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
