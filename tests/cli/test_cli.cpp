// The ksim command itself: exit statuses and argument handling.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/support/source_tree.hpp"

namespace {

int run_ksim(const std::string& arguments) {
  const std::string command = std::string(KSIM_BINARY) + " " + arguments + " > /dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

using ksim::testing::kScenarios;

}  // namespace

TEST_CASE("ksim exits 0 when the expectations hold, 1 when they do not, 2 for bad input", "[cli]") {
  CHECK(run_ksim("run " + kScenarios + "jbod-skew.yaml --set duration=2s --set drain=1s") == 0);
  CHECK(run_ksim("run " + kScenarios + "jbod-skew.yaml --set duration=2s --set expect.lost='\">0\"'") == 1);
  CHECK(run_ksim("run " + kScenarios + "jbod-skew.yaml --set brokers.count=zero") == 2);
  CHECK(run_ksim("run no-such-file.yaml") == 2);
  CHECK(run_ksim("frobnicate") == 2);
  CHECK(run_ksim("validate " + kScenarios + "quickstart.yaml") == 0);
  CHECK(run_ksim("--help") == 0);
}

TEST_CASE("a --set before the scenario file leaves the file positional", "[cli]") {
  CHECK(run_ksim("run --set duration=2s " + kScenarios + "jbod-skew.yaml --set drain=1s") == 0);
}

TEST_CASE("every scenario file validates", "[cli][scenarios]") {
  // Every YAML under scenarios/ except the hardware profiles, which scenarios include.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".yaml" || entry.path().parent_path().filename() == "profiles") continue;
    INFO(entry.path().string());
    CHECK(run_ksim("validate " + entry.path().string()) == 0);
    ++files;
  }
  CHECK(files >= 35);
}

TEST_CASE("every benchmark input validates", "[cli][scenarios]") {
  // bench/inputs/: scenarios too large for the test suite to run, measured in docs/performance.md.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(KSIM_SOURCE_DIR) + "/bench/inputs")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    CHECK(run_ksim("validate " + entry.path().string()) == 0);
    ++files;
  }
  CHECK(files >= 1);
}
