#include "app/scenario/reconnect_backoff_reader.hpp"

namespace ksim::app {

using config::Duration;

void read_reconnect_backoff(config::MapReader& in, SimTime& backoff, SimTime& backoff_max) {
  const bool only_backoff_given = in.has("reconnect.backoff.ms") && !in.has("reconnect.backoff.max.ms");
  backoff = in.get<Duration>("reconnect.backoff.ms", backoff);
  backoff_max = in.get<Duration>("reconnect.backoff.max.ms", only_backoff_given ? backoff : backoff_max);
}

}  // namespace ksim::app
