// `ksim bench soak` (issue 19): a smoke test of the command on a few
// simulated seconds of a small cluster, so that the benchmark cannot rot.
// The benchmark itself (an hour of 2,000 partitions) is in
// docs/performance.md, never in the test suite.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_commands.hpp"

namespace {

ksim::bench::SoakBenchOptions tiny_soak() {
  ksim::bench::SoakBenchOptions o;
  o.duration_s = 4;
  o.partitions = 12;
  o.brokers = 3;
  o.producers = 2;
  o.rate_per_s = 200;
  o.retention_s = 2;
  o.group_a = 2;
  o.group_b = 1;
  o.sample_every_s = 1;
  return o;
}

}  // namespace

TEST_CASE("bench soak runs a small cluster, samples its memory each simulated interval and checks it", "[bench][soak]") {
  std::ostringstream out;
  REQUIRE(ksim::bench::bench_soak_command(tiny_soak(), true, out) == 0);
  const auto j = nlohmann::json::parse(out.str());
  CHECK(j["benchmark"] == "soak");
  CHECK(j["sim_s"].get<double>() == Approx(5.0));  // 4 s and the 1 s drain
  CHECK(j["records"].get<std::uint64_t>() > 0);
  CHECK(j["consumed"].get<std::uint64_t>() > 0);
  CHECK(j["verdict"] == "exactly-once");
  CHECK(j["rss_samples"].size() == 5);  // at 1, 2, 3, 4 and 5 simulated seconds
  CHECK(j["rss_samples"][0]["rss_bytes"].get<std::uint64_t>() > 0);
  CHECK(j["peak_rss_bytes"].get<std::uint64_t>() >= j["rss_samples"][4]["rss_bytes"].get<std::uint64_t>());
  CHECK(j["speedup"].get<double>() > 0);
}

TEST_CASE("bench soak prints its figures as text", "[bench][soak]") {
  std::ostringstream out;
  REQUIRE(ksim::bench::bench_soak_command(tiny_soak(), false, out) == 0);
  const std::string text = out.str();
  CHECK(text.find("rss over simulated time") != std::string::npos);
  CHECK(text.find("speedup") != std::string::npos);
  CHECK(text.find("peak_rss") != std::string::npos);
  CHECK(text.find("verdict exactly-once") != std::string::npos);
}

TEST_CASE("the soak scenario has the issue's shape by default", "[bench][soak]") {
  const std::string text = ksim::bench::soak_scenario_text(ksim::bench::SoakBenchOptions{});
  CHECK(text.find("count: 6") != std::string::npos);          // brokers
  CHECK(text.find("partitions: 2000") != std::string::npos);
  CHECK(text.find("retention.ms: 600s") != std::string::npos);
  CHECK(text.find("min.insync.replicas: 2") != std::string::npos);
  CHECK(text.find("count: 10\n") != std::string::npos);       // producers
  CHECK(text.find("rate: 10000/s") != std::string::npos);
  CHECK(text.find("name: analytics, count: 6") != std::string::npos);
  CHECK(text.find("name: audit, count: 3") != std::string::npos);
}
