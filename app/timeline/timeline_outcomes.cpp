#include "app/timeline/timeline_outcomes.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ksim::app::timeline {

namespace {

using models::RecordRef;

std::size_t anomalies_row(const Timeline& t) {
  for (std::size_t r = t.rows.size(); r-- > 0;) {
    if (t.rows[r].kind == RowKind::Anomalies) return r;
  }
  return 0;
}

// The producers' rows by writer (Producer::index()).
std::map<std::uint32_t, std::size_t> writer_rows(const TimelineBuilder& builder, const Cluster& cluster) {
  std::map<std::uint32_t, std::size_t> rows;
  for (const models::Producer* p : cluster.producers()) {
    if (const auto row = builder.row(p->name())) rows[p->index()] = *row;
  }
  return rows;
}

void add_rebalances(TimelineBuilder& builder, const Cluster& cluster) {
  for (const models::RebalanceRecord& r : cluster.consumption().rebalances) {
    const auto row = builder.row(group_row_name(r.group));
    if (!row) continue;
    const bool done = r.completed != kNever;
    const SimTime end = done ? r.completed : cluster.now();
    builder.span({*row, r.started, std::max(end, r.started), "rebalance",
                  done ? fmt::format("gen {}", r.generation) : "rebalancing",
                  fmt::format("{}: rebalance ({}) from {} {}; {} members, {} partitions moved{}", r.group, r.trigger,
                              format_time(r.started), done ? "to " + format_time(r.completed) : "not finished",
                              r.members, r.partitions_moved, done ? fmt::format(", generation {}", r.generation) : "")});
  }
}

void add_transactions(TimelineBuilder& builder, const Cluster& cluster) {
  const auto rows = writer_rows(builder, cluster);
  std::map<std::uint32_t, SimTime> begun;  // by writer: its open transaction's begin
  for (const models::DeliveryHistory::TxnCall& call : cluster.history().transactions) {
    const auto row = rows.find(call.writer);
    if (row == rows.end()) continue;
    if (call.op == models::TxnOp::Begin) {
      begun[call.writer] = call.at;
      continue;
    }
    const auto open = begun.find(call.writer);
    if (open == begun.end()) continue;
    const bool committed = call.op == models::TxnOp::Commit && call.error == models::Error::None;
    const std::string outcome = committed ? "committed"
                                : call.error == models::Error::None
                                    ? "aborted"
                                    : fmt::format("{} failed: {}", models::to_string(call.op), models::to_string(call.error));
    builder.span({row->second, open->second, call.at, committed ? "txn-commit" : "txn-abort", committed ? "" : "abort",
                  fmt::format("transaction from {} to {}: {}", format_time(open->second), format_time(call.at), outcome)});
    begun.erase(open);
  }
  for (const auto& [writer, at] : begun) {
    builder.span({rows.at(writer), at, cluster.now(), "txn-open", "open", "transaction still open at the end"});
  }
}

// A record id for people: "record 1234 of checkout-0 to orders-3".
class RecordNames {
 public:
  explicit RecordNames(const Cluster& cluster) {
    for (const models::Producer* p : cluster.producers()) writers_[p->index()] = p->name();
    if (cluster.scenario().kafka) {
      for (const auto& t : cluster.scenario().kafka->topics) topics_.push_back(t.name);
    }
  }
  std::string operator()(const RecordRef& r) const {
    const auto writer = writers_.find(r.writer);
    const auto t = static_cast<std::size_t>(r.partition.topic);
    return fmt::format("record {} of {} to {}-{}", r.record,
                       writer == writers_.end() ? fmt::format("producer {}", r.writer) : writer->second,
                       t < topics_.size() ? topics_[t] : fmt::format("topic {}", r.partition.topic), r.partition.partition);
  }

 private:
  std::map<std::uint32_t, std::string> writers_;
  std::vector<std::string> topics_;
};

struct Anomaly {
  RecordRef record;
  std::string kind, detail;
};

// The delivery checker's examples, marked where their records were acknowledged.
void add_delivery_anomalies(TimelineBuilder& builder, const Cluster& cluster, const models::DeliveryReport& d,
                            std::size_t row, const RecordNames& names) {
  std::vector<Anomaly> anomalies;
  for (const auto& e : d.lost_examples) {
    anomalies.push_back({e.record, "lost", fmt::format("lost {}: acknowledged at offset {}, not in the committed log",
                                                       to_string(e.record), e.acknowledged_offset)});
  }
  for (const auto& e : d.duplicate_examples) {
    anomalies.push_back({e.record, "duplicated",
                         fmt::format("duplicated {}: committed at offsets {}", to_string(e.record), fmt::join(e.offsets, ", "))});
  }
  for (const auto& e : d.reordered_examples) {
    anomalies.push_back({e.record, "reordered", fmt::format("reordered {}: at offset {}, after record #{}",
                                                            to_string(e.record), e.offset, e.committed_after)});
  }
  if (anomalies.empty()) return;
  std::map<std::pair<std::uint32_t, models::TopicPartition>, std::vector<std::size_t>> by_stream;
  for (std::size_t i = 0; i < anomalies.size(); ++i) by_stream[{anomalies[i].record.writer, anomalies[i].record.partition}].push_back(i);
  std::vector<SimTime> acked(anomalies.size(), kNever);
  for (const models::DeliveryHistory::Ack& ack : cluster.history().acks) {
    const auto it = by_stream.find({ack.records.writer, ack.records.partition});
    if (it == by_stream.end()) continue;
    for (const std::size_t i : it->second) {
      const std::uint64_t n = anomalies[i].record.record;
      if (acked[i] == kNever && n >= ack.records.first && n < ack.records.first + static_cast<std::uint64_t>(ack.records.count)) {
        acked[i] = ack.at;
      }
    }
  }
  for (std::size_t i = 0; i < anomalies.size(); ++i) {
    const bool known = acked[i] != kNever;
    builder.mark(row, anomalies[i].kind, known ? acked[i] : cluster.now(), to_string(anomalies[i].record),
                 anomalies[i].detail + (known ? ", acknowledged at " + format_time(acked[i]) : ", never acknowledged") +
                     "\n(" + names(anomalies[i].record) + ")");
  }
  const std::uint64_t counted = d.lost + d.duplicated + d.reordered;
  if (counted > anomalies.size()) {
    builder.note(fmt::format("anomalies: {} lost, {} duplicated, {} reordered; the checker's first {} are marked", d.lost,
                             d.duplicated, d.reordered, anomalies.size()));
  }
}

// A group's examples: a duplicate where its record was processed again, an unprocessed record at the end.
void add_group_anomalies(TimelineBuilder& builder, const Cluster& cluster, const GroupFigures& g, std::size_t row,
                         const RecordNames& names) {
  const auto& processed = cluster.consumption().processed;
  for (const models::ConsumedRecordExample& e : g.report.duplicate_examples) {
    int seen = 0;
    SimTime again = cluster.now();
    for (const models::ProcessedRecord& p : processed) {
      if (p.partition != e.partition || e.offset < p.offset || e.offset >= p.offset + static_cast<models::Offset>(p.count)) continue;
      if (++seen == 2) {
        again = p.at;
        break;
      }
    }
    const RecordRef ref{e.writer, e.partition, e.record};
    builder.mark(row, "duplicated", again, to_string(ref),
                 fmt::format("{}: {} (offset {}) processed again: {}\n({})", g.group, to_string(ref), e.offset, e.detail,
                             names(ref)));
  }
  for (const models::ConsumedRecordExample& e : g.report.unprocessed_examples) {
    const RecordRef ref{e.writer, e.partition, e.record};
    builder.mark(row, "unprocessed", cluster.now(), to_string(ref),
                 fmt::format("{}: {} (offset {}) never processed{}\n({})", g.group, to_string(ref), e.offset,
                             e.detail.empty() ? "" : ": " + e.detail, names(ref)));
  }
}

}  // namespace

void add_outcomes(TimelineBuilder& builder, const Cluster& cluster, const RunReport& report) {
  Timeline& t = builder.timeline();
  t.title = report.scenario.empty() ? report.file : report.scenario;
  t.subtitle = fmt::format("{} · seed {} · trace hash {} · {} simulated", report.file, report.seed,
                           format_hash(report.trace_hash), format_time(cluster.now()));
  t.sample_interval = report.sample_interval;
  t.series = report.timeseries;
  if (!report.kafka) return;
  t.subtitle += " · delivery " + report.kafka->delivery.verdict();
  add_rebalances(builder, cluster);
  add_transactions(builder, cluster);
  const std::size_t row = anomalies_row(t);
  const RecordNames names(cluster);
  add_delivery_anomalies(builder, cluster, report.kafka->delivery, row, names);
  for (const GroupFigures& g : report.kafka->groups) add_group_anomalies(builder, cluster, g, row, names);
  for (const models::InvariantViolation& v : report.kafka->invariants) {
    builder.mark(row, "invariant", v.at, std::string(v.invariant), models::to_string(v));
  }
}

}  // namespace ksim::app::timeline
