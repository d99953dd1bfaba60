#pragma once
// A replica fetcher of a broker (ReplicaFetcherThread): one per (source
// broker, fetcher index), num.replica.fetchers of them per source; each
// fetches all its partitions from that leader in one request at a time.
#include <vector>

#include "models/broker.hpp"

namespace ksim::models {

struct Broker::Fetcher {
  BrokerId leader = kNoBroker;
  int index = 0;  // partition hash % num.replica.fetchers
  std::vector<TopicPartition> partitions;
  ConnectionId connection = 0;
  bool connected = false;
  bool in_flight = false;
  bool backing_off = false;
  std::int64_t correlation_id = -1;
  TimerId request_timeout;
};

}  // namespace ksim::models
