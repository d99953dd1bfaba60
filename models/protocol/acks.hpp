#pragma once
// The producer's acks: how many replicas must have a write before the leader
// answers it. The values are the protocol's (ProduceRequest's int16 acks).
#include <cstdint>
#include <string_view>

namespace ksim::models {

enum class Acks : std::int16_t {
  None = 0,    // acks=0: no answer at all
  Leader = 1,  // acks=1: once the leader has appended it
  All = -1,    // acks=all (-1): once every replica in the ISR has it (the high watermark passed it)
};

// As the acks config is written: "0", "1" or "all".
std::string_view to_string(Acks acks);

}  // namespace ksim::models
