#include "models/broker/replication_quota.hpp"

namespace ksim::models {

// SampledStat.purgeObsoleteSamples: samples older than the whole window are gone.
void ReplicationQuota::purge(SimTime now) {
  while (!samples_.empty() && now - samples_.front().start >= kSamples * kWindow) samples_.pop_front();
}

void ReplicationQuota::record(std::uint64_t bytes, SimTime now) {
  purge(now);
  if (samples_.empty() || now - samples_.back().start >= kWindow) samples_.push_back({now, 0});
  samples_.back().bytes += bytes;
}

// Rate.measure: the samples' total over the time since the oldest began,
// counted as at least kSamples - 1 full windows (Rate.windowSize).
double ReplicationQuota::measured(SimTime now) {
  purge(now);
  if (samples_.empty()) return 0;
  std::uint64_t total = 0;
  for (const Sample& s : samples_) total += s.bytes;
  SimTime elapsed = now - samples_.front().start;
  const SimTime full_windows = elapsed / kWindow;
  if (full_windows < kSamples - 1) elapsed += (kSamples - 1 - full_windows) * kWindow;
  return static_cast<double>(total) / to_seconds(elapsed);
}

}  // namespace ksim::models
