// Writes a run's history (docs/history.md): the header, then the producers'
// sends, acknowledgements, failures and transactions, the consumers'
// processing, commits, rebalance callbacks and lives, the share consumers'
// deliveries and processing with the share-partition leaders' outcomes
// (share_history_writer.cpp), and each partition's final log, one record
// per line. ksim's histories keep runs of records
// (a batch, a run of processed records); the format has one line per record.
#include "app/history/history_writer.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "app/history/history_format.hpp"
#include "app/history/share_history_writer.hpp"

namespace ksim::app {

namespace {

using nlohmann::json;

json header(const Cluster& cluster) {
  const Scenario& s = cluster.scenario();
  json h;
  h["event"] = "header";
  h["format"] = history::kFormat;
  h["version"] = history::kVersion;
  h["source"] = "ksim";
  h["scenario"] = s.file;
  h["seed"] = s.seed;
  h["end"] = cluster.now();
  json topics = json::array();
  for (const auto& t : s.kafka->topics) topics.push_back({{"name", t.name}, {"partitions", t.partitions}});
  h["topics"] = std::move(topics);
  json writers = json::array();
  for (const models::Producer* p : cluster.producers()) {
    const auto& c = p->config();
    json writer = {{"name", p->name()},
                   {"transactional_id", c.transactional_id.empty() ? json(nullptr) : json(c.transactional_id)},
                   {"acks", models::to_string(c.acks)},
                   {"idempotent", c.enable_idempotence}};
    // A transform's producer lives in its consumer's process: it crashes with it.
    for (const models::Consumer* consumer : cluster.consumers()) {
      if (consumer->owns(p)) writer["node"] = consumer->name();
    }
    writers.push_back(std::move(writer));
  }
  h["writers"] = std::move(writers);
  json consumers = json::array();
  for (const models::Consumer* c : cluster.consumers()) {
    consumers.push_back({{"name", c->name()},
                         {"group", c->config().group_id},
                         {"topic", c->workload().topic},
                         {"isolation_level", c->config().read_committed ? "read_committed" : "read_uncommitted"}});
  }
  h["consumers"] = std::move(consumers);
  json faults = json::array();
  for (const auto& f : cluster.fired_faults()) faults.push_back({{"kind", f.kind}, {"at", f.at}, {"nodes", f.nodes}});
  h["faults"] = std::move(faults);
  history::add_share_header(cluster, h);
  return h;
}

std::string error_json(models::Error error) {
  return error == models::Error::None ? "null" : fmt::format("\"{}\"", history::error_name(error));
}

void write_producers(const models::DeliveryHistory& h, std::ostream& out) {
  for (const auto& s : h.sends) {
    fmt::print(out, R"({{"event":"send","t":{},"writer":{},"topic":{},"partition":{},"record":{})", s.at, s.writer,
               s.partition.topic, s.partition.partition, s.record);
    const auto made = h.made_from.find({s.writer, s.partition});
    if (made != h.made_from.end() && s.record < made->second.size()) {
      const auto& in = made->second[s.record];
      fmt::print(out, R"(,"from":{{"writer":{},"topic":{},"partition":{},"record":{}}})", in.writer, in.partition.topic,
                 in.partition.partition, in.record);
    }
    out << "}\n";
  }
  for (const auto& a : h.acks) {
    for (std::int32_t i = 0; i < a.records.count; ++i) {
      fmt::print(out, R"({{"event":"ack","t":{},"writer":{},"topic":{},"partition":{},"record":{},"offset":{}}})"
                      "\n",
                 a.at, a.records.writer, a.records.partition.topic, a.records.partition.partition, a.records.first + i,
                 a.base_offset < 0 ? -1 : a.base_offset + i);
    }
  }
  for (const auto& f : h.failures) {
    for (std::int32_t i = 0; i < f.records.count; ++i) {
      fmt::print(out, R"({{"event":"fail","t":{},"writer":{},"topic":{},"partition":{},"record":{},"error":"{}"}})"
                      "\n",
                 f.at, f.records.writer, f.records.partition.topic, f.records.partition.partition, f.records.first + i,
                 history::error_name(f.error));
    }
  }
  for (const auto& t : h.transactions) {
    fmt::print(out, R"({{"event":"txn","t":{},"writer":{},"op":"{}","error":{}}})"
                    "\n",
               t.at, t.writer, models::to_string(t.op), error_json(t.error));
  }
}

void write_consumers(const models::ConsumptionHistory& h, std::ostream& out) {
  for (const auto& p : h.processed) {
    for (std::uint32_t i = 0; i < p.count; ++i) {
      fmt::print(out,
                 R"({{"event":"process","t":{},"consumer":{},"topic":{},"partition":{},"offset":{},"writer":{},"record":{},"generation":{}}})"
                 "\n",
                 p.at, p.consumer, p.partition.topic, p.partition.partition, p.offset + i, p.writer, p.record + i,
                 p.generation);
    }
  }
  for (const auto& c : h.commits) {
    fmt::print(out,
               R"({{"event":"commit","t":{},"consumer":{},"topic":{},"partition":{},"offset":{},"generation":{},"error":{}}})"
               "\n",
               c.at, c.consumer, c.partition.topic, c.partition.partition, c.offset, c.generation, error_json(c.error));
  }
  for (const auto& o : h.ownership) {
    fmt::print(out, R"({{"event":"{}","t":{},"consumer":{},"topic":{},"partition":{}}})"
                    "\n",
               o.owned ? "assigned" : "revoked", o.at, o.consumer, o.partition.topic, o.partition.partition);
  }
  for (const auto& e : h.consumer_events) {
    const std::string reason = e.reason.empty() ? "" : ",\"reason\":" + nlohmann::json(e.reason).dump();
    fmt::print(out, R"({{"event":"consumer","t":{},"consumer":{},"kind":"{}"{}}})"
                    "\n",
               e.at, e.consumer, history::consumer_event_name(e.kind), reason);
  }
}

// [[offset, writer, record], ...] of a partition's batches.
void write_records(const std::vector<models::RecordBatch>* batches, std::ostream& out) {
  out << '[';
  bool first = true;
  if (batches) {
    for (const auto& b : *batches) {
      if (b.is_control()) continue;
      for (std::int32_t i = 0; i < b.record_count; ++i) {
        fmt::print(out, "{}[{},{},{}]", first ? "" : ",", b.base_offset + i, b.writer, b.first_record + i);
        first = false;
      }
    }
  }
  out << ']';
}

void write_final(const Cluster& cluster, std::ostream& out) {
  const models::FinalLogs logs = cluster.final_logs();
  const auto find = [](const auto& map, models::TopicPartition tp) {
    const auto it = map.find(tp);
    return it == map.end() ? nullptr : &it->second;
  };
  const auto& topics = cluster.scenario().kafka->topics;
  for (std::int32_t t = 0; t < static_cast<std::int32_t>(topics.size()); ++t) {
    for (std::int32_t p = 0; p < topics[static_cast<std::size_t>(t)].partitions; ++p) {
      const models::TopicPartition tp{t, p};
      const bool offline = std::find(logs.offline.begin(), logs.offline.end(), tp) != logs.offline.end();
      fmt::print(out, R"({{"event":"final","topic":{},"partition":{},"offline":{},"committed":)", t, p, offline);
      write_records(find(logs.committed, tp), out);
      out << R"(,"aborted":)";
      write_records(find(logs.aborted, tp), out);
      out << R"(,"uncommitted":)";
      write_records(find(logs.uncommitted, tp), out);
      out << "}\n";
    }
  }
}

}  // namespace

void write_history(const Cluster& cluster, std::ostream& out) {
  out << header(cluster).dump() << '\n';
  write_producers(cluster.history(), out);
  write_consumers(cluster.consumption(), out);
  history::write_share_events(cluster.share_history(), out);
  write_final(cluster, out);
}

}  // namespace ksim::app
