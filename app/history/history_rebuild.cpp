#include "app/history/history_rebuild.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "app/scenario/config_reader.hpp"

namespace ksim::app::history {

namespace {

// Record numbers and offsets may run this far past what the history's sends
// account for (the checkers size their tables by them).
constexpr std::uint64_t kSlack = 1 << 20;

using StreamKey = std::pair<std::uint32_t, models::TopicPartition>;

std::string partition_name(const RecordedHistory& h, models::TopicPartition tp) {
  return h.topics[static_cast<std::size_t>(tp.topic)].name + "-" + std::to_string(tp.partition);
}

class Rebuild {
 public:
  explicit Rebuild(Events events) : e_(std::move(events)), h_(std::move(e_.history)) {}

  RecordedHistory run() {
    count_sends();
    for (const From& f : e_.from) {
      auto& made = h_.delivery.made_from[{f.output.writer, f.output.partition}];
      if (made.size() <= f.output.record) made.resize(f.output.record + 1);
      made[f.output.record] = f.input;
    }
    settle_outcomes();
    build_logs();
    order_consumption();
    derive_rebalances();
    order_share();
    return std::move(h_);
  }

 private:
  [[noreturn]] void fail(std::size_t line, const std::string& what, const std::string& message) const {
    throw config::ConfigError(config::Location{h_.file, static_cast<int>(line), 0}, what, message);
  }

  // The records of each (writer, partition): numbered from 0, each sent once.
  void count_sends() {
    std::map<StreamKey, std::uint64_t> lines;
    for (const Record& s : e_.sends) ++lines[{s.writer, s.partition}];
    std::map<StreamKey, std::vector<bool>> sent;
    for (const Record& s : e_.sends) {
      const StreamKey key{s.writer, s.partition};
      if (s.record >= lines[key] + kSlack) {
        fail(s.line, "send.record", "record " + std::to_string(s.record) + " is far beyond the " +
                                        std::to_string(lines[key]) + " records sent by this writer to this partition");
      }
      auto& bits = sent[key];
      if (bits.size() <= s.record) bits.resize(s.record + 1);
      if (bits[s.record]) fail(s.line, "send.record", "record " + std::to_string(s.record) + " sent twice");
      bits[s.record] = true;
      ++sent_to_[s.partition];
    }
    for (const auto& [key, bits] : sent) h_.delivery.produced[key] = bits.size();
  }

  bool was_sent(std::uint32_t writer, models::TopicPartition tp, std::uint64_t record) const {
    const auto it = h_.delivery.produced.find({writer, tp});
    return it != h_.delivery.produced.end() && record < it->second;
  }
  void check_sent(const Record& r, const std::string& what) const {
    if (was_sent(r.writer, r.partition, r.record)) return;
    fail(r.line, what, "record " + std::to_string(r.record) + " of writer " + std::to_string(r.writer) + " to " +
                           partition_name(h_, r.partition) + " was never sent");
  }

  // When each writer's process crashed: the `crash` faults of the node it lives in.
  std::map<std::uint32_t, std::vector<SimTime>> crash_times() const {
    std::map<std::uint32_t, std::vector<SimTime>> crashes;
    for (std::uint32_t w = 0; w < h_.writers.size(); ++w) {
      for (const RecordedHistory::Fault& f : h_.faults) {
        if (f.kind == "crash" && std::find(f.nodes.begin(), f.nodes.end(), h_.writers[w].node) != f.nodes.end()) {
          crashes[w].push_back(f.at);
        }
      }
    }
    return crashes;
  }

  // A transactional writer's acknowledged records count once their
  // transaction commits: the first commit or abort of the writer at or after
  // the acknowledgement settles them. Without one they are pending; so are
  // they when the writer's process crashed in their transaction, between its
  // begin (the writer's last at or before the ack) and that end: the
  // coordinator aborts the open transaction, on its timeout or when the next
  // instance fences it, and the restarted instance's commit is of a later
  // one. (From its begin, not the ack: a killed process lives a few ms past
  // the harness's kill, and may write an ack then.)
  void settle_outcomes() {
    const auto crashes = crash_times();
    std::map<std::uint32_t, std::vector<const Txn*>> ends;
    std::map<std::uint32_t, std::vector<SimTime>> begins;
    for (const Txn& t : e_.txns) {
      if (t.op == models::TxnOp::Begin) {
        begins[t.writer].push_back(t.t);
        continue;
      }
      ends[t.writer].push_back(&t);
      if (t.failed) {
        ++h_.transactions_failed;
      } else {
        ++(t.op == models::TxnOp::Commit ? h_.transactions_committed : h_.transactions_aborted);
      }
    }
    for (auto& [writer, list] : ends) {
      std::stable_sort(list.begin(), list.end(), [](const Txn* a, const Txn* b) { return a->t < b->t; });
    }
    for (auto& [writer, list] : begins) std::sort(list.begin(), list.end());
    for (const Outcome& a : e_.acks) {
      const Record& r = a.record;
      check_sent(r, "ack.record");
      const models::RecordRange range{r.writer, r.partition, r.record, 1};
      if (!h_.writers[r.writer].transactional_id) {
        h_.delivery.acks.push_back({range, a.offset, r.t});
        continue;
      }
      const auto& list = ends[r.writer];
      const auto end = std::lower_bound(list.begin(), list.end(), r.t, [](const Txn* t, SimTime at) { return t->t < at; });
      if (end == list.end()) continue;  // its transaction never ended: pending
      const auto& starts = begins[r.writer];
      const auto after = std::upper_bound(starts.begin(), starts.end(), r.t);
      const SimTime begun = after == starts.begin() ? r.t : *std::prev(after);
      if (const auto c = crashes.find(r.writer); c != crashes.end() &&
          std::any_of(c->second.begin(), c->second.end(), [&](SimTime at) { return begun <= at && at < (*end)->t; })) {
        continue;  // its process crashed in the transaction: pending
      }
      if ((*end)->op == models::TxnOp::Commit && !(*end)->failed) {
        h_.delivery.acks.push_back({range, a.offset, r.t});
      } else {
        h_.delivery.failures.push_back(
            {range, (*end)->failed ? (*end)->error : models::Error::TransactionAborted, (*end)->t});
      }
    }
    for (const Outcome& f : e_.fails) {
      check_sent(f.record, "fail.record");
      h_.delivery.failures.push_back({{f.record.writer, f.record.partition, f.record.record, 1}, f.error, f.record.t});
    }
  }

  // Consecutive offsets of one writer's consecutive records are one batch.
  std::vector<models::RecordBatch> batches_of(const FinalPartition& p, std::vector<LogRecord> records, bool committed) {
    std::sort(records.begin(), records.end(), [](const LogRecord& a, const LogRecord& b) { return a.offset < b.offset; });
    const std::uint64_t bound = sent_to_[p.partition] + 2 * e_.txns.size() + kSlack;
    std::vector<models::RecordBatch> batches;
    for (std::size_t i = 0; i < records.size(); ++i) {
      const LogRecord& r = records[i];
      if (i > 0 && r.offset == records[i - 1].offset) fail(p.line, "final." + r.where, "offset " + std::to_string(r.offset) + " listed twice");
      if (static_cast<std::uint64_t>(r.offset) >= bound) {
        fail(p.line, "final." + r.where, "offset " + std::to_string(r.offset) + " is far beyond what was sent to the partition");
      }
      if (committed && !was_sent(r.writer, p.partition, r.record)) {
        fail(p.line, "final." + r.where, "record " + std::to_string(r.record) + " of writer " + std::to_string(r.writer) + " was never sent to " + partition_name(h_, p.partition));
      }
      if (!batches.empty()) {
        models::RecordBatch& b = batches.back();
        if (b.next_offset() == r.offset && b.writer == r.writer &&
            b.first_record + static_cast<std::uint64_t>(b.record_count) == r.record) {
          ++b.record_count;
          continue;
        }
      }
      models::RecordBatch b;
      b.base_offset = r.offset;
      b.record_count = 1;
      b.writer = r.writer;
      b.first_record = r.record;
      batches.push_back(b);
    }
    return batches;
  }

  void build_logs() {
    std::set<models::TopicPartition> seen;
    for (const FinalPartition& p : e_.finals) {
      seen.insert(p.partition);
      if (p.offline) {
        if (!p.committed.empty() || !p.aborted.empty() || !p.uncommitted.empty()) fail(p.line, "final.offline", "an offline partition lists records");
        h_.logs.offline.push_back(p.partition);
        continue;
      }
      h_.logs.committed[p.partition] = batches_of(p, p.committed, true);
      if (!p.aborted.empty()) h_.logs.aborted[p.partition] = batches_of(p, p.aborted, false);
      if (!p.uncommitted.empty()) h_.logs.uncommitted[p.partition] = batches_of(p, p.uncommitted, true);
    }
    for (std::size_t t = 0; t < h_.topics.size(); ++t) {
      for (std::int32_t p = 0; p < h_.topics[t].partitions; ++p) {
        const models::TopicPartition tp{static_cast<std::int32_t>(t), p};
        if (!seen.contains(tp)) fail(0, "final", "no final line for partition " + partition_name(h_, tp));
      }
    }
    std::sort(h_.logs.offline.begin(), h_.logs.offline.end());
  }

  // Time order (each consumer's own in the order written); a consumer's
  // process incarnation counts its restarts; a crashed consumer owns nothing
  // (a killed process calls no listener).
  void order_consumption() {
    const auto by_time = [](const auto& a, const auto& b) { return a.at < b.at; };
    std::stable_sort(e_.processed.begin(), e_.processed.end(), by_time);
    std::stable_sort(e_.commits.begin(), e_.commits.end(), by_time);
    std::stable_sort(e_.ownership.begin(), e_.ownership.end(), by_time);
    std::stable_sort(e_.consumer_events.begin(), e_.consumer_events.end(), by_time);
    std::map<std::uint32_t, std::vector<SimTime>> restarts;
    for (const auto& c : e_.consumer_events) {
      if (c.kind == models::ConsumerEventKind::Restarted) restarts[c.consumer].push_back(c.at);
    }
    for (auto& p : e_.processed) {
      const auto& times = restarts[p.consumer];
      p.incarnation = 1 + static_cast<std::uint32_t>(std::upper_bound(times.begin(), times.end(), p.at) - times.begin());
    }
    auto& c = h_.consumption;
    c.processed.assign(e_.processed.begin(), e_.processed.end());
    c.commits = std::move(e_.commits);
    c.consumer_events = e_.consumer_events;
    std::set<std::pair<std::uint32_t, models::TopicPartition>> owned;
    std::size_t next = 0;
    const auto apply = [&](const models::OwnershipEvent& o) {
      if (o.owned) {
        owned.insert({o.consumer, o.partition});
      } else {
        owned.erase({o.consumer, o.partition});
      }
      c.ownership.push_back(o);
    };
    for (const auto& event : e_.consumer_events) {
      if (event.kind != models::ConsumerEventKind::Crashed) continue;
      while (next < e_.ownership.size() && e_.ownership[next].at <= event.at) apply(e_.ownership[next++]);
      std::vector<models::TopicPartition> left;
      for (const auto& [consumer, tp] : owned) {
        if (consumer == event.consumer) left.push_back(tp);
      }
      for (const auto& tp : left) apply({event.consumer, tp, false, event.at});
    }
    while (next < e_.ownership.size()) apply(e_.ownership[next++]);
  }

  // KIP-932: the share events in time order (the checker reads releases in time order).
  void order_share() {
    const auto by_time = [](const auto& a, const auto& b) { return a.at < b.at; };
    std::stable_sort(h_.share.client_events.begin(), h_.share.client_events.end(), by_time);
    std::stable_sort(h_.share.leader_events.begin(), h_.share.leader_events.end(), by_time);
    std::stable_sort(h_.share.crashes.begin(), h_.share.crashes.end(),
                     [](const auto& a, const auto& b) { return a.second < b.second; });
  }

  void derive_rebalances() {
    std::map<std::string, std::vector<std::uint32_t>> groups;
    for (std::size_t i = 0; i < h_.consumers.size(); ++i) groups[h_.consumers[i].group].push_back(static_cast<std::uint32_t>(i));
    for (const auto& [group, members] : groups) {
      const std::int32_t topic = h_.consumers[members.front()].topic;
      std::vector<int> owners(static_cast<std::size_t>(h_.topics[static_cast<std::size_t>(topic)].partitions), 0);
      std::optional<models::RebalanceRecord> open;
      for (const auto& o : h_.consumption.ownership) {
        if (o.partition.topic != topic || std::find(members.begin(), members.end(), o.consumer) == members.end()) continue;
        if (!open) open = models::RebalanceRecord{group, "seen in the rebalance callbacks", o.at, kNever, -1, 0, 0, ""};
        owners[static_cast<std::size_t>(o.partition.partition)] += o.owned ? 1 : -1;
        if (o.owned) ++open->partitions_moved;
        const bool all_owned = std::all_of(owners.begin(), owners.end(), [](int n) { return n > 0; });
        if (o.owned && all_owned) {
          open->completed = o.at;
          open->members = static_cast<std::int32_t>(members.size());
          h_.consumption.rebalances.push_back(*open);
          open.reset();
        }
      }
      if (open) h_.consumption.rebalances.push_back(*open);
    }
  }

  Events e_;
  RecordedHistory h_;
  std::map<models::TopicPartition, std::uint64_t> sent_to_;
};

}  // namespace

RecordedHistory rebuild(Events events) { return Rebuild(std::move(events)).run(); }

}  // namespace ksim::app::history
