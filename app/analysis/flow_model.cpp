#include "app/analysis/flow_model.hpp"

#include <cassert>
#include <limits>

namespace ksim::models {

std::size_t FlowModel::add_stage(std::string name, double external_share) {
  stage_names_.push_back(std::move(name));
  external_.push_back(external_share);
  return stage_names_.size() - 1;
}

std::size_t FlowModel::add_resource(std::string name, std::string kind, double capacity) {
  assert(capacity > 0);
  resources_.push_back({std::move(name), std::move(kind), 0, 0});
  capacities_.push_back(capacity);
  return resources_.size() - 1;
}

void FlowModel::route(std::size_t from_stage, std::size_t to_stage, double fraction) {
  routes_.emplace_back(from_stage, to_stage, fraction);
}

void FlowModel::demand(std::size_t resource, std::size_t stage, double seconds_per_visit) {
  demands_.emplace_back(resource, stage, seconds_per_visit);
}

FlowModel::Solution FlowModel::solve(double throughput) const {
  const auto n = static_cast<Eigen::Index>(stage_names_.size());
  const auto m = static_cast<Eigen::Index>(resources_.size());
  Eigen::MatrixXd routing = Eigen::MatrixXd::Zero(n, n);  // routing(i, j): fraction of visits to i that go on to j
  for (const auto& [from, to, fraction] : routes_) routing(static_cast<Eigen::Index>(from), static_cast<Eigen::Index>(to)) += fraction;
  Eigen::VectorXd lambda(n);
  for (Eigen::Index i = 0; i < n; ++i) lambda(i) = external_[static_cast<std::size_t>(i)];
  // Traffic equations: visits per unit of work entering the network.
  const Eigen::VectorXd visits = (Eigen::MatrixXd::Identity(n, n) - routing.transpose()).partialPivLu().solve(lambda);
  Eigen::MatrixXd cost = Eigen::MatrixXd::Zero(m, n);  // busy seconds per visit
  for (const auto& [resource, stage, seconds] : demands_) {
    cost(static_cast<Eigen::Index>(resource), static_cast<Eigen::Index>(stage)) += seconds;
  }
  const Eigen::VectorXd demand = cost * visits;  // busy seconds per unit of work
  Solution s;
  s.resources = resources_;
  s.max_throughput = std::numeric_limits<double>::infinity();
  for (Eigen::Index r = 0; r < m; ++r) {
    const double capacity = capacities_[static_cast<std::size_t>(r)];
    Resource& out = s.resources[static_cast<std::size_t>(r)];
    out.utilization = throughput * demand(r) / capacity;
    out.saturation_throughput = demand(r) > 0 ? capacity / demand(r) : std::numeric_limits<double>::infinity();
    if (out.saturation_throughput < s.max_throughput) {
      s.max_throughput = out.saturation_throughput;
      s.bottleneck = static_cast<std::size_t>(r);
    }
  }
  return s;
}

}  // namespace ksim::models
