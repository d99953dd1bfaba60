#include "models/hardware/disk.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ksim::models {

Disk::Write Disk::write(std::uint64_t bytes, SimTime now, std::uint64_t file) {
  if (failed_) return {Status::Failed, now, now};
  if (full_ || used_bytes_ + bytes > spec_.capacity_bytes) return {Status::Full, now, now};
  // Dirty data already waiting for the device, in bytes.
  const SimTime backlog = std::max<SimTime>(0, device_free_at_ - now);
  const double backlog_bytes = static_cast<double>(backlog) * bytes_per_ns();
  const double over_limit = backlog_bytes + static_cast<double>(bytes) - static_cast<double>(spec_.dirty_limit_bytes);
  const SimTime returns_at = over_limit > 0 ? now + static_cast<SimTime>(std::ceil(over_limit / bytes_per_ns())) : now;

  const SimTime service =
      io_start_cost(file, bytes, now) + static_cast<SimTime>(std::ceil(static_cast<double>(bytes) / bytes_per_ns()));
  device_free_at_ = std::max(now, device_free_at_) + service;
  busy_ns_ += service;
  used_bytes_ += bytes;
  bytes_written_ += bytes;
  return {Status::Ok, returns_at, std::max(device_free_at_, now + spec_.writeback_delay)};
}

SimTime Disk::io_start_cost(std::uint64_t file, std::uint64_t bytes, SimTime now) {
  if (file >= open_ios_.size()) open_ios_.resize(file + 1);
  OpenIo& io = open_ios_[file];
  if (io.bytes > 0 && io.bytes + bytes <= spec_.writeback_io_bytes && now - io.started < spec_.writeback_interval) {
    io.bytes += bytes;
    return 0;
  }
  io = {bytes, now};
  ++writeback_ios_;
  SimTime cost = spec_.write_latency;
  if (spec_.seek_time > 0 && file != last_file_) {
    cost += spec_.seek_time;
    ++seeks_;
  }
  last_file_ = file;
  return cost;
}

SimTime Disk::read(std::uint64_t bytes, SimTime now) {
  const double per_ns = spec_.read_bytes_per_s * bandwidth_factor_ / 1e9;
  const SimTime service = spec_.seek_time + spec_.write_latency + static_cast<SimTime>(std::ceil(static_cast<double>(bytes) / per_ns));
  read_free_at_ = std::max(now, read_free_at_) + service;
  busy_ns_ += service;
  bytes_read_ += bytes;
  return read_free_at_;
}

SimTime Disk::flush(SimTime now, std::uint64_t file) {
  if (file < open_ios_.size()) open_ios_[file] = OpenIo{};  // its dirty pages go now: later appends start a new I/O
  const SimTime done = std::max(now, device_free_at_) + spec_.flush_latency;
  device_free_at_ = done;
  return done;
}

void Disk::release(std::uint64_t bytes) { used_bytes_ -= std::min(bytes, used_bytes_); }

void Disk::set_bandwidth_factor(double factor) {
  assert(factor > 0);
  bandwidth_factor_ = factor;
}

}  // namespace ksim::models
