// `ksim shrink`: a failing run of the chaos nemesis with acks=1 and no
// idempotence (found by ksim explore) shrinks to at most 3 explicit faults
// and a few seconds, and the file it writes fails the same way on its own.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"
#include "app/explore/explore.hpp"
#include "app/explore/shrink.hpp"
#include "app/report/report_expectations.hpp"
#include "app/scenario/config_reader.hpp"
#include "app/scenario/scenario.hpp"

using namespace ksim::app;

namespace {

const std::string kShrunkChaos = std::string(KSIM_SOURCE_DIR) + "/scenarios/chaos.yaml";
const std::vector<std::string> kShrunkUnsafe{"producers.0.config[acks]=1", "producers.0.config[enable.idempotence]=false"};

// The first finding of ksim explore on the unsafe chaos variant: its seed and --set.
std::pair<std::uint64_t, std::vector<std::string>> first_finding(const std::filesystem::path& dir) {
  ExploreArgs args;
  args.scenario = kShrunkChaos;
  args.runs = 50;
  args.jobs = 2;
  args.overrides = kShrunkUnsafe;
  args.quiet = true;
  args.worker_binary = KSIM_BINARY;
  args.out = (dir / "found.json").string();
  std::ostringstream out, err;
  REQUIRE(explore_command(args, out, err) == kExitExpectationFailed);
  std::ifstream in(args.out);
  const auto finding = nlohmann::json::parse(in)["findings"][0];
  std::vector<std::string> sets = kShrunkUnsafe;
  for (const auto& s : finding["sets"]) sets.push_back(s.get<std::string>());
  return {finding["seed"].get<std::uint64_t>(), sets};
}

}  // namespace

TEST_CASE("ksim shrink brings a found failure down to a few faults and seconds, in a file that fails alone", "[explore]") {
  const auto dir = std::filesystem::temp_directory_path() / ("ksim-shrink-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto [seed, sets] = first_finding(dir);
  ShrinkArgs args;
  args.scenario = kShrunkChaos;
  args.seed = seed;
  args.overrides = sets;
  args.out = (dir / "shrunk.yaml").string();
  args.jobs = 2;
  args.worker_binary = KSIM_BINARY;
  std::ostringstream out, err;
  const int status = shrink_command(args, out, err);
  INFO(out.str() << err.str());
  REQUIRE(status == kExitOk);
  CHECK_THAT(out.str(), Catch::Contains("step 0: "));
  CHECK_THAT(out.str(), Catch::Contains("fails delivery"));

  // Alone: only explicit faults, few of them, a short run, the same check failing.
  ksim::config::Document document = ksim::config::Document::load_file(args.out);
  const Scenario shrunk = read_scenario(document, expectation_catalogue());
  CHECK(shrunk.nemesis.rules.empty());
  CHECK(shrunk.faults.size() <= 3);
  CHECK(shrunk.duration <= ksim::seconds(10));
  RunArgs run;
  run.scenario = args.out;
  run.json = true;
  std::ostringstream report, run_err;
  CHECK(run_command(run, report, run_err) == kExitExpectationFailed);
  const auto j = nlohmann::json::parse(report.str());
  CHECK(j["delivery"]["exactly_once"] == false);
  std::ifstream in(args.out);
  std::string first_line;
  std::getline(in, first_line);
  CHECK_THAT(first_line, Catch::StartsWith("# Shrunk by `ksim shrink "));

  // A run that passes has nothing to shrink.
  ShrinkArgs passing = args;
  passing.overrides = {};
  passing.seed = 1;
  std::ostringstream out2, err2;
  CHECK(shrink_command(passing, out2, err2) == kExitExpectationFailed);
  CHECK_THAT(out2.str(), Catch::Contains("nothing to shrink"));
  std::filesystem::remove_all(dir);
}
