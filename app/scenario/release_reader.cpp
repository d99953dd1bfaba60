#include "app/scenario/release_reader.hpp"

#include <cctype>
#include <charconv>

namespace ksim::app {

using models::Mechanism;

namespace {

// For a release ksim does not model, the nearest one before it ("2.9": 2.8, "4.4": 4.3).
std::optional<std::string> nearest_release(std::string_view text) {
  int major = 0, minor = 0;
  const char* end = text.data() + text.size();
  const auto [dot, e1] = std::from_chars(text.data(), end, major);
  if (e1 != std::errc{} || dot == end || *dot != '.') return std::nullopt;
  const auto [rest, e2] = std::from_chars(dot + 1, end, minor);
  if (e2 != std::errc{}) return std::nullopt;
  std::optional<std::string> nearest;
  for (const auto& r : models::modelled_releases()) {
    if (r <= models::KafkaRelease{major, minor}) nearest = r.name();
  }
  return nearest;
}

models::KafkaRelease read_version(config::MapReader& in, models::KafkaRelease fallback) {
  const std::optional<std::string> text = in.optional<std::string>("kafka_version");
  if (!text) return fallback;
  if (const auto release = models::parse_release(*text)) return *release;
  const auto suggestion = nearest_release(*text);
  in.reject("kafka_version", "'" + config::excerpt(*text) + "' is not a modelled release" +
                                 (suggestion ? " (did you mean '" + *suggestion + "'?)" : "") +
                                 "; modelled: 0.10, 0.11, 1.0, 1.1, 2.0 to 2.8, 3.0 to 3.9, 4.0 to " +
                                 models::kLatestRelease.name() + " (ksim versions lists them); quote it: \"2.8\"");
  return fallback;
}

}  // namespace

models::Mechanisms ReleaseSpec::mechanisms(models::KafkaRelease side_release, const MechanismSwitches& own) const {
  models::Mechanisms m(side_release);
  for (const auto& [mechanism, on] : switches) m.set(mechanism, on);
  for (const auto& [mechanism, on] : own) m.set(mechanism, on);
  return m;
}

MechanismSwitches read_switches(config::MapReader& in) {
  MechanismSwitches switches;
  config::MapReader kips = in.map("kips");
  std::vector<std::string> known;
  for (const auto& i : models::mechanisms()) known.emplace_back(i.key);
  for (const std::string& key : kips.keys()) {
    const std::optional<Mechanism> mechanism = models::mechanism_of(key);
    if (!mechanism) {
      std::string upper = key;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      const auto suggestion = config::closest_name(upper, known);
      kips.reject(key, "not a mechanism ksim knows" + (suggestion ? " (did you mean '" + *suggestion + "'?)" : "") +
                           "; ksim versions lists them");
      kips.ignore(key);
      continue;
    }
    const std::string value = kips.get_choice(key, {"on", "off"}, "on");
    const models::MechanismInfo& info = models::info(*mechanism);
    const bool on = value == "on";
    const bool unmodelled_side = info.modelled == models::Modelled::Neither ||
                                 (on && info.modelled == models::Modelled::WithoutOnly) ||
                                 (!on && info.modelled == models::Modelled::WithOnly);
    if (unmodelled_side) {
      kips.reject(key, "ksim does not model Kafka " + std::string(on ? "with" : "without") + " " + std::string(info.key) +
                           " (" + std::string(info.title) + "): " + std::string(info.instead));
      continue;
    }
    switches[*mechanism] = on;
  }
  return switches;
}

ReleaseSpec read_release(config::MapReader& root) {
  ReleaseSpec spec;
  spec.given = root.has("kafka_version");
  spec.release = read_version(root, spec.release);
  spec.switches = read_switches(root);
  // The alias from before releases: followers truncating to their high watermark.
  config::MapReader brokers = root.map("brokers");
  if (const auto truncate = brokers.optional<bool>("truncate_to_high_watermark")) {
    if (spec.switches.contains(Mechanism::LeaderEpochTruncation) && spec.switches[Mechanism::LeaderEpochTruncation] == *truncate) {
      brokers.reject("truncate_to_high_watermark", "contradicts kips: KIP-101 (it is an alias of KIP-101: off)");
    }
    spec.switches[Mechanism::LeaderEpochTruncation] = !*truncate;
  }
  return spec;
}

ClientRelease read_client_release(config::MapReader& client, const ReleaseSpec& cluster, bool producer) {
  ClientRelease c;
  c.own_release = client.has("kafka_version");
  c.release = read_version(client, cluster.release);
  c.switches = read_switches(client);
  if (producer && client.get_choice("defaults", {"current", "pre-3.0"}, "current") == "pre-3.0") {
    // The alias: a client without KIP-679's defaults, KIP-1030's linger.ms,
    // KIP-580's exponential backoff and KIP-951's leader discovery.
    for (const Mechanism m : {Mechanism::ProducerSafeDefaults, Mechanism::LingerDefault5, Mechanism::ExponentialBackoff,
                              Mechanism::LeaderDiscovery}) {
      c.switches.try_emplace(m, false);
    }
  }
  c.mechanisms = cluster.mechanisms(c.release, c.switches);
  return c;
}

void reject_absent(config::MapReader& in, std::string_view key, const models::Mechanisms& side, Mechanism needed) {
  if (!in.has(key) || side.has(needed)) return;
  in.ignore(key);
  const models::MechanismInfo& info = models::info(needed);
  in.reject(key, "not in Kafka " + side.release().name() + ": " + std::string(info.key) + " (" + std::string(info.title) +
                     ") came in " + info.since.name() + " (or kips: {" + std::string(info.key) + ": on})");
}

}  // namespace ksim::app
