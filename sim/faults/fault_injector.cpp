#include "sim/faults/fault_injector.hpp"

#include <algorithm>
#include <cassert>

#include "sim/core/simulation.hpp"

namespace ksim {

std::string_view to_string(FaultKind kind) {
  switch (kind) {
    case FaultKind::Partition: return "partition";
    case FaultKind::JitterBurst: return "jitter_burst";
    case FaultKind::LatencySpike: return "latency_spike";
    case FaultKind::LinkSlowdown: return "link_slowdown";
    case FaultKind::NodePause: return "pause";
    case FaultKind::NodeCrash: return "crash";
    case FaultKind::NodeShutdown: return "shutdown";
    case FaultKind::Extension: return "extension";
  }
  return "?";
}

void FaultInjector::set_extension_handler(std::string name, ExtensionHandler handler) {
  extensions_[std::move(name)] = std::move(handler);
}

std::string_view FaultInjector::name_of(const Fault& fault) const {
  return fault.kind == FaultKind::Extension ? std::string_view(fault.extension) : to_string(fault.kind);
}

void FaultInjector::schedule(Fault fault) {
  assert(fault.at >= sim_.now() && fault.duration >= 0);
  assert(fault.kind != FaultKind::Extension || extensions_.contains(fault.extension));
  Scheduled* stored = &faults_.emplace_back(Scheduled{std::move(fault)});
  stored->start_event = sim_.events().schedule_at(stored->fault.at, [this, stored] { start(*stored); });
}

void FaultInjector::heal_all() {
  for (Scheduled& s : faults_) {
    switch (s.state) {
      case Scheduled::State::Pending:
        sim_.events().cancel(s.start_event);
        s.state = Scheduled::State::Over;
        break;
      case Scheduled::State::Active:
        sim_.events().cancel(s.stop_event);
        stop(s);
        break;
      case Scheduled::State::Over: break;
    }
  }
}

std::size_t FaultInjector::active() const {
  return static_cast<std::size_t>(
      std::count_if(faults_.begin(), faults_.end(), [](const Scheduled& s) { return s.state == Scheduled::State::Active; }));
}

void FaultInjector::schedule_all(std::vector<Fault> faults) {
  for (Fault& f : faults) schedule(std::move(f));
}

std::vector<NodeId> FaultInjector::everyone_except(const std::vector<NodeId>& nodes) const {
  std::vector<NodeId> others;
  for (NodeId n = 0; n < sim_.node_count(); ++n) {
    if (std::find(nodes.begin(), nodes.end(), n) == nodes.end()) others.push_back(n);
  }
  return others;
}

std::vector<NodeId> FaultInjector::with_companions(const std::vector<NodeId>& nodes) const {
  std::vector<NodeId> all = nodes;
  for (const NodeId n : nodes) {
    for (const Node* c : sim_.node(n).companions()) all.push_back(c->id());
  }
  if (all.size() == nodes.size()) return all;  // no companions: as given
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  return all;
}

void FaultInjector::start(Scheduled& s) {
  if (s.fault.resolve_at_start && !s.fault.resolve_at_start(s.fault)) {
    s.state = Scheduled::State::Over;
    const std::string_view name = name_of(s.fault);
    ++missed_[std::string(name)];
    sim_.trace().record(sim_.now(), "faults", "fault.missed", {{"fault", name}});
    sim_.log().info("faults", "{} finds no target: it does not fire", name);
    return;
  }
  s.state = Scheduled::State::Active;
  const Fault& fault = s.fault;
  const std::string_view name = name_of(fault);
  ++started_[std::string(name)];
  sim_.trace().record(sim_.now(), "faults", "fault.start",
                      {{"fault", name}, {"nodes", fault.nodes.size()}, {"duration_ns", fault.duration}});
  sim_.log().info("faults", "{} starts for {}ms on {} node(s)", name, to_milliseconds(fault.duration),
                  fault.nodes.size());
  NetworkFaults& net = sim_.network().faults();
  FaultHandle& handle = s.handle;
  bool for_good = false;  // a crash or shutdown without restart, a permanent extension fault
  switch (fault.kind) {
    case FaultKind::Partition: {
      // A node's companions (Node::share_fate) are on its side of the cut.
      const std::vector<NodeId> inside = with_companions(fault.nodes);
      auto other = fault.other_nodes.empty() ? everyone_except(inside) : with_companions(fault.other_nodes);
      handle = net.add_cut(inside, std::move(other), fault.one_way);
      break;
    }
    case FaultKind::JitterBurst: handle = net.add_jitter_burst(with_companions(fault.nodes), fault.jitter); break;
    case FaultKind::LatencySpike:
      handle = net.add_latency_spike(with_companions(fault.nodes), fault.extra_latency);
      break;
    case FaultKind::LinkSlowdown:
      handle = net.add_link_slowdown(fault.links, fault.bandwidth_factor);
      sim_.network().links_changed();
      break;
    case FaultKind::NodePause:
      for (const NodeId n : fault.nodes) {
        ++pause_holds_[n];
        sim_.node(n).pause();
      }
      break;
    case FaultKind::NodeCrash:
      for (const NodeId n : fault.nodes) {
        ++down_holds_[n];
        sim_.node(n).crash(fault.crash_kind);
      }
      for_good = fault.duration == 0;  // stays down
      break;
    case FaultKind::NodeShutdown:
      for (const NodeId n : fault.nodes) {
        ++down_holds_[n];
        sim_.node(n).request_shutdown();
      }
      for_good = fault.duration == 0;  // stays down
      break;
    case FaultKind::Extension:
      extensions_.find(fault.extension)->second(fault, true);
      for_good = fault.duration == 0;
      break;
  }
  for (const Observer& o : observers_) o(fault, name, true);
  if (for_good) return;
  Scheduled* scheduled = &s;
  s.stop_event = sim_.events().schedule_after(fault.duration, [this, scheduled] { stop(*scheduled); });
}

void FaultInjector::stop(Scheduled& s) {
  s.state = Scheduled::State::Over;
  const Fault& fault = s.fault;
  const FaultHandle handle = s.handle;
  sim_.trace().record(sim_.now(), "faults", "fault.stop", {{"fault", name_of(fault)}});
  sim_.log().info("faults", "{} ends", name_of(fault));
  switch (fault.kind) {
    case FaultKind::Partition:
      sim_.network().faults().remove(handle);
      sim_.network().release_held_messages();
      break;
    case FaultKind::JitterBurst:
    case FaultKind::LatencySpike:
    case FaultKind::LinkSlowdown:
      sim_.network().faults().remove(handle);
      sim_.network().links_changed();
      break;
    case FaultKind::NodePause:
      for (const NodeId n : fault.nodes) {
        if (--pause_holds_.at(n) == 0) sim_.node(n).resume();  // unless another pause holds it
      }
      break;
    case FaultKind::NodeCrash:
    case FaultKind::NodeShutdown:
      // A node not started yet (a client or broker that starts later) was not crashed by this fault: it
      // starts when it was going to, not when the fault ends. One another crash or shutdown still
      // holds stays down until that one ends.
      for (const NodeId n : fault.nodes) {
        if (--down_holds_.at(n) == 0 && !sim_.node(n).never_started()) sim_.node(n).restart();
      }
      break;
    case FaultKind::Extension: extensions_.find(fault.extension)->second(fault, false); break;
  }
  for (const Observer& o : observers_) o(fault, name_of(fault), false);
}

std::map<std::string, std::uint64_t> FaultInjector::coverage() const {
  std::map<std::string, std::uint64_t> result;
  for (const FaultKind kind : kEngineFaultKinds) result[std::string(to_string(kind))] = 0;
  for (const auto& [name, handler] : extensions_) result[name] = 0;
  for (const auto& [name, count] : started_) result[name] = count;
  return result;
}

std::uint64_t FaultInjector::missed() const {
  std::uint64_t total = 0;
  for (const auto& [kind, count] : missed_) total += count;
  return total;
}

std::uint64_t FaultInjector::started() const {
  std::uint64_t total = 0;
  for (const auto& [kind, count] : started_) total += count;
  return total;
}

}  // namespace ksim
