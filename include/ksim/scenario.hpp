#pragma once
// A scenario: brokers, topics, producers, consumers, their Kafka configs,
// faults and expectations, as a YAML scenario file has them
// (docs/scenarios.md). Load one from a file or from text, override any value
// as `ksim run --set` does, choose the seed. Every change is validated at
// once: a bad key or value throws ScenarioError with file, line, column, key
// and a suggestion.
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ksim {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;  // "file.yaml:4:3: network.jiter: unknown key 'jiter' (did you mean 'jitter'?)"
};

class Scenario {
 public:
  // A scenario file. Its `profile:` is looked for in profiles/ beside it, then in $KSIM_PROFILE_PATH.
  static Scenario load(const std::string& path);
  // A scenario given as YAML text; `file_name` names it in errors.
  static Scenario parse(std::string_view yaml, std::string file_name = "scenario.yaml");

  // Overrides one value, as `--set key=value`: "producers.0.config[acks]", "1";
  // "faults.0.at", "3s"; "network.racks", "[a, b]" (the value is YAML).
  Scenario& set(std::string_view key, std::string_view value);
  Scenario& seed(std::uint64_t seed);

  std::uint64_t seed() const;
  const std::string& name() const;
  const std::string& file() const;
  std::chrono::nanoseconds duration() const;  // how long the workload runs

  Scenario(const Scenario& other);
  Scenario& operator=(const Scenario& other);
  Scenario(Scenario&&) noexcept;
  Scenario& operator=(Scenario&&) noexcept;
  ~Scenario();

 private:
  friend class Cluster;
  struct Impl;
  explicit Scenario(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ksim
