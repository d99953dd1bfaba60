#pragma once
// What a share group (KIP-932) did with the committed log of its topic:
// whether every record was delivered until it was accepted or archived, how
// often records were delivered, which were archived (rejected, or at the
// delivery count limit), and the duplicates redelivery caused, by why the
// record came back: its acquisition lock expired while the member lived
// (a slow consumer), it expired after the member crashed, the member
// released it, the member left holding it, or a new share-partition leader
// loaded the persisted state, in which acquired records are AVAILABLE.
// Linear in the history.
#include <cstdint>
#include <string>
#include <vector>

#include "models/history/delivery_history.hpp"
#include "models/history/share_history.hpp"

namespace ksim::models {

struct ShareGroupSpec {
  std::string group;
  std::int32_t topic = 0;
  std::int32_t delivery_count_limit = 5;  // group.share.delivery.count.limit
};

// Why a record was delivered again (and so maybe processed twice).
struct RedeliveryCauses {
  std::uint64_t lock_expiry = 0;  // the lock expired while its holder lived (processing too slow)
  std::uint64_t crash = 0;        // the lock expired after its holder's process crashed
  std::uint64_t release = 0;      // the application released it (RELEASE)
  std::uint64_t member_left = 0;  // its holder closed its share session holding it
  std::uint64_t leader_change = 0;  // a new leader loaded the share-partition while it was acquired
  std::uint64_t total() const { return lock_expiry + crash + release + member_left + leader_change; }
};

struct ShareGroupReport {
  std::uint64_t committed = 0;     // committed records of the topic from where the group started
  std::uint64_t deliveries = 0;    // records the applications got, every time
  std::uint64_t processed = 0;     // processings that succeeded, every time
  std::uint64_t failed = 0;        // processings of poison records (they fail every time)
  std::uint64_t undelivered = 0;   // committed records never delivered
  std::uint64_t unfinished = 0;    // committed records neither accepted nor archived at the end
  std::uint64_t unprocessed = 0;   // committed records never processed and not archived: lost for the group
  std::uint64_t accepted = 0;
  std::uint64_t archived_rejected = 0;        // REJECT
  std::uint64_t archived_delivery_limit = 0;  // released at the delivery count limit
  std::uint64_t redeliveries = 0;             // deliveries after a record's first
  std::uint64_t duplicates = 0;               // extra successful processings of a record
  RedeliveryCauses redelivered_by;            // each redelivery's cause
  RedeliveryCauses duplicates_by;             // each duplicate processing's cause
  std::uint64_t max_delivery_count = 0;       // the most deliveries of one record
  std::uint64_t over_delivery_limit = 0;      // deliveries past group.share.delivery.count.limit (never, in Kafka)
  std::uint64_t crashes = 0;                  // of the group's consumers
  // Partitions of the topic with no leader at the end: their committed
  // records cannot be read, so whether each was delivered until done is unknown.
  std::uint64_t offline_partitions = 0;
  // "nothing committed to the topic", "nothing delivered": the group's
  // guarantee was checked over nothing; "" when it was not.
  std::string vacuous;
  std::uint64_t archived() const { return archived_rejected + archived_delivery_limit; }
  // Every committed record delivered until accepted or archived, and processed unless archived.
  bool delivered_until_done() const {
    return undelivered == 0 && unfinished == 0 && unprocessed == 0 && offline_partitions == 0;
  }
};

ShareGroupReport check_share_group(const ShareGroupSpec& spec, const ShareHistory& history, const FinalLogs& logs);

}  // namespace ksim::models
