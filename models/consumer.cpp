#include "models/consumer.hpp"

#include <algorithm>
#include <cassert>

#include "sim/simulation.hpp"

namespace ksim::models {

Consumer::Consumer(Simulation& sim, std::string name, HostId host, std::uint32_t index, ConsumerConfig config,
                   ConsumerWorkload workload, std::shared_ptr<const ClusterDirectory> directory,
                   ConsumptionHistory& history)
    : KafkaClient(sim, std::move(name), host, directory, workload.topic,
                  ClientTimeouts{config.request_timeout, config.retry_backoff, config.reconnect_backoff}),
      index_(index),
      config_(config),
      workload_(std::move(workload)),
      history_(history) {
  if (workload_.partitions.empty()) {
    const std::int32_t count = directory_->topics[static_cast<std::size_t>(workload_.topic)].partitions;
    for (std::int32_t p = 0; p < count; ++p) workload_.partitions.push_back(p);
  }
}

void Consumer::on_start() {
  for (const std::int32_t p : workload_.partitions) partitions_[p] = PartitionState{};
  refresh_metadata();
}

// Without committed offsets (no group yet), a restarted consumer starts
// again from auto.offset.reset.
void Consumer::on_crash(CrashKind) {
  partitions_.clear();
  forget_connections_and_metadata();
  in_process_.clear();
  next_to_process_ = 0;
  processing_ = false;
  retry_pending_ = false;
}

void Consumer::on_message(ConnectionId, MessagePtr message) {
  if (auto* fetch = dynamic_cast<FetchResponse*>(message.get())) {
    handle_fetch(*fetch);
  } else if (auto* metadata = dynamic_cast<MetadataResponse*>(message.get())) {
    apply_metadata(*metadata);
    reset_positions();
    send_fetches();
  } else if (auto* offsets = dynamic_cast<ListOffsetsResponse*>(message.get())) {
    handle_list_offsets(*offsets);
  }
}

// A lost connection fails what was in flight on it; everything is retried after a backoff.
void Consumer::on_connection_closed(ConnectionId connection) {
  connection_lost(connection);
  for (auto& [p, state] : partitions_) {
    state.fetching = false;
    state.resetting = false;
  }
  set_timer(config_.retry_backoff, [this] { refresh_metadata(); });
}

// Sends if the broker is reachable now; otherwise the caller's work is tried again after a backoff.
bool Consumer::send_to(BrokerId broker, MessagePtr request) {
  if (!ensure_connected(broker)) {
    if (!retry_pending_) {  // one retry at a time, however many sends failed
      retry_pending_ = true;
      set_timer(config_.retry_backoff, [this] {
        retry_pending_ = false;
        reset_positions();
        send_fetches();
      });
    }
    return false;
  }
  send(link(broker).connection, std::move(request));
  return true;
}

// auto.offset.reset: ask each leader where its log starts or what its high watermark is.
void Consumer::reset_positions() {
  std::map<BrokerId, std::unique_ptr<ListOffsetsRequest>> requests;
  for (auto& [p, state] : partitions_) {
    if (state.position >= 0 || state.resetting) continue;
    const BrokerId leader = leader_of({workload_.topic, p});
    if (leader == kNoBroker) continue;
    auto& request = requests[leader];
    if (!request) {
      request = std::make_unique<ListOffsetsRequest>();
      request->correlation_id = next_correlation_id();
      request->latest = config_.auto_offset_reset_latest;
    }
    request->partitions.push_back({workload_.topic, p});
    state.resetting = true;
  }
  for (auto& [broker, request] : requests) {
    std::vector<TopicPartition> asked = request->partitions;
    if (!send_to(broker, std::move(request))) {
      for (const TopicPartition tp : asked) partitions_[tp.partition].resetting = false;
    }
  }
}

void Consumer::handle_list_offsets(const ListOffsetsResponse& response) {
  bool retry = false;
  for (const auto& answer : response.partitions) {
    const auto it = partitions_.find(answer.partition.partition);
    if (it == partitions_.end() || !it->second.resetting) continue;
    it->second.resetting = false;
    if (answer.error == Error::None) {
      it->second.position = answer.offset;
    } else {
      retry = true;
    }
  }
  if (retry) set_timer(config_.retry_backoff, [this] { refresh_metadata(); });
  send_fetches();
}

// One fetch per leader for the partitions with a position and nothing buffered.
void Consumer::send_fetches() {
  std::map<BrokerId, std::unique_ptr<FetchRequest>> requests;
  for (auto& [p, state] : partitions_) {
    if (state.position < 0 || state.fetching || !state.buffer.empty()) continue;
    const BrokerId leader = leader_of({workload_.topic, p});
    if (leader == kNoBroker) continue;
    auto& request = requests[leader];
    if (!request) {
      request = std::make_unique<FetchRequest>();
      request->correlation_id = next_correlation_id();
      request->replica_id = kNoBroker;  // a consumer
      request->max_wait = config_.fetch_max_wait;
      request->min_bytes = config_.fetch_min_bytes;
      request->max_bytes = config_.fetch_max_bytes;
      request->partition_max_bytes = config_.max_partition_fetch_bytes;
    }
    request->partitions.push_back({{workload_.topic, p}, state.position, leader_epoch_of({workload_.topic, p}), -1});
    state.fetching = true;
    state.fetch_correlation = request->correlation_id;
  }
  for (auto& [broker, request] : requests) {
    const std::int64_t correlation = request->correlation_id;
    if (!send_to(broker, std::move(request))) {
      for (auto& [p, state] : partitions_) {
        if (state.fetching && state.fetch_correlation == correlation) state.fetching = false;
      }
      continue;
    }
    set_timer(config_.request_timeout + config_.fetch_max_wait, [this, correlation] {
      for (auto& [p, state] : partitions_) {
        if (state.fetching && state.fetch_correlation == correlation) state.fetching = false;
      }
      send_fetches();
    });
  }
}

void Consumer::handle_fetch(const FetchResponse& response) {
  bool refresh = false;
  for (const auto& data : response.partitions) {
    const auto it = partitions_.find(data.partition.partition);
    if (it == partitions_.end()) continue;
    PartitionState& state = it->second;
    if (!state.fetching || state.fetch_correlation != response.correlation_id) continue;  // stale
    state.fetching = false;
    switch (data.error) {
      case Error::None: break;
      case Error::OffsetOutOfRange: state.position = -1; continue;  // auto.offset.reset
      default: refresh = true; continue;
    }
    for (const RecordBatch& batch : data.batches) {
      for (std::int32_t i = 0; i < batch.record_count; ++i) {
        const Offset offset = batch.base_offset + i;
        if (offset < state.position) continue;  // a batch may start before the position
        state.buffer.push_back({offset, batch.writer, batch.first_record + static_cast<std::uint64_t>(i)});
        state.position = offset + 1;
      }
    }
  }
  if (refresh) set_timer(config_.retry_backoff, [this] { refresh_metadata(); });
  reset_positions();
  send_fetches();
  poll();
}

// The application's poll(): up to max.poll.records, taken from the
// partitions in turn, then processed one after another.
void Consumer::poll() {
  if (processing_) return;
  in_process_.clear();
  next_to_process_ = 0;
  bool took = true;
  while (took && static_cast<int>(in_process_.size()) < config_.max_poll_records) {
    took = false;
    for (auto& [p, state] : partitions_) {
      if (state.buffer.empty() || static_cast<int>(in_process_.size()) >= config_.max_poll_records) continue;
      const Buffered b = state.buffer.front();
      state.buffer.pop_front();
      in_process_.push_back({index_, {workload_.topic, p}, b.offset, b.writer, b.record, 0});
      took = true;
    }
  }
  if (in_process_.empty()) return;
  processing_ = true;
  send_fetches();  // partitions drained by this poll fetch again while it is processed
  process_next();
}

void Consumer::process_next() {
  if (next_to_process_ == in_process_.size()) {
    processing_ = false;
    set_timer(0, [this] { poll(); });
    return;
  }
  set_timer(workload_.processing_time.sample(rng()), [this] {
    ProcessedRecord record = in_process_[next_to_process_++];
    record.at = now();
    history_.processed.push_back(record);
    ++processed_;
    process_next();
  });
}

}  // namespace ksim::models
