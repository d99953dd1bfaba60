#include "app/harness/fault_paths.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace ksim::app {

namespace {
constexpr const char* kOnLeader = "on a partition leader";
constexpr const char* kOnFollower = "on a broker leading nothing";
constexpr const char* kOnController = "on the controller";
constexpr const char* kOnProducer = "on a producer";
constexpr const char* kOnConsumer = "on a consumer";
constexpr const char* kOnGroupCoordinator = "on the coordinator of a group in a rebalance";
constexpr const char* kOnTxnCoordinator = "on the coordinator of a transaction being committed or aborted";
constexpr const char* kOnReconcilingMember = "on a KIP-848 member revoking or waiting for partitions";
constexpr const char* kDuringRebalance = "during a rebalance";
constexpr const char* kDuringReconciliation = "during a KIP-848 reconciliation";
constexpr const char* kDuringTxnEnd = "during a transaction's commit or abort";
constexpr const char* kOverlapping = "while another fault is in force";

bool contains_value(const std::map<std::string, std::string>& m, const std::string& node) {
  return std::any_of(m.begin(), m.end(), [&](const auto& entry) { return entry.second == node; });
}
}  // namespace

const std::vector<std::string>& fault_path_names() {
  static const std::vector<std::string> names{kOnLeader,         kOnFollower,       kOnController,  kOnProducer,
                                              kOnConsumer,       kOnGroupCoordinator, kOnTxnCoordinator,
                                              kOnReconcilingMember, kDuringRebalance, kDuringReconciliation,
                                              kDuringTxnEnd,     kOverlapping};
  return names;
}

void FaultPaths::on_event(const Node& from, const models::ModelEvent& event) {
  std::visit(
      [&](const auto& e) {
        using E = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<E, models::RebalancePrepared>) {
          rebalancing_[std::string(e.group)] = from.name();
        } else if constexpr (std::is_same_v<E, models::Rebalanced> || std::is_same_v<E, models::GroupUnloaded>) {
          rebalancing_.erase(std::string(e.group));
          reconciling_.erase(std::string(e.group));
        } else if constexpr (std::is_same_v<E, models::MemberReconciled>) {
          auto& members = reconciling_[std::string(e.group)];
          if (e.state == "STABLE") {
            members.erase(std::string(e.client));
          } else {
            members.insert(std::string(e.client));
          }
          if (members.empty()) reconciling_.erase(std::string(e.group));
        } else if constexpr (std::is_same_v<E, models::TxnPrepared>) {
          committing_[std::string(e.transactional_id)] = from.name();
        } else if constexpr (std::is_same_v<E, models::TxnCompleted>) {
          committing_.erase(std::string(e.transactional_id));
        }
      },
      event);
}

void FaultPaths::on_fault(std::string_view kind, const Fault& fault, std::size_t active,
                          const models::ControllerQuorum* controller, const std::vector<models::Broker*>& brokers) {
  std::set<std::string> paths;
  for (const NodeId n : fault.nodes) {
    const std::string& role = n < roles_.size() ? roles_[n] : std::string();
    if (role == "controller") paths.insert(kOnController);
    if (role == "producer") paths.insert(kOnProducer);
    if (role == "consumer") paths.insert(kOnConsumer);
    if (role == "consumer" && n < names_.size()) {
      for (const auto& [group, members] : reconciling_) {
        if (members.contains(names_[n])) paths.insert(kOnReconcilingMember);
      }
    }
    if (role != "broker") continue;
    const auto broker = std::find_if(brokers.begin(), brokers.end(), [&](const models::Broker* b) { return b->id() == n; });
    if (broker == brokers.end()) continue;
    bool leads = false;
    if (controller) {
      for (const auto& [tp, state] : controller->partitions()) leads = leads || state.leader == (*broker)->broker_id();
    }
    paths.insert(leads ? kOnLeader : kOnFollower);
    if (contains_value(rebalancing_, (*broker)->name())) paths.insert(kOnGroupCoordinator);
    if (contains_value(committing_, (*broker)->name())) paths.insert(kOnTxnCoordinator);
  }
  if (!rebalancing_.empty()) paths.insert(kDuringRebalance);
  if (!reconciling_.empty()) paths.insert(kDuringReconciliation);
  if (!committing_.empty()) paths.insert(kDuringTxnEnd);
  if (active > 0) paths.insert(kOverlapping);
  auto& of_kind = counts_[std::string(kind)];
  for (const auto& p : paths) ++of_kind[p];
}

}  // namespace ksim::app
