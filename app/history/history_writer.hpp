#pragma once
// `ksim run --history FILE`: what the clients of a run did and what the
// cluster had committed at the end, in the format of docs/history.md, the
// one the ground-truth harness writes from a real cluster and `ksim check`
// reads. Written after the run from what the run recorded: writing it never
// changes the simulation.
#include <ostream>

#include "app/harness/cluster.hpp"

namespace ksim::app {

// The cluster must have run with RunOptions::record_history (for the send times).
void write_history(const Cluster& cluster, std::ostream& out);

}  // namespace ksim::app
