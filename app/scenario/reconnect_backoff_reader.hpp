#pragma once
// A Kafka client's reconnect backoff (KIP-144): reconnect.backoff.ms, and
// reconnect.backoff.max.ms, which is reconnect.backoff.ms itself when only
// that is given (CommonClientConfigs.postProcessReconnectBackoffConfigs:
// "Disabling exponential reconnect backoff").
#include "app/scenario/config_reader.hpp"
#include "models/protocol/kafka_release.hpp"
#include "sim/events/time.hpp"

namespace ksim::app {

void read_reconnect_backoff(config::MapReader& in, SimTime& backoff, SimTime& backoff_max);

// socket.connection.setup.timeout.ms (KIP-601, 2.7: clients and brokers):
// how long a connect waits for an answer to its SYN (Node::connect_timeout).
// Before 2.7 the key is refused and the kernel's SYN retries decide: 127 s.
SimTime read_connection_setup_timeout(config::MapReader& in, const models::Mechanisms& m);

}  // namespace ksim::app
