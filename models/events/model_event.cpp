#include "models/events/model_event.hpp"

namespace ksim::models {

void trace_event(Trace& trace, SimTime time, std::string_view node, const ModelEvent& event) {
  std::visit(
      [&](const auto& e) {
        if constexpr (requires { e.traced(); }) {
          if (!e.traced()) return;
        }
        e.trace([&](std::initializer_list<TraceField> fields) { trace.record(time, node, e.kind(), fields); });
      },
      event);
}

}  // namespace ksim::models
