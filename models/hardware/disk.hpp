#pragma once
// The device behind one log dir. Kafka appends to the page cache and lets
// the OS write back (Kafka's defaults never fsync, relying on replication),
// so an append returns at once unless the dirty data waiting for the device
// exceeds the page cache's dirty limit; then it waits for the device.
// Linux writes a file's dirty pages back together, in sequential I/Os of up
// to the block layer's request size (max_sectors_kb), so the appends to one
// file within a write-back period merge into few large writes: a device
// write pays `write_latency` (and on a hard disk a seek when it moves to
// another file) per such I/O, not per append, and its bytes at the device's
// bandwidth, in FIFO order. A write is durable once written back and at most
// `writeback_delay` after it was made (vm.dirty_expire_centisecs, 30s), or
// when fsync'd; an fsync writes the file's dirty pages and costs the
// device's `flush_latency` (a hard disk's journal commit and cache flush,
// an SSD's FLUSH CACHE, next to nothing for a datacenter NVMe drive whose
// cache survives power loss).
// (Simplification: the elevator's reordering across files is not modelled;
// on a hard disk every I/O to another file pays a full seek.)
#include <cstdint>
#include <vector>

#include "sim/events/time.hpp"

namespace ksim::models {

struct DiskSpec {
  std::uint64_t capacity_bytes = 1ULL << 40;       // 1 TiB
  double write_bytes_per_s = 500e6;                // sequential write bandwidth
  double read_bytes_per_s = 1000e6;                // sequential read bandwidth (reads are served by the page cache today)
  SimTime write_latency = microseconds(50);        // per device I/O: SSD access, or an HDD's controller overhead
  SimTime seek_time = 0;                           // per switch between files: an HDD's seek plus rotation (~8ms)
  SimTime flush_latency = microseconds(50);        // per fsync, beyond writing the dirty pages
  std::uint64_t writeback_io_bytes = 1280 << 10;   // the largest write-back I/O: max_sectors_kb (1280 KiB since Linux 4.3)
  SimTime writeback_interval = seconds(5);         // vm.dirty_writeback_centisecs: the flusher takes a file's pages this often
  std::uint64_t dirty_limit_bytes = 1ULL << 30;    // page cache dirty data before writers wait
  SimTime writeback_delay = seconds(30);           // vm.dirty_expire_centisecs
};

class Disk {
 public:
  explicit Disk(DiskSpec spec) : spec_(spec) {}

  enum class Status { Ok, Full, Failed };
  struct Write {
    Status status = Status::Ok;
    SimTime returns_at = 0;  // when the append call returns
    SimTime durable_at = 0;  // when it survives a power loss without fsync
  };
  // `file` identifies the file appended to (a partition): appends to one
  // file merge into its current write-back I/O.
  Write write(std::uint64_t bytes, SimTime now, std::uint64_t file = 0);
  // A read that missed the page cache: when its data is in memory. Reads
  // queue among themselves (Linux serves them ahead of write-back), and a
  // hard disk seeks to the file first.
  SimTime read(std::uint64_t bytes, SimTime now);
  // fsync of everything written so far to `file`: when it completes.
  SimTime flush(SimTime now, std::uint64_t file = 0);
  void release(std::uint64_t bytes);  // a replica deleted

  void set_bandwidth_factor(double factor);  // slow disk fault
  void set_full(bool full) { full_ = full; }  // disk full fault: writes fail
  void fail() { failed_ = true; }            // disk failure: the log dir goes offline for good
  bool failed() const { return failed_; }

  const DiskSpec& spec() const { return spec_; }
  std::uint64_t used_bytes() const { return used_bytes_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t seeks() const { return seeks_; }
  std::uint64_t writeback_ios() const { return writeback_ios_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  SimTime busy_ns() const { return busy_ns_; }

 private:
  double bytes_per_ns() const { return spec_.write_bytes_per_s * bandwidth_factor_ / 1e9; }
  // The device time an I/O's start costs when `bytes` more go to `file`
  // (0 when they merge into the file's current I/O).
  SimTime io_start_cost(std::uint64_t file, std::uint64_t bytes, SimTime now);

  struct OpenIo {
    std::uint64_t bytes = 0;
    SimTime started = 0;
  };

  DiskSpec spec_;
  double bandwidth_factor_ = 1.0;
  bool full_ = false;
  bool failed_ = false;
  SimTime device_free_at_ = 0;  // when the device has written back everything queued
  std::uint64_t used_bytes_ = 0;
  std::uint64_t bytes_written_ = 0;
  SimTime busy_ns_ = 0;
  std::uint64_t last_file_ = 0;  // of the last I/O started
  std::uint64_t seeks_ = 0;
  std::uint64_t writeback_ios_ = 0;
  // By file (a dense index: the broker's partition index): the I/O its next
  // append may join; none when its bytes are 0. A vector, as a map lookup per append cost 5% of a busy run.
  std::vector<OpenIo> open_ios_;
  SimTime read_free_at_ = 0;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace ksim::models
