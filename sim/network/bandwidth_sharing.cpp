#include "sim/network/bandwidth_sharing.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ksim {

namespace {
constexpr double kDoneBytes = 1e-3;  // no more than this left: the flow is done (rounding)
}

BandwidthSharing::BandwidthSharing(EventQueue& events, Topology& topology, Transmitted on_transmitted)
    : events_(events), topology_(topology), on_transmitted_(std::move(on_transmitted)) {}

void BandwidthSharing::start(FlowId flow, const std::vector<LinkId>& route, std::uint64_t bytes) {
  assert(!route.empty());
  if (flow >= flows_.size()) flows_.resize(flow + 1);
  Flow& f = flows_[flow];
  assert(!f.active);
  if (!completing_) advance();
  f.route = route;
  f.remaining_bytes = static_cast<double>(std::max<std::uint64_t>(bytes, 1));
  f.active = true;
  active_.push_back(flow);
  if (flows_on_link_.size() < topology_.link_count()) flows_on_link_.resize(topology_.link_count());
  const bool alone = alone_on(route);
  for (const LinkId l : route) ++flows_on_link_[l];
  if (completing_) {  // on_completion shares out once for the whole batch, if it must
    if (!f.just_done) set_changed_ = true;
    return;
  }
  if (alone) {
    f.bytes_per_ns = slowest_link(route);  // what share_out would give it; no other rate changes
  } else {
    share_out();
  }
  schedule_next_completion();
}

void BandwidthSharing::cancel(FlowId flow) {
  if (!busy(flow)) return;
  if (!completing_) advance();
  deactivate(flow);
  if (completing_) {
    set_changed_ = true;
    return;
  }
  if (!alone_on(flows_[flow].route)) share_out();  // alone, it held no other flow back
  schedule_next_completion();
}

void BandwidthSharing::links_changed() {
  if (active_.empty()) return;
  advance();
  share_out();
  schedule_next_completion();
}

bool BandwidthSharing::alone_on(const std::vector<LinkId>& route, std::uint32_t others) const {
  return std::all_of(route.begin(), route.end(), [&](LinkId l) { return flows_on_link_[l] == others; });
}

double BandwidthSharing::slowest_link(const std::vector<LinkId>& route) const {
  double slowest = INFINITY;
  for (const LinkId l : route) {
    const Link& link = topology_.link(l);
    slowest = std::min(slowest, link.spec.bandwidth_bytes_per_s * link.bandwidth_factor / 1e9);
  }
  return std::max(slowest, 1e-9);
}

void BandwidthSharing::deactivate(FlowId flow) {
  flows_[flow].active = false;
  for (const LinkId l : flows_[flow].route) --flows_on_link_[l];
  const auto it = std::find(active_.begin(), active_.end(), flow);
  assert(it != active_.end());
  active_.erase(it);  // keeps the order: share_out visits flows deterministically
}

void BandwidthSharing::advance() {
  const SimTime now = events_.now();
  const auto elapsed = static_cast<double>(now - drained_at_);
  drained_at_ = now;
  if (elapsed <= 0) return;
  for (const FlowId id : active_) {
    Flow& f = flows_[id];
    f.remaining_bytes = std::max(0.0, f.remaining_bytes - f.bytes_per_ns * elapsed);
  }
}

// Progressive filling: the link whose even share is smallest fixes the rate
// of every undecided flow crossing it; their rates leave that link and the
// others on their routes; repeat until every flow has a rate.
void BandwidthSharing::share_out() {
  if (capacity_left_.size() < topology_.link_count()) {
    capacity_left_.resize(topology_.link_count());
    unfixed_flows_.resize(topology_.link_count());
  }
  touched_.clear();
  for (const FlowId id : active_) {
    Flow& f = flows_[id];
    f.fixed = false;
    for (const LinkId l : f.route) {
      if (unfixed_flows_[l] == 0) {
        const Link& link = topology_.link(l);
        capacity_left_[l] = link.spec.bandwidth_bytes_per_s * link.bandwidth_factor / 1e9;
        touched_.push_back(l);
      }
      ++unfixed_flows_[l];
    }
  }
  std::size_t undecided = active_.size();
  while (undecided > 0) {
    LinkId bottleneck = touched_.front();
    double share = INFINITY;
    for (const LinkId l : touched_) {
      if (unfixed_flows_[l] == 0) continue;
      const double s = capacity_left_[l] / unfixed_flows_[l];
      // Ties go to the lowest link id, so a group of flows gets the same
      // rates whatever else is on the network (sharing out again only where
      // something changed gives the same bits as sharing out everything).
      if (s < share || (s == share && l < bottleneck)) {
        share = s;
        bottleneck = l;
      }
    }
    share = std::max(share, 1e-9);  // rounding never stops a flow
    for (const FlowId id : active_) {
      Flow& f = flows_[id];
      if (f.fixed || std::find(f.route.begin(), f.route.end(), bottleneck) == f.route.end()) continue;
      f.fixed = true;
      f.bytes_per_ns = share;
      --undecided;
      for (const LinkId l : f.route) {
        capacity_left_[l] = std::max(0.0, capacity_left_[l] - share);
        --unfixed_flows_[l];
      }
    }
  }
}

void BandwidthSharing::schedule_next_completion() {
  SimTime next = kNever;
  const SimTime now = events_.now();
  for (const FlowId id : active_) {
    const Flow& f = flows_[id];
    const auto ns = static_cast<SimTime>(std::ceil(f.remaining_bytes / f.bytes_per_ns));
    next = std::min(next, now + ns);
  }
  if (next == completion_at_) return;
  events_.cancel(completion_);
  completion_at_ = next;
  if (next == kNever) return;
  completion_ = events_.schedule_at(next, [this] {
    completion_at_ = kNever;
    on_completion();
  });
}

void BandwidthSharing::on_completion() {
  advance();
  completing_ = true;
  set_changed_ = false;
  std::vector<FlowId>& done = done_;
  done.clear();
  for (const FlowId id : active_) {
    if (flows_[id].remaining_bytes <= kDoneBytes) done.push_back(id);
  }
  for (const FlowId id : done) {
    deactivate(id);
    flows_[id].just_done = true;
  }
  // A flow that starts its next message at once keeps its rate when nothing
  // else changed; one that stops alone on its links changes no other rate.
  for (const FlowId id : done) on_transmitted_(id);
  completing_ = false;
  bool share = set_changed_;
  for (const FlowId id : done) {
    Flow& f = flows_[id];
    f.just_done = false;
    if (!f.active && !alone_on(f.route)) share = true;
  }
  if (share) share_out();
  schedule_next_completion();
}

}  // namespace ksim
