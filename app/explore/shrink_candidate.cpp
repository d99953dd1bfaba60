#include "app/explore/shrink_candidate.hpp"

#include <cmath>

#include <fmt/format.h>

#include "app/scenario/units.hpp"

namespace ksim::app {

namespace {

constexpr SimTime kShortestFault = milliseconds(10);
constexpr SimTime kShortestRun = seconds(1);

SimTime fault_time(const nlohmann::json& entry, const char* key) {
  if (!entry.contains(key)) return 0;
  const auto parsed = units::parse_duration(entry[key].get<std::string>());
  return parsed ? parsed.value() : 0;
}

std::string format_shrunk_size(double value) {
  return std::floor(value) == value ? fmt::format("{}", static_cast<std::int64_t>(value)) : fmt::format("{:.3f}", value);
}

}  // namespace

std::vector<std::string> ShrinkCandidate::overrides() const {
  std::vector<std::string> sets = user_sets;
  for (const std::string& own : {std::string("nemesis={}"), "faults=" + faults.dump(),
                                 "duration=" + units::format_exact_duration(duration)}) {
    sets.push_back(own);
  }
  for (const Size& s : sizes) sets.push_back(s.path + "=" + format_shrunk_size(s.value) + (s.path.ends_with(".rate") ? "/s" : ""));
  return sets;
}

SimTime ShrinkCandidate::faults_end() const {
  SimTime end = 0;
  for (const auto& f : faults) end = std::max(end, fault_time(f, "at") + fault_time(f, "duration"));
  return end;
}

std::vector<ShrinkCandidate> ShrinkCandidate::smaller() const {
  std::vector<ShrinkCandidate> out;
  const std::size_t n = faults.size();
  // Fewer faults: every chunk of n/2, n/4, ... 1 consecutive faults removed.
  for (std::size_t chunk = std::max<std::size_t>(n / 2, 1); n > 0; chunk /= 2) {
    for (std::size_t first = 0; first < n; first += chunk) {
      ShrinkCandidate c = *this;
      c.faults = nlohmann::json::array();
      for (std::size_t i = 0; i < n; ++i) {
        if (i < first || i >= first + chunk) c.faults.push_back(faults[i]);
      }
      c.step = chunk == 1 ? fmt::format("removed fault {} ({})", first + 1, faults[first]["kind"].get<std::string>())
                          : fmt::format("removed faults {}-{}", first + 1, std::min(first + chunk, n));
      out.push_back(std::move(c));
    }
    if (chunk == 1) break;
  }
  // Rounder times (to the millisecond), shorter faults, earlier ones.
  for (std::size_t i = 0; i < n; ++i) {
    const SimTime at = fault_time(faults[i], "at"), d = fault_time(faults[i], "duration");
    if (at % milliseconds(1) == 0 && d % milliseconds(1) == 0) continue;
    ShrinkCandidate c = *this;
    c.faults[i]["at"] = units::format_exact_duration(at - at % milliseconds(1));
    if (d > 0) c.faults[i]["duration"] = units::format_exact_duration(std::max(milliseconds(1), d - d % milliseconds(1)));
    c.step = fmt::format("fault {} ({}) in whole milliseconds", i + 1, faults[i]["kind"].get<std::string>());
    out.push_back(std::move(c));
  }
  // Each fault's `key` halved, where it stays at least `least`; "lasts", "at" in the log.
  const auto halve_each = [&](const char* key, SimTime least, const char* says) {
    for (std::size_t i = 0; i < n; ++i) {
      const SimTime value = fault_time(faults[i], key);
      if (value < 2 * least) continue;
      ShrinkCandidate c = *this;
      c.faults[i][key] = units::format_exact_duration(value / 2);
      c.step = fmt::format("fault {} ({}) {} {}", i + 1, faults[i]["kind"].get<std::string>(), says,
                           units::format_duration(value / 2));
      out.push_back(std::move(c));
    }
  };
  halve_each("duration", kShortestFault, "lasts");
  halve_each("at", kShortestRun, "at");
  // Smaller sizes.
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const Size& s = sizes[i];
    const double lower = std::max(s.floor, s.halve ? std::floor(s.value / 2) : s.value - 1);
    if (lower >= s.value) continue;
    ShrinkCandidate c = *this;
    c.sizes[i].value = lower;
    c.step = fmt::format("{} = {}", s.path, format_shrunk_size(lower));
    out.push_back(std::move(c));
  }
  // Each of the user's overrides dropped: is it needed for the failure?
  for (std::size_t i = 0; i < user_sets.size(); ++i) {
    ShrinkCandidate c = *this;
    c.user_sets.erase(c.user_sets.begin() + static_cast<std::ptrdiff_t>(i));
    c.step = fmt::format("without --set '{}'", user_sets[i]);
    out.push_back(std::move(c));
  }
  // A shorter run: halfway down to the end of the last fault (or a second).
  const SimTime shortest = std::max(faults_end(), kShortestRun);
  if (duration > shortest + milliseconds(100)) {
    ShrinkCandidate c = *this;
    c.duration = shortest + (duration - shortest) / 2;
    c.duration -= c.duration % milliseconds(1);
    c.step = fmt::format("duration = {}", units::format_duration(c.duration));
    out.push_back(std::move(c));
  }
  return out;
}

ShrinkCandidate initial_candidate(const Scenario& s, const nlohmann::json& fault_schedule,
                                  std::vector<std::string> user_sets) {
  ShrinkCandidate c;
  c.user_sets = std::move(user_sets);
  c.faults = fault_schedule;
  c.duration = s.duration;
  c.step = "the run with its faults explicit";
  if (!s.kafka) return c;
  const KafkaSpec& k = *s.kafka;
  c.sizes.push_back({"brokers.count", static_cast<double>(k.brokers.count), 1, false});
  for (std::size_t t = 0; t < k.topics.size(); ++t) {
    c.sizes.push_back({fmt::format("topics.{}.partitions", t), static_cast<double>(k.topics[t].partitions), 1, true});
  }
  for (std::size_t p = 0; p < k.producers.size(); ++p) {
    c.sizes.push_back({fmt::format("producers.{}.count", p), static_cast<double>(k.producers[p].nodes.count), 1, false});
    const double rate = k.producers[p].workload.rate_per_s;
    if (std::isfinite(rate) && rate >= 2 && k.producers[p].paced_by.empty()) {
      c.sizes.push_back({fmt::format("producers.{}.rate", p), std::floor(rate), 1, true});
    }
  }
  for (std::size_t i = 0; i < k.consumers.size(); ++i) {
    c.sizes.push_back({fmt::format("consumers.{}.count", i), static_cast<double>(k.consumers[i].nodes.count), 1, false});
  }
  return c;
}

}  // namespace ksim::app
