#include "sim/random/random.hpp"

#include <cassert>
#include <cmath>

namespace ksim {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t hash_name(std::string_view name) {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (const char c : name) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001B3ULL;
  }
  return h;
}

RandomStream::RandomStream(std::uint64_t seed) {
  std::uint64_t state = seed;
  for (auto& word : s_) word = splitmix64(state);
}

RandomStream RandomStream::derive(std::uint64_t root_seed, std::string_view component_name) {
  std::uint64_t state = hash_name(component_name);
  const std::uint64_t name_key = splitmix64(state);
  state = root_seed ^ name_key;
  return RandomStream(splitmix64(state));
}

static inline std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

std::uint64_t RandomStream::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double RandomStream::uniform01() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

double RandomStream::uniform(double low, double high) { return low + (high - low) * uniform01(); }

std::uint64_t RandomStream::below(std::uint64_t bound) {
  assert(bound > 0);
  __uint128_t m = static_cast<__uint128_t>(next_u64()) * bound;
  auto low = static_cast<std::uint64_t>(m);
  if (low < bound) {
    const std::uint64_t threshold = -bound % bound;
    while (low < threshold) {
      m = static_cast<__uint128_t>(next_u64()) * bound;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

std::int64_t RandomStream::between(std::int64_t low, std::int64_t high) {
  assert(low <= high);
  const auto span = static_cast<std::uint64_t>(high - low) + 1;
  if (span == 0) return static_cast<std::int64_t>(next_u64());  // the whole 64-bit range
  return low + static_cast<std::int64_t>(below(span));
}

bool RandomStream::bernoulli(double probability) { return uniform01() < probability; }

double RandomStream::exponential(double mean) {
  // 1 - U lies in (0, 1], so the logarithm is finite.
  return -mean * std::log(1.0 - uniform01());
}

double RandomStream::normal(double mean, double stddev) {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return mean + stddev * spare_normal_;
  }
  double u, v, s;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return mean + stddev * u * factor;
}

double RandomStream::lognormal(double mu, double sigma) { return std::exp(normal(mu, sigma)); }

double RandomStream::pareto(double scale, double shape) {
  assert(scale > 0 && shape > 0);
  return scale / std::pow(1.0 - uniform01(), 1.0 / shape);
}

}  // namespace ksim
