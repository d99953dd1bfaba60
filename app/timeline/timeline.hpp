#pragma once
// What a run looked like over time, as `ksim run --timeline` draws it and
// `--perfetto` writes it: rows (a broker, the controller, a partition, a
// client, a consumer group, the faults, the anomalies), spans and marks on
// them, step counts (a broker's leaderships), the report's time series, and
// the messages of one window between nodes. timeline_recorder.hpp fills it
// from a run; timeline_html.hpp and perfetto_writer.hpp write it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/check/time_series_tracker.hpp"
#include "sim/events/time.hpp"

namespace ksim::app::timeline {

enum class RowKind { Faults, Broker, Controller, Partition, Producer, Consumer, Group, Node, Anomalies };
std::string_view to_string(RowKind kind);  // "faults", "broker", ... (a section's name)

struct Row {
  std::string name;  // "broker-0", "orders-3", "analytics"
  RowKind kind = RowKind::Broker;
};

// A span's or mark's kind names its look (a CSS class, a Perfetto category):
// "down", "paused", "fenced", "fault", "leader", "offline", "isr", "loading", "active",
// "joining", "generation", "rebalance", "txn-commit", "txn-abort", "txn-open";
// marks: "election", "unclean", "truncation", "lost", "duplicated", "reordered",
// "invariant", "unprocessed", "event", ...
struct Span {
  std::size_t row = 0;
  SimTime start = 0, end = 0;
  std::string kind;
  std::string label;   // drawn in it when it is wide enough: "broker-1 e4"
  std::string detail;  // on hover
  int color = -1;      // a leader span: the broker's id (its colour)
};

struct Mark {
  std::size_t row = 0;
  SimTime at = 0;
  std::string kind;
  std::string label;
  std::string detail;
};

// A count that changes at times (a broker's leaderships): drawn as a step line in its row.
struct Step {
  std::size_t row = 0;
  SimTime at = 0;
  double value = 0;
};

// A message between two nodes: sent at `sent`, handed to `to` at `delivered` (kNever: it never was).
struct SentMessage {
  std::string from, to;
  SimTime sent = 0, delivered = kNever;
  std::string name;    // "Produce", "FetchResponse"
  std::string detail;  // on hover: "orders-3 offsets 120-159, 16 KiB"
};

// The spacetime diagram: every message sent in [from, to) (about `partition`, when one is chosen).
struct MessageWindow {
  SimTime from = 0, to = 0;
  std::string partition;           // "orders-3", or "" for every message
  std::vector<std::string> nodes;  // the lifelines, left to right
  std::vector<SentMessage> messages;   // by send time
  std::uint64_t left_out = 0;      // beyond the cap: not drawn
};

struct Timeline {
  std::string title;     // the scenario's name
  std::string subtitle;  // file, seed, trace hash, verdict
  SimTime end = 0;
  std::vector<Row> rows;  // in drawing order, grouped by kind
  std::vector<Span> spans;
  std::vector<Mark> marks;
  std::vector<Step> steps;
  SimTime sample_interval = 0;
  std::vector<models::TimeSample> series;
  std::optional<MessageWindow> window;
  std::vector<std::string> notes;  // what was capped or aggregated, for the reader
};

// Each span's lane within its row: spans of a row that overlap go to
// different lanes (greedy, by start, the longer first), so a row is as tall as its
// most overlapping moment. Returns the lane of each span, and sets
// `lanes[row]` to each row's count (at least 1).
std::vector<std::uint32_t> assign_lanes(const Timeline& timeline, std::vector<std::uint32_t>& lanes);

// A consumer group's row: "group analytics".
std::string group_row_name(std::string_view group);

// "12.345s", "850ms", "3.2us": a time for people, to the microsecond.
std::string format_time(SimTime t);

}  // namespace ksim::app::timeline
