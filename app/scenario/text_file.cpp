// Reading an input file: bounded in size, text only.
#include "app/scenario/text_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace ksim::config {

namespace {

ConfigError file_error(const std::string& path, std::string message) {
  return ConfigError(Location{path, 0, 0}, "", std::move(message));
}

// At most max_bytes + 1 bytes of `path`: a directory is refused, and a
// device or FIFO (opened without waiting for a writer) ends at the cap.
std::string read_bounded(const std::string& path, std::size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw file_error(path, std::string("cannot read the file: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    throw file_error(path, "is a directory, not a scenario file");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  char buffer[65536];
  while (text.size() <= max_bytes) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      throw file_error(path, std::string("cannot read the file: ") + std::strerror(error));
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (text.size() > max_bytes) {
    throw file_error(path, "is larger than " + std::to_string(max_bytes >> 20) +
                               " MiB: not a scenario file (a scenario is a few KiB of YAML)");
  }
  return text;
}

// The length of the UTF-8 sequence starting at text[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  std::uint32_t min = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) length = 2, min = 0x80;
  else if ((lead & 0xF0) == 0xE0) length = 3, min = 0x800;
  else if ((lead & 0xF8) == 0xF0) length = 4, min = 0x10000;
  else return 0;
  if (i + length > text.size()) return 0;
  std::uint32_t code = lead & (0x7F >> length);
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    code = (code << 6) | (byte(i + k) & 0x3F);
  }
  if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

// YAML and properties files are text: a NUL byte or invalid UTF-8 means a binary file.
void check_text(std::string_view text, const std::string& file) {
  int line = 1;
  int column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = text[i] == '\0' ? 0 : utf8_length(text, i);
    if (length == 0) {
      const std::string what = text[i] == '\0' ? "a NUL byte" : "a byte that is not UTF-8";
      throw ConfigError(Location{file, line, column}, "", "not a text file: " + what + " (a scenario is YAML text)");
    }
    if (text[i] == '\n') {
      ++line;
      column = 0;
    }
    i += length;
    ++column;
  }
}

std::string read_text_file(const std::string& path, std::size_t max_bytes) {
  std::string text = read_bounded(path, max_bytes);
  check_text(text, path);
  return text;
}

}  // namespace ksim::config
