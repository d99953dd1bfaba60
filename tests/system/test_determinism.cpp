#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim::app;

namespace {

nlohmann::json run_json(std::uint64_t seed, std::vector<std::string> overrides = {}) {
  RunArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/rpc-faults.yaml";
  args.seed = seed;
  args.json = true;
  args.overrides = std::move(overrides);
  args.overrides.push_back("duration=12s");  // enough to cover the partition and a burst
  std::ostringstream out, err;
  run_command(args, out, err);
  INFO(err.str());
  return nlohmann::json::parse(out.str());
}

}  // namespace

TEST_CASE("the same scenario and seed give the same trace hash", "[determinism]") {
  for (const std::uint64_t seed : {1, 2, 3, 99}) {
    const auto a = run_json(seed);
    const auto b = run_json(seed);
    CHECK(a["trace_hash"] == b["trace_hash"]);
    CHECK(a["events"] == b["events"]);
    CHECK(a["workload"] == b["workload"]);
  }
}

TEST_CASE("a different seed gives a different trace hash", "[determinism]") {
  const auto a = run_json(1);
  const auto b = run_json(2);
  CHECK(a["trace_hash"] != b["trace_hash"]);
  CHECK(a["trace_hash"].get<std::string>().size() == 16);
}

TEST_CASE("the JSON report carries the fields tools rely on", "[determinism][cli]") {
  const auto j = run_json(7);
  for (const char* key : {"seed", "trace_hash", "sim_time_s", "events", "wall_s", "workload", "faults_fired"}) {
    CHECK(j.contains(key));
  }
  CHECK(j["seed"] == 7);
  CHECK(j["sim_time_s"] == Approx(12.0));
}

TEST_CASE("the trace file holds one JSON object per record", "[determinism][cli]") {
  const std::string path = (std::filesystem::temp_directory_path() / "ksim_test_trace.jsonl").string();
  RunArgs args;
  args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/rpc-faults.yaml";
  args.overrides = {"duration=9s"};
  args.trace_file = path;
  args.json = true;
  std::ostringstream out, err;
  REQUIRE(run_command(args, out, err) != kExitUsage);
  const auto report = nlohmann::json::parse(out.str());
  std::ifstream in(path);
  std::string line;
  std::uint64_t lines = 0;
  bool saw_partition = false;
  while (std::getline(in, line)) {
    const auto record = nlohmann::json::parse(line);
    CHECK(record.contains("t_ns"));
    saw_partition |= record["kind"] == "fault.start" && record["fault"] == "partition";
    ++lines;
  }
  CHECK(lines == report["trace_records"].get<std::uint64_t>());
  CHECK(saw_partition);
  std::remove(path.c_str());
}

TEST_CASE("a consumer group scenario replays bit for bit", "[determinism][groups]") {
  for (const std::uint64_t seed : {1, 7}) {
    const auto a = ksim::testing::run_scenario("consumer-commit-after-process", seed);
    const auto b = ksim::testing::run_scenario("consumer-commit-after-process", seed);
    CHECK(a.report["trace_hash"] == b.report["trace_hash"]);
    CHECK(a.report["groups"] == b.report["groups"]);
  }
}
