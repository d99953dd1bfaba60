#pragma once
// The structured trace: every significant event (time, node, kind, key
// fields) feeds a running 64-bit hash, and can be written as JSON lines.
// Two runs with the same seed and build produce the same hash.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <ostream>
#include <string_view>
#include <type_traits>
#include <vector>

#include "sim/events/time.hpp"

namespace ksim {

struct TraceField {
  std::string_view key;
  std::string_view text;
  std::int64_t number = 0;
  bool is_text = false;

  template <class Int, class = std::enable_if_t<std::is_integral_v<Int>>>
  TraceField(std::string_view k, Int n) : key(k), number(static_cast<std::int64_t>(n)) {}
  TraceField(std::string_view k, std::string_view s) : key(k), text(s), is_text(true) {}
  TraceField(std::string_view k, const char* s) : TraceField(k, std::string_view(s)) {}
};

class Trace {
 public:
  // Also write every record as one JSON object per line (nullptr to stop).
  void write_to(std::ostream* out) { out_ = out; }

  void record(SimTime time, std::string_view node, std::string_view kind,
              std::initializer_list<TraceField> fields = {});

  std::uint64_t hash() const { return hash_; }
  std::uint64_t records() const { return records_; }

 private:
  void mix(std::uint64_t value);
  void mix(std::string_view text);
  void write_json(SimTime time, std::string_view node, std::string_view kind,
                  std::initializer_list<TraceField> fields);

  std::uint64_t hash_ = 0x84222325CBF29CE4ULL;
  std::uint64_t records_ = 0;
  std::ostream* out_ = nullptr;
};

std::string format_hash(std::uint64_t hash);  // 16 lower-case hex digits

}  // namespace ksim
