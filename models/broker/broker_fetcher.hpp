#pragma once
// A replica fetcher of a broker (ReplicaFetcherThread): one per (source
// broker, fetcher index), num.replica.fetchers of them per source; each
// fetches all its partitions from that leader in one request at a time.
#include <map>
#include <set>
#include <vector>

#include "models/broker/broker.hpp"

namespace ksim::models {

struct Broker::Fetcher {
  BrokerId leader = kNoBroker;
  int index = 0;  // partition hash % num.replica.fetchers
  // What the next request asks for each partition (KIP-227: the session's
  // partitions, in order; kept up to date as fetched data is applied).
  std::vector<FetchRequest::PartitionData> partitions;
  // KIP-227: the leader holds this fetcher's session (a request went on this
  // connection): requests carry only what changed since the previous one.
  bool session_open = false;
  bool same_partitions = false;  // the list is as in the previous request (the leader's economy)
  std::size_t altered = 0;       // partitions added or whose fetch state changed since the last request
  std::size_t forgotten = 0;     // partitions removed since the last request
  ConnectionId connection = 0;
  bool connected = false;
  bool in_flight = false;
  // Partitions left out of requests until a time (AbstractFetcherThread's
  // delayPartitions: replica.fetch.backoff.ms after an error or a failed request).
  struct Delay {
    SimTime until = 0;
    bool left_out = false;  // a request went without it: the session forgot it (KIP-227)
  };
  std::map<TopicPartition, Delay> delayed;
  // Partitions added again (a new fetch state) while a request was in flight:
  // its answer for them is stale (AbstractFetcherThread.processFetchRequest
  // processes a partition only while its fetch state is the one requested).
  std::set<TopicPartition> readded_in_flight;
  SimTime wake_at = kNever;  // a timer sends the next request when the first delay ends
  TimerId wake;
  // Its thread is still in the last response's appends (a write held by the
  // page cache's dirty limit, an fsync of flush.messages): as Kafka's
  // fetcher thread, it sends the next request once they return.
  bool appending = false;
  TimerId appended;  // ends `appending`
  std::int64_t correlation_id = -1;
  TimerId request_timeout;
};

}  // namespace ksim::models
