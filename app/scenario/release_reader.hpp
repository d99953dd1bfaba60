#pragma once
// The Kafka release a scenario runs: `kafka_version` at the top (the
// brokers' and controller's, and the clients' unless they name their own)
// and on a producer or consumer entry, and `kips:`, which switches single
// mechanisms against the release (at the top for every side, on an entry for
// that client). The escape hatches that came before are aliases:
// `brokers.truncate_to_high_watermark: true` is `kips: {KIP-101: off}`, and a
// producer's `defaults: pre-3.0` is `kips: {KIP-679: off, KIP-1030: off,
// KIP-580: off, KIP-951: off}` on that producer.
#include <map>
#include <string>
#include <vector>

#include "app/scenario/config_reader.hpp"
#include "models/protocol/kafka_release.hpp"

namespace ksim::app {

// The switches a `kips:` map makes: on or off, by mechanism.
using MechanismSwitches = std::map<models::Mechanism, bool>;

struct ReleaseSpec {
  models::KafkaRelease release = models::kLatestRelease;
  bool given = false;              // `kafka_version` was written (else the latest modelled release)
  MechanismSwitches switches;      // the top-level `kips:` and the cluster's aliases

  // A side's mechanisms: its release's, then the top-level switches, then its own.
  models::Mechanisms mechanisms(models::KafkaRelease side_release, const MechanismSwitches& own = {}) const;
};

// The top-level `kafka_version` and `kips`.
ReleaseSpec read_release(config::MapReader& root);
// A `kips:` map under `in` (absent: none).
MechanismSwitches read_switches(config::MapReader& in);

// A producer's or consumer's release and switches: its `kafka_version`
// (default: the cluster's), its `kips`, and for a producer the alias
// `defaults: pre-3.0`.
struct ClientRelease {
  models::KafkaRelease release;
  bool own_release = false;  // the entry names its own kafka_version
  MechanismSwitches switches;
  models::Mechanisms mechanisms;
};
ClientRelease read_client_release(config::MapReader& client, const ReleaseSpec& cluster, bool producer);

// A config `key` given in `in` whose mechanism the side's release lacks:
// an error naming the release, the mechanism and the release that brought it.
void reject_absent(config::MapReader& in, std::string_view key, const models::Mechanisms& side, models::Mechanism needed);

}  // namespace ksim::app
