#pragma once
// The report's time series as charts under the timeline's tracks, on the
// same time axis: throughput, latency percentiles, consumer lag, and the
// partitions unwritable, unreadable, offline and under-replicated; one
// point per sample (at the end of its interval), faults shaded, every
// sample's figures on hover.
#include <ostream>

#include "app/timeline/timeline.hpp"

namespace ksim::app::timeline {

void write_charts(const Timeline& timeline, std::ostream& out);

}  // namespace ksim::app::timeline
