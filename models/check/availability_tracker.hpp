#pragma once
// When each partition could not accept writes, or could not be read, and
// which incident caused it: any fault (crash, pause, network partition, disk
// failure, shutdown, slow link), or none.
//
// A partition accepts writes when its leader (the broker that last became
// its leader, Partition.makeLeader) runs, is not paused, still leads it with
// its log dir online (KIP-112), and is reachable from one of the topic's
// producers; at acks=all also when its committed ISR has at least
// min.insync.replicas members (Partition.appendRecordsToLeader) and every
// follower of its maximal ISR runs and reaches the leader both ways, so that
// the high watermark can pass a new record (Partition.maybeIncrementLeaderHW
// waits for every maximal-ISR member). It can be read when its leader runs,
// leads it and is reachable from one of the topic's consumers (or producers,
// when it has none). These are states of the model, evaluated whenever one
// of them may change (a partition's role or ISR, a node, a fault's start or
// end), so no sampling shows or hides an instant.
//
// A partition counts from its first leader on (not while it is created).
// An interval of unavailability belongs to the latest fault that started
// at or before its start (a partition still recovering after a fault ended
// belongs to it), or to no fault.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/broker/broker.hpp"
#include "models/events/model_event.hpp"
#include "models/history/delivery_history.hpp"
#include "models/protocol/acks.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

// One incident's cost, for writes or reads.
struct UnavailabilityCost {
  std::uint64_t partitions = 0;      // partitions unavailable at least once
  SimTime longest = 0;               // the longest interval of one partition
  double partition_s = 0;            // summed over partitions and intervals
  std::uint64_t still_unavailable = 0;  // partitions unavailable at the end
  std::uint64_t records_waited = 0;  // records handed to producers for them meanwhile (writes only)
};

struct AvailabilityIncident {
  std::string fault;                 // "partition", "crash", ...; "" for no fault
  std::vector<std::string> nodes;    // its targets
  SimTime at = 0;                    // when it started
  SimTime duration = 0;              // as scheduled (0: for good)
  UnavailabilityCost writes, reads;
};

struct AvailabilityFigures {
  std::vector<AvailabilityIncident> incidents;  // those that cost something, in the order they started
  UnavailabilityCost writes, reads;             // over every incident
};

class AvailabilityTracker final : public PartitionListener {
 public:
  struct Topic {
    std::int32_t partitions = 0;
    bool tracked = false;  // internal topics are not
    Acks acks = Acks::Leader;  // the strongest of its producers'
    std::int32_t min_insync_replicas = 1;
    std::vector<NodeId> writers, readers;  // its producers' and consumers' nodes
  };
  using Reachable = std::function<bool(NodeId from, NodeId to)>;  // no network cut between them

  // `brokers` by broker id, `topics` by topic id; `history` (of `writers`
  // workload producers) is read to count the records that waited.
  AvailabilityTracker(std::vector<Broker*> brokers, std::vector<Topic> topics, const DeliveryHistory& history,
                      std::uint32_t writers, Reachable reachable);

  void partition_changed(const Partition& partition, PartitionChange change) override;
  void on_event(const Node& from, const ModelEvent& event);
  void on_node(const Node& node, NodeChange change);
  void on_fault(SimTime now, std::string_view fault, std::vector<std::string> nodes, SimTime duration, bool starting);
  // After every event: evaluates the partitions that may have changed.
  void after_event(SimTime now);

  AvailabilityFigures figures(SimTime end) const;
  // How many partitions cannot accept writes, and cannot be read, now (as of the last event).
  struct Unavailable {
    std::uint32_t writes = 0, reads = 0;
  };
  Unavailable unavailable_now() const;

 private:
  struct State {
    BrokerId leader = -1;
    SimTime write_down_since = kNever;  // kNever while available
    SimTime read_down_since = kNever;
    std::size_t write_incident = 0, read_incident = 0;  // where the interval goes
    std::uint64_t produced_at_down = 0;  // records handed to producers for it when writes stopped
  };
  std::size_t index(TopicPartition tp) const {
    return static_cast<std::size_t>(topic_base_[static_cast<std::size_t>(tp.topic)] + tp.partition);
  }
  void mark(TopicPartition tp);
  void evaluate(TopicPartition tp, SimTime now);
  bool can_write(TopicPartition tp, const State& s) const;
  bool can_read(TopicPartition tp, const State& s) const;
  bool leads(const State& s, TopicPartition tp) const;
  bool reaches_one_of(const std::vector<NodeId>& clients, NodeId broker) const;
  std::uint64_t produced(TopicPartition tp) const;
  void close(UnavailabilityCost& cost, SimTime since, SimTime now, bool first_for_partition) const;

  std::vector<Broker*> brokers_;
  std::vector<Topic> topics_;
  const DeliveryHistory& history_;
  std::uint32_t writers_;
  Reachable reachable_;
  std::vector<std::int32_t> topic_base_;
  std::vector<TopicPartition> partitions_;  // by global index
  std::vector<State> states_;
  std::vector<std::uint8_t> dirty_;
  std::vector<TopicPartition> dirty_list_;
  bool all_dirty_ = true;
  std::vector<AvailabilityIncident> incidents_;  // [0]: no fault
  std::vector<std::vector<std::uint8_t>> touched_;  // by incident: partitions counted (write bit 1, read bit 2)
};

}  // namespace ksim::models
