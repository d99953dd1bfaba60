#pragma once
// What a timeline learns once the run is over, from its histories and its
// report: each consumer group's rebalances (start to stable, with the new
// generation), each transaction's span (begin to commit or abort), the
// anomalies the checkers found (lost, duplicated and reordered records at
// their acknowledgement; a group's duplicates where they were processed
// again, its unprocessed records at the end; invariant violations where they
// began), with their record ids; the time series; the title.
#include "app/harness/cluster.hpp"
#include "app/report/report.hpp"
#include "app/timeline/timeline_builder.hpp"

namespace ksim::app::timeline {

void add_outcomes(TimelineBuilder& builder, const Cluster& cluster, const RunReport& report);

}  // namespace ksim::app::timeline
