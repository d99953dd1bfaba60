#pragma once
// JUnit XML, as CI systems read test reports (Jenkins, GitLab, GitHub
// Actions' reporters): suites of named test cases, each passed, failed (with
// a message and details) or skipped. Any command turns its results into
// cases: `ksim run --junit` one per expectation (report_junit.hpp), an
// exploration one per failing run.
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace ksim::app {

struct JUnitCase {
  enum class Outcome { Passed, Failed, Skipped };
  std::string name;       // "delivery", "groups.analytics.duplicates"
  std::string classname;  // what it belongs to: the scenario, "ksim.quickstart"
  Outcome outcome = Outcome::Passed;
  std::string message;  // the failure's or skip's one line: "required exactly-once, verdict at-least-once"
  std::string details;  // the failure's body: expected and actual, how to replay
  double time_s = 0;
  std::string output;  // <system-out>
};

struct JUnitSuite {
  std::string name;
  double time_s = 0;
  std::map<std::string, std::string> properties;  // seed, trace hash, ...: sorted by name
  std::vector<JUnitCase> cases;
};

// A <testsuites> document with counts of tests, failures and skips.
void write_junit(std::ostream& out, const std::vector<JUnitSuite>& suites);

}  // namespace ksim::app
