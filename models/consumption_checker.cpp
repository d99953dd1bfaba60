#include "models/consumption_checker.hpp"

#include <algorithm>
#include <map>

namespace ksim::models {

namespace {

struct CommittedRecord {
  std::uint32_t writer;
  std::uint64_t record;
  std::uint32_t times_processed = 0;
};

// Every committed record of the topic, by partition and offset.
std::map<std::int32_t, std::vector<CommittedRecord>> committed_records(const FinalLogs& logs, std::int32_t topic) {
  std::map<std::int32_t, std::vector<CommittedRecord>> result;
  for (const auto& [tp, batches] : logs.committed) {
    if (tp.topic != topic) continue;
    auto& records = result[tp.partition];
    for (const RecordBatch& b : batches) {
      records.resize(static_cast<std::size_t>(b.next_offset()), CommittedRecord{0, 0});
      for (std::int32_t i = 0; i < b.record_count; ++i) {
        records[static_cast<std::size_t>(b.base_offset + i)] = {b.writer, b.first_record + static_cast<std::uint64_t>(i)};
      }
    }
  }
  return result;
}

}  // namespace

ConsumptionReport check_consumption(const ConsumptionHistory& history, const FinalLogs& logs, std::int32_t topic,
                                    const std::vector<std::uint32_t>& consumers) {
  ConsumptionReport report;
  auto committed = committed_records(logs, topic);
  std::map<std::pair<std::uint32_t, std::int32_t>, Offset> last_offset;  // (consumer, partition) -> offset
  for (const ProcessedRecord& p : history.processed) {
    if (p.partition.topic != topic || std::find(consumers.begin(), consumers.end(), p.consumer) == consumers.end()) {
      continue;
    }
    ++report.processed;
    const auto [it, fresh] = last_offset.try_emplace({p.consumer, p.partition.partition}, p.offset);
    if (!fresh) {
      if (p.offset < it->second) ++report.out_of_order;
      it->second = p.offset;
    }
    auto records = committed.find(p.partition.partition);
    const bool in_log = records != committed.end() && p.offset < static_cast<Offset>(records->second.size()) &&
                        records->second[static_cast<std::size_t>(p.offset)].writer == p.writer &&
                        records->second[static_cast<std::size_t>(p.offset)].record == p.record;
    if (!in_log) {
      ++report.uncommitted_seen;
      continue;
    }
    if (records->second[static_cast<std::size_t>(p.offset)].times_processed++ > 0) ++report.duplicated;
  }
  for (const auto& [partition, records] : committed) {
    report.committed += records.size();
    for (const auto& r : records) report.unprocessed += r.times_processed == 0 ? 1 : 0;
  }
  return report;
}

}  // namespace ksim::models
