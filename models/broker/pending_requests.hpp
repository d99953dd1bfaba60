#pragma once
// What a broker holds while a request waits (its purgatories): a produce
// waiting for acks=all, a fetch waiting for data, a coordinator's write to
// __consumer_offsets waiting for the high watermark.
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "models/protocol/kafka_messages.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct PendingProduce {  // a produce request in the acks=all purgatory
  ConnectionId connection;
  std::unique_ptr<ProduceResponse> response;
  std::vector<std::pair<std::size_t, Offset>> waiting;  // response index -> required offset
  TimerId timeout;
  SimTime not_before = 0;  // the appends returned then (page cache full, fsync)
};
struct PendingFetch {  // a follower fetch waiting for data (replica.fetch.wait.max.ms)
  ConnectionId connection;
  std::unique_ptr<FetchRequest> request;
  TimerId timeout;
  std::uint64_t appended_bytes = 0;  // since it parked (consumer_fetch_completes_on_append)
};
struct CoordinatorAppend {  // a __consumer_offsets write waiting for the high watermark
  TopicPartition tp;
  Offset required = 0;
  std::function<void(Error)> done;
  TimerId timeout;
};

}  // namespace ksim::models
