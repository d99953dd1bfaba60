#pragma once
// An open flow network solved in closed form (operational analysis): work
// enters stages at external rates, moves between stages by a routing matrix,
// and every visit to a stage costs each resource some busy time. The visit
// ratios solve the traffic equations v = lambda + P^T v, i.e.
// (I - P^T) v = lambda (Eigen LU); a resource's demand per unit of throughput
// is D v; its utilisation at throughput X is X D v / capacity, and the
// throughput the network can sustain is the smallest capacity / (D v): the
// bottleneck law. ksim's analytic cross-check (app/analysis/analytic_model.cpp) builds
// such a network from a scenario's profile and workload.
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace ksim::models {

class FlowModel {
 public:
  std::size_t add_stage(std::string name, double external_share);  // share of the workload that enters here
  std::size_t add_resource(std::string name, std::string kind, double capacity);  // capacity: busy-seconds per second
  void route(std::size_t from_stage, std::size_t to_stage, double fraction);      // of the visits to `from`
  void demand(std::size_t resource, std::size_t stage, double seconds_per_visit);

  struct Resource {
    std::string name;
    std::string kind;
    double utilization = 0;  // at the throughput asked for
    double saturation_throughput = 0;
  };
  struct Solution {
    std::vector<Resource> resources;
    double max_throughput = 0;        // units of work per second when the bottleneck saturates
    std::size_t bottleneck = 0;       // index into resources
  };
  // Utilisations at `throughput` units of work per second.
  Solution solve(double throughput) const;

  std::size_t stages() const { return stage_names_.size(); }

 private:
  std::vector<std::string> stage_names_;
  std::vector<double> external_;
  std::vector<Resource> resources_;
  std::vector<double> capacities_;
  std::vector<std::tuple<std::size_t, std::size_t, double>> routes_;
  std::vector<std::tuple<std::size_t, std::size_t, double>> demands_;
};

}  // namespace ksim::models
