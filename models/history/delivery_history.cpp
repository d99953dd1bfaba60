#include "models/history/delivery_history.hpp"

#include <algorithm>

namespace ksim::models {

std::string_view to_string(TxnOp op) {
  switch (op) {
    case TxnOp::Begin: return "begin";
    case TxnOp::Commit: return "commit";
    case TxnOp::Abort: return "abort";
  }
  return "?";
}

std::optional<TxnOp> txn_op(std::string_view name) {
  for (const TxnOp op : {TxnOp::Begin, TxnOp::Commit, TxnOp::Abort}) {
    if (to_string(op) == name) return op;
  }
  return std::nullopt;
}

void split_by_transaction(const std::vector<RecordBatch>& batches, std::vector<RecordBatch>& committed,
                          std::vector<RecordBatch>& aborted, std::vector<RecordBatch>& open) {
  std::map<ProducerId, ControlType> next_marker;  // scanning backwards: the marker after each batch
  for (auto it = batches.rbegin(); it != batches.rend(); ++it) {
    const RecordBatch& b = *it;
    if (b.is_control()) {
      next_marker[b.producer_id] = b.control;
      continue;
    }
    if (!b.transactional) {
      committed.push_back(b);
      continue;
    }
    const auto marker = next_marker.find(b.producer_id);
    if (marker == next_marker.end()) {
      open.push_back(b);
    } else if (marker->second == ControlType::Commit) {
      committed.push_back(b);
    } else {
      aborted.push_back(b);
    }
  }
  std::reverse(committed.begin(), committed.end());
  std::reverse(aborted.begin(), aborted.end());
  std::reverse(open.begin(), open.end());
}

}  // namespace ksim::models
