#pragma once
// Tiered storage (KIP-405) in a run: what the leaders copied to the remote
// store and what remote retention deleted there, what consumers read from it
// (and how long their fetches waited for it), and followers that started from
// it. In the JSON under "tiered_storage" and in the text report's cluster
// part, when a topic has remote.storage.enable.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"
#include "app/report/figure_table.hpp"

namespace ksim::app {

struct TieredFigures {
  std::uint64_t segments_copied = 0, bytes_copied = 0;
  std::uint64_t segments_expired = 0, bytes_expired = 0;
  std::uint64_t remote_bytes = 0;  // held by the remote store at the end
  std::uint64_t local_bytes = 0;   // the tiered topics' local logs at the end, every replica's
  std::uint64_t remote_reads = 0, remote_read_bytes = 0, remote_reads_timed_out = 0;
  double remote_read_wait_mean_ms = 0, remote_read_wait_max_ms = 0;
  std::uint64_t aux_state_builds = 0;
  std::string vacuous;  // "nothing was copied to the remote store", or ""
};

const Section<TieredFigures>& tiered_section();
// Null when no topic has remote.storage.enable.
std::optional<TieredFigures> tiered_figures(const Cluster& cluster);
void add_tiered_json(const TieredFigures& t, nlohmann::ordered_json& j);
void print_tiered(const TieredFigures& t, std::ostream& out);

}  // namespace ksim::app
