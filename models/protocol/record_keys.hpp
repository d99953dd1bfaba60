#pragma once
// The keys of the records of compacted topics, and which are tombstones
// (null values): what the bytes of a record would say, for the log cleaner
// and the checkers. A batch carries its producer's record numbers (writer,
// partition, first_record + i), not the bytes; this store stands for the
// keys and null values in them, written once by the producer that drew them,
// never changed, so every replica's cleaner reads the same record (as
// CoordinatorRecordStore stands for __consumer_offsets' bytes).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "models/protocol/kafka_types.hpp"

namespace ksim::models {

struct RecordKey {
  std::int64_t key = -1;   // the key drawn (0 .. keys.count - 1); -1: keyless or not known
  bool tombstone = false;  // a null value: deletes the key once compacted (KIP-534's delete horizon)
  bool operator==(const RecordKey&) const = default;
};

class RecordKeyStore {
 public:
  // Record number `record` of producer `writer` to partition `tp`.
  void set(std::uint32_t writer, TopicPartition tp, std::uint64_t record, RecordKey key) {
    auto& keys = keys_[{writer, tp}];
    if (keys.size() <= record) keys.resize(record + 1);
    keys[record] = key;
  }
  RecordKey at(std::uint32_t writer, TopicPartition tp, std::uint64_t record) const {
    const auto it = keys_.find({writer, tp});
    if (it == keys_.end() || record >= it->second.size()) return {};
    return it->second[record];
  }
  // Record i of `batch` (0 <= i < record_count).
  RecordKey of(const RecordBatch& batch, TopicPartition tp, std::int32_t i) const {
    return at(batch.writer, tp, batch.first_record + static_cast<std::uint64_t>(i));
  }
  bool empty() const { return keys_.empty(); }

 private:
  std::map<std::pair<std::uint32_t, TopicPartition>, std::vector<RecordKey>> keys_;
};

}  // namespace ksim::models
