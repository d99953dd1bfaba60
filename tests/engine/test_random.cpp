#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/random/distribution.hpp"
#include "sim/observe/histogram.hpp"
#include "sim/random/random.hpp"

using namespace ksim;

TEST_CASE("a stream is fully determined by its seed", "[random]") {
  RandomStream a(42), b(42), c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next_u64();
    CHECK(x == b.next_u64());
    differs |= x != c.next_u64();
  }
  CHECK(differs);
}

TEST_CASE("xoshiro256** with SplitMix64 seeding gives the reference values", "[random]") {
  // Known-answer test: pins the generator so that a change to it is noticed.
  RandomStream r(0);
  const std::uint64_t first = r.next_u64();
  RandomStream again(0);
  CHECK(first == again.next_u64());
  CHECK(first == 0x99EC5F36CB75F2B4ULL);
}

TEST_CASE("adding a component does not change another component's draws", "[random]") {
  // Streams are derived from (root seed, name), not from creation order.
  std::vector<std::uint64_t> alone, with_neighbour;
  {
    RandomStream broker = RandomStream::derive(7, "broker-1");
    for (int i = 0; i < 10; ++i) alone.push_back(broker.next_u64());
  }
  {
    RandomStream extra = RandomStream::derive(7, "client-9");
    for (int i = 0; i < 5; ++i) extra.next_u64();
    RandomStream broker = RandomStream::derive(7, "broker-1");
    for (int i = 0; i < 10; ++i) with_neighbour.push_back(broker.next_u64());
  }
  CHECK(alone == with_neighbour);
  CHECK(RandomStream::derive(7, "broker-1").next_u64() != RandomStream::derive(7, "broker-2").next_u64());
  CHECK(RandomStream::derive(7, "broker-1").next_u64() != RandomStream::derive(8, "broker-1").next_u64());
}

namespace {
struct Moments {
  double mean = 0, variance = 0;
};
template <class Draw>
Moments moments(int n, Draw draw) {
  double sum = 0, sum_sq = 0;
  for (int i = 0; i < n; ++i) {
    const double x = draw();
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / n;
  return {mean, sum_sq / n - mean * mean};
}
}  // namespace

TEST_CASE("distribution moments match their parameters", "[random]") {
  RandomStream r(2024);
  constexpr int n = 400000;
  SECTION("uniform [0,1)") {
    const auto m = moments(n, [&] { return r.uniform01(); });
    CHECK(m.mean == Approx(0.5).epsilon(0.01));
    CHECK(m.variance == Approx(1.0 / 12).epsilon(0.02));
  }
  SECTION("exponential") {
    const auto m = moments(n, [&] { return r.exponential(3.0); });
    CHECK(m.mean == Approx(3.0).epsilon(0.01));
    CHECK(m.variance == Approx(9.0).epsilon(0.03));
  }
  SECTION("normal") {
    const auto m = moments(n, [&] { return r.normal(10.0, 2.0); });
    CHECK(m.mean == Approx(10.0).epsilon(0.005));
    CHECK(m.variance == Approx(4.0).epsilon(0.02));
  }
  SECTION("lognormal") {
    const double mu = 1.0, sigma = 0.5;
    const auto m = moments(n, [&] { return r.lognormal(mu, sigma); });
    CHECK(m.mean == Approx(std::exp(mu + sigma * sigma / 2)).epsilon(0.01));
    CHECK(m.variance ==
          Approx((std::exp(sigma * sigma) - 1) * std::exp(2 * mu + sigma * sigma)).epsilon(0.04));
  }
  SECTION("pareto") {
    const double scale = 2.0, shape = 5.0;  // finite variance
    const auto m = moments(n, [&] { return r.pareto(scale, shape); });
    CHECK(m.mean == Approx(shape * scale / (shape - 1)).epsilon(0.01));
    CHECK(m.variance == Approx(scale * scale * shape / ((shape - 1) * (shape - 1) * (shape - 2))).epsilon(0.08));
  }
  SECTION("bounded integers are unbiased") {
    std::vector<int> counts(7, 0);
    for (int i = 0; i < 70000; ++i) ++counts[r.below(7)];
    for (const int c : counts) CHECK(c == Approx(10000).epsilon(0.05));
  }
}

TEST_CASE("duration distributions never sample negative values", "[random]") {
  RandomStream r(5);
  const Distribution d = Distribution::normal(microseconds(10), microseconds(20));
  for (int i = 0; i < 10000; ++i) CHECK(d.sample(r) >= 0);
  CHECK(Distribution::lognormal(microseconds(100), 0.5).mean_ns() == Approx(100000 * std::exp(0.125)));
}

TEST_CASE("the histogram reports percentiles within its precision", "[metrics]") {
  Histogram h;
  for (int i = 1; i <= 100000; ++i) h.record(microseconds(i));
  CHECK(h.count() == 100000);
  CHECK(h.min() == microseconds(1));
  CHECK(h.max() == microseconds(100000));
  CHECK(static_cast<double>(h.percentile(50)) == Approx(5e7).epsilon(0.02));
  CHECK(static_cast<double>(h.percentile(99)) == Approx(9.9e7).epsilon(0.02));
  CHECK(h.percentile(100) == h.max());
  CHECK(h.mean() == Approx(50000.5 * 1000));
}

TEST_CASE("a histogram's records since an earlier copy give that interval's percentiles", "[metrics]") {
  Histogram h;
  for (int i = 1; i <= 1000; ++i) h.record(microseconds(i));
  const Histogram earlier = h;
  for (int i = 0; i < 500; ++i) h.record(milliseconds(50 + i % 10));
  const Histogram interval = h.since(earlier);
  CHECK(interval.count() == 500);
  CHECK(static_cast<double>(interval.min()) == Approx(5e7).epsilon(0.02));
  CHECK(static_cast<double>(interval.max()) == Approx(5.9e7).epsilon(0.02));
  CHECK(static_cast<double>(interval.percentile(50)) == Approx(5.45e7).epsilon(0.03));
  CHECK(interval.mean() == Approx(5.45e7).epsilon(0.001));
  CHECK(h.since(h).count() == 0);
  CHECK(h.since(Histogram{}).percentile(99) == h.percentile(99));
}
