#pragma once
// Applies faults at their time and undoes them after their duration, and
// counts every fault that actually fired (like FoundationDB's CODE_PROBE),
// so a test suite can show which fault paths it covered.
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/faults/fault.hpp"

namespace ksim {

class Simulation;

class FaultInjector {
 public:
  explicit FaultInjector(Simulation& sim) : sim_(sim) {}

  // Applies (`starting`) and undoes extension faults named `name`.
  using ExtensionHandler = std::function<void(const Fault& fault, bool starting)>;
  void set_extension_handler(std::string name, ExtensionHandler handler);

  // Hears every fault start and stop, after it was applied or undone, with
  // its kind name ("partition", or an extension's: "disk_failure").
  using Observer = std::function<void(const Fault& fault, std::string_view name, bool starting)>;
  void observe(Observer observer) { observers_.push_back(std::move(observer)); }

  void schedule(Fault fault);
  void schedule_all(std::vector<Fault> faults);
  // Ends every fault now: those in force are undone (crashed nodes restart,
  // even those meant to stay down), those still to come never start. A failed
  // disk stays failed (it has no undo).
  void heal_all();
  // Faults in force now.
  std::size_t active() const;

  // Faults that started, by kind name; zero counts are included.
  std::map<std::string, std::uint64_t> coverage() const;
  std::uint64_t started() const;
  // Faults whose targets stood for nobody when they were to start (Fault::resolve_at_start): not fired.
  std::uint64_t missed() const;

 private:
  struct Scheduled {
    enum class State { Pending, Active, Over };
    Fault fault;
    State state = State::Pending;
    TimerId start_event{};
    TimerId stop_event{};  // none while in force for good (duration 0)
    FaultHandle handle = 0;
  };
  void start(Scheduled& s);
  void stop(Scheduled& s);
  std::vector<NodeId> with_companions(const std::vector<NodeId>& nodes) const;
  std::vector<NodeId> everyone_except(const std::vector<NodeId>& nodes) const;

  Simulation& sim_;
  std::string_view name_of(const Fault& fault) const;

  std::map<std::string, std::uint64_t, std::less<>> started_;
  std::map<std::string, std::uint64_t, std::less<>> missed_;
  std::map<std::string, ExtensionHandler, std::less<>> extensions_;
  std::vector<Observer> observers_;
  std::deque<Scheduled> faults_;  // owned here, never moved: events refer to them
  // How many crash or shutdown faults, and how many pauses, hold each node
  // now: faults that overlap on a node keep it down (or paused) until the
  // last of them ends, not the first.
  std::map<NodeId, std::uint32_t> down_holds_;
  std::map<NodeId, std::uint32_t> pause_holds_;
};

}  // namespace ksim
