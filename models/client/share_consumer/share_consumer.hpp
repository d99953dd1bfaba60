#pragma once
// A share consumer (KIP-932's KafkaShareConsumer, ShareConsumerImpl) and the
// application around it: a member of a share group, which many members read
// together, record by record, with no partition owned by anyone.
//
// The client: finds the group's coordinator, joins and heartbeats with
// ShareGroupHeartbeat (ShareHeartbeatRequestManager; the coordinator assigns
// every partition to every member), and fetches with ShareFetch from each
// partition leader (ShareConsumeRequestManager): the leader acquires records
// for it under acquisition locks. Acknowledgements ride on the next
// ShareFetch to that leader, or go in a ShareAcknowledge when a fetch is
// already waiting there or the application commits (commitSync).
//
// The application: a poll loop taking up to max.poll.records records,
// processing each for its processing time, then acknowledging them:
// share.acknowledgement.mode=implicit (the default) accepts every record of
// a poll; explicit acknowledges each record itself: ACCEPT, or for a poison
// record (one the application fails on every time) REJECT or RELEASE.
// close() acknowledges what is pending, closes the share sessions (the
// leaders release what the member still holds) and leaves the group.
//
// Simplifications (docs/kafka-model.md, "Share groups"): no share session
// epochs (every ShareFetch lists its partitions); one ShareFetch in flight
// per leader, sent when the application has nothing buffered; no client-side
// check of lock expiry (Kafka's client has none either before 4.2's
// renew-acknowledge); no request timeouts besides lost connections.
#include <map>
#include <string>
#include <vector>

#include "models/client/kafka_client.hpp"
#include "models/history/share_history.hpp"
#include "models/protocol/share_group_messages.hpp"
#include "sim/random/distribution.hpp"

namespace ksim::models {

enum class ShareAcknowledgementMode { Implicit, Explicit };  // share.acknowledgement.mode

struct ShareConsumerConfig {
  std::string group_id;  // the share group (the entry's share_group)
  ShareAcknowledgementMode acknowledgement_mode = ShareAcknowledgementMode::Implicit;
  std::int32_t max_poll_records = 500;           // max.poll.records
  SimTime fetch_max_wait = milliseconds(500);    // fetch.max.wait.ms
  SimTime request_timeout = seconds(30);         // request.timeout.ms
  SimTime retry_backoff = milliseconds(100);     // retry.backoff.ms
  SimTime retry_backoff_max = seconds(1);        // retry.backoff.max.ms
  SimTime reconnect_backoff = milliseconds(50);  // reconnect.backoff.ms
  SimTime reconnect_backoff_max = seconds(1);    // reconnect.backoff.max.ms (KIP-144)
  SimTime connection_setup_timeout = seconds(10);    // socket.connection.setup.timeout.ms (KIP-601; the kernel's 127 s before 2.7)
};

struct ShareConsumerWorkload {
  std::int32_t topic = 0;
  Distribution processing_time = Distribution::constant(0);  // per record
  // commitSync() after each poll's records (ShareAcknowledge, waiting for the
  // answers); otherwise the acknowledgements go with the next poll's ShareFetch.
  bool commit_sync = false;
  // Poison records: every record whose number (per producer and partition) is
  // a multiple of poison_every fails processing, every time. Explicit mode only.
  std::uint64_t poison_every = 0;
  AcknowledgeType poison_acknowledge = AcknowledgeType::Reject;  // REJECT or RELEASE
};

// The application's states, with the transitions legal() allows.
enum class ShareConsumerState { Joining, Polling, Processing, Committing, Closing };
std::string_view to_string(ShareConsumerState state);
bool legal(ShareConsumerState from, ShareConsumerState to);

class ShareConsumer final : public KafkaClient {
 public:
  ShareConsumer(Simulation& sim, std::string name, HostId host, std::uint32_t index, ShareConsumerConfig config,
                ShareConsumerWorkload workload, std::shared_ptr<const ClusterDirectory> directory, ModelEventBus& events,
                ShareHistory& history);
  std::uint32_t index() const { return index_; }
  std::uint64_t records_processed() const { return processed_; }
  const ShareConsumerConfig& config() const { return config_; }

 private:
  // share_consumer.cpp: lifecycle and membership
  void on_start() override;
  void on_crash(CrashKind kind) override;
  void on_shutdown_requested() override;
  void on_message(ConnectionId connection, MessagePtr message) override;
  void on_connection_closed(ConnectionId connection) override;
  int requests_in_flight(BrokerId broker) const override;  // its fetch, and a metadata request
  void to(ShareConsumerState next);
  void find_coordinator();
  void handle_find_coordinator(const FindCoordinatorResponse& response);
  void coordinator_lost();
  void send_heartbeat(std::int32_t epoch);
  void handle_heartbeat(const ShareGroupHeartbeatResponse& response);
  void finish_close();

  // share_consumer_fetch.cpp: fetching, the application, acknowledgements
  void wake_app();
  void poll();
  void process_next();
  void finished_processing();
  void send_fetches();
  void handle_share_fetch(const ShareFetchResponse& response);
  // Sends the pending acknowledgements of each leader: in a ShareAcknowledge
  // when `now_or_never` or a ShareFetch is waiting there; true when some went.
  bool send_acknowledgements(bool now_or_never, bool close_session);
  void handle_share_acknowledge(const ShareAcknowledgeResponse& response);
  bool poison(const AcquiredRecord& record) const;

  std::uint32_t index_;
  ShareConsumerConfig config_;
  ShareConsumerWorkload workload_;
  ShareHistory& history_;
  std::uint64_t processed_ = 0;

  // --- process state, lost on a crash ---
  ShareConsumerState state_ = ShareConsumerState::Joining;
  std::string member_id_;
  std::int32_t member_epoch_ = 0;
  std::vector<TopicPartition> assignment_;
  BrokerId coordinator_ = kNoBroker;
  ConnectionId coordinator_connection_ = 0;
  std::int64_t find_correlation_ = -1;
  ConnectionId find_connection_ = 0;
  std::int64_t heartbeat_correlation_ = -1;
  std::uint64_t heartbeat_token_ = 0;  // the armed heartbeat timer (older ones are void)
  std::map<BrokerId, std::int64_t> fetch_in_flight_;  // one ShareFetch per leader
  std::map<BrokerId, ConnectionId> fetch_connection_;
  std::vector<AcquiredRecord> buffer_;      // acquired, not yet returned by poll()
  std::vector<AcquiredRecord> in_process_;  // this poll's records
  std::size_t next_to_process_ = 0;
  std::map<BrokerId, std::vector<RecordAcknowledgement>> pending_acks_;  // by the leader they go to
  std::map<std::int64_t, BrokerId> acks_in_flight_;  // ShareAcknowledge correlation -> leader
  bool wake_scheduled_ = false;
  bool retry_pending_ = false;
};

}  // namespace ksim::models
