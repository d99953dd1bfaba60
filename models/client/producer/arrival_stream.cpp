#include "models/client/producer/arrival_stream.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

namespace ksim::models {

ArrivalStream::ArrivalStream(const ProducerWorkload& workload, std::int32_t partitions, std::uint64_t batch_size,
                             RecordFormat format, SimTime linger, RandomStream rng, RandomStream partitioner_rng,
                             PartitionerClass partitioner, bool ignore_keys)
    : workload_(workload), format_(format), rng_(rng),
      partitioner_(partitions, batch_size, partitioner_rng, batch_header_bytes(format), linger, partitioner),
      kind_(partitioner), ignore_keys_(ignore_keys) {
  assert(workload_.rate_per_s > 0 && workload_.record_bytes_min <= workload_.record_bytes_max);
  if (workload_.keys == ProducerWorkload::Keys::Zipf) {
    // P(k) proportional to 1 / k^s, k = 1..key_count; sampled by binary search on the CDF.
    double total = 0;
    for (std::uint64_t k = 1; k <= workload_.key_count; ++k) {
      total += 1.0 / std::pow(static_cast<double>(k), workload_.zipf_exponent);
      zipf_cdf_.push_back(total);
    }
    for (double& c : zipf_cdf_) c /= total;
  }
  last_ = workload_.start;
}

void ArrivalStream::restart(SimTime from) {
  upcoming_.clear();
  head_ = 0;
  last_ = std::max(from, workload_.start);
  exhausted_ = false;
}

void ArrivalStream::release_one(SimTime at) {
  assert(workload_.paced_by_consumer);
  restart(at);
  released_ = true;
}

const Arrival* ArrivalStream::peek(std::size_t i) {
  while (upcoming_.size() - head_ <= i) {
    if (!draw_one()) return nullptr;
  }
  return &upcoming_[head_ + i];
}

Arrival ArrivalStream::pop() {
  const Arrival* next = peek(0);
  assert(next);
  const Arrival a = *next;
  if (++head_ >= 4096 && head_ * 2 >= upcoming_.size()) {  // drop what was taken, now and then
    upcoming_.erase(upcoming_.begin(), upcoming_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  return a;
}

bool ArrivalStream::draw_one() {
  if (exhausted_) return false;
  if (workload_.paced_by_consumer) {
    if (!released_) return false;  // waiting for the consumer
    released_ = false;
  }
  SimTime gap = 0;
  if (!workload_.closed_loop && !workload_.paced_by_consumer) {
    const double mean_gap_ns = 1e9 / workload_.rate_per_s;
    gap = static_cast<SimTime>(workload_.poisson ? rng_.exponential(mean_gap_ns) : mean_gap_ns);
  }
  if (last_ + gap >= workload_.stop) {
    exhausted_ = true;  // the application has stopped
    return false;
  }
  const std::uint64_t bytes = draw_bytes();
  gap = std::max({gap, workload_.cpu.record_cost(bytes), SimTime{workload_.closed_loop ? 1 : 0}});  // the application thread's send() takes this long
  if (last_ + gap >= workload_.stop) {
    exhausted_ = true;
    return false;
  }
  last_ += gap;
  const auto key = draw_key();
  const std::string key_text = key ? std::to_string(*key) : std::string();
  RecordShape record{key ? static_cast<std::int32_t>(key_text.size()) : -1, bytes};
  if (key) record.key = static_cast<std::int64_t>(*key);
  if (key && workload_.tombstone_fraction > 0 && rng_.uniform01() < workload_.tombstone_fraction) {
    record.tombstone = true;  // a null value
    record.value_bytes = 0;
  }
  std::int32_t partition = kStickyPartition;  // the built-in partitioner's keyless records: chosen at append
  if (kind_ != PartitionerClass::BuiltIn || (key && !ignore_keys_)) {
    partition = partitioner_.partition(key ? std::optional<std::string_view>(key_text) : std::nullopt,
                                       record_bytes_in_batch(format_, record, 1, 0), last_);
  }
  upcoming_.push_back({last_, {workload_.topic, partition}, record});
  return true;
}

std::uint64_t ArrivalStream::draw_bytes() {
  if (workload_.record_bytes_min == workload_.record_bytes_max) return workload_.record_bytes_min;
  return static_cast<std::uint64_t>(rng_.between(static_cast<std::int64_t>(workload_.record_bytes_min),
                                                 static_cast<std::int64_t>(workload_.record_bytes_max)));
}

std::optional<std::uint64_t> ArrivalStream::draw_key() {
  switch (workload_.keys) {
    case ProducerWorkload::Keys::None: return std::nullopt;
    case ProducerWorkload::Keys::Uniform: return rng_.below(workload_.key_count);
    case ProducerWorkload::Keys::Zipf: {
      const double u = rng_.uniform01();
      return static_cast<std::uint64_t>(std::lower_bound(zipf_cdf_.begin(), zipf_cdf_.end(), u) - zipf_cdf_.begin());
    }
  }
  return std::nullopt;
}

}  // namespace ksim::models
