#include "models/check/consumption_checker.hpp"

#include <algorithm>
#include <map>
#include <cstdio>
#include <optional>
#include <set>

namespace ksim::models {

namespace {

struct CommittedRecord {
  bool present = false;  // a record here (offsets of markers and aborted transactions are gaps)
  bool expired = false;  // retention deleted it before the end
  bool compacted = false;  // the log cleaner removed it before the end (superseded by a later record of its key)
  std::uint32_t writer = 0;
  std::uint64_t record = 0;
  std::uint32_t times_processed = 0;
  const ProcessedRecord* last = nullptr;  // the latest processing
};

// Every record of the topic in these batches, by partition and offset.
// With `expired`, the batches retention deleted are added first, marked so.
std::map<std::int32_t, std::vector<CommittedRecord>> records_by_offset(
    const std::map<TopicPartition, std::vector<RecordBatch>>& logs, std::int32_t topic,
    const std::map<TopicPartition, std::vector<RecordBatch>>* expired = nullptr,
    const std::map<TopicPartition, std::vector<RecordBatch>>* compacted = nullptr) {
  std::map<std::int32_t, std::vector<CommittedRecord>> result;
  const auto add = [&](const std::map<TopicPartition, std::vector<RecordBatch>>& from, bool deleted, bool cleaned) {
    for (const auto& [tp, batches] : from) {
      if (tp.topic != topic) continue;
      auto& records = result[tp.partition];
      for (const RecordBatch& b : batches) {
        records.resize(std::max(records.size(), static_cast<std::size_t>(b.next_offset())));
        for (std::int32_t i = 0; i < b.record_count; ++i) {
          records[static_cast<std::size_t>(b.base_offset + i)] = {true, deleted, cleaned, b.writer,
                                                                  b.first_record + static_cast<std::uint64_t>(i)};
        }
      }
    }
  };
  if (expired) add(*expired, true, false);
  if (compacted) add(*compacted, false, true);
  add(logs, false, false);
  return result;
}

constexpr std::size_t kExamples = 10;

class ConsumptionWalk {
 public:
  ConsumptionWalk(const ConsumptionHistory& history, const FinalLogs& logs, const ConsumerGroupSpec& group)
      : history_(history),
        group_(group),
        committed_(records_by_offset(logs.committed, group.topic, &logs.expired, &logs.compacted)),
        aborted_(records_by_offset(logs.aborted, group.topic)) {
    for (const TopicPartition& tp : logs.offline) {
      if (tp.topic != group.topic) continue;
      offline_.try_emplace(tp.partition);
      ++report_.offline_partitions;
    }
  }

  ConsumptionReport run() {
    for (const ProcessedRecord& run : history_.processed) {
      if (member(run.consumer) < 0 || run.partition.topic != group_.topic) continue;
      check_run(run);
    }
    for (const auto& [partition, records] : committed_) {
      for (std::size_t offset = 0; offset < records.size(); ++offset) {
        const CommittedRecord& r = records[offset];
        if (!r.present) continue;
        ++report_.committed;
        if (r.times_processed > 0) continue;
        if (r.expired) {
          ++report_.expired_before_consumed;
          continue;
        }
        if (r.compacted) {
          ++report_.compacted_before_consumed;
          continue;
        }
        ++report_.unprocessed;
        const std::string& cause = unprocessed_cause(partition, static_cast<Offset>(offset));
        if (report_.unprocessed_examples.size() < kExamples) {
          report_.unprocessed_examples.push_back({{group_.topic, partition}, static_cast<Offset>(offset), r.writer, r.record, cause});
        }
      }
    }
    check_commits();
    check_rebalances();
    for (const OffsetExpiry& e : history_.offset_expirations) {
      if (e.group != group_.group) continue;
      if (e.deleted) ++report_.group_deletions;
      if (!e.deleted && e.partition.topic == group_.topic) ++report_.offsets_expired;
    }
    for (const CoordinatorLoad& load : history_.coordinator_loads) {
      if (load.group != group_.group) continue;
      ++report_.coordinator_loads;
      report_.coordinator_load_records += static_cast<std::uint64_t>(load.records);
    }
    count_fencings();
    for (const ConsumerEvent& e : history_.consumer_events) {
      if (member(e.consumer) < 0) continue;
      report_.poll_timeouts += e.kind == ConsumerEventKind::PollTimeout ? 1 : 0;
      report_.crashes += e.kind == ConsumerEventKind::Crashed ? 1 : 0;
      if (e.kind == ConsumerEventKind::Stopped) report_.stops.push_back({name_of(e.consumer), e.at, e.reason});
    }
    check_member_rebalances();
    for (const auto& [cause, count] : causes_) report_.duplicate_causes.push_back({cause, count});
    for (const auto& [cause, count] : unprocessed_causes_) {
      report_.unprocessed_causes.push_back({cause, count, kafka_behaviour_.count(cause) > 0});
    }
    std::stable_sort(report_.unprocessed_causes.begin(), report_.unprocessed_causes.end(),
                     [](const UnprocessedCause& a, const UnprocessedCause& b) { return a.count > b.count; });
    std::stable_sort(report_.duplicate_causes.begin(), report_.duplicate_causes.end(),
                     [](const DuplicateCause& a, const DuplicateCause& b) { return a.count > b.count; });
    if (report_.committed == 0) {
      report_.vacuous = "nothing committed to the topic";
    } else if (report_.processed == 0) {
      report_.vacuous = "nothing consumed";
    }
    return report_;
  }

 private:
  int member(std::uint32_t consumer) const {
    const auto it = std::find(group_.consumers.begin(), group_.consumers.end(), consumer);
    return it == group_.consumers.end() ? -1 : static_cast<int>(it - group_.consumers.begin());
  }
  const std::string& name_of(std::uint32_t consumer) const {
    return group_.consumer_names[static_cast<std::size_t>(member(consumer))];
  }

  // The cause of committed record `offset` of `partition` never being processed:
  // the first auto.offset.reset=latest of a member that jumped past it, else
  // whether any member read so far. Counted under its cause; returns it.
  const std::string& unprocessed_cause(std::int32_t partition, Offset offset) {
    const PositionResetRecord* skip = nullptr;
    for (const PositionResetRecord& reset : history_.position_resets) {
      if (member(reset.consumer) < 0 || reset.partition != TopicPartition{group_.topic, partition}) continue;
      if (reset.latest && reset.offset > offset && (!skip || reset.at < skip->at)) skip = &reset;
    }
    std::string cause;
    if (skip) {
      cause = fmt_reset(*skip);
    } else {
      const auto furthest = furthest_processed_.find(partition);
      const bool unreached = furthest == furthest_processed_.end() || furthest->second < offset;
      report_.unreached += unreached ? 1 : 0;
      const ConsumerEvent* stop = unreached ? stopped_last_owner(partition) : nullptr;
      cause = stop ? "not read: the member that last owned its partition, " + name_of(stop->consumer) + ", stopped at " +
                         format_seconds(stop->at) + " (" + stop->reason + ") and no other took the partition by the end"
              : unreached ? "not read: no consumer of the group reached it by the end"
                          : "not read, though later offsets were, and no auto.offset.reset skipped it";
    }
    const auto [it, fresh] = unprocessed_causes_.try_emplace(cause, 0);
    ++it->second;
    return it->first;
  }

  // The stop of the member that last released `partition` (its process stopped
  // by a fatal error at or after the release), if none took it since; else null.
  const ConsumerEvent* stopped_last_owner(std::int32_t partition) {
    const auto [cached, fresh] = stopped_owner_.try_emplace(partition, nullptr);
    if (fresh) cached->second = find_stopped_last_owner(partition);
    return cached->second;
  }
  const ConsumerEvent* find_stopped_last_owner(std::int32_t partition) const {
    const OwnershipEvent* last = nullptr;
    for (const OwnershipEvent& e : history_.ownership) {
      if (member(e.consumer) >= 0 && e.partition == TopicPartition{group_.topic, partition}) last = &e;
    }
    if (!last || last->owned) return nullptr;
    const ConsumerEvent* stop = nullptr;
    for (const ConsumerEvent& e : history_.consumer_events) {
      if (e.consumer == last->consumer && e.kind == ConsumerEventKind::Stopped && e.at >= last->at) stop = &e;
      if (e.consumer == last->consumer && e.kind == ConsumerEventKind::Restarted && stop) stop = nullptr;
    }
    return stop;
  }

  std::string fmt_reset(const PositionResetRecord& reset) {
    std::string text = "skipped by auto.offset.reset=latest: " + std::string(to_string(reset.cause)) + " for partition " +
                       std::to_string(reset.partition.partition) + " when " + name_of(reset.consumer) + " took it" +
                       (reset.generation >= 0 ? " at generation " + std::to_string(reset.generation) : std::string()) +
                       ", at " + format_seconds(reset.at);
    // Had the group committed an offset for it before? Then a committed offset went missing.
    const CommitEvent* before = nullptr;
    for (const CommitEvent& c : history_.commits) {
      if (member(c.consumer) < 0 || c.partition != reset.partition || c.error != Error::None || c.at > reset.at) continue;
      before = &c;
    }
    const OffsetExpiry* expiry = before ? expiry_between(reset.partition, before->at, reset.at) : nullptr;
    if (reset.cause != PositionResetCause::NoCommittedOffset) {
      text += "; the position was lost, not the commit";
    } else if (expiry) {
      text += "; the group's committed offset " + std::to_string(expiry->offset) + " (committed at " +
              format_seconds(expiry->committed_at) + ") expired at " + format_seconds(expiry->at) +
              " (offsets.retention.minutes)";
      kafka_behaviour_.insert(text);
    } else if (before) {
      text += "; offset " + std::to_string(before->offset) + " had been committed for it at " +
              format_seconds(before->at) + ": a committed offset went missing";
    } else {
      text += "; nothing had been committed for it yet (Kafka's auto.offset.reset=latest)";
      kafka_behaviour_.insert(text);
    }
    return text;
  }

  // The group's committed offset of `tp` expiring in (after, until]: the last such.
  const OffsetExpiry* expiry_between(TopicPartition tp, SimTime after, SimTime until) const {
    const OffsetExpiry* found = nullptr;
    for (const OffsetExpiry& e : history_.offset_expirations) {
      if (e.group == group_.group && !e.deleted && e.partition == tp && e.at > after && e.at <= until) found = &e;
    }
    return found;
  }

  static std::string format_seconds(SimTime t) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.3fs", to_seconds(t));
    return buffer;
  }

  // A run `p` of records processed one after another: at offset p.offset + i,
  // the writer's record number p.record + i.
  void check_run(const ProcessedRecord& p) {
    std::vector<CommittedRecord>* committed = records_of(committed_, p.partition.partition);
    if (std::vector<CommittedRecord>* seen = records_of(offline_, p.partition.partition)) {
      note_offline_run(*seen, p);
      committed = seen;
    }
    std::vector<CommittedRecord>* aborted = records_of(aborted_, p.partition.partition);
    Offset* last_offset = nullptr;  // this consumer's last offset in the partition, in this incarnation and generation
    Offset& furthest = furthest_processed_.try_emplace(p.partition.partition, -1).first->second;
    furthest = std::max(furthest, p.offset + static_cast<Offset>(p.count) - 1);
    for (std::uint32_t i = 0; i < p.count; ++i) {
      const Offset offset = p.offset + i;
      const std::uint64_t record = p.record + i;
      ++report_.processed;
      if (!holds(committed, offset, p.writer, record)) {
        // Not committed: a record of an aborted transaction (read_uncommitted), or
        // one lost since it was read (an unclean election). No part of the order.
        ++(holds(aborted, offset, p.writer, record) ? report_.aborted_reads : report_.uncommitted_seen);
        continue;
      }
      if (!last_offset) {
        const auto key = std::tuple{p.consumer, p.incarnation, p.generation, p.partition.partition};
        const auto [it, fresh] = last_offset_.try_emplace(key, offset);
        last_offset = &it->second;
        if (!fresh && offset < *last_offset) ++report_.out_of_order;
      } else if (offset < *last_offset) {
        ++report_.out_of_order;
      }
      *last_offset = offset;
      check_copy((*committed)[static_cast<std::size_t>(offset)], p, offset, record);
    }
  }

  // A partition offline at the end has no committed log to check against:
  // its records are taken as the group first processed them at each offset,
  // so that a second processing of one still counts as a duplicate (and a
  // different record at an offset read before, as one truncated since).
  void note_offline_run(std::vector<CommittedRecord>& seen, const ProcessedRecord& p) {
    report_.unavailable_seen += p.count;
    const auto end = static_cast<std::size_t>(p.offset) + p.count;
    if (seen.size() < end) seen.resize(end);
    for (std::uint32_t i = 0; i < p.count; ++i) {
      CommittedRecord& r = seen[static_cast<std::size_t>(p.offset) + i];
      if (!r.present) r = {true, false, false, p.writer, p.record + i};
    }
  }

  void check_copy(CommittedRecord& r, const ProcessedRecord& p, Offset offset, std::uint64_t record) {
    if (r.times_processed++ > 0) {
      ++report_.duplicated;
      const std::string cause = cause_of(*r.last, p);
      ++causes_[cause];
      if (report_.duplicate_examples.size() < kExamples) {
        report_.duplicate_examples.push_back({p.partition, offset, p.writer, record,
                                              "processed again by " + name_of(p.consumer) + " after " + cause});
      }
    }
    r.last = &p;
  }

  static std::vector<CommittedRecord>* records_of(std::map<std::int32_t, std::vector<CommittedRecord>>& log,
                                                  std::int32_t partition) {
    const auto it = log.find(partition);
    return it == log.end() ? nullptr : &it->second;
  }

  static bool holds(const std::vector<CommittedRecord>* records, Offset offset, std::uint32_t writer,
                    std::uint64_t record) {
    if (!records || offset >= static_cast<Offset>(records->size())) return false;
    const CommittedRecord& r = (*records)[static_cast<std::size_t>(offset)];
    return r.present && r.writer == writer && r.record == record;
  }

  // Why a record was processed again: the consumer restarted, or the
  // partition moved in a rebalance (named by the generation it formed).
  std::string cause_of(const ProcessedRecord& before, const ProcessedRecord& again) const {
    // The group's offset expired since, and a member reset the partition to the
    // earliest offset after it (the one reprocessing, or one before it that committed from there).
    const OffsetExpiry* e = expiry_between(again.partition, before.at, again.at);
    const auto reset_after = [&](const PositionResetRecord& r) {
      return member(r.consumer) >= 0 && r.partition == again.partition && !r.latest &&
             r.cause == PositionResetCause::NoCommittedOffset && r.at >= e->at && r.at <= again.at;
    };
    if (e && std::any_of(history_.position_resets.begin(), history_.position_resets.end(), reset_after)) {
      return "the group's committed offset expired at " + format_seconds(e->at) +
             " (offsets.retention.minutes): auto.offset.reset=earliest";
    }
    if (before.consumer == again.consumer && before.incarnation != again.incarnation) {
      return "restart of " + name_of(again.consumer);
    }
    if (before.consumer == again.consumer && before.generation == again.generation) {
      return "read again by " + name_of(again.consumer) + " (offset reset or truncation)";
    }
    for (const RebalanceRecord& r : history_.rebalances) {
      if (r.group == group_.group && r.generation == again.generation) {
        return "rebalance to generation " + std::to_string(r.generation) + " (" + r.trigger + ")";
      }
    }
    return "generation " + std::to_string(again.generation);
  }

  // Lag: what is committed in the log after the group's last committed offset.
  void check_commits() {
    std::map<std::int32_t, Offset> last_commit;
    for (const CommitEvent& c : history_.commits) {
      if (member(c.consumer) < 0 || c.partition.topic != group_.topic) continue;
      if (c.error != Error::None) {
        ++report_.failed_commits;
        continue;
      }
      ++report_.commits;
      last_commit[c.partition.partition] = c.offset;
    }
    for (const auto& [partition, records] : committed_) {
      const auto it = last_commit.find(partition);
      const Offset from = it == last_commit.end() ? 0 : it->second;
      const auto size = static_cast<Offset>(records.size());
      report_.lag += static_cast<std::uint64_t>(std::max<Offset>(0, size - from));
    }
  }

  // Each member's own time in rebalances, whatever the protocol: from its
  // RebalanceJoined to its AssignmentSettled (or the end of the run); a crash
  // or a fatal error's stop ends it (the process is gone, or consumes no more). Mean over the members that took part, and the longest.
  void check_member_rebalances() {
    std::map<std::uint32_t, SimTime> since;
    std::map<std::uint32_t, SimTime> total;
    for (const ConsumerEvent& e : history_.consumer_events) {
      if (member(e.consumer) < 0) continue;
      if (e.kind == ConsumerEventKind::RebalanceJoined) {
        since.try_emplace(e.consumer, e.at);
      } else if (e.kind == ConsumerEventKind::AssignmentSettled || e.kind == ConsumerEventKind::Crashed ||
                 e.kind == ConsumerEventKind::Stopped) {
        const auto it = since.find(e.consumer);
        if (it == since.end()) continue;
        total[e.consumer] += e.at - it->second;
        since.erase(it);
      }
    }
    for (const auto& [consumer, at] : since) total[consumer] += std::max<SimTime>(0, group_.end - at);
    for (const auto& [consumer, t] : total) {
      report_.member_rebalance_mean_s += to_seconds(t) / static_cast<double>(total.size());
      report_.member_rebalance_max_s = std::max(report_.member_rebalance_max_s, to_seconds(t));
    }
  }

  // A member fenced by its epoch is answered FENCED_MEMBER_EPOCH at every
  // heartbeat until it hears and joins again: one fencing per member and epoch.
  void count_fencings() {
    std::set<std::pair<std::string, std::int32_t>> by_epoch;
    for (const MemberFencing& f : history_.member_fencings) {
      if (f.group != group_.group) continue;
      switch (f.cause) {
        case FencingCause::MemberEpoch: by_epoch.insert({f.member_id, f.member_epoch}); break;
        case FencingCause::RebalanceTimeout: ++report_.fenced_rebalance_timeout; break;
        case FencingCause::SessionTimeout: ++report_.fenced_session_timeout; break;
      }
    }
    report_.fenced_member_epoch = by_epoch.size();
  }

  void check_rebalances() {
    for (const RebalanceRecord& r : history_.rebalances) {
      if (r.group != group_.group) continue;
      report_.rebalances.push_back(r);
      const double seconds = to_seconds(std::min(r.completed, group_.end) - r.started);
      report_.rebalance_time_s += seconds;
      report_.longest_rebalance_s = std::max(report_.longest_rebalance_s, seconds);
    }
    report_.rebalance_stop_the_world_s.assign(report_.rebalances.size(), 0.0);
    report_.stop_the_world_partition_s = unowned_partition_seconds();
  }

  // Partition-seconds during which a partition of the topic had no live
  // owner in the group, from the group's first assignment to the end. Each
  // rebalance is charged from its start until, once it has completed, every
  // partition has an owner again.
  double unowned_partition_seconds() {
    std::map<std::int32_t, int> owners;
    for (const auto& [partition, records] : committed_) owners[partition] = 0;
    auto unowned = static_cast<std::int64_t>(owners.size());
    const auto& rebalances = report_.rebalances;
    std::size_t next = 0;                // the next rebalance to start
    std::optional<std::size_t> charged;  // the rebalance the time goes to
    SimTime since = kNever;              // the first assignment
    SimTime last = 0;
    double total = 0;
    const auto add = [&](SimTime to) {
      const double seconds = static_cast<double>(unowned) * to_seconds(to - last);
      total += seconds;
      if (charged) report_.rebalance_stop_the_world_s[*charged] += seconds;
      last = to;
    };
    const auto advance = [&](SimTime to) {
      while (next < rebalances.size() && rebalances[next].started <= to) {
        add(std::max(last, rebalances[next].started));
        charged = next++;
      }
      add(to);
    };
    for (const OwnershipEvent& e : history_.ownership) {
      if (member(e.consumer) < 0 || e.partition.topic != group_.topic || !owners.contains(e.partition.partition)) continue;
      if (since == kNever) {
        if (!e.owned) continue;
        since = last = e.at;
      }
      advance(e.at);
      int& n = owners[e.partition.partition];
      if (e.owned && n++ == 0) --unowned;
      if (!e.owned && --n == 0) ++unowned;
      if (charged && unowned == 0 && rebalances[*charged].completed <= e.at) charged.reset();
    }
    if (since != kNever) advance(group_.end);
    return total;
  }

  const ConsumptionHistory& history_;
  const ConsumerGroupSpec& group_;
  std::map<std::int32_t, std::vector<CommittedRecord>> committed_;
  std::map<std::int32_t, std::vector<CommittedRecord>> aborted_;
  std::map<std::int32_t, std::vector<CommittedRecord>> offline_;  // partitions offline at the end: what the group read of them
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::int32_t, std::int32_t>, Offset> last_offset_;
  std::map<std::string, std::uint64_t> causes_;
  std::map<std::string, std::uint64_t> unprocessed_causes_;
  std::set<std::string> kafka_behaviour_;             // causes that are Kafka's documented behaviour
  std::map<std::int32_t, Offset> furthest_processed_;  // by partition: the highest offset any member processed
  std::map<std::int32_t, const ConsumerEvent*> stopped_owner_;  // by partition: stopped_last_owner's answer
  ConsumptionReport report_;
};

}  // namespace

std::string ConsumptionReport::incomplete() const {
  if (unprocessed != unreached) return "";
  if (offline_partitions > 0) {
    return "partitions of the topic offline at the end: " + std::to_string(offline_partitions) +
           " (their committed records cannot be read, so what the group did not process of them is unknown; " +
           std::to_string(unavailable_seen) + " processed records of them were not checked against a committed log)" +
           (unprocessed > 0 ? "; and " + std::to_string(unreached) + " committed records not reached by the end" : "");
  }
  if (unprocessed == 0) return "";
  return std::to_string(unreached) + " committed records not reached by the end (the group was behind or stuck: a "
         "longer drain, or why it stopped)";
}

ConsumptionReport check_consumption(const ConsumptionHistory& history, const FinalLogs& logs,
                                    const ConsumerGroupSpec& group) {
  ConsumptionReport report = ConsumptionWalk(history, logs, group).run();
  if (logs.keys) check_key_views(history, logs, group, report);
  return report;
}

}  // namespace ksim::models
