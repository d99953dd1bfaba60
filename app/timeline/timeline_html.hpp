#pragma once
// The timeline as one self-contained HTML page (`ksim run --timeline`):
// inline SVG drawn here, with inline CSS and a little inline script
// (timeline_page.hpp) for zooming (drag across a range; double-click to
// reset) and hover details; nothing is fetched, so it opens anywhere. From
// top to bottom: a row per broker (its state, fencing, and how many
// partitions it leads), the controller (elections, loading), a row per
// partition (its leader, coloured by broker, and its ISR when short), the
// clients (state, generations, transactions, failures), the consumer groups
// (rebalances), the anomalies; faults shaded across every row; then the
// time series' charts (timeline_charts.hpp), the spacetime diagram of the
// chosen window (spacetime_svg.hpp), and notes on what was capped.
#include <ostream>

#include "app/timeline/timeline.hpp"

namespace ksim::app::timeline {

void write_timeline_html(const Timeline& timeline, std::ostream& out);

}  // namespace ksim::app::timeline
