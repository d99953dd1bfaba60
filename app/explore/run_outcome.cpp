#include "app/explore/run_outcome.hpp"

#include <cstring>

#include <fmt/format.h>

#include "app/commands/commands.hpp"

namespace ksim::app {

namespace {

// The last lines of a worker's stderr: where an assertion or a sanitizer says what broke.
std::string stderr_tail(const std::string& text, std::size_t lines = 6) {
  std::size_t start = text.size();
  while (start > 0 && text[start - 1] == '\n') --start;  // trailing newlines
  const std::size_t end = start;
  for (std::size_t n = 0; start > 0 && n < lines; ++n) {
    const std::size_t newline = text.rfind('\n', start - 1);
    start = newline == std::string::npos ? 0 : newline;
  }
  if (start > 0 || (!text.empty() && text[0] == '\n')) ++start;
  return start < end ? text.substr(start, end - start) : std::string();
}

// The first expectation that did not hold; for "invariants" and a broken
// "invariant_violations: 0", the first invariant broken, by name (a shrink
// then keeps that invariant broken, not just any).
void first_failed_check(RunOutcome& o) {
  for (const auto& e : o.report.value("expectations", nlohmann::json::array())) {
    if (e.value("held", true)) continue;
    o.check = e.value("name", "?");
    o.detail = e.value("detail", "");
    if (o.check != "invariants" && o.check != "invariant_violations") return;
    const auto& broken = o.report.value("invariants", nlohmann::json::array());
    if (!broken.empty() && broken.front().contains("name")) o.check = "invariant " + broken.front()["name"].get<std::string>();
    return;
  }
  o.check = "expectations";
  o.detail = "the run exited 1 and no expectation says why";
}

// Every expectation that failed did so on a vacuous verdict ("verdict vacuous: no fault fired, ...").
bool only_vacuous_failures(const nlohmann::json& report) {
  bool any = false;
  for (const auto& e : report.value("expectations", nlohmann::json::array())) {
    if (e.value("held", true)) continue;
    if (e.value("detail", "").find("verdict vacuous") == std::string::npos) return false;
    any = true;
  }
  return any;
}

}  // namespace

std::string_view to_string(OutcomeKind kind) {
  switch (kind) {
    case OutcomeKind::Passed: return "passed";
    case OutcomeKind::Failed: return "failed";
    case OutcomeKind::Crashed: return "crashed";
    case OutcomeKind::Unfinished: return "unfinished";
    case OutcomeKind::Invalid: return "invalid";
    case OutcomeKind::Vacuous: return "vacuous";
  }
  return "?";
}

RunOutcome classify(const sweep::Finished& f) {
  RunOutcome o;
  if (f.signal != 0) {
    o.kind = OutcomeKind::Crashed;
    o.check = "crash";
    o.detail = fmt::format("killed by signal {} ({}): {}", f.signal, strsignal(f.signal), stderr_tail(f.err));
    return o;
  }
  if (f.exit_status == kExitUsage) {
    o.kind = OutcomeKind::Invalid;
    o.check = "scenario";
    o.detail = stderr_tail(f.err);
    return o;
  }
  if (f.exit_status == kExitEventBound) {
    o.kind = OutcomeKind::Unfinished;
    o.check = "unfinished";
    o.detail = stderr_tail(f.err, 1);
    return o;
  }
  if (f.exit_status != kExitOk && f.exit_status != kExitExpectationFailed) {
    o.kind = OutcomeKind::Crashed;
    o.check = "crash";
    o.detail = fmt::format("exit status {}: {}", f.exit_status, stderr_tail(f.err));
    return o;
  }
  try {
    o.report = nlohmann::json::parse(f.out);
  } catch (const nlohmann::json::exception& e) {
    o.kind = OutcomeKind::Crashed;
    o.check = "crash";
    o.detail = fmt::format("no JSON report ({}): {}", e.what(), stderr_tail(f.err));
    return o;
  }
  if (f.exit_status == kExitOk) return o;
  o.kind = only_vacuous_failures(o.report) ? OutcomeKind::Vacuous : OutcomeKind::Failed;
  first_failed_check(o);
  return o;
}

}  // namespace ksim::app
