#include "app/report/report_operations.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace ksim::app {

namespace {

using OF = OperationFigures;

double operation_ms(SimTime t) { return to_milliseconds(t); }

constexpr Figure<OF> kReassignmentFigures[] = {
    {.name = "started", .value = [](const OF& o) { return figure_value(o.reassignments.started); }, .label = "started",
     .expect = ExpectAs::Count, .description = "partition reassignments begun (KIP-455), each partition once per request",
     .expect_key = "reassignments_started"},
    {.name = "completed", .value = [](const OF& o) { return figure_value(o.reassignments.completed); },
     .label = "completed", .expect = ExpectAs::Count,
     .description = "partition reassignments completed: every target replica in the ISR, the removed ones gone",
     .expect_key = "reassignments_completed"},
    {.name = "cancelled", .value = [](const OF& o) { return figure_value(o.reassignments.cancelled); },
     .label = "cancelled", .expect = ExpectAs::Count, .description = "partition reassignments cancelled",
     .expect_key = "reassignments_cancelled"},
    {.name = "in_progress", .value = [](const OF& o) { return figure_value(o.reassignments.in_progress); },
     .label = "in progress at the end", .expect = ExpectAs::Count,
     .description = "partition reassignments neither completed nor cancelled by the end of the run",
     .expect_key = "reassignments_in_progress"},
    {.name = "longest_ms", .value = [](const OF& o) { return figure_value(operation_ms(o.reassignments.longest)); },
     .unit = FigureUnit::Milliseconds, .label = "longest", .expect = ExpectAs::Bound,
     .description = "the longest completed partition reassignment, from the request to its completion",
     .expect_key = "reassignment_time"},
    {.name = "mean_ms",
     .value = [](const OF& o) {
       const auto& r = o.reassignments;
       return figure_value(r.completed == 0 ? 0.0 : operation_ms(r.total) / static_cast<double>(r.completed));
     },
     .unit = FigureUnit::Milliseconds, .label = "mean"},
    {.name = "replicas_created", .value = [](const OF& o) { return figure_value(o.reassignments.replicas_created); },
     .label = "replicas created", .new_line = true},
    {.name = "replicas_deleted", .value = [](const OF& o) { return figure_value(o.reassignments.replicas_deleted); },
     .label = "deleted"},
    {.name = "bytes_deleted", .value = [](const OF& o) { return figure_value(o.reassignments.bytes_deleted); },
     .unit = FigureUnit::Bytes, .label = "their bytes"},
    {.name = "operation_errors", .value = of<&OF::operation_errors>, .label = "operation errors", .expect = ExpectAs::Count,
     .description = "partitions an operation could not change (the controller's error, or no active controller within default.api.timeout.ms)"},
};

constexpr Section<OF> kOperationsSection{"reassignments", SectionScope::Kafka, "reassignments", kReassignmentFigures};

constexpr Figure<OF> kLogDirMoveFigures[] = {
    {.name = "started", .value = [](const OF& o) { return figure_value(o.log_dir_moves.started); }, .label = "started",
     .expect = ExpectAs::Count, .description = "replica moves to another log dir of their broker begun (KIP-113)",
     .expect_key = "log_dir_moves_started"},
    {.name = "completed", .value = [](const OF& o) { return figure_value(o.log_dir_moves.completed); },
     .label = "completed", .expect = ExpectAs::Count,
     .description = "log dir moves completed: the future replica caught up and took the current one's place",
     .expect_key = "log_dir_moves_completed"},
    {.name = "abandoned", .value = [](const OF& o) { return figure_value(o.log_dir_moves.abandoned); },
     .label = "abandoned", .expect = ExpectAs::Count,
     .description = "log dir moves abandoned: a log dir failed, the replica was deleted, or another dir was asked for",
     .expect_key = "log_dir_moves_abandoned"},
    {.name = "in_progress", .value = [](const OF& o) { return figure_value(o.log_dir_moves.in_progress); },
     .label = "in progress at the end", .expect = ExpectAs::Count,
     .description = "log dir moves neither completed nor abandoned by the end of the run",
     .expect_key = "log_dir_moves_in_progress"},
    {.name = "longest_ms", .value = [](const OF& o) { return figure_value(operation_ms(o.log_dir_moves.longest)); },
     .unit = FigureUnit::Milliseconds, .label = "longest", .expect = ExpectAs::Bound,
     .description = "the longest completed log dir move, from the request to the promotion of the future replica",
     .expect_key = "log_dir_move_time"},
    {.name = "bytes_moved", .value = [](const OF& o) { return figure_value(o.log_dir_moves.bytes_moved); },
     .unit = FigureUnit::Bytes, .label = "bytes moved"},
    {.name = "log_dir_skew", .value = of<&OF::log_dir_skew>, .unit = FigureUnit::Ratio, .label = "fullest dir / mean",
     .new_line = true, .expect = ExpectAs::Bound,
     .description = "at the end, the largest ratio of a broker's fullest log dir (bytes) to the mean of its log dirs "
                    "(1 is even), over brokers with several log dirs"},
};

constexpr Section<OF> kLogDirMovesSection{"log_dir_moves", SectionScope::Kafka, "log_dir_moves", kLogDirMoveFigures};

bool is_log_dir_operation(const OperationSpec& op) {
  return op.kind == OperationSpec::Kind::AlterReplicaLogDirs || op.kind == OperationSpec::Kind::BalanceLogDirs;
}

std::string mib_list(const std::vector<std::pair<std::string, std::uint64_t>>& dirs) {
  std::vector<std::string> parts;
  for (const auto& [path, bytes] : dirs) parts.push_back(fmt::format("{} {:.1f} MiB", path, static_cast<double>(bytes) / 1048576.0));
  return fmt::format("{}", fmt::join(parts, ", "));
}

double log_dir_skew(const Cluster& cluster) {
  double skew = 0;
  for (const models::Broker* b : cluster.brokers()) {
    const auto dirs = b->log_dir_stats();
    if (dirs.size() < 2) continue;
    std::uint64_t total = 0;
    std::uint64_t fullest = 0;
    for (const auto& d : dirs) {
      total += d.bytes;
      fullest = std::max(fullest, d.bytes);
    }
    if (total > 0) skew = std::max(skew, static_cast<double>(fullest) * static_cast<double>(dirs.size()) / static_cast<double>(total));
  }
  return skew;
}

std::string describe_operation(const OperationSpec& op, const KafkaSpec& kafka, std::size_t partitions) {
  if (op.kind == OperationSpec::Kind::AddBroker) return fmt::format("add_broker broker {} (rack {})", op.broker, op.rack);
  if (op.kind == OperationSpec::Kind::GenerateReassignment) {
    return fmt::format("generate_reassignment over brokers {} ({} partition{})", fmt::join(op.brokers, ","), partitions,
                       partitions == 1 ? "" : "s");
  }
  const bool on_broker = op.kind == OperationSpec::Kind::DecommissionBroker || op.kind == OperationSpec::Kind::BalanceLogDirs;
  const std::string what = on_broker ? fmt::format("broker {}", op.broker)
                           : op.kind == OperationSpec::Kind::AlterReplicaLogDirs
                               ? fmt::format("{} on broker {}", kafka.topics[static_cast<std::size_t>(op.topic)].name, op.broker)
                               : kafka.topics[static_cast<std::size_t>(op.topic)].name;
  return fmt::format("{} {} ({} partition{})", to_string(op.kind), what, partitions, partitions == 1 ? "" : "s");
}

}  // namespace

const Section<OperationFigures>& operations_section() { return kOperationsSection; }
const Section<OperationFigures>& log_dir_moves_section() { return kLogDirMovesSection; }

OperationFigures operation_figures(const Cluster& cluster) {
  OperationFigures o;
  o.reassignments = cluster.reassignments();
  o.log_dir_moves = cluster.log_dir_moves();
  o.log_dir_skew = log_dir_skew(cluster);
  const KafkaSpec& kafka = *cluster.scenario().kafka;
  for (const auto& a : o.log_dir_moves.abandoned_moves) {
    o.abandoned_moves.push_back(fmt::format("{}-{} on broker {}: {}", cluster.topic_name(a.partition.topic),
                                            a.partition.partition, a.broker, a.reason));
  }
  for (const Cluster::OperationResult& result : cluster.operation_results()) {
    const OperationSpec& op = kafka.operations[result.operation];
    const std::size_t asked = result.partitions.empty() ? op.replicas.size() + op.partitions.size() : result.partitions.size();
    OperationOutcome outcome{describe_operation(op, kafka, asked), op.at, result.applied_at, {},
                             result.log_dirs_before, result.log_dirs_after_moves, result.moves_done_at, {}};
    if (is_log_dir_operation(op)) {
      o.has_log_dir_operations = true;
      for (const auto& d : cluster.brokers()[static_cast<std::size_t>(op.broker)]->log_dir_stats()) {
        outcome.log_dirs_after.emplace_back(d.path, d.bytes);
      }
    }
    for (std::size_t i = 0; i < result.errors.size(); ++i) {
      if (result.errors[i] == models::Error::None) continue;
      const models::TopicPartition tp = result.partitions[i];
      outcome.errors.push_back(fmt::format("{}-{}: {}", cluster.topic_name(tp.topic),
                                           tp.partition, models::to_string(result.errors[i])));
    }
    o.operation_errors += outcome.errors.size();
    o.operations.push_back(std::move(outcome));
    o.zookeeper = kafka.zookeeper;
  }
  return o;
}

void add_operations_json(const OperationFigures& o, nlohmann::ordered_json& j) {
  add_json(kOperationsSection, o, j);
  add_json(kLogDirMovesSection, o, j);
  j["log_dir_moves"]["abandoned_moves"] = o.abandoned_moves;
  auto& list = j["operations"] = nlohmann::ordered_json::array();
  const auto dirs_json = [](const auto& dirs) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& [path, bytes] : dirs) out.push_back({{"path", path}, {"bytes", bytes}});
    return out;
  };
  for (const OperationOutcome& op : o.operations) {
    nlohmann::ordered_json entry{
        {"what", op.what},
        {"at_ms", operation_ms(op.at)},
        {"applied_at_ms", op.applied_at == kNever ? nlohmann::ordered_json() : nlohmann::ordered_json(operation_ms(op.applied_at))},
        {"errors", op.errors}};
    if (!op.log_dirs_after.empty()) {
      entry["log_dirs_before"] = dirs_json(op.log_dirs_before);
      entry["moves_done_at_ms"] =
          op.moves_done_at == kNever ? nlohmann::ordered_json() : nlohmann::ordered_json(operation_ms(op.moves_done_at));
      entry["log_dirs_after_moves"] = dirs_json(op.log_dirs_after_moves);
      entry["log_dirs_at_end"] = dirs_json(op.log_dirs_after);
    }
    list.push_back(std::move(entry));
  }
}

void print_operations(const OperationFigures& o, std::ostream& out) {
  if (o.operations.empty()) return;
  fmt::print(out, "  reassignments (KIP-455)\n");
  print_figures(kOperationsSection, o, out);
  if (o.has_log_dir_operations) {
    fmt::print(out, "  log dir moves (KIP-113)\n");
    print_figures(kLogDirMovesSection, o, out);
    for (const std::string& a : o.abandoned_moves) fmt::print(out, "  abandoned {}\n", a);
  }
  for (const OperationOutcome& op : o.operations) {
    const bool added = op.what.starts_with("add_broker");
    if (op.applied_at == kNever) {
      fmt::print(out, "  at {:.3f}s {}: {}\n", to_seconds(op.at), op.what,
                 added                         ? (o.zookeeper ? "not registered by the end" : "not registered and unfenced by the end")
                 : op.log_dirs_after.empty() ? "no active controller within default.api.timeout.ms"
                                             : "the broker was not reachable within default.api.timeout.ms");
      continue;
    }
    const char* done = !added ? "applied" : o.zookeeper ? "registered" : "unfenced";
    fmt::print(out, "  at {:.3f}s {}: {} at {:.3f}s{}\n", to_seconds(op.at), op.what, done,
               to_seconds(op.applied_at), op.errors.empty() ? "" : ", " + fmt::format("{}", fmt::join(op.errors, ", ")));
    if (!op.log_dirs_after.empty()) {
      fmt::print(out, "    log dirs before: {}\n", mib_list(op.log_dirs_before));
      if (op.moves_done_at != kNever) {
        fmt::print(out, "    when its moves were done ({:.3f}s): {}\n", to_seconds(op.moves_done_at),
                   mib_list(op.log_dirs_after_moves));
      }
      fmt::print(out, "    at the end: {}\n", mib_list(op.log_dirs_after));
    }
  }
}

}  // namespace ksim::app
