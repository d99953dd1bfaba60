#include "app/sweep/sweep_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "app/sweep/sweep_plan.hpp"

namespace ksim::app::sweep {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)), temporary_(path_ + ".tmp") {
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) throw SweepError(fmt::format("cannot write '{}': {}", temporary_, std::strerror(errno)));
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::remove(temporary_.c_str());
}

void AtomicFile::commit() {
  out_.close();
  if (!out_) throw SweepError(fmt::format("cannot write '{}'", temporary_));
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    throw SweepError(fmt::format("cannot rename '{}' to '{}': {}", temporary_, path_, std::strerror(errno)));
  }
  committed_ = true;
}

std::string sidecar_path(const std::string& csv_path) { return csv_path + ".json"; }

}  // namespace ksim::app::sweep
