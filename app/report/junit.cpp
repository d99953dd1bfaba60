#include "app/report/junit.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/report/xml_escape.hpp"

namespace ksim::app {

namespace {

struct Counts {
  std::size_t tests = 0, failures = 0, skipped = 0;
  double time_s = 0;
};

Counts count(const JUnitSuite& suite) {
  Counts c;
  c.tests = suite.cases.size();
  c.time_s = suite.time_s;
  for (const JUnitCase& t : suite.cases) {
    c.failures += t.outcome == JUnitCase::Outcome::Failed ? 1 : 0;
    c.skipped += t.outcome == JUnitCase::Outcome::Skipped ? 1 : 0;
  }
  return c;
}

void write_case(std::ostream& out, const JUnitCase& t) {
  fmt::print(out, R"(    <testcase name="{}" classname="{}" time="{:.3f}")", xml_escape(t.name), xml_escape(t.classname),
             t.time_s);
  if (t.outcome == JUnitCase::Outcome::Passed && t.output.empty()) {
    fmt::print(out, "/>\n");
    return;
  }
  fmt::print(out, ">\n");
  if (t.outcome == JUnitCase::Outcome::Failed) {
    fmt::print(out, R"(      <failure message="{}" type="ExpectationFailed">{}</failure>)", xml_escape(t.message),
               xml_escape(t.details));
    fmt::print(out, "\n");
  } else if (t.outcome == JUnitCase::Outcome::Skipped) {
    fmt::print(out, "      <skipped message=\"{}\"/>\n", xml_escape(t.message));
  }
  if (!t.output.empty()) fmt::print(out, "      <system-out>{}</system-out>\n", xml_escape(t.output));
  fmt::print(out, "    </testcase>\n");
}

}  // namespace

void write_junit(std::ostream& out, const std::vector<JUnitSuite>& suites) {
  Counts all;
  for (const JUnitSuite& s : suites) {
    const Counts c = count(s);
    all.tests += c.tests;
    all.failures += c.failures;
    all.skipped += c.skipped;
    all.time_s += c.time_s;
  }
  fmt::print(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fmt::print(out, R"(<testsuites name="ksim" tests="{}" failures="{}" errors="0" skipped="{}" time="{:.3f}">)", all.tests,
             all.failures, all.skipped, all.time_s);
  fmt::print(out, "\n");
  for (const JUnitSuite& s : suites) {
    const Counts c = count(s);
    fmt::print(out, R"(  <testsuite name="{}" tests="{}" failures="{}" errors="0" skipped="{}" time="{:.3f}">)",
               xml_escape(s.name), c.tests, c.failures, c.skipped, c.time_s);
    fmt::print(out, "\n");
    if (!s.properties.empty()) {
      fmt::print(out, "    <properties>\n");
      for (const auto& [name, value] : s.properties) {
        fmt::print(out, "      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name), xml_escape(value));
      }
      fmt::print(out, "    </properties>\n");
    }
    for (const JUnitCase& t : s.cases) write_case(out, t);
    fmt::print(out, "  </testsuite>\n");
  }
  fmt::print(out, "</testsuites>\n");
}

}  // namespace ksim::app
