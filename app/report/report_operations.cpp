#include "app/report/report_operations.hpp"

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

std::string describe_operation(const OperationSpec& op, const KafkaSpec& kafka, std::size_t partitions) {
  const std::string what = op.kind == OperationSpec::Kind::DecommissionBroker
                               ? fmt::format("broker {}", op.broker)
                               : kafka.topics[static_cast<std::size_t>(op.topic)].name;
  return fmt::format("{} {} ({} partition{})", to_string(op.kind), what, partitions, partitions == 1 ? "" : "s");
}

}  // namespace

const Section<OperationFigures>& operations_section() { return kOperationsSection; }

OperationFigures operation_figures(const Cluster& cluster) {
  OperationFigures o;
  o.reassignments = cluster.reassignments();
  const KafkaSpec& kafka = *cluster.scenario().kafka;
  for (const Cluster::OperationResult& result : cluster.operation_results()) {
    const OperationSpec& op = kafka.operations[result.operation];
    const std::size_t asked = result.partitions.empty() ? op.replicas.size() + op.partitions.size() : result.partitions.size();
    OperationOutcome outcome{describe_operation(op, kafka, asked), op.at, result.applied_at, {}};
    for (std::size_t i = 0; i < result.errors.size(); ++i) {
      if (result.errors[i] == models::Error::None) continue;
      const models::TopicPartition tp = result.partitions[i];
      outcome.errors.push_back(fmt::format("{}-{}: {}", kafka.topics[static_cast<std::size_t>(tp.topic)].name,
                                           tp.partition, models::to_string(result.errors[i])));
    }
    o.operation_errors += outcome.errors.size();
    o.operations.push_back(std::move(outcome));
  }
  return o;
}

void add_operations_json(const OperationFigures& o, nlohmann::ordered_json& j) {
  add_json(kOperationsSection, o, j);
  auto& list = j["operations"] = nlohmann::ordered_json::array();
  for (const OperationOutcome& op : o.operations) {
    list.push_back({{"what", op.what},
                    {"at_ms", operation_ms(op.at)},
                    {"applied_at_ms", op.applied_at == kNever ? nlohmann::ordered_json() : nlohmann::ordered_json(operation_ms(op.applied_at))},
                    {"errors", op.errors}});
  }
}

void print_operations(const OperationFigures& o, std::ostream& out) {
  if (o.operations.empty()) return;
  fmt::print(out, "  reassignments (KIP-455)\n");
  print_figures(kOperationsSection, o, out);
  for (const OperationOutcome& op : o.operations) {
    if (op.applied_at == kNever) {
      fmt::print(out, "  at {:.3f}s {}: no active controller within default.api.timeout.ms\n", to_seconds(op.at), op.what);
      continue;
    }
    fmt::print(out, "  at {:.3f}s {}: applied at {:.3f}s{}\n", to_seconds(op.at), op.what, to_seconds(op.applied_at),
               op.errors.empty() ? "" : ", " + fmt::format("{}", fmt::join(op.errors, ", ")));
  }
}

}  // namespace ksim::app
