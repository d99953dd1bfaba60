#include "app/scenario/profile.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace ksim::app {

using config::Bytes;
using config::Duration;
using config::MapReader;

namespace {

namespace fs = std::filesystem;

void read_disks(MapReader in, HardwareProfile& p) {
  p.disk_count = in.get<int>("count", p.disk_count, {1, 64});
  const std::string kind = in.get_choice("kind", {"ssd", "nvme", "hdd"}, p.disk.seek_time > 0 ? "hdd" : "ssd");
  if (kind == "hdd" && p.disk.seek_time == 0) p.disk.seek_time = milliseconds(8);  // 7200 RPM: ~4ms seek + 4ms rotation
  if (kind != "hdd") p.disk.seek_time = 0;
  p.disk.seek_time = in.get<Duration>("seek_time", p.disk.seek_time);
  // An fsync's cost beyond the data: a 7200 RPM disk's journal commit and
  // cache flush take about a rotation (8.3ms); a SATA SSD's FLUSH CACHE about
  // a millisecond; a datacenter NVMe drive with power-loss protection
  // acknowledges it from its cache.
  const SimTime flush = kind == "hdd" ? microseconds(8300) : kind == "ssd" ? milliseconds(1) : microseconds(50);
  p.disk.flush_latency = in.get<Duration>("flush_latency", flush);
  p.raid = in.get_choice("layout", {"jbod", "raid0"}, p.raid ? "raid0" : "jbod") == "raid0";
  p.disk.capacity_bytes = in.get<Bytes>("capacity", p.disk.capacity_bytes, {1, UINT64_MAX});
  p.disk.write_bytes_per_s = in.get<config::Bandwidth>("write_bandwidth", p.disk.write_bytes_per_s, {1.0, 1e13});
  p.disk.read_bytes_per_s = in.get<config::Bandwidth>("read_bandwidth", p.disk.read_bytes_per_s, {1.0, 1e13});
  p.disk.write_latency = in.get<Duration>("write_latency", p.disk.write_latency);
  p.disk.dirty_limit_bytes = in.get<Bytes>("dirty_limit", p.disk.dirty_limit_bytes);
}

void read_broker_costs(MapReader in, HardwareProfile& p) {
  models::BrokerCpuCosts& c = p.broker_costs;
  c.network_request = in.get<Duration>("network_request", c.network_request);
  c.network_ns_per_byte = in.get<double>("network_ns_per_byte", c.network_ns_per_byte, {0.0, 1e6});
  c.request = in.get<Duration>("request", c.request);
  c.partition = in.get<Duration>("partition", c.partition);
  c.batch = in.get<Duration>("batch", c.batch);
  c.record = in.get<Duration>("record", c.record);
  c.ns_per_byte = in.get<double>("ns_per_byte", c.ns_per_byte, {0.0, 1e6});
  c.metadata_partition = in.get<Duration>("metadata_partition", c.metadata_partition);
  c.follower_ns_per_byte = in.get<double>("follower_ns_per_byte", c.follower_ns_per_byte, {0.0, 1e6});
  p.leader_election = in.get<Duration>("leader_election", p.leader_election);
  p.controller_load = in.get<Duration>("controller_load", p.controller_load);
}

void read_client_costs(MapReader in, HardwareProfile& p) {
  models::ClientCpuCosts& c = p.client_costs;
  c.cores = in.get<int>("cores", c.cores > 0 ? c.cores : p.cores, {1, 1024});
  c.record = in.get<Duration>("record", c.record);
  c.ns_per_byte = in.get<double>("ns_per_byte", c.ns_per_byte, {0.0, 1e6});
  c.batch = in.get<Duration>("batch", c.batch);
  c.request = in.get<Duration>("request", c.request);
}

// Every key of a profile; each defaults to what `p` holds already, so the
// same reader loads a profile file and then applies a scenario's overrides.
void read_profile_keys(MapReader in, HardwareProfile& p) {
  in.ignore("description");
  p.cores = in.get<int>("cores", p.cores, {1, 1024});
  p.memory_bytes = in.get<Bytes>("memory", p.memory_bytes);
  p.heap_bytes = in.get<Bytes>("heap", p.heap_bytes);
  p.nic_bytes_per_s = in.get<config::Bandwidth>("nic", p.nic_bytes_per_s, {1.0, 1e13});
  read_disks(in.map("disks"), p);
  MapReader threads = in.map("threads");
  p.threads.num_network_threads = threads.get<int>("num.network.threads", p.threads.num_network_threads, {1, 256});
  p.threads.num_io_threads = threads.get<int>("num.io.threads", p.threads.num_io_threads, {1, 256});
  read_broker_costs(in.map("broker_costs"), p);
  read_client_costs(in.map("client_costs"), p);
  p.threads.cores = p.cores;
}

std::vector<fs::path>& added_profile_dirs() {
  static std::vector<fs::path> dirs;
  return dirs;
}

std::vector<fs::path> profile_dirs(const std::string& scenario_file) {
  const fs::path dir = fs::path(scenario_file).parent_path();
  std::vector<fs::path> dirs{dir / "profiles", dir / ".." / "profiles"};
  if (const char* path = std::getenv("KSIM_PROFILE_PATH")) {
    std::string_view rest(path);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      if (colon != 0) dirs.emplace_back(std::string(rest.substr(0, colon)));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
  }
  for (const fs::path& added : added_profile_dirs()) dirs.push_back(added);
  return dirs;
}

std::string available_profiles(const std::vector<fs::path>& dirs) {
  std::vector<std::string> names;
  for (const fs::path& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

}  // namespace

void add_profile_dir(const std::string& dir) {
  if (std::find(added_profile_dirs().begin(), added_profile_dirs().end(), fs::path(dir)) == added_profile_dirs().end()) {
    added_profile_dirs().emplace_back(dir);
  }
}

std::optional<HardwareProfile> read_profile(MapReader& root, const std::string& scenario_file) {
  if (!root.has("profile")) return std::nullopt;
  const bool named_only = !root.has_map("profile");
  std::optional<MapReader> overrides;
  if (!named_only) overrides = root.map("profile");
  const std::string name = named_only ? root.required<std::string>("profile") : overrides->required<std::string>("name");
  const auto fail = [&](const std::string& message) {
    throw named_only ? root.error("profile", message) : overrides->error("name", message);
  };
  // A file name in a profiles folder: no path, no more than a file name may hold (NAME_MAX).
  constexpr std::size_t kMaxName = 200;
  if (name.empty() || name.size() > kMaxName || name.find_first_of("/\\") != std::string::npos || name == "." ||
      name == "..") {
    fail("not a profile name (a file name of scenarios/profiles/ without .yaml, at most " + std::to_string(kMaxName) +
         " characters; available: " + available_profiles(profile_dirs(scenario_file)) + ")");
  }
  const std::vector<fs::path> dirs = profile_dirs(scenario_file);
  for (const fs::path& dir : dirs) {
    const fs::path file = dir / (name + ".yaml");
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    HardwareProfile p;
    p.name = name;
    const config::Document document = config::Document::load_file(file.lexically_normal().string());
    document.read([&] {
      MapReader profile_root = document.root();
      profile_root.ignore("name");
      read_profile_keys(profile_root, p);
      profile_root.finish();
    });
    if (overrides) {
      read_profile_keys(*overrides, p);
      overrides->finish_keys();
    }
    return p;
  }
  fail("no profile '" + config::excerpt(name) + "' (available: " + available_profiles(dirs) + ")");
  return std::nullopt;
}

}  // namespace ksim::app
