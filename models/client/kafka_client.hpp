#pragma once
// What every Kafka client (producer, consumer) shares, as the Java clients'
// NetworkClient and Metadata do: a connection per broker with a reconnect
// backoff, and the cluster metadata: partition leaders, refreshed from any
// broker (bootstrap.servers in turn) with request.timeout.ms, never going
// back to an older leader epoch, and backing off between refreshes as
// Kafka's Metadata.timeToAllowUpdate does.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/events/model_event_bus.hpp"
#include "models/protocol/cluster_directory.hpp"
#include "models/protocol/kafka_messages.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

struct ClientTimeouts {
  SimTime request_timeout = seconds(30);        // request.timeout.ms
  SimTime retry_backoff = milliseconds(100);    // retry.backoff.ms
  SimTime reconnect_backoff = milliseconds(50); // reconnect.backoff.ms
  SimTime retry_backoff_max = seconds(1);       // retry.backoff.max.ms (KIP-580; = retry.backoff.ms: before 3.7)
  SimTime reconnect_backoff_max = seconds(1);   // reconnect.backoff.max.ms (KIP-144)
  // socket.connection.setup.timeout.ms (KIP-601, 2.7; before, the kernel's 127 s): Node::set_connect_timeout.
  SimTime connection_setup_timeout = seconds(10);
};

class KafkaClient : public Node {
 public:
  // request.timeout.ms and the backoffs the network client runs with now.
  const ClientTimeouts& timeouts() const { return timeouts_; }

 protected:
  KafkaClient(Simulation& sim, std::string name, HostId host, std::shared_ptr<const ClusterDirectory> directory,
              ModelEventBus& events, std::int32_t main_topic, ClientTimeouts timeouts);
  void publish(const ModelEvent& event) { events_.publish(*this, event); }

  // A broker's connection as ClusterConnectionStates tracks it: opened
  // (connecting or established), established (NetworkClient.isReady), and the
  // reconnect backoff after a close, exponential in the failed attempts since
  // the last established connection (KIP-144).
  struct BrokerLink {
    ConnectionId connection = 0;
    bool connected = false;    // a connection is open: connecting or established
    bool established = false;  // its handshake completed
    int in_flight = 0;
    int failed_attempts = 0;   // closes since the last established connection
    SimTime retry_at = 0;      // the reconnect backoff after a close
    SimTime last_connect_attempt = 0;  // ClusterConnectionStates.lastConnectAttemptMs (0: never)
  };
  BrokerLink& link(BrokerId broker) { return links_[broker]; }
  const std::map<BrokerId, BrokerLink>& links() const { return links_; }
  // Connects to the broker unless its reconnect backoff is running; false then.
  // Requests sent on a connection still connecting wait for its handshake
  // (as ConsumerNetworkClient's unsent requests do) and fail if it is refused.
  bool ensure_connected(BrokerId broker);
  // The link closed (by the broker, a refusal, or the client): its reconnect backoff starts.
  void link_closed(BrokerLink& link);
  // A connection the client opened is established; the subclass hears of it in on_link_ready.
  void on_connected(ConnectionId connection) final;
  virtual void on_link_ready(BrokerId /*broker*/) {}
  // NetworkClient.handleTimedOutRequests: a request that timed out closes its
  // connection, and every request in flight on it fails as on a disconnect
  // (the subclass's on_connection_closed).
  void disconnect_timed_out(ConnectionId connection);

  // NetworkClient.leastLoadedNode, where metadata and FindCoordinator requests
  // go: from a random offset among the brokers, the first ready one with no
  // request in flight; else the ready one with the fewest; else one still
  // connecting; else, of those not backing off, the one whose last connect
  // attempt is oldest; none when every broker is backing off.
  std::optional<BrokerId> least_loaded_broker();
  // The requests in flight to a broker as the client counts them (InFlightRequests.count).
  virtual int requests_in_flight(BrokerId broker) const;
  // InFlightRequests.canSendMore on an established connection: below the
  // client's max in-flight requests (the consumer's fixed 100).
  virtual bool can_send_more(BrokerId broker) const;

  void refresh_metadata();
  void refresh_metadata_for_new_topic();
  // The application named the client's topic (a producer's first send()): asked for at once.
  void name_main_topic();
  // Applies a Metadata response; asks again later while a partition has no leader.
  void apply_metadata(const MetadataResponse& response);
  // Metadata.updatePartitionLeadership (KIP-951): a leader a broker named,
  // taken if its epoch is newer than the one known.
  void update_partition_leadership(TopicPartition tp, BrokerId leader, Epoch epoch);
  BrokerId leader_of(TopicPartition tp) const;
  Epoch leader_epoch_of(TopicPartition tp) const;
  // Bumped whenever a leader or leader epoch the client knows changes.
  std::uint64_t metadata_version() const { return metadata_version_; }
  // A broker answered UNKNOWN_TOPIC_OR_PARTITION for the client's own topic,
  // and the client knows none of its partitions: it is not created yet.
  bool main_topic_missing() const { return main_topic_missing_; }
  // A partition of the client's own topic is in its metadata.
  bool main_topic_known() const { return main_topic_known_; }
  // The brokers whose connection this was: marked down with a backoff. Asks
  // for a metadata update, as any disconnect does in NetworkClient.
  std::vector<BrokerId> connection_lost(ConnectionId connection);
  void forget_connections_and_metadata();  // on a crash

  // A FindCoordinator for `key` (a group, or with `transaction` a transactional id) to the least
  // loaded broker (AbstractCoordinator.lookupCoordinator; the producer's Sender for its
  // TransactionManager): its correlation id and connection; nullopt when none is reachable now.
  std::optional<std::pair<std::int64_t, ConnectionId>> send_find_coordinator(const std::string& key,
                                                                            bool transaction = false);

  // A restarted process with other configs (a consumer's restart_config): from its start on.
  void set_timeouts(ClientTimeouts timeouts) { timeouts_ = timeouts; }

  const ClusterDirectory& directory() const { return *directory_; }
  std::int64_t next_correlation_id() { return next_correlation_id_++; }

  std::shared_ptr<const ClusterDirectory> directory_;
  ModelEventBus& events_;
  // Its metadata requests let the broker create a topic it lacks (auto.create.topics.enable):
  // a producer's always, a consumer's with allow.auto.create.topics (ConsumerMetadata).
  bool allow_auto_topic_creation_ = true;
  // Its metadata requests name its own topic: a consumer's from its subscribe(); a
  // producer's once send() named it (ProducerMetadata.add; before, it asks for no topic).
  bool main_topic_named_ = true;
  std::map<BrokerId, BrokerLink> links_;

 private:
  ClientTimeouts timeouts_;
  std::int32_t main_topic_;
  std::map<TopicPartition, PartitionState> metadata_;
  std::vector<BrokerId> main_topic_leaders_;  // a fast path for leader_of on the client's own topic
  std::vector<Epoch> main_topic_epochs_;      // and for leader_epoch_of
  bool metadata_in_flight_ = false;
  ConnectionId metadata_connection_ = 0;  // the connection the metadata request in flight went on
  bool metadata_awaits_connection_ = false;  // its connection is still connecting: not sent yet
  std::uint64_t metadata_version_ = 0;
  bool main_topic_known_ = false;    // a partition of it is in metadata_
  bool main_topic_missing_ = false;  // see main_topic_missing()
  // Kafka's Metadata.timeToAllowUpdate: a refresh waits
  // ExponentialBackoff(retry.backoff.ms, 2, retry.backoff.max.ms, 0.2) of the
  // consecutive answers that raised no leader epoch (equivalentResponseCount)
  // after the last answer (lastRefreshMs).
  SimTime metadata_refresh_allowed_at();
  void send_metadata_request();  // the one in flight, on metadata_connection_
  SimTime last_metadata_update_ = kNever;
  int equivalent_responses_ = 0;
  RandomStream metadata_rng_;  // the backoff's jitter
  RandomStream reconnect_rng_;  // the reconnect backoff's jitter
  RandomStream least_loaded_rng_;  // leastLoadedNode's random offset (NetworkClient.randOffset)
  bool metadata_refresh_scheduled_ = false;
  TimerId metadata_refresh_timer_;
  std::int64_t metadata_correlation_ = -1;
  std::int64_t next_correlation_id_ = 0;
};

}  // namespace ksim::models
