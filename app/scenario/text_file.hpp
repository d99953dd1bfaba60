#pragma once
// An input file read as text: at most `max_bytes` (a device or FIFO ends
// there), not a directory, no NUL byte, valid UTF-8. Every failure is a
// ConfigError naming the file (and the line and column of a bad byte).
#include <cstddef>
#include <string>
#include <string_view>

#include "app/scenario/config_reader.hpp"

namespace ksim::config {

std::string read_text_file(const std::string& path, std::size_t max_bytes);

// Throws, located at the byte, for a NUL byte or invalid UTF-8 in `text`.
void check_text(std::string_view text, const std::string& file);

}  // namespace ksim::config
