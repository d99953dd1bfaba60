#pragma once
// What consumers did with the committed log: for the records processed by
// one set of consumers (an application), which committed records were never
// processed, which were processed more than once, which processed records
// were never committed (read past the high watermark), and order violations
// (a consumer processing a partition's offsets out of order). Linear in the
// history and the logs.
#include <cstdint>
#include <vector>

#include "models/consumer.hpp"
#include "models/delivery_history.hpp"

namespace ksim::models {

struct ConsumptionReport {
  std::uint64_t processed = 0;         // records processed, every time
  std::uint64_t committed = 0;         // records in the committed logs of the topic
  std::uint64_t unprocessed = 0;       // committed, never processed
  std::uint64_t duplicated = 0;        // extra processings of a committed record
  std::uint64_t uncommitted_seen = 0;  // processed but not in the committed log (read past the HW)
  std::uint64_t out_of_order = 0;      // processed at a lower offset than the consumer's previous one in that partition

  bool at_most_once() const { return duplicated == 0 && uncommitted_seen == 0; }
  bool at_least_once() const { return unprocessed == 0 && uncommitted_seen == 0; }
  bool exactly_once() const { return at_most_once() && at_least_once() && out_of_order == 0; }
};

// `consumers`: the indexes of the consumers that form the application.
ConsumptionReport check_consumption(const ConsumptionHistory& history, const FinalLogs& logs, std::int32_t topic,
                                    const std::vector<std::uint32_t>& consumers);

}  // namespace ksim::models
