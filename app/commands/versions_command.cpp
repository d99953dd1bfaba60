// ksim versions: the Kafka releases ksim models, and what changes between
// each and the next (models/protocol/kafka_release.hpp).
#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/commands/commands.hpp"
#include "models/protocol/kafka_release.hpp"

namespace ksim::app {

namespace {

std::string_view modelled_text(models::Modelled m) {
  switch (m) {
    case models::Modelled::Both: return "modelled";
    case models::Modelled::WithOnly: return "modelled with it only";
    case models::Modelled::WithoutOnly: return "modelled without it only";
    case models::Modelled::Neither: return "not modelled";
  }
  return "";
}

}  // namespace

int versions_command(bool json, std::ostream& out) {
  const auto& releases = models::modelled_releases();
  if (json) {
    nlohmann::ordered_json j;
    j["latest"] = models::kLatestRelease.name();
    j["releases"] = nlohmann::ordered_json::array();
    for (const auto& r : releases) {
      nlohmann::ordered_json release{{"kafka_version", r.name()}, {"mechanisms", nlohmann::ordered_json::array()}};
      for (const auto& i : models::mechanisms()) {
        if (i.since != r) continue;
        release["mechanisms"].push_back({{"key", i.key},
                                         {"sides", i.sides},
                                         {"title", i.title},
                                         {"modelled", modelled_text(i.modelled)},
                                         {"instead", i.instead}});
      }
      j["releases"].push_back(std::move(release));
    }
    out << j.dump() << '\n';
    return kExitOk;
  }
  fmt::print(out,
             "ksim models Kafka {} to {}. In a scenario, kafka_version: \"3.9\" selects a release (the default is {}),\n"
             "a producer's or consumer's own kafka_version its client's, and kips: {{KIP-966: off}} switches one\n"
             "mechanism against the release. What each release changed, as ksim models it:\n",
             releases.front().name(), releases.back().name(), models::kLatestRelease.name());
  for (const auto& r : releases) {
    fmt::print(out, "\n{}{}\n", r.name(), r == releases.front() ? " (0.10.2, the oldest modelled)" : "");
    bool any = false;
    for (const auto& i : models::mechanisms()) {
      if (i.since != r) continue;
      any = true;
      fmt::print(out, "  {:<14} {} [{}; {}]\n", i.key, i.title, i.sides, modelled_text(i.modelled));
      if (!i.instead.empty()) fmt::print(out, "  {:<14} ksim: {}\n", "", i.instead);
    }
    if (!any && r != releases.front()) fmt::print(out, "  no change ksim models\n");
  }
  return kExitOk;
}

}  // namespace ksim::app
