#pragma once
// What the controller decides (KRaft's QuorumController and
// ReplicationControlManager): loading its metadata, fencing and unfencing
// brokers, controlled shutdowns, leader elections and committed ISR changes.
#include <string_view>

#include "models/protocol/kafka_types.hpp"
#include "sim/observe/trace.hpp"

namespace ksim::models {

// A new active controller loads the metadata log before it acts.
struct ControllerLoading {
  std::size_t partitions;
  SimTime load_time;
  std::string_view kind() const { return "controller.loading"; }
  template <class Write> void trace(Write&& write) const { write({{"partitions", partitions}, {"load_ns", load_time}}); }
};

// With a controller quorum: this controller leads the quorum's epoch and acts
// (QuorumController.claim, once the log of earlier epochs is replayed).
struct ControllerActivated {
  std::int32_t controller;  // its id in the quorum
  Epoch epoch;
  std::string_view kind() const { return "controller.activated"; }
  template <class Write> void trace(Write&& write) const { write({{"controller", controller}, {"epoch", epoch}}); }
};

// With a controller quorum: this controller no longer leads (QuorumController.renounce):
// its uncommitted changes are reverted and what waited for them is answered NOT_CONTROLLER.
struct ControllerRenounced {
  std::int32_t controller;
  Epoch epoch;  // the epoch it led
  std::size_t reverted_records;  // written in its epoch and not committed
  std::string_view kind() const { return "controller.renounced"; }
  template <class Write> void trace(Write&& write) const {
    write({{"controller", controller}, {"epoch", epoch}, {"reverted", reverted_records}});
  }
};

// A broker is fenced (its session expired, or it said it lost a log dir): it leaves every ISR.
struct BrokerFenced {
  BrokerId broker;
  std::string_view reason;
  std::string_view kind() const { return "controller.fence"; }
  template <class Write> void trace(Write&& write) const { write({{"broker", broker}, {"reason", reason}}); }
};

// KRaft's controlled shutdown: the broker's leaderships move, it leaves the ISRs.
struct ControlledShutdownStarted {
  BrokerId broker;
  std::string_view kind() const { return "controller.controlled_shutdown"; }
  template <class Write> void trace(Write&& write) const { write({{"broker", broker}}); }
};

struct BrokerUnfenced {
  BrokerId broker;
  std::string_view kind() const { return "controller.unfence"; }
  template <class Write> void trace(Write&& write) const { write({{"broker", broker}}); }
};

// A partition's new leader (clean from the ISR, or unclean from outside it).
struct LeaderElected {
  TopicPartition partition;
  BrokerId leader;
  Epoch epoch;
  bool unclean;
  std::size_t isr_size;
  std::string_view kind() const { return "controller.elect"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"leader", leader}, {"epoch", epoch},
           {"unclean", unclean ? 1 : 0}, {"isr", isr_size}});
  }
};

// The controller committed an AlterPartition: the partition's ISR and its new partition epoch.
struct IsrCommitted {
  TopicPartition partition;
  std::size_t isr_size;
  Epoch partition_epoch;
  std::string_view kind() const { return "controller.isr"; }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"isr", isr_size},
           {"partition_epoch", partition_epoch}});
  }
};

// KIP-455: a partition's reassignment began (the target replicas written with
// adding and removing), completed (the removed replicas left), or was cancelled.
enum class ReassignmentPhase : std::uint8_t { Started, Completed, Cancelled };
struct ReassignmentChanged {
  TopicPartition partition;
  ReassignmentPhase phase;
  std::size_t replicas;  // the target's size (Started), the replicas after (Completed, Cancelled)
  std::size_t adding;
  std::size_t removing;
  std::string_view kind() const {
    switch (phase) {
      case ReassignmentPhase::Started: return "controller.reassignment_started";
      case ReassignmentPhase::Completed: return "controller.reassignment_completed";
      case ReassignmentPhase::Cancelled: return "controller.reassignment_cancelled";
    }
    return "controller.reassignment";
  }
  template <class Write> void trace(Write&& write) const {
    write({{"topic", partition.topic}, {"partition", partition.partition}, {"replicas", replicas}, {"adding", adding},
           {"removing", removing}});
  }
};

// CreateTopics: the controller created a topic the cluster did not start with
// (controller_topics.cpp), its partitions' records written or pushed.
struct TopicCreated {
  std::int32_t topic;
  std::int32_t partitions;
  std::string_view kind() const { return "controller.topic_created"; }
  template <class Write> void trace(Write&& write) const { write({{"topic", topic}, {"partitions", partitions}}); }
};

}  // namespace ksim::models
