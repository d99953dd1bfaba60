#include "models/check/transform_checker.hpp"

#include <map>
#include <tuple>

namespace ksim::models {

TransformReport check_transform(const FinalLogs& logs, const DeliveryHistory& history, std::int32_t input_topic,
                                std::int32_t output_topic) {
  TransformReport report;
  using Key = std::tuple<std::uint32_t, TopicPartition, std::uint64_t>;  // writer, partition, record number
  std::map<Key, std::uint32_t> outputs_per_input;
  for (const auto& [tp, batches] : logs.committed) {
    if (tp.topic != input_topic) continue;
    for (const RecordBatch& b : batches) {
      for (std::int32_t i = 0; i < b.record_count; ++i) {
        outputs_per_input.emplace(Key{b.writer, tp, b.first_record + static_cast<std::uint64_t>(i)}, 0);
      }
    }
  }
  report.inputs = outputs_per_input.size();
  for (const auto& [tp, batches] : logs.committed) {
    if (tp.topic != output_topic) continue;
    for (const RecordBatch& b : batches) {
      const auto made = history.made_from.find({b.writer, tp});
      if (made == history.made_from.end()) continue;  // not written by a transform application
      for (std::int32_t i = 0; i < b.record_count; ++i) {
        const std::uint64_t number = b.first_record + static_cast<std::uint64_t>(i);
        if (number >= made->second.size()) continue;
        const DeliveryHistory::InputRecord& input = made->second[number];
        ++report.outputs;
        const auto it = outputs_per_input.find(Key{input.writer, input.partition, input.record});
        if (it != outputs_per_input.end() && it->second++ > 0) ++report.duplicates;
      }
    }
  }
  for (const auto& [key, count] : outputs_per_input) report.missing += count == 0 ? 1 : 0;
  return report;
}

}  // namespace ksim::models
