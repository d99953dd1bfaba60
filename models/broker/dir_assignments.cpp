#include "models/broker/dir_assignments.hpp"

#include <algorithm>

namespace ksim::models {

SimTime DirAssignments::send_delay() const {
  constexpr SimTime initial = milliseconds(100), max = seconds(10);
  if (global_failures_ > 0) {  // ExponentialBackoff(100 ms, 2, 10 s).backoff(failures)
    SimTime delay = initial;
    for (int i = 0; i < global_failures_ && delay < max; ++i) delay *= 2;
    return std::min(delay, max);
  }
  if (ready_.size() > kMaxPerRequest && in_flight_.empty()) return 0;
  return initial;
}

std::vector<DirAssignments::Assignment> DirAssignments::answered(
    Error global, const std::vector<std::pair<TopicPartition, Error>>& results) {
  std::vector<Assignment> accepted;
  std::map<TopicPartition, std::int32_t> sent = std::move(in_flight_);
  in_flight_.clear();
  if (global != Error::None) {
    ++global_failures_;
    for (const auto& [tp, dir] : sent) ready_.try_emplace(tp, dir);
    return accepted;
  }
  global_failures_ = 0;
  for (const auto& [tp, error] : results) {
    const auto it = sent.find(tp);
    if (it == sent.end()) continue;
    if (error == Error::None) accepted.push_back(*it);
    else ready_.try_emplace(tp, it->second);
    sent.erase(it);
  }
  for (const auto& [tp, dir] : sent) ready_.try_emplace(tp, dir);  // "no result in response for partition"
  return accepted;
}

}  // namespace ksim::models
