#pragma once
// The Kafka a run modelled, first in its report: the release, every
// mechanism switched against it (`kips:` and its aliases), the clients that
// run another release or switches of their own, and what of those releases
// ksim does not model, so that a run says which Kafka it answers for.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/scenario/scenario.hpp"

namespace ksim::app {

struct ReleaseFigures {
  std::string kafka_version;          // the brokers' and controller's
  bool given = false;                 // written in the scenario (else the latest modelled)
  std::vector<std::string> switches;  // "KIP-101: off", those that differ from the release
  struct Client {
    std::string name;                 // a producers or consumers entry
    std::string kafka_version;
    std::vector<std::string> switches;
  };
  std::vector<Client> clients;        // those whose release or switches differ from the cluster's
  // "KIP-500 (controller, 3.3): the ZooKeeper-era controller is not modelled: the KRaft controller runs"
  std::vector<std::string> not_modelled;
};

ReleaseFigures release_figures(const KafkaSpec& kafka);
nlohmann::ordered_json release_json(const ReleaseFigures& r);
void print_release(const ReleaseFigures& r, std::ostream& out);

}  // namespace ksim::app
