#pragma once
// How concurrent transfers share the links they cross: the flow-level model
// of TCP (as SimGrid's): every connection direction with bytes to send is a
// flow, and the flows get max-min fair rates over their routes' links (each
// link's bandwidth is split evenly among the flows it limits, and what a flow
// limited elsewhere leaves goes to the others). Rates change only when a flow
// starts, finishes its bytes or stops, or a link's speed changes; in between
// every flow's bytes drain linearly. So a large fetch response and a small
// produce request on one link progress side by side, as they do over TCP,
// instead of the second waiting for the first.
// (Simplification: no slow start, congestion window or receive window; a
// flow gets its fair share from its first byte.)
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/events/event_queue.hpp"
#include "sim/events/time.hpp"
#include "sim/network/topology.hpp"

namespace ksim {

class BandwidthSharing {
 public:
  using FlowId = std::uint32_t;
  // Called when a flow's bytes have all crossed its route, at that time. The
  // callback may start the flow again (its next message).
  using Transmitted = std::function<void(FlowId)>;

  BandwidthSharing(EventQueue& events, Topology& topology, Transmitted on_transmitted);

  // Starts sending `bytes` on an idle flow over `route` (at least one link).
  void start(FlowId flow, const std::vector<LinkId>& route, std::uint64_t bytes);
  // Stops a flow (its connection was reset); nothing is reported for it.
  void cancel(FlowId flow);
  bool busy(FlowId flow) const { return flow < flows_.size() && flows_[flow].active; }
  // A link's bandwidth factor changed: rates are shared out again.
  void links_changed();

  std::size_t active_flows() const { return active_.size(); }

 private:
  struct Flow {
    std::vector<LinkId> route;
    double remaining_bytes = 0;
    double bytes_per_ns = 0;
    bool active = false;
    bool fixed = false;     // during share_out: its rate is decided
    bool just_done = false; // during on_completion: it finished a message
  };

  void advance();      // drains every active flow's bytes up to now
  void share_out();    // max-min fair rates by progressive filling
  void schedule_next_completion();
  void on_completion();
  void deactivate(FlowId flow);
  // No other active flow crosses any link of `route` (`others`: flows
  // counted on it besides the one asked about).
  bool alone_on(const std::vector<LinkId>& route, std::uint32_t others = 0) const;
  double slowest_link(const std::vector<LinkId>& route) const;

  EventQueue& events_;
  Topology& topology_;
  Transmitted on_transmitted_;
  std::vector<Flow> flows_;      // by FlowId, grown on demand
  std::vector<FlowId> active_;   // flows with bytes to send
  SimTime drained_at_ = 0;       // when advance() last ran
  TimerId completion_;           // the next completion event
  SimTime completion_at_ = kNever;
  bool completing_ = false;      // inside on_completion: starts and stops are batched
  bool set_changed_ = false;     // a flow was cancelled while completing
  std::vector<FlowId> done_;     // on_completion's flows done, reused
  std::vector<std::uint32_t> flows_on_link_;  // active flows crossing each link
  // share_out's scratch space, by LinkId.
  std::vector<double> capacity_left_;
  std::vector<std::uint32_t> unfixed_flows_;
  std::vector<LinkId> touched_;
};

}  // namespace ksim
