// The share group checker (models/check/share_group_checker.hpp).
#include "models/check/share_group_checker.hpp"

#include <algorithm>
#include <map>
#include <optional>

namespace ksim::models {

namespace {

enum class Cause { LockExpiry, Crash, Release, MemberLeft, LeaderChange };

struct Release {
  SimTime at = 0;
  Cause cause = Cause::LockExpiry;
};

struct RecordFacts {
  bool committed = false;
  std::uint64_t delivered = 0;
  std::uint64_t processed = 0;
  bool accepted = false;
  bool archived = false;
  std::vector<Release> releases;  // in time order
  SimTime last_delivered = -1;    // the application last got it (-1: never)
  std::optional<Cause> last_cause;  // why it came back for that delivery (none: a first delivery)
};

void count_cause(RedeliveryCauses& causes, Cause cause) {
  switch (cause) {
    case Cause::LockExpiry: ++causes.lock_expiry; break;
    case Cause::Crash: ++causes.crash; break;
    case Cause::Release: ++causes.release; break;
    case Cause::MemberLeft: ++causes.member_left; break;
    case Cause::LeaderChange: ++causes.leader_change; break;
  }
}

// The release that sent the record back before `at` (the last one at or before it).
const Release* release_before(const RecordFacts& facts, SimTime at) {
  const auto it = std::upper_bound(facts.releases.begin(), facts.releases.end(), at,
                                   [](SimTime t, const Release& r) { return t < r.at; });
  return it == facts.releases.begin() ? nullptr : &*std::prev(it);
}

// Why a record delivered at `at` had come back. If a new leader loaded its
// share-partition after the application last got it, and that delivery came
// after the record's last release (so the record was acquired again then), it
// was acquired at the load and came back AVAILABLE: the leader change.
// Otherwise the last release before `at`; none if there is none.
std::optional<Cause> redelivery_cause(const RecordFacts& facts, const std::vector<SimTime>* loads, SimTime at) {
  const Release* release = release_before(facts, at);
  const bool acquired_since_release = !release || facts.last_delivered > release->at;
  if (loads && acquired_since_release) {
    // A history file need not list a partition's loads in time order: they are few.
    const bool loaded = std::any_of(loads->begin(), loads->end(),
                                    [&](SimTime load) { return load <= at && load >= facts.last_delivered; });
    if (loaded) return Cause::LeaderChange;
  }
  if (release) return release->cause;
  return std::nullopt;
}

// A lock that expired after its holder's process had crashed is the crash's
// doing (the leader may even have acquired it for the dead process's waiting fetch).
Cause expiry_cause(const ShareHistory& history, const ShareLeaderEvent& e) {
  const auto member = history.members.find(e.member);
  if (member == history.members.end()) return Cause::LockExpiry;
  const auto [consumer, started] = member->second;
  for (const auto& [crashed, at] : history.crashes) {
    if (crashed == consumer && at >= started && at <= e.at) return Cause::Crash;
  }
  return Cause::LockExpiry;
}

}  // namespace

ShareGroupReport check_share_group(const ShareGroupSpec& spec, const ShareHistory& history, const FinalLogs& logs) {
  ShareGroupReport r;
  for (const TopicPartition& tp : logs.offline) r.offline_partitions += tp.topic == spec.topic ? 1 : 0;
  std::map<std::pair<TopicPartition, Offset>, RecordFacts> facts;
  for (const auto& [tp, batches] : logs.committed) {
    if (tp.topic != spec.topic) continue;
    // From where the share-partition started (never started: every record is the group's, undelivered).
    const auto start = history.start_offsets.find({spec.group, tp});
    const Offset from = start == history.start_offsets.end() ? 0 : start->second;
    for (const RecordBatch& b : batches) {
      if (b.is_control()) continue;
      for (Offset o = std::max(b.base_offset, from); o < b.next_offset(); ++o) {
        facts[{tp, o}].committed = true;
        ++r.committed;
      }
    }
  }
  for (const ShareLeaderEvent& e : history.leader_events) {
    if (e.group != spec.group || e.partition.topic != spec.topic) continue;
    RecordFacts& f = facts[{e.partition, e.offset}];
    switch (e.outcome) {
      case ShareOutcome::Accepted: f.accepted = true; break;
      case ShareOutcome::Rejected:
        f.archived = true;
        if (f.committed) ++r.archived_rejected;
        break;
      case ShareOutcome::DeliveryLimit:
        f.archived = true;
        if (f.committed) ++r.archived_delivery_limit;
        break;
      case ShareOutcome::Released: {
        const Cause cause = e.why == ShareRelease::Released     ? Cause::Release
                            : e.why == ShareRelease::MemberLeft ? Cause::MemberLeft
                                                                : expiry_cause(history, e);
        f.releases.push_back({e.at, cause});
        break;
      }
    }
  }
  const auto loads_of = [&](TopicPartition tp) -> const std::vector<SimTime>* {
    const auto it = history.loads.find({spec.group, tp});
    return it == history.loads.end() ? nullptr : &it->second;
  };
  std::vector<bool> member(history.consumers.size(), false);
  for (std::size_t i = 0; i < history.consumers.size(); ++i) member[i] = history.consumers[i].group == spec.group;
  for (const auto& [consumer, at] : history.crashes) r.crashes += member[consumer] ? 1 : 0;
  for (const ShareClientEvent& e : history.client_events) {
    if (!member[e.consumer] || e.partition.topic != spec.topic) continue;
    RecordFacts& f = facts[{e.partition, e.offset}];
    if (!e.processed) {
      ++r.deliveries;
      ++f.delivered;
      r.max_delivery_count = std::max<std::uint64_t>(r.max_delivery_count, static_cast<std::uint64_t>(e.delivery_count));
      if (e.delivery_count > spec.delivery_count_limit) ++r.over_delivery_limit;
      f.last_cause.reset();
      if (e.delivery_count > 1) {
        ++r.redeliveries;
        f.last_cause = redelivery_cause(f, loads_of(e.partition), e.at);
        if (f.last_cause) count_cause(r.redelivered_by, *f.last_cause);
      }
      f.last_delivered = e.at;
      continue;
    }
    if (e.poison) {
      ++r.failed;
      continue;
    }
    ++r.processed;
    if (++f.processed > 1) {
      ++r.duplicates;
      if (f.last_cause) count_cause(r.duplicates_by, *f.last_cause);  // the redelivery it processed
    }
  }
  for (const auto& [key, f] : facts) {
    if (!f.committed) continue;
    if (f.accepted) ++r.accepted;
    if (f.delivered == 0) ++r.undelivered;
    if (!f.accepted && !f.archived) ++r.unfinished;
    if (f.processed == 0 && !f.archived) ++r.unprocessed;
  }
  if (r.committed == 0) {
    r.vacuous = "nothing committed to the topic";
  } else if (r.deliveries == 0) {
    r.vacuous = "nothing delivered";
  }
  return r;
}

}  // namespace ksim::models
