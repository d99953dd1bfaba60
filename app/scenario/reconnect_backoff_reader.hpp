#pragma once
// A Kafka client's reconnect backoff (KIP-144): reconnect.backoff.ms, and
// reconnect.backoff.max.ms, which is reconnect.backoff.ms itself when only
// that is given (CommonClientConfigs.postProcessReconnectBackoffConfigs:
// "Disabling exponential reconnect backoff").
#include "app/scenario/config_reader.hpp"
#include "sim/events/time.hpp"

namespace ksim::app {

void read_reconnect_backoff(config::MapReader& in, SimTime& backoff, SimTime& backoff_max);

}  // namespace ksim::app
