#pragma once
// A coordinator partition's log for tests that load a group coordinator: the
// batches of the given records of the store, in order, as a coordinator
// appends them.
#include <cstdint>
#include <vector>

#include "models/coordinator/coordinator_records.hpp"
#include "models/log/partition_log.hpp"

namespace ksim::testing {

inline models::PartitionLog coordinator_log(const models::CoordinatorRecordStore& records,
                                            const std::vector<std::uint64_t>& ids) {
  models::PartitionLog log;
  for (const std::uint64_t id : ids) {
    models::RecordBatch batch;
    batch.record_count = records.at(id).record_count();
    batch.bytes = records.at(id).bytes();
    batch.writer = models::kCoordinatorWriter;
    batch.first_record = id;
    log.append_as_leader(batch, 0);
  }
  return log;
}

}  // namespace ksim::testing
