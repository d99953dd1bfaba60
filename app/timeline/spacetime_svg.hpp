#pragma once
// The spacetime diagram of a window of the run, as Maelstrom draws one: a
// lifeline per node that sent or received a message of the window (about
// the chosen partition, when one is), time flowing down, and a line per
// message from its sender when sent to its receiver when delivered (dashed
// for responses; cut short with a cross when it never was). Faults shade
// the window and a node's down or paused time thickens its lifeline.
#include <ostream>

#include "app/timeline/timeline.hpp"

namespace ksim::app::timeline {

void write_spacetime(const Timeline& timeline, std::ostream& out);

}  // namespace ksim::app::timeline
