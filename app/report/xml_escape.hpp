#pragma once
// Text as XML (and HTML) character data or an attribute value, for the
// reports written as markup: JUnit XML, the timeline's HTML and SVG.
#include <string>
#include <string_view>

namespace ksim::app {

// & < > " ' escaped, and the characters XML 1.0 forbids (controls other than
// tab, newline and return) written as U+FFFD.
std::string xml_escape(std::string_view text);

}  // namespace ksim::app
