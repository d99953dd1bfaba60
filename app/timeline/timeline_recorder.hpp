#pragma once
// Records a run's timeline as it runs: attached to a cluster before it
// runs, it hears every node start, crash, pause and resume, every fault, the
// Kafka models' typed events (leaderships, elections, ISR changes, fencing,
// group membership, transactions' fates, failures) and, for the spacetime
// diagram, the messages of one window. It only listens: the run, and its
// trace hash, are the same with it. finish() adds what the run's histories
// and report know at the end (timeline_outcomes.hpp).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/timeline/timeline_builder.hpp"

namespace ksim::app::timeline {

struct RecorderOptions {
  // The spacetime diagram: messages sent in [from, to), about `partition` when one is given.
  std::optional<std::pair<SimTime, SimTime>> window;
  std::optional<models::TopicPartition> partition;
  std::string partition_name;  // as the user wrote it: "orders-3"
};

class TimelineRecorder {
 public:
  static constexpr std::size_t kMaxPartitionRows = 48;
  static constexpr std::size_t kMaxClientRows = 48;  // producers, and consumers
  static constexpr std::size_t kMaxMessages = 4000;

  TimelineRecorder(Cluster& cluster, RecorderOptions options);
  TimelineRecorder(const TimelineRecorder&) = delete;
  TimelineRecorder& operator=(const TimelineRecorder&) = delete;

  // After the run: the timeline, with what its histories and report found.
  Timeline finish(const Cluster& cluster, const RunReport& report);

 private:
  void add_rows(const Cluster& cluster);
  void on_node(const Node& node, NodeChange change);
  void on_fault(const Fault& fault, std::string_view kind, bool starting);
  void on_event(SimTime now, const Node& from, const models::ModelEvent& event);
  void on_broker_event(SimTime now, std::size_t row, const models::ModelEvent& event);
  void on_controller_event(SimTime now, std::size_t controller_row, const models::ModelEvent& event);
  void on_client_event(SimTime now, std::size_t row, const models::ModelEvent& event);
  void on_message(const Message& message, NodeId from, NodeId to, bool delivered);
  void partition_changed(SimTime now, models::TopicPartition tp, models::BrokerId leader, models::Epoch epoch,
                         std::size_t isr, bool unclean);
  void leaderships(SimTime now, models::BrokerId broker);
  std::string partition_name(models::TopicPartition tp) const;
  std::optional<std::size_t> broker_row(models::BrokerId broker) const;

  Simulation& sim_;
  RecorderOptions options_;
  TimelineBuilder builder_;
  std::vector<std::string> topic_names_;  // by topic id
  std::set<std::int32_t> internal_topics_;
  std::map<models::TopicPartition, std::size_t> partition_rows_;
  std::map<models::TopicPartition, std::size_t> replicas_;  // each partition's replication factor
  std::map<models::BrokerId, std::set<models::TopicPartition>> led_;  // what each broker leads now
  std::map<std::string, std::size_t> transactional_rows_;  // transactional.id -> its producer's row
  struct ActiveFault {
    const Fault* fault;  // the injector's, which never moves
    SimTime start;
    std::string label;  // "partition broker-1"
  };
  void end_fault(const ActiveFault& fault, SimTime end, std::string_view note);
  std::vector<ActiveFault> active_faults_;  // in the order they started
  std::size_t faults_row_ = 0;
  std::map<NodeId, std::size_t> controller_rows_;  // each controller's row, by node
  static constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
  static constexpr NodeId kNoNode = static_cast<NodeId>(-1);
  std::vector<std::size_t> node_rows_;  // by node id: its row, or kNoRow
  // The spacetime diagram's messages not delivered yet, by address (never iterated).
  std::unordered_map<const Message*, std::size_t> in_flight_;
  std::set<NodeId> lifelines_;
};

}  // namespace ksim::app::timeline
