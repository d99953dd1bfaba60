// The consumer's fetcher (Kafka's AbstractFetch): one fetch per leader at a
// time, each in a KIP-227 fetch session, and fetched records buffered until
// poll() returns them.
#include <algorithm>
#include <set>

#include "models/client/consumer/consumer.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

// One fetch per leader for the partitions with a valid position and nothing buffered.
// Kafka's fetcher: each leader without a fetch in flight gets one for its
// partitions whose position is valid and whose fetched records poll() has
// returned. Correlation ids go out in partition order, requests in broker order.
void Consumer::send_fetches() {
  const FetchPlan& plan = fetch_plan();
  struct Fetch {
    BrokerId broker;
    std::unique_ptr<FetchRequest> request;
    std::vector<PartitionState*> states;
  };
  std::vector<Fetch> fetches;
  for (std::size_t broker = 0; broker < plan.size(); ++broker) {
    if (fetch_in_flight_.count(static_cast<BrokerId>(broker))) continue;
    Fetch fetch{static_cast<BrokerId>(broker), nullptr, {}};
    const auto& partitions = plan[broker];
    const auto buffered = [&](std::size_t i) { return buffered_.test(static_cast<std::size_t>(partitions[i].first)); };
    for (std::size_t i = 0; i < partitions.size(); ++i) {
      // The states are scattered: ask early for those the bitset does not rule out.
      constexpr std::size_t kAhead = 8;
      if (i + kAhead < partitions.size() && !buffered(i + kAhead)) __builtin_prefetch(partitions[i + kAhead].second);
      if (buffered(i)) continue;  // records not yet returned by poll(): not fetched
      const auto [p, state] = partitions[i];
      if (state->position_state != PositionState::Valid || fetching(*state)) continue;
      if (!fetch.request) fetch.request = new_fetch_request();
      // KIP-320: the fetch carries the leader epoch the position was validated in (-1 before 2.1: no fencing).
      const Epoch epoch = config_.mechanisms.has(Mechanism::ConsumerEpochFencing) ? state->validated_epoch : -1;
      fetch.request->partitions.push_back({{workload_.topic, p}, state->position, epoch, -1});
      fetch.states.push_back(state);
    }
    if (fetch.request) fetches.push_back(std::move(fetch));
  }
  std::vector<Fetch*> by_first_partition;
  for (Fetch& f : fetches) by_first_partition.push_back(&f);
  std::sort(by_first_partition.begin(), by_first_partition.end(), [](const Fetch* a, const Fetch* b) {
    return a->request->partitions.front().partition < b->request->partitions.front().partition;
  });
  for (Fetch* f : by_first_partition) f->request->correlation_id = next_correlation_id();
  for (Fetch& f : fetches) {
    const std::int64_t correlation = f.request->correlation_id;
    for (PartitionState* state : f.states) state->request_correlation = correlation;
    if (!send_fetch(f.broker, std::move(f.request))) continue;
    fetch_in_flight_[f.broker] = correlation;
    set_timer(config_.request_timeout + config_.fetch_max_wait, [this, correlation, broker = f.broker] {
      const auto b = static_cast<std::size_t>(broker);
      const bool unanswered = fetch_in_flight(correlation);
      if (unanswered && b < fetch_sessions_.size()) fetch_sessions_[b].close();  // no answer
      fetch_answered(correlation);  // its partitions are fetched again
      // NetworkClient.handleTimedOutRequests: the connection is closed with it.
      if (unanswered && link(broker).connected) disconnect_timed_out(link(broker).connection);
      send_fetches();
    });
  }
}

int Consumer::requests_in_flight(BrokerId broker) const {
  return KafkaClient::requests_in_flight(broker) + (fetch_in_flight_.contains(broker) ? 1 : 0);
}

// As send_to(), in the broker's fetch session: the request goes full or incremental (KIP-227).
bool Consumer::send_fetch(BrokerId broker, std::unique_ptr<FetchRequest> request) {
  const auto connection = connection_to(broker);
  if (!connection) return false;
  const auto b = static_cast<std::size_t>(broker);
  if (fetch_sessions_.size() <= b) fetch_sessions_.resize(b + 1);
  fetch_sessions_[b].prepare(*request, *connection);
  send(*connection, std::move(request));
  return true;
}

std::unique_ptr<FetchRequest> Consumer::new_fetch_request() const {
  auto request = std::make_unique<FetchRequest>();
  request->replica_id = kNoBroker;  // a consumer
  request->max_wait = config_.fetch_max_wait;
  request->min_bytes = config_.fetch_min_bytes;
  request->max_bytes = config_.fetch_max_bytes;
  request->partition_max_bytes = config_.max_partition_fetch_bytes;
  request->read_committed = config_.read_committed;
  return request;
}

const Consumer::FetchPlan& Consumer::fetch_plan() {
  if (fetch_plan_metadata_ == metadata_version() && fetch_plan_assignment_ == assignment_version_) return fetch_plan_;
  fetch_plan_metadata_ = metadata_version();
  fetch_plan_assignment_ = assignment_version_;
  fetch_plan_.assign(directory().broker_nodes.size(), {});
  for (auto& [p, state] : partitions_) {
    const BrokerId leader = leader_of({workload_.topic, p});
    if (leader != kNoBroker) fetch_plan_[static_cast<std::size_t>(leader)].emplace_back(p, &state);
  }
  return fetch_plan_;
}

Consumer::PartitionState* Consumer::assigned(std::int32_t partition) {
  if (assigned_index_version_ != assignment_version_) {
    assigned_index_version_ = assignment_version_;
    assigned_index_.assign(buffered_.size(), nullptr);
    for (auto& [p, state] : partitions_) assigned_index_.at(static_cast<std::size_t>(p)) = &state;
  }
  const auto index = static_cast<std::size_t>(partition);
  return index < assigned_index_.size() ? assigned_index_[index] : nullptr;
}

void Consumer::fetch_answered(std::int64_t correlation) {
  std::erase_if(fetch_in_flight_, [&](const auto& entry) { return entry.second == correlation; });
}

bool Consumer::fetch_in_flight(std::int64_t correlation) const {
  if (correlation < 0) return false;
  for (const auto& [broker, c] : fetch_in_flight_) {
    if (c == correlation) return true;
  }
  return false;
}

void Consumer::handle_fetch(const FetchResponse& response) {
  // Partitions the response leaves out had nothing new (KIP-227); a response
  // to a fetch given up on, or to one for an old position, is ignored.
  const bool awaited = fetch_in_flight(response.correlation_id);
  fetch_answered(response.correlation_id);
  bool refresh = false;
  for (const auto& data : response.partitions) {
    if (!awaited) break;
    PartitionState* const found = assigned(data.partition.partition);
    if (!found) continue;
    PartitionState& state = *found;
    if (state.request_correlation != response.correlation_id) continue;  // stale
    switch (data.error) {
      case Error::None: break;
      case Error::OffsetOutOfRange:
        state.reset_cause = PositionResetCause::OffsetOutOfRange;
        set_position_state(state, PositionState::NeedsReset);
        continue;
      default:  // NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, ...
        refresh = true;
        // KIP-951 (AbstractFetch.handleFetchSuccess): take the new leader from the answer;
        // update_positions below validates the position on it (maybeValidatePositionForCurrentLeader).
        if (config_.mechanisms.has(Mechanism::LeaderDiscovery) && data.current_leader != kNoBroker &&
            data.current_leader_epoch >= 0) {
          update_partition_leadership(data.partition, data.current_leader, data.current_leader_epoch);
        }
        continue;
    }
    // read_committed: skip the records of aborted transactions (Kafka's
    // Fetcher: an aborted producer's batches are skipped from the first offset
    // of its aborted transaction until its abort marker). Markers are never returned.
    std::vector<std::pair<Offset, ProducerId>> aborted;  // by first offset
    for (const auto& [producer, first] : data.aborted_transactions) aborted.emplace_back(first, producer);
    std::sort(aborted.begin(), aborted.end());
    std::size_t next_aborted = 0;
    std::set<ProducerId> skipping;
    for (const RecordBatch& batch : data.batches) {
      // Kafka's consumeAbortedTransactionsUpTo: every batch, markers included, first.
      while (next_aborted < aborted.size() && aborted[next_aborted].first <= batch.last_offset()) {
        skipping.insert(aborted[next_aborted++].second);
      }
      if (batch.is_control()) {
        if (batch.control == ControlType::Abort) skipping.erase(batch.producer_id);
        if (batch.next_offset() > state.position) state.position = batch.next_offset();
        continue;
      }
      if (config_.read_committed && batch.transactional) {
        if (skipping.contains(batch.producer_id)) {
          if (batch.next_offset() > state.position) state.position = batch.next_offset();
          continue;
        }
      }
      for (std::int32_t i = 0; i < batch.record_count; ++i) {
        const Offset offset = batch.base_offset + i;
        if (offset < state.position) continue;  // a batch may start before the position
        const auto bytes = static_cast<std::uint32_t>(batch.bytes / static_cast<std::uint64_t>(batch.record_count));
        state.buffer.push_back({offset, batch.leader_epoch, batch.writer, batch.first_record + static_cast<std::uint64_t>(i),
                                bytes, batch.create_time});
        state.buffered_bytes += bytes;
        buffered_bytes_ += bytes;
        state.position = offset + 1;
      }
      if (!state.buffer.empty()) buffered_.set(static_cast<std::size_t>(data.partition.partition));
    }
  }
  fetch_buffer_peak_bytes_ = std::max(fetch_buffer_peak_bytes_, buffered_bytes_);
  // FetchCollector.handleInitializeErrors: a metadata update at once (as the
  // client's metadata backoff allows), not after retry.backoff.ms.
  if (refresh) refresh_metadata();
  update_positions();
  // Records wait for the application's poll(), which fetches again once it has
  // drained them (Kafka's consumer sends fetches from poll(), for partitions
  // with nothing buffered); an empty answer is fetched again at once.
  if (buffered_.none()) {
    send_fetches();
  }
  wake_app();
}

}  // namespace ksim::models
