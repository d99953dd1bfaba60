#include "app/timeline/perfetto_writer.hpp"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "app/report/report_timeseries.hpp"

namespace ksim::app::timeline {

namespace {

using json = nlohmann::ordered_json;

constexpr int kSeriesPid = 100;  // the time series' counters
constexpr double kMessageSliceUs = 1;  // a message's send and receive slices

double us(SimTime t) { return static_cast<double>(t) / 1e3; }
int pid_of(RowKind kind) { return static_cast<int>(kind) + 1; }

class EventStream {
 public:
  explicit EventStream(std::ostream& out) : out_(out) { out_ << "{\"traceEvents\":[\n"; }
  void add(const json& event) {
    out_ << (first_ ? "" : ",\n") << event.dump();
    first_ = false;
  }
  void finish(const json& metadata) { out_ << "\n],\"displayTimeUnit\":\"ms\",\"otherData\":" << metadata.dump() << "}\n"; }

 private:
  std::ostream& out_;
  bool first_ = true;
};

void name_process(EventStream& s, int pid, std::string_view name) {
  s.add({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", name}}}});
  s.add({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
}

void name_thread(EventStream& s, int pid, int tid, const std::string& name) {
  s.add({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  s.add({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
}

// Each row's first thread id; a row has one thread per lane.
struct Threads {
  std::vector<int> first;
  std::vector<std::uint32_t> lanes, lane_of;
};

Threads threads(const Timeline& t, EventStream& s) {
  Threads th;
  th.lane_of = assign_lanes(t, th.lanes);
  int next = 1;
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    th.first.push_back(next);
    for (std::uint32_t lane = 0; lane < th.lanes[r]; ++lane) {
      const std::string name = lane == 0 ? t.rows[r].name : t.rows[r].name + " (" + std::to_string(lane + 1) + ")";
      name_thread(s, pid_of(t.rows[r].kind), next++, name);
    }
  }
  return th;
}

void write_series(const Timeline& t, EventStream& s) {
  if (t.series.empty()) return;
  name_process(s, kSeriesPid, "time series");
  for (const models::TimeSample& sample : t.series) {
    std::map<std::string_view, json> charts;  // by unit: this sample's values
    for (const TimeSeriesColumn& c : timeseries_columns()) {
      if (const auto v = c.value(sample)) charts[c.chart][std::string(c.label)] = *v;
    }
    for (const auto& [unit, values] : charts) {
      s.add({{"ph", "C"}, {"name", unit}, {"pid", kSeriesPid}, {"ts", us(sample.at)}, {"args", values}});
    }
  }
}

// Each message: a slice on its sender's and receiver's "messages" threads, joined by a flow.
void write_messages(const Timeline& t, EventStream& s, int& next_tid) {
  if (!t.window) return;
  std::map<std::string, RowKind> kinds;
  for (const Row& r : t.rows) kinds.emplace(r.name, r.kind);
  std::map<std::pair<std::string, std::uint32_t>, int> tids;  // (node, lane)
  std::map<std::string, std::vector<double>> lane_ends;      // by node: each lane's end
  const auto slice = [&](const std::string& node, SimTime at, const std::string& name, const json& args, int flow, bool out) {
    const auto kind = kinds.find(node);
    const int pid = kind == kinds.end() ? pid_of(RowKind::Broker) : pid_of(kind->second);
    auto& ends = lane_ends[node];
    std::uint32_t lane = 0;
    while (lane < ends.size() && ends[lane] > us(at)) ++lane;
    if (lane == ends.size()) ends.push_back(0);
    ends[lane] = us(at) + kMessageSliceUs;
    auto [it, added] = tids.emplace(std::pair{node, lane}, 0);
    if (added) {
      it->second = next_tid++;
      name_thread(s, pid, it->second, node + " messages" + (lane ? " (" + std::to_string(lane + 1) + ")" : ""));
    }
    s.add({{"ph", "X"}, {"name", name}, {"cat", "message"}, {"pid", pid}, {"tid", it->second}, {"ts", us(at)},
           {"dur", kMessageSliceUs}, {"bind_id", flow}, {out ? "flow_out" : "flow_in", true}, {"args", args}});
  };
  const auto& messages = t.window->messages;
  std::vector<std::size_t> delivered;  // message i's flow id is i + 1
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const SentMessage& m = messages[i];
    slice(m.from, m.sent, "send " + m.name, {{"from", m.from}, {"to", m.to}, {"detail", m.detail}}, static_cast<int>(i) + 1, true);
    if (m.delivered != kNever) delivered.push_back(i);
  }
  // Receives in time order (a thread's lanes fill in order).
  std::stable_sort(delivered.begin(), delivered.end(),
                   [&](std::size_t a, std::size_t b) { return messages[a].delivered < messages[b].delivered; });
  for (const std::size_t i : delivered) {
    const SentMessage& m = messages[i];
    slice(m.to, m.delivered, "receive " + m.name, {{"from", m.from}, {"to", m.to}, {"detail", m.detail}},
          static_cast<int>(i) + 1, false);
  }
}

}  // namespace

void write_perfetto(const Timeline& t, std::ostream& out) {
  EventStream s(out);
  for (const RowKind kind : {RowKind::Faults, RowKind::Broker, RowKind::Controller, RowKind::Partition, RowKind::Producer,
                             RowKind::Consumer, RowKind::Group, RowKind::Node, RowKind::Anomalies}) {
    name_process(s, pid_of(kind), to_string(kind));
  }
  const Threads th = threads(t, s);
  for (std::size_t i = 0; i < t.spans.size(); ++i) {
    const Span& span = t.spans[i];
    json event = {{"ph", "X"},
                  {"name", span.label.empty() ? span.kind : span.label},
                  {"cat", span.kind},
                  {"pid", pid_of(t.rows[span.row].kind)},
                  {"tid", th.first[span.row] + static_cast<int>(th.lane_of[i])},
                  {"ts", us(span.start)},
                  {"dur", us(span.end - span.start)},
                  {"args", {{"detail", span.detail}}}};
    s.add(event);
  }
  for (const Mark& m : t.marks) {
    s.add({{"ph", "i"}, {"s", "t"}, {"name", m.label.empty() ? m.kind : m.label}, {"cat", m.kind},
           {"pid", pid_of(t.rows[m.row].kind)}, {"tid", th.first[m.row]}, {"ts", us(m.at)}, {"args", {{"detail", m.detail}}}});
  }
  for (const Step& step : t.steps) {
    s.add({{"ph", "C"}, {"name", t.rows[step.row].name + " leaderships"}, {"pid", pid_of(t.rows[step.row].kind)},
           {"ts", us(step.at)}, {"args", {{"partitions led", step.value}}}});
  }
  write_series(t, s);
  int next_tid = th.first.empty() ? 1 : th.first.back() + static_cast<int>(th.lanes.back());
  write_messages(t, s, next_tid);
  json notes = json::array();
  for (const std::string& n : t.notes) notes.push_back(n);
  s.finish({{"title", t.title}, {"run", t.subtitle}, {"notes", notes}, {"time", "simulated; ts in microseconds"}});
}

}  // namespace ksim::app::timeline
