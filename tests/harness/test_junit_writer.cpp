// The JUnit XML writer (app/report/junit.hpp), which ksim run --junit uses and
// an exploration can: counts, outcomes, escaping.
#include <catch2/catch.hpp>

#include <sstream>

#include "app/report/junit.hpp"
#include "app/report/xml_escape.hpp"

using ksim::app::JUnitCase;
using ksim::app::JUnitSuite;

TEST_CASE("JUnit XML counts each suite's cases, failures and skips, and escapes what it writes", "[junit]") {
  JUnitSuite runs;
  runs.name = "explore chaos";
  runs.time_s = 1.5;
  runs.properties = {{"seed", "7"}, {"command", "ksim explore <x> & 'y'"}};
  JUnitCase ok;
  ok.name = "run 1";
  ok.classname = "ksim.chaos";
  JUnitCase failed = ok;
  failed.name = "run 2 <seed 9>";
  failed.outcome = JUnitCase::Outcome::Failed;
  failed.message = "lost: 3 (expected 0)";
  failed.details = "a \"quoted\" line\nand a bell \a";
  JUnitCase skipped = ok;
  skipped.name = "run 3";
  skipped.outcome = JUnitCase::Outcome::Skipped;
  skipped.message = "vacuous";
  runs.cases = {ok, failed, skipped};
  JUnitSuite empty;
  empty.name = "nothing";
  std::ostringstream out;
  ksim::app::write_junit(out, {runs, empty});
  const std::string xml = out.str();
  CHECK_THAT(xml, Catch::Contains(R"(<testsuites name="ksim" tests="3" failures="1" errors="0" skipped="1" time="1.500">)"));
  CHECK_THAT(xml, Catch::Contains(R"(<testsuite name="explore chaos" tests="3" failures="1" errors="0" skipped="1")"));
  CHECK_THAT(xml, Catch::Contains(R"(<testsuite name="nothing" tests="0" failures="0" errors="0" skipped="0")"));
  CHECK_THAT(xml, Catch::Contains(R"(<property name="command" value="ksim explore &lt;x&gt; &amp; &#39;y&#39;"/>)"));
  CHECK_THAT(xml, Catch::Contains(R"(<testcase name="run 1" classname="ksim.chaos" time="0.000"/>)"));
  CHECK_THAT(xml, Catch::Contains(R"(<testcase name="run 2 &lt;seed 9&gt;")"));
  CHECK_THAT(xml, Catch::Contains("<failure message=\"lost: 3 (expected 0)\" type=\"ExpectationFailed\">a &quot;quoted&quot; "
                                  "line\nand a bell \xEF\xBF\xBD</failure>"));
  CHECK_THAT(xml, Catch::Contains(R"(<skipped message="vacuous"/>)"));
  CHECK(ksim::app::xml_escape("tab\tnew\nline") == "tab\tnew\nline");
}
