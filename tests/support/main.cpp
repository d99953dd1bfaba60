// The tests' main: Catch2's, with the source tree's hardware profiles where
// scenarios given as text (not read from scenarios/) can find them.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "app/scenario/profile.hpp"

int main(int argc, char* argv[]) {
  ksim::app::add_profile_dir(std::string(KSIM_SOURCE_DIR) + "/scenarios/profiles");
  return Catch::Session().run(argc, argv);
}
