#pragma once
// A run as JUnit test cases (`ksim run --junit FILE`): one per expectation of
// the scenario's `expect:`, in its order, failed with what was expected and
// what the run gave, and one for the invariants; the seed, trace hash and
// the command that replays the run in each failure.
#include <string>

#include "app/report/junit.hpp"
#include "app/report/report.hpp"

namespace ksim::app {

// `replay`: the command that runs it again ("ksim run scenarios/x.yaml --seed 7").
JUnitSuite run_junit_suite(const RunReport& report, const std::string& replay);

}  // namespace ksim::app
