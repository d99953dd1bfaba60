// Kafka's broker threading model. Always: a connection is muted while a
// request of it is in the broker, so the next one is read only when the
// response has been written (SocketServer's Processor: selector.mute on
// REQUEST_RECEIVED, unmute on RESPONSE_SENT; acks=0 produces have no response
// and unmute at once). A producer's pipelined requests are handled one at a
// time, and those still unread when the client closes the connection are
// never handled. When a hardware profile gives CPU costs
// (BrokerThreading::cores > 0), also:
// - a network thread (num.network.threads, one per connection, chosen
//   round-robin as Kafka's Acceptor does) reads each request and writes
//   each response;
// - a request handler (num.io.threads) handles it;
// - replica fetchers (num.replica.fetchers) append what they fetched, and a
//   single metadata thread applies what the controller sends (with a quorum,
//   what the metadata log's replica fetched, KIP-631), in order. A
//   replica fetcher is a thread of its own: num.replica.fetchers per source
//   broker (AbstractFetcherManager keys its threads by BrokerIdAndFetcherId).
// All of them share the machine's cores (sim/resources/cpu.hpp).
#include <cassert>

#include "models/broker/broker.hpp"
#include "models/broker/broker_fetcher.hpp"
#include "sim/core/simulation.hpp"

namespace ksim::models {

namespace {

SimTime per_byte(double ns_per_byte, std::uint64_t bytes) {
  return static_cast<SimTime>(ns_per_byte * static_cast<double>(bytes));
}

}  // namespace

void Broker::start_threads() {
  const BrokerThreading& t = config_.threading;
  if (t.cores <= 0) return;
  cpu_ = std::make_unique<Cpu>(t.cores);
  network_threads_ = std::make_unique<ThreadPool>(t.num_network_threads, *cpu_);
  io_threads_ = std::make_unique<ThreadPool>(t.num_io_threads, *cpu_);
  fetcher_threads_ = std::make_unique<ThreadPool>(config_.num_replica_fetchers, *cpu_);  // grows with the sources
  metadata_thread_ = std::make_unique<ThreadPool>(1, *cpu_);
  cleaner_.threads = std::make_unique<ThreadPool>(config_.log_cleaner_threads, *cpu_);  // log.cleaner.threads
  mover_threads_ = std::make_unique<ThreadPool>(1, *cpu_);  // ReplicaAlterLogDirsThreads, grown as movers start
}

void Broker::reset_threads() {
  channels_.clear();
  if (!cpu_) return;
  for (ThreadPool* pool : {network_threads_.get(), io_threads_.get(), fetcher_threads_.get(), metadata_thread_.get(),
                           cleaner_.threads.get(), mover_threads_.get()}) {
    pool->reset(now());
  }
  cpu_->reset(now());
}

BrokerCpuUsage Broker::cpu_usage() const {
  if (!cpu_) return {0, 0, 0, 0, 0, 0, 0, follower_fetches_, consumer_fetches_};
  return {cpu_->cores(),
          cpu_->busy_ns(),
          network_threads_->busy_ns(),
          network_threads_->threads(),
          io_threads_->busy_ns(),
          io_threads_->threads(),
          fetcher_threads_->busy_ns() + metadata_thread_->busy_ns() + cleaner_.threads->busy_ns() +
              mover_threads_->busy_ns(),
          follower_fetches_,
          consumer_fetches_};
}

void Broker::on_message(ConnectionId connection, MessagePtr message) {
  if (refusing_requests_ && accepted(connection)) return close(connection);  // not serving yet: refused
  if (!accepted(connection)) {
    if (!cpu_) return dispatch(connection, std::move(message));
    return receive_as_client(connection, std::move(message));
  }
  RequestChannel& channel = channels_[connection];
  channel.waiting.push_back(std::move(message));
  if (serve_once_registered_ && zk_broker_epoch_ < 0) return;  // the processors start once registered
  if (!channel.in_broker) start_request(connection, channel, Unmuted::OnArrival);
}

// ZooKeeper mode, from 2.0: KafkaServer.startup registers the broker (KafkaZkClient.registerBroker), then
// starts the socket server's processors (KAFKA-6772): what came meanwhile is read now, and a push of the
// previous process, queued by a controller that had not seen the restart, is found stale (KIP-380).
void Broker::registered_in_zookeeper(std::int64_t broker_epoch) {
  zk_broker_epoch_ = broker_epoch;
  for (auto& [connection, channel] : channels_) {
    if (!channel.in_broker && !channel.waiting.empty()) start_request(connection, channel, Unmuted::AfterResponse);
  }
}

// A startup that failed on a taken registration: the process exits, closing what waited for it.
void Broker::refuse_requests(bool refusing) {
  refusing_requests_ = refusing;
  std::vector<ConnectionId> waiting;
  for (const auto& [connection, channel] : channels_) {
    if (refusing && accepted(connection) && !channel.waiting.empty()) waiting.push_back(connection);
  }
  for (const ConnectionId connection : waiting) close(connection);
}

// A request of a connection enters the broker: read by its network thread, then handled by an
// io thread. Without CPU costs it is handled at once when it arrives at an idle connection, and
// in an event of its own when the connection is unmuted (not inside the send of a response).
void Broker::start_request(ConnectionId connection, RequestChannel& channel, Unmuted when) {
  assert(!channel.in_broker && !channel.waiting.empty());
  channel.in_broker = true;
  if (!cpu_) {
    if (when == Unmuted::OnArrival) return handle_request(connection);
    set_timer(0, [this, connection] { handle_request(connection); });
    return;
  }
  const BrokerCpuCosts& c = config_.cpu_costs;
  const Message& request = *channel.waiting.front();
  const SimTime read = network_threads_->run(
      now(), c.network_request + per_byte(c.network_ns_per_byte, request.size_bytes()), connection);
  const SimTime handled = io_threads_->run(read, handler_cost(request));
  set_timer(handled - now(), [this, connection] { handle_request(connection); });
}

void Broker::handle_request(ConnectionId connection) {
  auto it = channels_.find(connection);
  if (it == channels_.end() || it->second.waiting.empty()) return;  // the connection closed meanwhile
  MessagePtr request = std::move(it->second.waiting.front());
  it->second.waiting.pop_front();
  const auto* produce = message_if<ProduceRequest>(request.get());
  const bool answered = !(produce && produce->acks == Acks::None);
  dispatch(connection, std::move(request));
  if (!answered) request_done(connection);
}

void Broker::request_done(ConnectionId connection) {
  auto it = channels_.find(connection);
  if (it == channels_.end() || !it->second.in_broker) return;
  it->second.in_broker = false;
  if (!it->second.waiting.empty()) start_request(connection, it->second, Unmuted::AfterResponse);
}

void Broker::on_send(ConnectionId connection, const Message& message) {
  if (!accepted(connection)) return;
  // The response is written by the connection's network thread; the channel is unmuted.
  if (cpu_) {
    const BrokerCpuCosts& c = config_.cpu_costs;
    network_threads_->run(now(), c.network_request + per_byte(c.network_ns_per_byte, message.size_bytes()), connection);
  }
  request_done(connection);
}

// Responses to this broker's own requests: fetched data for a replica fetcher;
// everything else (metadata from the controller, answers from other brokers)
// through one metadata thread, which keeps their order.
void Broker::receive_as_client(ConnectionId connection, MessagePtr message) {
  const BrokerCpuCosts& c = config_.cpu_costs;
  SimTime done = now();
  const bool metadata_log = metadata_bootstrap_ && is_raft_message(*message);  // KIP-631: not a partition fetch
  if (const auto* fetched = metadata_log ? nullptr : message_if<FetchResponse>(message.get())) {
    SimTime cost = c.network_request;
    for (const auto& p : fetched->partitions) {
      cost += c.partition + static_cast<SimTime>(p.batches.size()) * c.batch;
      for (const RecordBatch& b : p.batches) cost += per_byte(c.follower_ns_per_byte, b.bytes);
    }
    const std::optional<std::size_t> thread = fetcher_thread(connection);
    if (thread) fetcher_threads_->grow_to(*thread + 1);  // AbstractFetcherManager starts a source's threads as needed
    done = fetcher_threads_->run(now(), cost, thread);
  } else {
    SimTime cost = 0;
    if (const auto* update = message_if<MetadataUpdate>(message.get())) {
      cost = c.request + static_cast<SimTime>(update->partitions.size()) * c.metadata_partition;
    } else if (const auto* fetched = metadata_log ? message_if<MetadataFetchResponse>(message.get()) : nullptr) {
      cost = c.request + static_cast<SimTime>(fetched->entries.size()) * c.metadata_partition;  // a record each
    }
    done = metadata_thread_->run(now(), cost);
  }
  if (done == now()) return dispatch(connection, std::move(message));
  set_timer(done - now(), [this, connection, m = std::move(message)]() mutable { dispatch(connection, std::move(m)); });
}

// The thread of the replica fetcher whose connection this is: one per
// (source broker, fetcher index), the source brokers other than this one.
std::optional<std::size_t> Broker::fetcher_thread(ConnectionId connection) const {
  for (const auto& f : fetchers_) {
    if (!f->connected || f->connection != connection) continue;
    const auto source = static_cast<std::size_t>(f->leader < id_ ? f->leader : f->leader - 1);
    return source * static_cast<std::size_t>(config_.num_replica_fetchers) + static_cast<std::size_t>(f->index);
  }
  return std::nullopt;
}

// What a request handler spends on a request (Kafka's KafkaApis, ReplicaManager, LogValidator).
SimTime Broker::handler_cost(const Message& request) const {
  const BrokerCpuCosts& c = config_.cpu_costs;
  SimTime cost = c.request;
  if (const auto* produce = message_if<ProduceRequest>(&request)) {
    for (const auto& p : produce->partitions) {
      cost += c.partition + c.batch + static_cast<SimTime>(p.batch.record_count) * c.record +
              per_byte(c.ns_per_byte, p.batch.bytes);
    }
  } else if (const auto* fetch = message_if<FetchRequest>(&request)) {
    cost += static_cast<SimTime>(fetch->partitions.size()) * c.partition;
  }
  return cost;
}

void Broker::channel_closed(ConnectionId connection) { channels_.erase(connection); }

}  // namespace ksim::models
