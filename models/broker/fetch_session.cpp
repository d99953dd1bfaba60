#include "models/broker/fetch_session.hpp"

namespace ksim::models {

void FetchSession::settle(std::int32_t partition, const FetchRequest::PartitionData& p, bool quiet, std::uint32_t change) {
  Entry& e = entries_[static_cast<std::size_t>(partition)];
  e.fetch_offset = p.fetch_offset;
  e.current_leader_epoch = p.current_leader_epoch;
  e.last_fetched_epoch = p.last_fetched_epoch;
  e.seen = change;
  e.quiet = quiet;
}

void FetchSession::forget() {
  for (Entry& e : entries_) e.quiet = false;
}

}  // namespace ksim::models
