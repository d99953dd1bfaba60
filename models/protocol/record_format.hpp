#pragma once
// The format records have on the wire and on disk (Kafka's "magic"), and
// what it adds to the application's keys and values:
//   v0 (0.8, 0.9): a message set, 12 bytes of offset and size plus 14 of
//      CRC, magic, attributes and the key's and value's lengths per record
//      (Records.LOG_OVERHEAD, LegacyRecord.RECORD_OVERHEAD_V0);
//   v1 (0.10, KIP-32): v0 with an 8-byte timestamp (RECORD_OVERHEAD_V1);
//   v2 (0.11+, KIP-98): a record batch, a 61-byte header
//      (DefaultRecordBatch.RECORD_BATCH_OVERHEAD) and varint-coded records
//      (DefaultRecord.sizeInBytes).
// Uncompressed: ksim models no compression.
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/events/time.hpp"

namespace ksim::models {

enum class RecordFormat : std::uint8_t { V0, V1, V2 };

// What the application gives: a key (-1: none) and a value.
struct RecordShape {
  std::int32_t key_bytes = -1;
  std::uint64_t value_bytes = 0;
  std::int64_t key = -1;   // the key drawn (-1: keyless), kept for compacted topics (record_keys.hpp)
  bool tombstone = false;  // a null value: value_bytes is 0
};

// The bytes a batch has before its first record (v2's header; a v0 or v1
// message set has none).
std::uint64_t batch_header_bytes(RecordFormat format);

// A record's bytes in its batch, `offset_delta` records and `timestamp_delta`
// after the batch's first (only v2 codes them, as varints).
std::uint64_t record_bytes_in_batch(RecordFormat format, RecordShape record, std::int32_t offset_delta,
                                    SimTime timestamp_delta);

// The buffer a producer reserves for a batch whose first record is `record`
// (AbstractRecords.estimateSizeInBytesUpperBound: the deltas at their largest).
std::uint64_t batch_bytes_upper_bound(RecordFormat format, RecordShape record);

// The format a `log.message.format.version` / `message.format.version`
// value selects (Kafka's ApiVersion/MetadataVersion names: "0.8.2",
// "0.10.0-IV1", "0.11.0", "2.8", ...); nullopt when it is not such a name.
std::optional<RecordFormat> record_format_of_version(std::string_view version);

const char* record_format_name(RecordFormat format);  // "v0", "v1", "v2"

}  // namespace ksim::models
