#include "app/timeline/message_about.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/protocol/kafka_messages.hpp"

namespace ksim::app::timeline {

namespace {

using models::TopicPartition;

std::string batch_text(const models::RecordBatch& b) {
  if (b.record_count <= 0) return fmt::format("batch at {}", b.base_offset);
  return fmt::format("offsets {}-{} ({} records, epoch {})", b.base_offset, b.last_offset(), b.record_count, b.leader_epoch);
}

std::optional<std::string> produce(const models::ProduceRequest& m, TopicPartition tp) {
  for (const auto& p : m.partitions) {
    if (p.partition == tp) return fmt::format("{} records, {} bytes", p.batch.record_count, p.batch.bytes);
  }
  return std::nullopt;
}

std::optional<std::string> produce_response(const models::ProduceResponse& m, TopicPartition tp) {
  for (const auto& p : m.partitions) {
    if (p.partition == tp) return fmt::format("base offset {}, {}", p.base_offset, models::to_string(p.error));
  }
  return std::nullopt;
}

std::optional<std::string> fetch(const models::FetchRequest& m, TopicPartition tp) {
  for (const auto& p : m.partitions) {
    if (p.partition != tp) continue;
    return fmt::format("{} from offset {}, epoch {}", m.replica_id >= 0 ? fmt::format("replica {}", m.replica_id) : "consumer",
                       p.fetch_offset, p.current_leader_epoch);
  }
  return std::nullopt;
}

std::optional<std::string> fetch_response(const models::FetchResponse& m, TopicPartition tp) {
  for (const auto& p : m.partitions) {
    if (p.partition != tp) continue;
    std::string text = fmt::format("HW {}, {}", p.high_watermark, models::to_string(p.error));
    if (!p.batches.empty()) text += ", " + batch_text(p.batches.front());
    if (p.batches.size() > 1) text += fmt::format(" and {} more batches", p.batches.size() - 1);
    return text;
  }
  return std::nullopt;
}

std::optional<std::string> list_offsets(const models::ListOffsetsRequest& m, TopicPartition tp) {
  for (const TopicPartition p : m.partitions) {
    if (p == tp) return std::string(m.latest ? "latest" : "earliest");
  }
  return std::nullopt;
}

std::optional<std::string> list_offsets_response(const models::ListOffsetsResponse& m, TopicPartition tp) {
  for (const auto& p : m.partitions) {
    if (p.partition == tp) return fmt::format("offset {}, {}", p.offset, models::to_string(p.error));
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> message_about(const Message& message, std::optional<TopicPartition> partition) {
  if (!partition) return fmt::format("{} bytes", message.size_bytes());
  const TopicPartition tp = *partition;
  using models::message_if;
  if (const auto* m = message_if<models::ProduceRequest>(&message)) return produce(*m, tp);
  if (const auto* m = message_if<models::ProduceResponse>(&message)) return produce_response(*m, tp);
  if (const auto* m = message_if<models::FetchRequest>(&message)) return fetch(*m, tp);
  if (const auto* m = message_if<models::FetchResponse>(&message)) return fetch_response(*m, tp);
  if (const auto* m = message_if<models::ListOffsetsRequest>(&message)) return list_offsets(*m, tp);
  if (const auto* m = message_if<models::ListOffsetsResponse>(&message)) return list_offsets_response(*m, tp);
  if (const auto* m = message_if<models::AlterPartitionRequest>(&message)) {
    if (m->partition == tp) return fmt::format("proposed ISR [{}]", fmt::join(m->new_isr, ", "));
    return std::nullopt;
  }
  if (const auto* m = message_if<models::AlterPartitionResponse>(&message)) {
    if (m->state.partition == tp) return fmt::format("ISR [{}], {}", fmt::join(m->state.isr, ", "), models::to_string(m->error));
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ksim::app::timeline
