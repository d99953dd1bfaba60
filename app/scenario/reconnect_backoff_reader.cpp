#include "app/scenario/reconnect_backoff_reader.hpp"

#include "app/scenario/release_reader.hpp"

namespace ksim::app {

using config::Duration;

void read_reconnect_backoff(config::MapReader& in, SimTime& backoff, SimTime& backoff_max) {
  const bool only_backoff_given = in.has("reconnect.backoff.ms") && !in.has("reconnect.backoff.max.ms");
  backoff = in.get<Duration>("reconnect.backoff.ms", backoff);
  backoff_max = in.get<Duration>("reconnect.backoff.max.ms", only_backoff_given ? backoff : backoff_max);
}

SimTime read_connection_setup_timeout(config::MapReader& in, const models::Mechanisms& m) {
  if (!m.has(models::Mechanism::ConnectionSetupTimeout)) {
    reject_absent(in, "socket.connection.setup.timeout.ms", m, models::Mechanism::ConnectionSetupTimeout);
    return seconds(127);  // tcp_syn_retries 6: SYNs at 0, 1, 3, 7, 15, 31 and 63 s, given up at 127 s
  }
  return in.get<Duration>("socket.connection.setup.timeout.ms", seconds(10), {1, kNever});
}

}  // namespace ksim::app
