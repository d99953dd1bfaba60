#pragma once
// Where Kafka's models publish their typed events (model_event.hpp): each is
// written to the simulation's trace, then handed to every subscriber in the
// order they subscribed (trackers, invariant checks). One bus per cluster;
// models get it at construction, never through a global.
#include <functional>
#include <vector>

#include "models/events/model_event.hpp"
#include "sim/core/node.hpp"

namespace ksim::models {

class ModelEventBus {
 public:
  explicit ModelEventBus(Trace& trace) : trace_(trace) {}
  ModelEventBus(const ModelEventBus&) = delete;
  ModelEventBus& operator=(const ModelEventBus&) = delete;

  using Subscriber = std::function<void(SimTime, const Node& from, const ModelEvent&)>;
  void subscribe(Subscriber subscriber) { subscribers_.push_back(std::move(subscriber)); }

  void publish(const Node& from, const ModelEvent& event) {
    const SimTime now = from.now();
    trace_event(trace_, now, from.name(), event);
    for (const Subscriber& s : subscribers_) s(now, from, event);
  }

 private:
  Trace& trace_;
  std::vector<Subscriber> subscribers_;
};

}  // namespace ksim::models
