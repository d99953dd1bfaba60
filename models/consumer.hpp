#pragma once
// A Kafka consumer with manually assigned partitions (KafkaConsumer.assign):
// fetches from partition leaders (fetch.min.bytes, fetch.max.wait.ms,
// max.partition.fetch.bytes, fetch.max.bytes), reads only up to the high
// watermark, keeps a position per partition (auto.offset.reset when it has
// none), and runs an application poll loop: up to max.poll.records per
// poll, each record taking a processing time. Every record processed is
// recorded for the checker. Consumer groups, with their coordinator and
// committed offsets, build on this (issue 4).
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "models/broker.hpp"
#include "models/kafka_client.hpp"
#include "models/kafka_messages.hpp"
#include "sim/distribution.hpp"
#include "sim/node.hpp"

namespace ksim::models {

struct ConsumerConfig {
  std::uint64_t fetch_min_bytes = 1;                 // fetch.min.bytes
  SimTime fetch_max_wait = milliseconds(500);        // fetch.max.wait.ms
  std::uint64_t max_partition_fetch_bytes = 1048576; // max.partition.fetch.bytes
  std::uint64_t fetch_max_bytes = 52428800;          // fetch.max.bytes
  int max_poll_records = 500;                        // max.poll.records
  bool auto_offset_reset_latest = true;              // auto.offset.reset: latest (or earliest)
  SimTime request_timeout = seconds(30);             // request.timeout.ms
  SimTime retry_backoff = milliseconds(100);         // retry.backoff.ms
  SimTime reconnect_backoff = milliseconds(50);      // reconnect.backoff.ms
};

struct ConsumerWorkload {
  std::int32_t topic = 0;
  std::vector<std::int32_t> partitions;  // assigned; empty: all of the topic's
  Distribution processing_time = Distribution::constant(0);  // per record
};

// One record as the application processed it.
struct ProcessedRecord {
  std::uint32_t consumer = 0;
  TopicPartition partition;
  Offset offset = 0;
  std::uint32_t writer = 0;
  std::uint64_t record = 0;
  SimTime at = 0;
};

struct ConsumptionHistory {
  std::vector<ProcessedRecord> processed;
};

class Consumer final : public KafkaClient {
 public:
  Consumer(Simulation& sim, std::string name, HostId host, std::uint32_t index, ConsumerConfig config,
           ConsumerWorkload workload, std::shared_ptr<const ClusterDirectory> directory, ConsumptionHistory& history);

  std::uint64_t records_processed() const { return processed_; }

 private:
  struct Buffered {
    Offset offset;
    std::uint32_t writer;
    std::uint64_t record;
  };
  struct PartitionState {
    Offset position = -1;  // next offset to read; -1: unknown (auto.offset.reset)
    std::deque<Buffered> buffer;
    bool fetching = false;
    bool resetting = false;
    std::int64_t fetch_correlation = -1;
  };

  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;

  void poll();
  void process_next();
  void send_fetches();
  void handle_fetch(const FetchResponse& response);
  void reset_positions();
  void handle_list_offsets(const ListOffsetsResponse& response);
  bool send_to(BrokerId broker, MessagePtr request);

  std::uint32_t index_;
  ConsumerConfig config_;
  ConsumerWorkload workload_;
  ConsumptionHistory& history_;
  std::uint64_t processed_ = 0;

  // process state
  std::map<std::int32_t, PartitionState> partitions_;
  bool processing_ = false;
  bool retry_pending_ = false;  // a retry of failed sends is scheduled
  std::vector<ProcessedRecord> in_process_;  // this poll's records, processed one after another
  std::size_t next_to_process_ = 0;
};

}  // namespace ksim::models
