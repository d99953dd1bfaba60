#pragma once
// What a consumer group did with the committed log of its topic: which
// committed records it never processed (lost for the group), which it
// processed more than once and why (the rebalance or restart that caused
// each repeat), which processed records were never committed (read past the
// high watermark), per-partition order violations, its lag at the end, and
// the cost of its rebalances. Linear in the history and the logs.
#include <cstdint>
#include <string>
#include <vector>

#include "models/history/consumption_history.hpp"
#include "models/history/delivery_history.hpp"

namespace ksim::models {

struct DuplicateCause {
  std::string cause;  // "rebalance to generation 4 (session timeout of app-1)", "restart of app-0"
  std::uint64_t count = 0;
};

// Why committed records were never processed: an auto.offset.reset=latest
// that jumped past them ("skipped by auto.offset.reset=latest: no committed
// offset for 0-3 when ledger-2 took it at generation 7, at 12.3s; nothing had
// been committed for it yet"), or no cause the history shows ("not read: no
// consumer reached them by the end", "not read, and no reset skipped them").
struct UnprocessedCause {
  std::string cause;
  std::uint64_t count = 0;
  bool kafka_behaviour = false;  // a documented Kafka behaviour (latest with no committed offset), not a loss
};

// A record the checker points at: where it is in the log and which record it is.
struct ConsumedRecordExample {
  TopicPartition partition;
  Offset offset = 0;
  std::uint32_t writer = 0;
  std::uint64_t record = 0;
  std::string detail;  // for a duplicate: its cause
};

// A member whose application stopped on a fatal error: poll() threw
// (GROUP_MAX_SIZE_REACHED, FENCED_INSTANCE_ID, GROUP_ID_NOT_FOUND, ...).
struct MemberStop {
  std::string member;
  SimTime at = 0;
  std::string reason;  // the request and the error: "JoinGroup: GROUP_MAX_SIZE_REACHED"
};

struct ConsumptionReport {
  std::uint64_t processed = 0;         // records processed, every time
  std::uint64_t committed = 0;         // records in the committed logs of the topic
  std::uint64_t unprocessed = 0;       // committed, never processed, still in the log or skipped: lost for the group
  // Committed, never processed, and deleted by retention before the group got
  // to them (retention.ms, retention.bytes): expired, not lost by Kafka.
  std::uint64_t expired_before_consumed = 0;
  // Committed, never processed, and removed by the log cleaner before the
  // group got to them (cleanup.policy=compact): superseded by a later record
  // of the same key, not lost.
  std::uint64_t compacted_before_consumed = 0;
  // On a compacted topic (compaction_checker.cpp): the group's final view of
  // each key (the latest record of it the group processed) against the
  // latest committed write of the key, a tombstone being the same as no record.
  std::uint64_t keys_checked = 0;       // keys with a committed write
  std::uint64_t stale_keys = 0;         // keys whose final view is not the latest write
  std::uint64_t tombstones_missed = 0;  // of which: the latest write is a tombstone the cleaner removed before the group saw it, yet the group saw an older value
  // Of those, past the furthest offset any member processed of their partition,
  // and skipped by no reset: the run ended before the group got there.
  std::uint64_t unreached = 0;
  std::uint64_t duplicated = 0;        // extra processings of a committed record
  std::uint64_t uncommitted_seen = 0;  // processed but not in the committed log (read past the HW, or truncated since)
  std::uint64_t aborted_reads = 0;     // processed records of aborted transactions (read_uncommitted)
  // Partitions of the topic with no leader at the end (FinalLogs::offline):
  // their committed log cannot be read, so the records of them the group
  // processed are checked only against each other (duplicates, order), and
  // what it never processed of them is unknown: at-least-once cannot hold.
  std::uint64_t offline_partitions = 0;
  std::uint64_t unavailable_seen = 0;  // processed records of those partitions
  std::uint64_t out_of_order = 0;      // a lower offset than the one before, same consumer process and generation
  std::uint64_t lag = 0;               // committed records after the group's last committed offset
  std::uint64_t commits = 0;           // partition offsets committed
  std::uint64_t failed_commits = 0;
  std::uint64_t poll_timeouts = 0;     // members that left because processing exceeded max.poll.interval.ms
  std::uint64_t crashes = 0;
  std::vector<MemberStop> stops;       // members stopped by a fatal error, in time order
  std::uint64_t offsets_expired = 0;    // the group's committed offsets of the topic's partitions that expired (offsets.retention.minutes)
  std::uint64_t group_deletions = 0;    // times the coordinator deleted the group (Empty, its last offset expired)
  std::uint64_t coordinator_loads = 0; // a broker took the group over from __consumer_offsets (failover)
  // Members the coordinator fenced, by cause (history's MemberFencing): by
  // their member epoch (once per member and epoch, however many heartbeats
  // were answered FENCED_MEMBER_EPOCH meanwhile), at their rebalance
  // timeout, at their session timeout.
  std::uint64_t fenced_member_epoch = 0;
  std::uint64_t fenced_rebalance_timeout = 0;
  std::uint64_t fenced_session_timeout = 0;
  std::uint64_t coordinator_load_records = 0;  // records those loads replayed
  std::vector<DuplicateCause> duplicate_causes;  // most frequent first
  std::vector<UnprocessedCause> unprocessed_causes;  // every unprocessed record under one cause; most frequent first
  std::vector<ConsumedRecordExample> unprocessed_examples;  // the first few, by partition and offset
  std::vector<ConsumedRecordExample> duplicate_examples;    // the first few, in processing order
  std::vector<RebalanceRecord> rebalances;
  std::vector<double> rebalance_stop_the_world_s;  // by rebalance: unowned partition-seconds from its start to the next
  double rebalance_time_s = 0;              // summed over rebalances
  double longest_rebalance_s = 0;
  double stop_the_world_partition_s = 0;    // partition-seconds with no live owner, after the first assignment
  double member_rebalance_mean_s = 0;       // a member's own time in rebalances (joined to settled), mean over members
  double member_rebalance_max_s = 0;        // the same, the member with the most
  // "nothing committed to the topic", "nothing consumed": the guarantees
  // were checked over nothing; "" when they were not.
  std::string vacuous;

  bool at_most_once() const { return duplicated == 0 && uncommitted_seen == 0 && aborted_reads == 0; }
  bool at_least_once() const {
    return unprocessed == 0 && uncommitted_seen == 0 && aborted_reads == 0 && offline_partitions == 0;
  }
  bool exactly_once() const { return at_most_once() && at_least_once() && out_of_order == 0; }
  // At-least-once could not be decided: every unprocessed record is one the
  // group had not reached by the end (it was still behind, or stuck), none it
  // skipped, or partitions of the topic were offline at the end (nothing else
  // failed it). "" when it could be; else why, for the verdict to say "incomplete".
  std::string incomplete() const;
};

// One application's consumers: a consumer group, or consumers sharing a group.id.
struct ConsumerGroupSpec {
  std::string group;
  std::int32_t topic = 0;
  std::vector<std::uint32_t> consumers;        // their indexes in the history
  std::vector<std::string> consumer_names;     // by the same position
  SimTime end = 0;                             // the end of the run
};

ConsumptionReport check_consumption(const ConsumptionHistory& history, const FinalLogs& logs,
                                    const ConsumerGroupSpec& group);
// compaction_checker.cpp: keys_checked, stale_keys and tombstones_missed of a group of a compacted topic.
void check_key_views(const ConsumptionHistory& history, const FinalLogs& logs, const ConsumerGroupSpec& group,
                     ConsumptionReport& report);

}  // namespace ksim::models
