#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"

using namespace ksim::app;

// scenarios/rpc-faults.yaml: a partition, a latency spike beyond the request
// timeout, a pause and a crash. Most requests complete; some time out.
TEST_CASE("rpc-faults: faults cost some requests but most complete, over many seeds", "[scenarios]") {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    RunArgs args;
    args.scenario = std::string(KSIM_SOURCE_DIR) + "/scenarios/rpc-faults.yaml";
    args.seed = seed;
    args.json = true;
    std::ostringstream out, err;
    const int status = run_command(args, out, err);
    INFO("seed " << seed << ": " << out.str() << err.str());
    CHECK(status == kExitOk);
    const auto j = nlohmann::json::parse(out.str());
    const auto& w = j["workload"];
    CHECK(w["timed_out"].get<int>() >= 1);     // the partition and the spike outlast request_timeout
    CHECK(w["failed"].get<int>() > 0);         // a timeout closes the connection, failing the rest in flight
    CHECK(j["faults_fired"]["partition"] == 1);
    CHECK(j["faults_fired"]["crash"] == 1);
    CHECK(j["faults_fired"]["pause"] == 1);
    CHECK(j["network"]["messages_held"].get<int>() > 0);
    CHECK(w["latency_ms"]["p50"].get<double>() < 2.0);
  }
}
