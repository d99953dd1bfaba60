#include "models/events/model_event.hpp"

namespace ksim::models {

std::string_view to_string(EpochBump why) {
  switch (why) {
    case EpochBump::EndTxn: return "end";
    case EpochBump::Fence: return "fence";
    case EpochBump::Exhausted: return "exhausted";
  }
  return "?";
}

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
