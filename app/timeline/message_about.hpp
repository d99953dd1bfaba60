#pragma once
// What a message between nodes says about one partition, for the spacetime
// diagram: the Kafka messages that carry partitions (Produce, Fetch,
// AlterPartition, ListOffsets and their responses) name what they carry of
// it; the others carry none.
#include <optional>
#include <string>

#include "models/protocol/kafka_types.hpp"
#include "sim/network/message.hpp"

namespace ksim::app::timeline {

// With `partition`: nullopt when the message does not carry it, else what it
// says of it ("offsets 120-159", "fetch from 120", "ISR [0, 2]"); without: the
// message's size. `message` must be a Kafka message when `partition` is given.
std::optional<std::string> message_about(const Message& message, std::optional<models::TopicPartition> partition);

}  // namespace ksim::app::timeline
