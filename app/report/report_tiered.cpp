#include "app/report/report_tiered.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using TF = TieredFigures;
using U = FigureUnit;

constexpr Figure<TF> kTieredFigures[] = {
    {.name = "segments_copied", .value = of<&TF::segments_copied>, .label = "segments copied", .expect = ExpectAs::Count,
     .description = "segments the leaders copied to the remote store (RLMCopyTask: rolled, below the last stable offset)",
     .expect_key = "segments_copied_to_remote"},
    {.name = "bytes_copied", .value = of<&TF::bytes_copied>, .unit = U::Bytes, .label = "bytes"},
    {.name = "segments_expired", .value = of<&TF::segments_expired>, .label = "remote segments deleted",
     .expect = ExpectAs::Count,
     .description = "remote segments deleted by the topics' retention.ms or retention.bytes (RLMExpirationTask)",
     .expect_key = "remote_segments_deleted"},
    {.name = "bytes_expired", .value = of<&TF::bytes_expired>, .unit = U::Bytes, .label = "bytes"},
    {.name = "remote_bytes", .value = of<&TF::remote_bytes>, .unit = U::Bytes, .label = "in the remote store at the end",
     .new_line = true},
    {.name = "local_bytes", .value = of<&TF::local_bytes>, .unit = U::Bytes, .label = "in the local logs (every replica)"},
    {.name = "remote_reads", .value = of<&TF::remote_reads>, .label = "consumer fetches read from the remote store",
     .new_line = true, .expect = ExpectAs::Count,
     .description = "consumer fetches below the leader's local log start answered from the remote store "
                    "(DelayedRemoteFetch)"},
    {.name = "remote_read_bytes", .value = of<&TF::remote_read_bytes>, .unit = U::Bytes, .label = "bytes"},
    {.name = "remote_read_wait_mean_ms", .value = of<&TF::remote_read_wait_mean_ms>, .unit = U::Milliseconds,
     .label = "mean wait"},
    {.name = "remote_read_wait_max_ms", .value = of<&TF::remote_read_wait_max_ms>, .unit = U::Milliseconds,
     .label = "longest"},
    {.name = "remote_reads_timed_out", .value = of<&TF::remote_reads_timed_out>, .label = "past remote.fetch.max.wait.ms",
     .expect = ExpectAs::Count,
     .description = "remote reads that outlasted remote.fetch.max.wait.ms: the fetch was answered without their records"},
    {.name = "aux_state_builds", .value = of<&TF::aux_state_builds>, .label = "followers started from the remote store",
     .new_line = true, .expect = ExpectAs::Count,
     .description = "followers answered OFFSET_MOVED_TO_TIERED_STORAGE that started at the leader's local log start "
                    "with the remote segments' leader epochs and producer state (TierStateMachine)",
     .expect_key = "remote_aux_state_builds"},
    {.name = "vacuous", .value = of<&TF::vacuous>, .unit = U::Text},
};

constexpr Section<TF> kTieredSection{"tiered storage", SectionScope::Tiered, "tiered_storage", kTieredFigures};

}  // namespace

const Section<TieredFigures>& tiered_section() { return kTieredSection; }

std::optional<TieredFigures> tiered_figures(const Cluster& cluster) {
  const auto& topics = cluster.scenario().kafka->topics;
  if (std::none_of(topics.begin(), topics.end(), [](const auto& t) { return t.log.remote_storage_enable; })) return std::nullopt;
  TieredFigures t;
  SimTime wait_total = 0, wait_max = 0;
  for (const models::Broker* b : cluster.brokers()) {
    const models::RemoteLogStats& s = b->remote_log_stats();
    t.segments_copied += s.segments_copied;
    t.bytes_copied += s.bytes_copied;
    t.segments_expired += s.segments_expired;
    t.bytes_expired += s.bytes_expired;
    t.remote_reads += s.remote_reads;
    t.remote_read_bytes += s.remote_read_bytes;
    t.remote_reads_timed_out += s.remote_reads_timed_out;
    t.aux_state_builds += s.aux_state_builds;
    wait_total += s.remote_read_wait_total;
    wait_max = std::max(wait_max, s.remote_read_wait_max);
    for (std::size_t topic = 0; topic < topics.size(); ++topic) {
      if (!topics[topic].log.remote_storage_enable) continue;
      for (std::int32_t p = 0; p < topics[topic].partitions; ++p) {
        if (const models::PartitionLog* log = b->log({static_cast<std::int32_t>(topic), p})) t.local_bytes += log->size_bytes();
      }
    }
  }
  if (const models::RemoteStorage* store = cluster.remote_storage()) t.remote_bytes = store->size_bytes();
  if (t.remote_reads > 0) t.remote_read_wait_mean_ms = to_seconds(wait_total) * 1e3 / static_cast<double>(t.remote_reads);
  t.remote_read_wait_max_ms = to_seconds(wait_max) * 1e3;
  if (t.segments_copied == 0) t.vacuous = "nothing was copied to the remote store";
  return t;
}

void add_tiered_json(const TieredFigures& t, nlohmann::ordered_json& j) { add_json(kTieredSection, t, j); }

void print_tiered(const TieredFigures& t, std::ostream& out) {
  fmt::print(out, "  tiered storage (KIP-405){}\n", t.vacuous.empty() ? "" : ": " + t.vacuous);
  print_figures(kTieredSection, t, out);
}

}  // namespace ksim::app
