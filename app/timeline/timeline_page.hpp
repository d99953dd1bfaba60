#pragma once
// The timeline page's inline CSS and script. The script lays out every
// element carrying times (data-a, data-b in milliseconds; polylines' data-ts)
// on the zoomed range, draws the time axes, follows the mouse with a cursor
// and a tooltip (data-tip), zooms to a range dragged across (double-click:
// the whole run) or given as the page's fragment (#20s..21.5s, kept up to date
// as it zooms, so a link opens on a range), and marks the document rendered (data-rendered, with the
// rows it shows in data-tracks) for a headless browser's test.
#include <string_view>

namespace ksim::app::timeline {

std::string_view page_style();
std::string_view page_script();

}  // namespace ksim::app::timeline
