#pragma once
// A broker's RemoteLogManager (KIP-405; Kafka's kafka.log.remote.RemoteLogManager):
// what it holds besides the remote store itself (models/log/remote_log.hpp):
// the copier and reader thread pools, waiting on the remote store; the
// partitions with a copy in flight (an RLMCopyTask copies one segment at a
// time); and its counts, for the report. Process state: a crash drops it.
#include <cstdint>
#include <map>

#include "models/log/remote_log.hpp"
#include "models/protocol/kafka_config.hpp"
#include "sim/resources/io_pool.hpp"

namespace ksim::models {

struct RemoteLogStats {
  std::uint64_t segments_copied = 0;
  std::uint64_t bytes_copied = 0;
  std::uint64_t segments_expired = 0;  // deleted from the remote store by retention.ms / retention.bytes
  std::uint64_t bytes_expired = 0;
  std::uint64_t remote_reads = 0;      // consumer fetches served from the remote store
  std::uint64_t remote_read_bytes = 0;
  std::uint64_t remote_reads_timed_out = 0;  // past remote.fetch.max.wait.ms: answered without the data
  SimTime remote_read_wait_total = 0;  // from the fetch to the remote read's end, summed
  SimTime remote_read_wait_max = 0;
  std::uint64_t aux_state_builds = 0;  // followers that started at the leader's local log start (TierStateMachine)
};

struct RemoteLogManager {
  explicit RemoteLogManager(const RemoteLogConfig& config)
      : copier(config.copier_threads), reader(config.reader_threads) {}
  IoPool copier;  // RLMCopyTask's threads (remote.log.manager.copier.thread.pool.size)
  IoPool reader;  // RemoteLogReader's threads (remote.log.reader.threads)
  std::map<TopicPartition, RemoteLogSegment> copying;  // the segment each partition is copying
  std::uint64_t incarnation = 0;  // a crash drops the copies in flight
  RemoteLogStats stats;

  void reset(SimTime now) {
    copier.reset(now);
    reader.reset(now);
    copying.clear();
    ++incarnation;
  }
};

}  // namespace ksim::models
