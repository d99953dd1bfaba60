#include "models/fetch_session.hpp"

namespace ksim::models {

void FetchSession::reset(BrokerId follower, std::vector<std::int32_t> partitions, std::size_t total_partitions) {
  follower_ = follower;
  partitions_ = std::move(partitions);
  seen_.assign(partitions_.size(), 0);
  quiet_.assign(partitions_.size(), 0);
  dirty_.assign(partitions_.size(), 0);
  member_.assign(total_partitions, false);
  for (const std::int32_t p : partitions_) member_[static_cast<std::size_t>(p)] = true;
}

void FetchSession::settle(std::size_t slot, bool quiet, std::uint32_t change) {
  quiet_[slot] = quiet ? 1 : 0;
  dirty_[slot] = 0;
  seen_[slot] = change;
}

}  // namespace ksim::models
