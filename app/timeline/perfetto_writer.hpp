#pragma once
// The timeline in the Chrome trace event format (`ksim run --perfetto`),
// which ui.perfetto.dev and chrome://tracing open: a process per kind of row
// (brokers, controller, partitions, producers, consumers, groups, faults,
// anomalies) and a thread per row (and per lane where its spans overlap, as
// the format wants slices nested); spans as complete events (ph X), marks as
// instants (ph i), a broker's leaderships and the time series as counters
// (ph C), and the spacetime window's messages as flows between slices on
// each node's "messages" thread. Times in microseconds of simulated time.
#include <ostream>

#include "app/timeline/timeline.hpp"

namespace ksim::app::timeline {

void write_perfetto(const Timeline& timeline, std::ostream& out);

}  // namespace ksim::app::timeline
