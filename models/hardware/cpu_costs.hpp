#pragma once
// What Kafka's software costs in CPU time, and the threads it runs on. The
// constants come from a hardware profile (scenarios/profiles/); all zero
// means "infinitely fast CPUs", the default when a scenario names no profile.
// Calibration of the shipped profiles: docs/calibration.md.
#include <cstdint>

#include "sim/events/time.hpp"

namespace ksim::models {

// A broker's threads (Kafka's SocketServer and KafkaRequestHandlerPool).
struct BrokerThreading {
  int cores = 0;                // 0: no CPU model (requests are handled the moment they arrive)
  int num_network_threads = 3;  // num.network.threads: read requests, write responses; a connection stays on one
  int num_io_threads = 8;       // num.io.threads: the request handlers
};

struct BrokerCpuCosts {
  // Network threads: per request read and per response written, and per byte copied.
  SimTime network_request = 0;
  double network_ns_per_byte = 0;
  // Request handlers (io threads):
  SimTime request = 0;            // parse, authorize, dispatch
  SimTime partition = 0;          // per partition touched by a produce or fetch request
  SimTime batch = 0;              // per record batch appended: validation, offset assignment
  SimTime record = 0;             // per record validated (LogValidator)
  double ns_per_byte = 0;         // per byte appended: CRC32C, copy into the page cache
  SimTime metadata_partition = 0; // per partition of controller metadata applied (become leader/follower)
  // Replica fetcher threads (num.replica.fetchers): per byte appended by a follower.
  double follower_ns_per_byte = 0;

  bool any() const {
    return network_request > 0 || network_ns_per_byte > 0 || request > 0 || partition > 0 || batch > 0 ||
           record > 0 || ns_per_byte > 0 || metadata_partition > 0 || follower_ns_per_byte > 0;
  }
};

// A Java client's CPU: KafkaProducer's application thread (send(): serialise,
// partition, append) and its single sender thread; KafkaConsumer's poll().
struct ClientCpuCosts {
  int cores = 0;                  // 0: no CPU model
  SimTime record = 0;             // per record: send() in the application thread, or deserialising in poll()
  double ns_per_byte = 0;         // per byte: serialisation and copying
  SimTime batch = 0;              // per batch: the sender drains it and completes it; the consumer parses it
  SimTime request = 0;            // per request built and per response handled

  bool enabled() const { return cores > 0; }
  SimTime record_cost(std::uint64_t bytes) const {
    return record + static_cast<SimTime>(ns_per_byte * static_cast<double>(bytes));
  }
};

}  // namespace ksim::models
