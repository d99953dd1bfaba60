// Reads a history line by line (each an event, checked field by field),
// then builds ksim's histories from the events (history_rebuild.cpp).
#include "app/history/history_reader.hpp"

#include <fstream>
#include <set>

#include "app/history/history_fields.hpp"
#include "app/history/history_format.hpp"
#include "app/history/history_rebuild.hpp"

namespace ksim::app {

using history::Fields;
using nlohmann::json;

namespace {

constexpr std::int64_t kMaxTime = INT64_MAX / 4;  // ns: about 73 years

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) { events_.history.file = path_; }

  history::Events read() {
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw config::ConfigError(config::Location{path_, 0, 0}, "", "cannot read the history file");
    std::string text;
    std::size_t line = 0;
    while (std::getline(in, text)) {
      ++line;
      read_line(text, line);
    }
    if (line == 0) throw config::ConfigError(config::Location{path_, 0, 0}, "", "empty: a history starts with its header line");
    return std::move(events_);
  }

 private:
  config::Location at(std::size_t line) const { return {path_, static_cast<int>(line), 0}; }

  void read_line(const std::string& text, std::size_t line) {
    if (text.empty() || text == "\r") throw config::ConfigError(at(line), "", "blank line (a history has none)");
    json object;
    try {
      object = json::parse(text);
    } catch (const json::parse_error& e) {
      throw config::ConfigError(at(line), "", std::string("not JSON: ") + e.what());
    }
    if (!object.is_object()) throw config::ConfigError(at(line), "", "expected a JSON object");
    const auto named = object.find("event");
    if (named == object.end() || !named->is_string()) {
      throw config::ConfigError(at(line), "event", "missing, or not a string: every line names its event");
    }
    const std::string kind = named->get<std::string>();
    Fields event(object, at(line), kind);
    event.text("event");
    if (!known_event(kind)) {
      event.fail("", "unknown event '" + config::excerpt(kind) +
                         "' (header, send, ack, fail, txn, process, commit, assigned, revoked, lost, consumer, "
                         "share_member, share_start, share_deliver, share_process, share_ack, share_load, share_crash, final)");
    }
    if (line == 1 && kind != "header") event.fail("", "the first line must be the header");
    if (line > 1 && kind == "header") event.fail("", "a second header");
    if (kind != "header" && kind != "final" && saw_final_) event.fail("", "a client event after the final logs");
    dispatch(kind, event, line);
    event.finish();
  }

  void dispatch(const std::string& kind, Fields& f, std::size_t line) {
    if (kind == "header") return header(f);
    if (kind == "final") return final_log(f, line);
    if (kind == "share_start") return share_start(f);
    const SimTime t = f.integer("t", 0, kMaxTime);
    if (kind == "send") return send(f, t, line);
    if (kind == "ack" || kind == "fail") return outcome(f, t, line, kind == "ack");
    if (kind == "txn") return txn(f, t, line);
    if (kind == "process") return process(f, t);
    if (kind == "commit") return commit(f, t);
    if (kind == "assigned" || kind == "revoked" || kind == "lost") {
      const std::uint32_t consumer = consumer_of(f);
      events_.ownership.push_back({consumer, partition_of(f), kind == "assigned", t});
      return;
    }
    if (kind.starts_with("share_")) return share_event(kind, f, t);
    if (kind == "consumer") {
      const std::uint32_t consumer = consumer_of(f);
      const std::string name = f.text("kind");
      const auto k = history::consumer_event_kind(name);
      if (!k) f.fail("kind", "unknown kind '" + config::excerpt(name) + "' (crashed, restarted, poll_timeout, left_group, fenced, rebalance_joined, assignment_settled, stopped)");
      // A stop says why (the request and the error); optional, as in a history Kafka's clients wrote.
      std::string reason = *k == models::ConsumerEventKind::Stopped && f.has("reason") ? f.text("reason") : "";
      events_.consumer_events.push_back({consumer, *k, t, std::move(reason)});
      return;
    }
  }

  static bool known_event(const std::string& kind) {
    static const std::set<std::string, std::less<>> kinds{
        "header",       "send",        "ack",           "fail",          "txn",       "process",
        "commit",       "assigned",    "revoked",       "lost",          "consumer",  "share_member",
        "share_start",  "share_deliver", "share_process", "share_ack",   "share_load",  "share_crash",
        "final"};
    return kinds.contains(kind);
  }

  void header(Fields& f) {
    RecordedHistory& h = events_.history;
    if (f.text("format") != history::kFormat) f.fail("format", "expected \"ksim-history\"");
    if (f.integer("version", 0, INT32_MAX) != history::kVersion) f.fail("version", "this ksim reads version 1");
    h.source = f.text("source");
    h.scenario = f.text("scenario");
    if (f.has("seed")) h.seed = f.unsigned_integer("seed");
    if (f.has("runs")) h.run = f.integer("runs", 0, INT64_MAX);
    h.end = f.integer("end", 0, kMaxTime);
    const json& topics = f.array("topics");
    for (std::size_t i = 0; i < topics.size(); ++i) {
      Fields t = history::element(topics, i, f, "topics");
      h.topics.push_back({t.text("name"), static_cast<std::int32_t>(t.integer("partitions", 1, 1'000'000))});
      t.finish();
    }
    const json& writers = f.array("writers");
    for (std::size_t i = 0; i < writers.size(); ++i) {
      Fields w = history::element(writers, i, f, "writers");
      RecordedHistory::Writer writer{w.text("name"), w.text_or_null("transactional_id"), w.text("acks"), w.boolean("idempotent"), ""};
      writer.node = w.has("node") ? w.text("node") : writer.name;
      if (writer.acks != "all" && writer.acks != "-1" && writer.acks != "0" && writer.acks != "1") {
        w.fail("acks", "expected \"all\", \"-1\", \"0\" or \"1\"");
      }
      h.writers.push_back(std::move(writer));
      w.finish();
    }
    const json& consumers = f.array("consumers");
    for (std::size_t i = 0; i < consumers.size(); ++i) {
      Fields c = history::element(consumers, i, f, "consumers");
      RecordedHistory::Consumer consumer{c.text("name"), c.text("group"), 0, std::nullopt};
      consumer.topic = static_cast<std::int32_t>(c.integer("topic", 0, static_cast<std::int64_t>(h.topics.size()) - 1));
      if (c.has("isolation_level")) {
        const std::string level = c.text("isolation_level");
        if (level != "read_committed" && level != "read_uncommitted") {
          c.fail("isolation_level", "expected \"read_committed\" or \"read_uncommitted\"");
        }
        consumer.read_committed = level == "read_committed";
      }
      h.consumers.push_back(std::move(consumer));
      c.finish();
    }
    const json& faults = f.array("faults");
    for (std::size_t i = 0; i < faults.size(); ++i) {
      Fields x = history::element(faults, i, f, "faults");
      RecordedHistory::Fault fault{x.text("kind"), x.integer("at", 0, kMaxTime), {}};
      const json& nodes = x.array("nodes");
      for (const auto& n : nodes) {
        if (!n.is_string()) x.fail("nodes", "expected node names (strings)");
        fault.nodes.push_back(n.get<std::string>());
      }
      h.faults.push_back(std::move(fault));
      x.finish();
    }
    if (f.has("share_consumers")) share_header(f);
  }

  // KIP-932: the share consumers (by index, as share events name them) and their groups.
  void share_header(Fields& f) {
    RecordedHistory& h = events_.history;
    const json& consumers = f.array("share_consumers");
    for (std::size_t i = 0; i < consumers.size(); ++i) {
      Fields c = history::element(consumers, i, f, "share_consumers");
      const auto topic = static_cast<std::int32_t>(c.integer("topic", 0, static_cast<std::int64_t>(h.topics.size()) - 1));
      h.share.consumers.push_back({c.text("name"), c.text("group"), topic});
      c.finish();
    }
    const json& groups = f.array("share_groups");
    for (std::size_t i = 0; i < groups.size(); ++i) {
      Fields g = history::element(groups, i, f, "share_groups");
      RecordedHistory::ShareGroup group{g.text("name"), static_cast<std::int32_t>(g.integer("delivery_count_limit", 1, INT16_MAX)),
                                        g.integer("record_lock_duration_ms", 1, INT32_MAX) * 1'000'000};
      h.share_groups.push_back(std::move(group));
      g.finish();
    }
    for (const auto& c : h.share.consumers) {
      const bool declared = std::any_of(h.share_groups.begin(), h.share_groups.end(),
                                        [&](const RecordedHistory::ShareGroup& g) { return g.name == c.group; });
      if (!declared) f.fail("share_groups", "no entry for share group '" + config::excerpt(c.group) + "' of share consumer " + c.name);
    }
  }

  std::uint32_t share_consumer_of(Fields& f) {
    return index(f, "consumer", events_.history.share.consumers.size(), "share_consumers");
  }

  void share_start(Fields& f) {
    const std::string group = f.text("group");
    const models::TopicPartition tp = partition_of(f);
    events_.history.share.start_offsets[{group, tp}] = f.integer("offset", 0, INT64_MAX);
  }

  void share_event(const std::string& kind, Fields& f, SimTime t) {
    models::ShareHistory& share = events_.history.share;
    if (kind == "share_member") {
      const std::uint32_t consumer = share_consumer_of(f);
      share.members[f.text("member")] = {consumer, t};
    } else if (kind == "share_load") {
      share.loads[{f.text("group"), partition_of(f)}].push_back(t);
    } else if (kind == "share_crash") {
      share.crashes.emplace_back(share_consumer_of(f), t);
    } else if (kind == "share_deliver" || kind == "share_process") {
      models::ShareClientEvent e;
      e.consumer = share_consumer_of(f);
      e.partition = partition_of(f);
      e.offset = f.integer("offset", 0, INT64_MAX);
      e.writer = writer_of(f);
      e.record = f.unsigned_integer("record");
      e.delivery_count = static_cast<std::int16_t>(f.integer("delivery_count", 1, INT16_MAX));
      e.processed = kind == "share_process";
      e.poison = e.processed && f.boolean("failed");
      e.at = t;
      share.client_events.push_back(e);
    } else if (kind == "share_ack") {
      models::ShareLeaderEvent e;
      e.group = f.text("group");
      e.partition = partition_of(f);
      e.offset = f.integer("offset", 0, INT64_MAX);
      const std::string outcome = f.text("outcome");
      const auto o = history::share_outcome(outcome);
      if (!o) f.fail("outcome", "unknown outcome '" + config::excerpt(outcome) + "' (accept, release, reject, archive_delivery_limit)");
      e.outcome = *o;
      const std::string why = f.text("why");
      const auto w = history::share_release(why);
      if (!w) f.fail("why", "unknown release '" + config::excerpt(why) + "' (lock_expired, released, member_left)");
      e.why = *w;
      e.member = f.text("member");
      e.delivery_count = static_cast<std::int16_t>(f.integer("delivery_count", 0, INT16_MAX));
      e.at = t;
      share.leader_events.push_back(std::move(e));
    }
  }

  std::uint32_t index(Fields& f, const std::string& key, std::size_t size, const char* what) {
    if (size == 0) f.fail(key, std::string("the header declares no ") + what);
    return static_cast<std::uint32_t>(f.integer(key, 0, static_cast<std::int64_t>(size) - 1));
  }
  std::uint32_t writer_of(Fields& f) { return index(f, "writer", events_.history.writers.size(), "writers"); }
  std::uint32_t consumer_of(Fields& f) { return index(f, "consumer", events_.history.consumers.size(), "consumers"); }
  models::TopicPartition partition_of(Fields& f) {
    const auto topic = static_cast<std::int32_t>(index(f, "topic", events_.history.topics.size(), "topics"));
    const std::int32_t partitions = events_.history.topics[static_cast<std::size_t>(topic)].partitions;
    return {topic, static_cast<std::int32_t>(f.integer("partition", 0, partitions - 1))};
  }
  void send(Fields& f, SimTime t, std::size_t line) {
    history::Record r{line, t, writer_of(f), partition_of(f), f.unsigned_integer("record")};
    if (f.has("from")) {
      Fields from = f.object("from");
      models::DeliveryHistory::InputRecord input{writer_of(from), partition_of(from), from.unsigned_integer("record")};
      from.finish();
      events_.from.push_back({r, input});
    }
    events_.sends.push_back(r);
  }

  void outcome(Fields& f, SimTime t, std::size_t line, bool ack) {
    history::Outcome o{{line, t, writer_of(f), partition_of(f), f.unsigned_integer("record")}, -1, models::Error::None};
    if (ack) {
      o.offset = f.integer("offset", -1, INT64_MAX);
    } else {
      // An error ksim does not know (a real client's) is a failure all the same.
      o.error = history::error_of(f.text("error")).value_or(models::Error::None);
    }
    (ack ? events_.acks : events_.fails).push_back(o);
  }

  void txn(Fields& f, SimTime t, std::size_t line) {
    const std::uint32_t writer = writer_of(f);
    const std::string op = f.text("op");
    const auto parsed = models::txn_op(op);
    if (!parsed) f.fail("op", "expected \"begin\", \"commit\" or \"abort\"");
    const auto name = f.text_or_null("error");
    const models::Error error = name ? history::error_of(*name).value_or(models::Error::TransactionAborted) : models::Error::None;
    events_.txns.push_back({line, t, writer, *parsed, name.has_value(), error});
  }

  void process(Fields& f, SimTime t) {
    models::ProcessedRecord p;
    p.consumer = consumer_of(f);
    p.partition = partition_of(f);
    p.offset = f.integer("offset", 0, INT64_MAX);
    p.writer = writer_of(f);
    p.record = f.unsigned_integer("record");
    p.generation = static_cast<std::int32_t>(f.integer("generation", -1, INT32_MAX));
    p.at = t;
    events_.processed.push_back(p);
  }

  void commit(Fields& f, SimTime t) {
    models::CommitEvent c;
    c.consumer = consumer_of(f);
    c.partition = partition_of(f);
    c.offset = f.integer("offset", 0, INT64_MAX);
    c.generation = static_cast<std::int32_t>(f.integer("generation", -1, INT32_MAX));
    c.at = t;
    // A failed commit whose error ksim does not know still failed.
    const auto name = f.text_or_null("error");
    c.error = !name ? models::Error::None : history::error_of(*name).value_or(models::Error::CoordinatorNotAvailable);
    events_.commits.push_back(c);
  }

  std::vector<history::LogRecord> log_records(Fields& f, const std::string& key) {
    const json& list = f.array(key);
    std::vector<history::LogRecord> records;
    records.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const json& r = list[i];
      const std::string where = key + "." + std::to_string(i);
      if (!r.is_array() || r.size() != 3 || !r[0].is_number_integer() || !r[1].is_number_integer() ||
          !r[2].is_number_unsigned()) {
        f.fail(where, "expected [offset, writer, record] (three non-negative integers)");
      }
      const auto offset = r[0].get<std::int64_t>();
      const auto writer = r[1].get<std::int64_t>();
      if (offset < 0) f.fail(where, "a negative offset");
      if (writer < 0 || writer >= static_cast<std::int64_t>(events_.history.writers.size())) {
        f.fail(where, "writer " + std::to_string(writer) + " out of range (the header declares " +
                          std::to_string(events_.history.writers.size()) + ")");
      }
      records.push_back({offset, static_cast<std::uint32_t>(writer), r[2].get<std::uint64_t>(), where});
    }
    return records;
  }

  void final_log(Fields& f, std::size_t line) {
    saw_final_ = true;
    history::FinalPartition p;
    p.line = line;
    p.partition = partition_of(f);
    p.offline = f.boolean("offline");
    p.committed = log_records(f, "committed");
    p.aborted = log_records(f, "aborted");
    if (f.has("uncommitted")) p.uncommitted = log_records(f, "uncommitted");
    for (const auto& other : events_.finals) {
      if (other.partition == p.partition) f.fail("partition", "a second final line for this partition (the first is line " + std::to_string(other.line) + ")");
    }
    events_.finals.push_back(std::move(p));
  }

  std::string path_;
  history::Events events_;
  bool saw_final_ = false;
};

}  // namespace

bool RecordedHistory::has_transactions() const {
  for (const auto& w : writers) {
    if (w.transactional_id) return true;
  }
  return false;
}

RecordedHistory read_history(const std::string& path) { return history::rebuild(Reader(path).read()); }

}  // namespace ksim::app
