// The progress line of a long `ksim run` (drawn only on a terminal).
#include <catch2/catch.hpp>

#include "app/commands/run_progress.hpp"

TEST_CASE("a long run's progress line: simulated time done, events per second, wall time left", "[cli]") {
  using ksim::seconds;
  CHECK(ksim::app::RunProgress::line(seconds(12), seconds(40), 1'200'000, 5.0) ==
        "[#########.....................] 12.0s of 40.0s simulated, 240.0k events/s, 0:05 elapsed, 0:11 left");
  CHECK(ksim::app::RunProgress::line(0, seconds(40), 0, 1.0) ==
        "[..............................] 0.0s of 40.0s simulated, 0 events/s, 0:01 elapsed");
}
