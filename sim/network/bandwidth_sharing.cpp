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
  if (completing_) return;  // on_completion shares out once for the whole batch
  share_out();
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
  share_out();
  schedule_next_completion();
}

void BandwidthSharing::links_changed() {
  if (active_.empty()) return;
  advance();
  share_out();
  schedule_next_completion();
}

void BandwidthSharing::deactivate(FlowId flow) {
  flows_[flow].active = false;
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
      if (s < share) {
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
  for (const FlowId id : done) deactivate(id);
  // A flow that starts its next message at once keeps the set as it was.
  const std::size_t before = active_.size();
  for (const FlowId id : done) on_transmitted_(id);
  completing_ = false;
  const bool all_restarted = std::all_of(done.begin(), done.end(), [&](FlowId id) { return flows_[id].active; });
  if (set_changed_ || !all_restarted || active_.size() != before + done.size()) share_out();
  schedule_next_completion();
}

}  // namespace ksim
