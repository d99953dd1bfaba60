#pragma once
// The share groups' part of a history (docs/history.md, KIP-932): the
// header's share consumers and share groups, and one line per member
// process, share-partition start, delivery, processing, outcome at the
// share-partition leader and crash, from the run's ShareHistory, so that
// `ksim check` rebuilds the ShareHistory and gives the run's share group
// verdict. Internal to app/history.
#include <ostream>

#include <nlohmann/json.hpp>

#include "app/harness/cluster.hpp"

namespace ksim::app::history {

// The header's "share_consumers" and "share_groups" (absent without share consumers).
void add_share_header(const Cluster& cluster, nlohmann::json& header);
// The share events, each a line: share_member, share_start, share_deliver, share_process, share_ack, share_crash.
void write_share_events(const models::ShareHistory& history, std::ostream& out);

}  // namespace ksim::app::history
