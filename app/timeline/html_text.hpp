#pragma once
// What the timeline's HTML writers share: escaped text, numbers as SVG
// writes them, the time axis every drawing of the run lines up on, and the
// brokers' colours.
#include <ostream>
#include <string>
#include <string_view>

#include "sim/events/time.hpp"

namespace ksim::app::timeline {

struct Timeline;

std::string esc(std::string_view text);  // for HTML text and attribute values
std::string num(double value);           // "12.5": one decimal, "-0" never
std::string ms(SimTime t);               // a time in milliseconds, as the page's script reads data-a and data-b

// Where a time is drawn: the plot's left edge and width in pixels, and the
// times at its edges (the whole run until the script zooms).
struct TimeAxis {
  static constexpr double kLeft = 190, kWidth = 1180, kPageWidth = kLeft + kWidth + 20;
  SimTime from = 0, to = 1;
  double x(SimTime t) const;
};

// The time axis of a drawing: its ticks (drawn by the page's script, at every
// zoom) along `y`, with grid lines down to `bottom`.
void write_axis(double y, double bottom, std::ostream& out);

// The faults as shaded bands from `top` to `bottom` (data-a, data-b for the script).
void write_fault_bands(const Timeline& timeline, const TimeAxis& axis, double top, double bottom, std::ostream& out);

// A broker's colour, the same in every drawing: "#1f77b4", ...
std::string_view broker_color(int broker);

}  // namespace ksim::app::timeline
