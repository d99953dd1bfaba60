#include "sim/observe/trace.hpp"

#include <cassert>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ksim {

void Trace::mix(std::uint64_t value) {
  // A multiply-xorshift step (as in wyhash/murmur finalisers): cheap and well mixed.
  hash_ ^= value + 0x9E3779B97F4A7C15ULL + (hash_ << 6) + (hash_ >> 2);
  hash_ *= 0xFF51AFD7ED558CCDULL;
  hash_ ^= hash_ >> 33;
}

void Trace::mix(std::string_view text) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  mix(h);
}

void Trace::record(SimTime time, std::string_view node, std::string_view kind,
                   std::initializer_list<TraceField> fields) {
  ++records_;
  mix(static_cast<std::uint64_t>(time));
  mix(node);
  mix(kind);
  for (const TraceField& f : fields) {
    assert(f.key != "t_ns" && f.key != "node" && f.key != "kind" && "field names the record's own keys");
    mix(f.key);
    if (f.is_text) {
      mix(f.text);
    } else {
      mix(static_cast<std::uint64_t>(f.number));
    }
  }
  if (out_) write_json(time, node, kind, fields);
}

void Trace::write_json(SimTime time, std::string_view node, std::string_view kind,
                       std::initializer_list<TraceField> fields) {
  nlohmann::ordered_json line;
  line["t_ns"] = time;
  line["node"] = node;
  line["kind"] = kind;
  for (const TraceField& f : fields) {
    if (f.is_text) {
      line[std::string(f.key)] = f.text;
    } else {
      line[std::string(f.key)] = f.number;
    }
  }
  *out_ << line.dump() << '\n';
}

std::string format_hash(std::uint64_t hash) { return fmt::format("{:016x}", hash); }

}  // namespace ksim
