#include "models/protocol/record_format.hpp"

#include <array>
#include <charconv>
#include <string>

namespace ksim::models {
namespace {

constexpr std::uint64_t kLogOverhead = 12;      // Records.LOG_OVERHEAD: offset and size
constexpr std::uint64_t kRecordOverheadV0 = 14;  // LegacyRecord.RECORD_OVERHEAD_V0
constexpr std::uint64_t kRecordOverheadV1 = 22;  // LegacyRecord.RECORD_OVERHEAD_V1
constexpr std::uint64_t kBatchOverheadV2 = 61;   // DefaultRecordBatch.RECORD_BATCH_OVERHEAD

// ByteUtils.sizeOfVarlong: zig-zag, then 7 bits per byte.
std::uint64_t varint_bytes(std::int64_t value) {
  std::uint64_t v = (static_cast<std::uint64_t>(value) << 1) ^ static_cast<std::uint64_t>(value >> 63);
  std::uint64_t bytes = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++bytes;
  }
  return bytes;
}

// DefaultRecord.sizeOfBodyInBytes, without headers (ksim's records have none).
std::uint64_t v2_body_bytes(RecordShape r, std::int64_t offset_delta, std::int64_t timestamp_delta_ms) {
  const std::uint64_t key = r.key_bytes < 0 ? 1 : varint_bytes(r.key_bytes) + static_cast<std::uint64_t>(r.key_bytes);
  const std::uint64_t value = varint_bytes(static_cast<std::int64_t>(r.value_bytes)) + r.value_bytes;
  return 1 + varint_bytes(offset_delta) + varint_bytes(timestamp_delta_ms) + key + value + 1;
}

std::uint64_t legacy_record_bytes(RecordFormat format, RecordShape r) {
  const std::uint64_t key = r.key_bytes < 0 ? 0 : static_cast<std::uint64_t>(r.key_bytes);
  return kLogOverhead + (format == RecordFormat::V0 ? kRecordOverheadV0 : kRecordOverheadV1) + key + r.value_bytes;
}

}  // namespace

std::uint64_t batch_header_bytes(RecordFormat format) { return format == RecordFormat::V2 ? kBatchOverheadV2 : 0; }

std::uint64_t record_bytes_in_batch(RecordFormat format, RecordShape record, std::int32_t offset_delta,
                                    SimTime timestamp_delta) {
  if (format != RecordFormat::V2) return legacy_record_bytes(format, record);
  const std::uint64_t body = v2_body_bytes(record, offset_delta, timestamp_delta / milliseconds(1));
  return varint_bytes(static_cast<std::int64_t>(body)) + body;  // DefaultRecord.sizeInBytes
}

std::uint64_t batch_bytes_upper_bound(RecordFormat format, RecordShape record) {
  if (format != RecordFormat::V2) return legacy_record_bytes(format, record);
  // DefaultRecordBatch.estimateBatchSizeUpperBound: every varint but the key's and value's lengths at its widest.
  constexpr std::uint64_t kMaxVarintBytes = 5;
  return kBatchOverheadV2 + kMaxVarintBytes + v2_body_bytes(record, INT32_MIN, INT64_MIN);
}

// ApiVersion.apply (Kafka 2.8): "0.x.y" keeps three segments, later
// versions two; then the release's record version (KAFKA_0_8_0 ..
// KAFKA_0_9_0: V0, KAFKA_0_10_*: V1, KAFKA_0_11_0 and later: V2).
std::optional<RecordFormat> record_format_of_version(std::string_view version) {
  const auto numbers = [](std::string_view text, bool dots) {
    if (text.empty() || text.front() == '.' || text.back() == '.' || text.find("..") != std::string_view::npos) return false;
    return text.find_first_not_of(dots ? "0123456789." : "0123456789") == std::string_view::npos;
  };
  if (const auto iv = version.find("-IV"); iv != std::string_view::npos) {
    if (!numbers(version.substr(iv + 3), false)) return std::nullopt;
    version = version.substr(0, iv);
  }
  if (!numbers(version, true)) return std::nullopt;
  std::array<int, 3> parts{-1, -1, -1};
  std::size_t count = 0;
  const char* p = version.data();
  const char* end = version.data() + version.size();
  while (p < end && count < parts.size()) {
    const auto [next, error] = std::from_chars(p, end, parts[count]);
    if (error != std::errc{} || next == p) return std::nullopt;
    ++count;
    p = next;
    if (p < end && *p == '.') ++p;
  }
  const auto [major, minor, patch] = parts;
  if (major == 0) {
    if (count < 3) return std::nullopt;
    if (minor == 8 && patch >= 0 && patch <= 2) return RecordFormat::V0;
    if (minor == 9 && patch == 0) return RecordFormat::V0;
    if (minor == 10 && patch >= 0 && patch <= 2) return RecordFormat::V1;
    if (minor == 11 && patch == 0) return RecordFormat::V2;
    return std::nullopt;
  }
  constexpr std::array<int, 4> kLastMinor{-1, 1, 8, 9};  // 1.0-1.1, 2.0-2.8, 3.0-3.9
  if (count < 2 || major >= static_cast<int>(kLastMinor.size()) || minor < 0 || minor > kLastMinor[major]) return std::nullopt;
  return RecordFormat::V2;
}

const char* record_format_name(RecordFormat format) {
  switch (format) {
    case RecordFormat::V0: return "v0";
    case RecordFormat::V1: return "v1";
    case RecordFormat::V2: return "v2";
  }
  return "?";
}

}  // namespace ksim::models
