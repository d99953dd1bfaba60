#include "sim/observe/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace ksim {

int Histogram::bucket_of(SimTime value) {
  const auto v = static_cast<std::uint64_t>(value);
  if (v < static_cast<std::uint64_t>(kExact)) return static_cast<int>(v);
  const int exponent = 63 - std::countl_zero(v);  // >= kSubBits + 1
  const auto sub = static_cast<int>((v >> (exponent - kSubBits)) & ((1u << kSubBits) - 1));
  return kExact + (exponent - (kSubBits + 1)) * (1 << kSubBits) + sub;
}

SimTime Histogram::bucket_low(int bucket) {
  if (bucket < kExact) return bucket;
  const int exponent = (bucket - kExact) / (1 << kSubBits) + kSubBits + 1;
  const int sub = (bucket - kExact) % (1 << kSubBits);
  return static_cast<SimTime>((std::uint64_t{1} << exponent) +
                              (static_cast<std::uint64_t>(sub) << (exponent - kSubBits)));
}

SimTime Histogram::bucket_width(int bucket) {
  if (bucket < kExact) return 1;
  const int exponent = (bucket - kExact) / (1 << kSubBits) + kSubBits + 1;
  return SimTime{1} << (exponent - kSubBits);
}

void Histogram::record(SimTime value, std::uint64_t count) {
  assert(value >= 0);
  if (count == 0) return;
  buckets_[static_cast<std::size_t>(bucket_of(value))] += count;
  count_ += count;
  sum_ += static_cast<double>(value) * static_cast<double>(count);
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
}

void Histogram::merge(const Histogram& other) {
  for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

Histogram Histogram::since(const Histogram& earlier) const {
  assert(earlier.count_ <= count_ && "`earlier` is an earlier copy of this histogram");
  Histogram later;
  for (int b = 0; b < kBuckets; ++b) {
    const auto i = static_cast<std::size_t>(b);
    assert(earlier.buckets_[i] <= buckets_[i]);
    later.buckets_[i] = buckets_[i] - earlier.buckets_[i];
    if (later.buckets_[i] == 0) continue;
    later.min_ = std::min(later.min_, std::max(bucket_low(b), min_));
    later.max_ = std::min(bucket_low(b) + bucket_width(b) - 1, max_);
  }
  later.count_ = count_ - earlier.count_;
  later.sum_ = later.count_ ? sum_ - earlier.sum_ : 0;
  return later;
}

SimTime Histogram::percentile(double p) const {
  if (count_ == 0) return 0;
  const double clamped = std::clamp(p, 0.0, 100.0);
  const auto rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(clamped / 100.0 * count_)));
  std::uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += buckets_[static_cast<std::size_t>(b)];
    if (seen >= rank) return std::clamp(bucket_low(b) + bucket_width(b) / 2, min(), max());
  }
  return max_;
}

}  // namespace ksim
