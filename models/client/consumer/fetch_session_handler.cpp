#include "models/client/consumer/fetch_session_handler.hpp"

#include <algorithm>
#include <cassert>

namespace ksim::models {

namespace {

bool in_order(const std::vector<FetchRequest::PartitionData>& partitions) {
  return std::is_sorted(partitions.begin(), partitions.end(),
                        [](const auto& a, const auto& b) { return a.partition < b.partition; });
}

}  // namespace

void FetchSessionHandler::prepare(FetchRequest& request, ConnectionId connection) {
  assert(in_order(request.partitions));
  request.incremental = open_ && connection_ == connection;
  request.unchanged_partitions = 0;
  request.forgotten_partitions = 0;
  if (request.incremental) {
    // Both lists are in partition order: one pass finds what stayed the same and what went.
    auto held = partitions_.begin();
    for (const FetchRequest::PartitionData& p : request.partitions) {
      for (; held != partitions_.end() && held->partition < p.partition; ++held) ++request.forgotten_partitions;
      if (held != partitions_.end() && held->partition == p.partition) {
        if (*held == p) ++request.unchanged_partitions;
        ++held;
      }
    }
    request.forgotten_partitions += static_cast<std::uint32_t>(partitions_.end() - held);
  }
  open_ = true;
  connection_ = connection;
  partitions_ = request.partitions;
}

void FetchSessionHandler::close() {
  open_ = false;
  partitions_.clear();
}

}  // namespace ksim::models
