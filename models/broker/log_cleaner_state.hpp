#pragma once
// The log cleaner's state on a broker (Kafka's LogCleaner): the cleanings of
// the threads' current turn, whose cleaned segments take the logs' place once
// their I/O is done (Cleaner.cleanSegments, then UnifiedLog.replaceSegments),
// the Throttler all the threads share (log.cleaner.io.max.bytes.per.second)
// and, with a CPU model, the threads themselves.
#include <cstddef>
#include <memory>
#include <vector>

#include "models/log/log_cleaner.hpp"
#include "models/protocol/kafka_types.hpp"
#include "sim/resources/cpu.hpp"

namespace ksim::models {

struct LogCleanerState {
  struct Cleaning {
    TopicPartition tp;
    std::size_t log_dir = 0;
    bool written = false;  // the disk took the cleaned segments (not full, not failed)
    bool finished = false;
    CleanedLog cleaned;
  };
  std::vector<Cleaning> cleanings;  // this turn's, by thread
  SimTime throttled_until = 0;      // the Throttler lets the cleaner's I/O go on from then
  std::unique_ptr<ThreadPool> threads;  // log.cleaner.threads, with a CPU model
};

}  // namespace ksim::models
