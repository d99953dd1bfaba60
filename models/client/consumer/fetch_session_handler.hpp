#pragma once
// A consumer's side of a KIP-227 fetch session with one leader (Kafka's
// FetchSessionHandler): the partitions the leader holds from the previous
// request, so that the next request sends only the partitions added or
// changed since, and the ids of those it drops. A partition with records
// still buffered is not fetched, so it is dropped from the session and
// added back later, as Kafka's consumer does. ksim's requests still hold
// every partition of the fetch; the handler works out what goes on the wire.
#include <vector>

#include "models/protocol/kafka_messages.hpp"

namespace ksim::models {

class FetchSessionHandler {
 public:
  // Marks the request full (a new session) or incremental on `connection`,
  // counts what it leaves off the wire, and takes it as the session.
  // Its partitions are in increasing order.
  void prepare(FetchRequest& request, ConnectionId connection);
  // The request failed or its connection closed: the next one is full.
  void close();

 private:
  bool open_ = false;
  ConnectionId connection_ = 0;
  std::vector<FetchRequest::PartitionData> partitions_;  // the session, in increasing partition order
};

}  // namespace ksim::models
