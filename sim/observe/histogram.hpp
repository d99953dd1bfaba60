#pragma once
// A log-linear histogram of durations (like HdrHistogram): exact below 128ns,
// then 64 sub-buckets per power of two, so every recorded value is known to
// within about 1.6%. Constant memory, O(1) record.
#include <array>
#include <cstdint>

#include "sim/events/time.hpp"

namespace ksim {

class Histogram {
 public:
  void record(SimTime value, std::uint64_t count = 1);
  void merge(const Histogram& other);
  // What was recorded after `earlier`, a copy of this histogram taken before
  // (its min and max within the buckets' precision), for figures by interval.
  Histogram since(const Histogram& earlier) const;

  std::uint64_t count() const { return count_; }
  SimTime min() const { return count_ ? min_ : 0; }
  SimTime max() const { return max_; }
  double mean() const { return count_ ? sum_ / static_cast<double>(count_) : 0.0; }
  // The value at percentile `p` in [0, 100] (midpoint of its bucket, clamped to [min, max]).
  SimTime percentile(double p) const;

 private:
  static constexpr int kSubBits = 6;
  static constexpr int kExact = 1 << (kSubBits + 1);  // values below this have a bucket each
  static constexpr int kBuckets = kExact + (63 - (kSubBits + 1)) * (1 << kSubBits);
  static int bucket_of(SimTime value);
  static SimTime bucket_low(int bucket);
  static SimTime bucket_width(int bucket);

  std::array<std::uint64_t, kBuckets> buckets_{};
  std::uint64_t count_ = 0;
  double sum_ = 0;
  SimTime min_ = kNever;
  SimTime max_ = 0;
};

}  // namespace ksim
