#pragma once
// Seeded random streams. One root seed; each component derives its own
// independent stream from (root seed, stable component name), so adding a
// component never changes the draws of another. The generator is
// xoshiro256** seeded through SplitMix64, and every distribution is our own
// code: the standard library's distributions differ between implementations.
#include <cstdint>
#include <string_view>

namespace ksim {

std::uint64_t splitmix64(std::uint64_t& state);
std::uint64_t hash_name(std::string_view name);  // FNV-1a, stable across platforms

class RandomStream {
 public:
  explicit RandomStream(std::uint64_t seed);
  static RandomStream derive(std::uint64_t root_seed, std::string_view component_name);

  std::uint64_t next_u64();
  double uniform01();                                   // [0, 1), 53 random bits
  double uniform(double low, double high);              // [low, high)
  std::uint64_t below(std::uint64_t bound);             // [0, bound), unbiased (Lemire)
  std::int64_t between(std::int64_t low, std::int64_t high);  // [low, high], inclusive
  bool bernoulli(double probability);
  double exponential(double mean);
  double normal(double mean, double stddev);            // Marsaglia polar method
  double lognormal(double mu, double sigma);            // exp(normal(mu, sigma))
  double pareto(double scale, double shape);            // scale / U^(1/shape), support [scale, inf)

 private:
  std::uint64_t s_[4];
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

}  // namespace ksim
