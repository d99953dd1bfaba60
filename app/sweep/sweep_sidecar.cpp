#include "app/sweep/sweep_sidecar.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "app/sweep/sweep_files.hpp"

namespace ksim::app::sweep {

namespace {

constexpr std::string_view kOrder =
    "cartesian product of the --set lists, the first varying slowest and the last fastest; the seed varies fastest "
    "of all";

std::string shard_text(const std::optional<Shard>& shard) {
  return shard ? fmt::format("{}/{}", shard->k, shard->n) : "";
}

nlohmann::ordered_json parameters_json(const std::vector<Parameter>& parameters) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& p : parameters) list.push_back({{"key", p.key}, {"values", p.values}});
  return list;
}

Sidecar from_json(const nlohmann::json& j) {
  Sidecar s;
  s.ksim_version = j.at("ksim_version").get<std::string>();
  s.scenario = j.at("scenario").get<std::string>();
  for (const auto& p : j.at("parameters")) {
    s.parameters.push_back({p.at("key").get<std::string>(), p.at("values").get<std::vector<std::string>>()});
  }
  s.seeds = j.at("seeds").get<std::vector<std::uint64_t>>();
  if (j.at("shard").is_string()) s.shard = parse_shard(j.at("shard").get<std::string>());
  if (!j.at("total_runs").is_null()) s.total_runs = j.at("total_runs").get<std::size_t>();
  s.runs_in_file = j.at("runs_in_file").get<std::size_t>();
  s.columns = j.at("columns").get<csv::Row>();
  s.jobs = j.at("jobs").get<std::size_t>();
  s.wall_s = j.at("wall_s").get<double>();
  for (const auto& r : j.at("runs")) {
    s.runs.push_back({r.at("run").get<std::size_t>(), r.at("wall_s").get<double>(),
                      r.at("events_per_wall_s").get<double>(), r.at("process_wall_s").get<double>()});
  }
  if (j.contains("merged_from")) s.merged_from = j.at("merged_from").get<std::vector<std::string>>();
  return s;
}

}  // namespace

bool Sidecar::same_sweep(const Sidecar& other) const {
  return ksim_version == other.ksim_version && scenario == other.scenario && parameters == other.parameters && seeds == other.seeds &&
         total_runs == other.total_runs && columns == other.columns;
}

nlohmann::ordered_json to_json(const Sidecar& s) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& r : s.runs) {
    runs.push_back({{"run", r.run},
                    {"wall_s", r.wall_s},
                    {"events_per_wall_s", r.events_per_wall_s},
                    {"process_wall_s", r.process_wall_s}});
  }
  nlohmann::ordered_json j{{"ksim_version", s.ksim_version},
                           {"scenario", s.scenario},
                           {"order", kOrder},
                           {"parameters", parameters_json(s.parameters)},
                           {"seeds", s.seeds},
                           {"shard", s.shard ? nlohmann::ordered_json(shard_text(s.shard)) : nullptr},
                           {"total_runs", s.total_runs ? nlohmann::ordered_json(*s.total_runs) : nullptr},
                           {"runs_in_file", s.runs_in_file},
                           {"columns", s.columns},
                           {"jobs", s.jobs},
                           {"wall_s", s.wall_s},
                           {"runs", runs}};
  if (!s.merged_from.empty()) j["merged_from"] = s.merged_from;
  return j;
}

void write_sidecar(const std::string& csv_path, const Sidecar& sidecar) {
  AtomicFile file(sidecar_path(csv_path));
  file.stream() << to_json(sidecar).dump(2) << '\n';
  file.commit();
}

std::optional<Sidecar> read_sidecar(const std::string& csv_path) {
  const std::string path = sidecar_path(csv_path);
  if (!std::filesystem::exists(path)) return std::nullopt;
  std::ifstream in(path);
  try {
    return from_json(nlohmann::json::parse(in));
  } catch (const nlohmann::json::exception& e) {
    throw SweepError(fmt::format("{}: not a ksim sweep sidecar ({})", path, e.what()));
  } catch (const SweepError& e) {
    throw SweepError(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace ksim::app::sweep
