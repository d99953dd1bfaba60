// `ksim merge`: the shards of one sweep back into the CSV (and sidecar) the
// whole sweep would have written. Rows are re-written with the same CSV
// writer as the sweep's, so the result is byte-identical to an unsharded run.
#include <algorithm>
#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "app/commands/commands.hpp"
#include "app/sweep/sweep.hpp"
#include "app/sweep/sweep_files.hpp"
#include "app/sweep/sweep_plan.hpp"
#include "app/sweep/sweep_sidecar.hpp"

namespace ksim::app {

namespace {

using namespace sweep;

struct ShardFile {
  std::string path;
  csv::Row header;
  std::vector<csv::Row> rows;
  std::optional<Sidecar> sidecar;
};

struct NumberedRow {
  std::size_t run;
  const csv::Row* row;
  const std::string* path;
};

ShardFile read_shard(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SweepError(fmt::format("cannot read '{}'", path));
  std::vector<csv::Row> rows;
  try {
    rows = csv::read(in);
  } catch (const csv::CsvError& e) {
    throw SweepError(fmt::format("{}: {}", path, e.what()));
  }
  if (rows.empty() || rows.front().empty() || rows.front().front() != "run") {
    throw SweepError(fmt::format("{}: not a sweep CSV (its first column is not 'run')", path));
  }
  ShardFile shard{path, rows.front(), {rows.begin() + 1, rows.end()}, read_sidecar(path)};
  for (std::size_t i = 0; i < shard.rows.size(); ++i) {
    if (shard.rows[i].size() != shard.header.size()) {
      throw SweepError(fmt::format("{}: row {} has {} cells, the header {}", path, i + 2, shard.rows[i].size(),
                                   shard.header.size()));
    }
  }
  return shard;
}

void check_headers(const std::vector<ShardFile>& shards) {
  const ShardFile& first = shards.front();
  for (const ShardFile& shard : shards) {
    if (shard.header == first.header) continue;
    const auto [a, b] = std::mismatch(first.header.begin(), first.header.end(), shard.header.begin(), shard.header.end());
    throw SweepError(fmt::format("{} and {} have different headers (column {}: '{}' and '{}')", first.path,
                                 shard.path, (a - first.header.begin()) + 1, a == first.header.end() ? "" : *a,
                                 b == shard.header.end() ? "" : *b));
  }
}

// Every row with its run index, sorted; a run given twice is an error.
std::vector<NumberedRow> sorted_rows(const std::vector<ShardFile>& shards) {
  std::vector<NumberedRow> rows;
  for (const ShardFile& shard : shards) {
    for (const csv::Row& row : shard.rows) {
      rows.push_back({parse_whole_number(row.front(), shard.path + ": run"), &row, &shard.path});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.run < b.run; });
  const auto twice = std::adjacent_find(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.run == b.run; });
  if (twice != rows.end()) {
    const auto& other = *std::next(twice);
    throw SweepError(*twice->path == *other.path
                         ? fmt::format("run {} is in {} twice", twice->run, *twice->path)
                         : fmt::format("run {} is in both {} and {}", twice->run, *twice->path, *other.path));
  }
  return rows;
}

// The sidecars there are must describe one sweep; the first one's total then says which runs to expect.
std::optional<Sidecar> common_sidecar(const std::vector<ShardFile>& shards, std::ostream& err) {
  const ShardFile* described = nullptr;
  for (const ShardFile& shard : shards) {
    if (!shard.sidecar) continue;
    if (described && !described->sidecar->same_sweep(*shard.sidecar)) {
      throw SweepError(fmt::format("{} and {} are from different sweeps (their sidecars differ in ksim version, "
                                   "scenario, --set lists, seeds or columns)",
                                   described->path, shard.path));
    }
    if (!described) described = &shard;
  }
  if (!described) {
    fmt::print(err, "ksim merge: warning: no sidecar ({}) to check that no run is missing\n",
               sidecar_path(shards.front().path));
    return std::nullopt;
  }
  return described->sidecar;
}

void check_complete(const std::vector<NumberedRow>& rows, std::size_t total) {
  std::vector<std::size_t> missing;
  std::size_t next = 0;
  for (const auto& r : rows) {
    if (r.run >= total) throw SweepError(fmt::format("{}: run {} is beyond the sweep's {} runs", *r.path, r.run, total));
    for (; next < r.run; ++next) missing.push_back(next);
    next = r.run + 1;
  }
  for (; next < total; ++next) missing.push_back(next);
  if (missing.empty()) return;
  const std::size_t shown = std::min<std::size_t>(missing.size(), 10);
  throw SweepError(fmt::format("{} of the sweep's {} runs are missing: {}{}; is a shard left out?", missing.size(),
                               total, fmt::join(missing.begin(), missing.begin() + static_cast<long>(shown), ", "),
                               missing.size() > shown ? ", ..." : ""));
}

Sidecar merged_sidecar(const std::vector<ShardFile>& shards, std::optional<Sidecar> common, std::size_t rows) {
  Sidecar merged = common.value_or(Sidecar{});
  merged.shard.reset();
  merged.columns = shards.front().header;
  merged.runs_in_file = rows;
  merged.jobs = 0;
  merged.wall_s = 0;
  merged.runs.clear();
  merged.merged_from.clear();
  for (const ShardFile& shard : shards) {
    merged.merged_from.push_back(shard.path);
    if (!shard.sidecar) continue;
    merged.wall_s += shard.sidecar->wall_s;
    merged.runs.insert(merged.runs.end(), shard.sidecar->runs.begin(), shard.sidecar->runs.end());
  }
  std::sort(merged.runs.begin(), merged.runs.end(), [](const auto& a, const auto& b) { return a.run < b.run; });
  return merged;
}

int merge(const MergeArgs& args, std::ostream& err) {
  std::vector<ShardFile> shards;
  for (const auto& path : args.shards) shards.push_back(read_shard(path));
  check_headers(shards);
  const std::vector<NumberedRow> rows = sorted_rows(shards);
  const std::optional<Sidecar> common = common_sidecar(shards, err);
  if (common && common->total_runs) check_complete(rows, *common->total_runs);

  AtomicFile file(args.out);
  csv::write_row(file.stream(), shards.front().header);
  for (const auto& r : rows) csv::write_row(file.stream(), *r.row);
  file.commit();
  write_sidecar(args.out, merged_sidecar(shards, common, rows.size()));
  return kExitOk;
}

}  // namespace

int merge_command(const MergeArgs& args, std::ostream& err) {
  try {
    return merge(args, err);
  } catch (const SweepError& e) {
    fmt::print(err, "ksim merge: {}\n", e.what());
    return kExitUsage;
  }
}

}  // namespace ksim::app
