#pragma once
// The cluster the reassignment tests move replicas in: four brokers, one
// topic of four partitions on brokers 0-2 (RF 3, min.insync.replicas 2), an
// idempotent acks=all producer and a group of two consumers; `head` goes
// first (a kafka_version), `operations` and `faults` after.
#include <catch2/catch.hpp>

#include <string>

#include "models/check/reassignment_tracker.hpp"

namespace ksim::testing {

inline std::string moving_cluster(const std::string& operations, const std::string& faults = "",
                                  const std::string& head = "") {
  return head + R"(
name: reassignment-test
duration: 30s
drain: 10s
brokers: {count: 4}
topics:
  - name: orders
    partitions: 4
    replication_factor: 3
    config: {min.insync.replicas: 2}
    assignment: [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1]]
producers:
  - {name: app, topic: orders, rate: 5000/s, record_size: 1KB, config: {acks: all, enable.idempotence: true}}
consumers:
  - {name: readers, topic: orders, count: 2, config: {auto.offset.reset: earliest}}
operations:
)" + operations + (faults.empty() ? "" : "faults:\n" + faults);
}

// A move of partition 0 onto broker 3, cancelled 5 s later; and broker 3's
// link crawling meanwhile, so its new replica cannot catch up before then.
inline const std::string kCancelledMove = R"(
  - {at: 10s, kind: reassign_partitions, topic: orders, replicas: {0: [3, 1, 2]}}
  - {at: 15s, kind: cancel_reassignment, topic: orders, partitions: [0]}
)";
inline const std::string kSlowBroker3 = R"(
  - {kind: link_slowdown, at: 9s, duration: 10s, links: [broker-3], factor: 0.0001}
)";

// What kCancelledMove leaves: one move started and cancelled, broker 3's new
// replica created and deleted again.
inline void check_cancelled_move(const models::ReassignmentFigures& r) {
  CHECK(r.started == 1);
  CHECK(r.completed == 0);
  CHECK(r.cancelled == 1);
  CHECK(r.in_progress == 0);
  CHECK(r.replicas_created == 1);
  CHECK(r.replicas_deleted == 1);
}

}  // namespace ksim::testing
