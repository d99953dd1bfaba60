#pragma once
// A broker's log dir (log.dirs, JBOD) as the broker keeps it, and the state
// of one of its ReplicaAlterLogDirsThreads (KIP-113, broker_log_dir_moves.cpp).
#include <cstdint>
#include <optional>
#include <string>

#include "models/hardware/disk.hpp"
#include "models/protocol/kafka_config.hpp"
#include "models/protocol/kafka_types.hpp"
#include "sim/events/time.hpp"

namespace ksim::models {

// A log dir as the report shows it.
struct LogDirStats {
  std::string path;
  std::int32_t partitions = 0;
  std::uint64_t bytes = 0;
  bool online = true;
  std::uint64_t bytes_read_from_disk = 0;  // reads that missed the page cache
  std::uint64_t disk_bytes = 0;  // what the disk holds: the logs, and deleted files until file.delete.delay.ms ends
};

struct LogDir {
  LogDirSpec spec;
  Disk disk;
  std::int32_t partitions = 0;
  bool online = true;
  // KIP-858: when it went offline, and whether the controller has answered a
  // heartbeat that reported it (until then log.dir.failure.timeout.ms runs).
  SimTime offline_since = 0;
  bool offline_acknowledged = false;
};

struct LogDirMover {
  std::optional<TopicPartition> in_progress;  // LocalLeaderEndPoint.inProgressPartition
  bool scheduled = false;                     // a copy step or a backoff is pending
};

// KIP-858 (ReplicaAlterLogDirsThread.ReassignmentState): a caught-up future
// replica is promoted only once the controller accepted its new dir.
enum class FuturePromotion : std::uint8_t { None, Queued, Accepted };

}  // namespace ksim::models
