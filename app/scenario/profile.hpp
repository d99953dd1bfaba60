#pragma once
// A hardware profile (scenarios/profiles/NAME.yaml): the machine every broker
// and client runs on, and what Kafka's software costs on it in CPU time. A
// scenario names one with `profile: NAME`, or `profile: {name: NAME, ...}`
// with any of the profile's keys overridden; its own explicit settings
// (log_dirs, network.host_link, brokers.config[num.io.threads], ...) win over
// the profile's. docs/scenarios.md lists the keys; docs/calibration.md says
// where the numbers of the shipped profiles come from.
#include <optional>
#include <string>

#include "models/hardware/cpu_costs.hpp"
#include "models/hardware/disk.hpp"
#include "app/scenario/config_reader.hpp"

namespace ksim::app {

struct HardwareProfile {
  std::string name;
  int cores = 1;
  std::uint64_t memory_bytes = 0;
  std::uint64_t heap_bytes = 0;  // the broker's JVM heap; the rest of memory is page cache
  double nic_bytes_per_s = 1.25e9;
  int disk_count = 1;
  bool raid = false;  // RAID-0 over the disks (one log dir); otherwise JBOD (a log dir per disk)
  models::DiskSpec disk;
  models::BrokerThreading threads;
  models::BrokerCpuCosts broker_costs;
  SimTime leader_election = microseconds(200);  // the controller's work per partition elected
  SimTime controller_load = 0;                   // a new active controller's load time per partition
  models::ClientCpuCosts client_costs;

  std::uint64_t page_cache_bytes() const { return memory_bytes > heap_bytes ? memory_bytes - heap_bytes : 0; }
};

// Reads the scenario's `profile` key, if any: loads the named file, then applies the scenario's overrides.
std::optional<HardwareProfile> read_profile(config::MapReader& root, const std::string& scenario_file);

// Where `profile: NAME` is looked for, in order: profiles/ beside the
// scenario file and beside its folder, each folder of the environment's
// KSIM_PROFILE_PATH (separated by ':'), then the folders added here (the
// ksim command adds the profiles of its source tree).
void add_profile_dir(const std::string& dir);

}  // namespace ksim::app
