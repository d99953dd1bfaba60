#pragma once
// The names of docs/history.md that its writer (history_writer) and its
// reader (history_reader) share: the format's name and version, the kinds of
// consumer event, Kafka's error names.
#include <optional>
#include <string_view>

#include "models/history/consumption_history.hpp"
#include "models/history/share_history.hpp"
#include "models/protocol/kafka_types.hpp"

namespace ksim::app::history {

inline constexpr std::string_view kFormat = "ksim-history";
inline constexpr int kVersion = 1;

// "crashed", "restarted", "poll_timeout", "left_group", "fenced".
std::string_view consumer_event_name(models::ConsumerEventKind kind);
std::optional<models::ConsumerEventKind> consumer_event_kind(std::string_view name);

// KIP-932: a share-partition's outcomes ("accept", "release", "reject",
// "archive_delivery_limit") and why a record was released ("lock_expired",
// "released", "member_left"), and back.
std::string_view share_outcome_name(models::ShareOutcome outcome);
std::optional<models::ShareOutcome> share_outcome(std::string_view name);
std::string_view share_release_name(models::ShareRelease why);
std::optional<models::ShareRelease> share_release(std::string_view name);

// Kafka's error name of a ksim error ("NOT_ENOUGH_REPLICAS"), and back; null
// when ksim has no such error (a real client's "TIMEOUT", say).
std::string_view error_name(models::Error error);
std::optional<models::Error> error_of(std::string_view name);

}  // namespace ksim::app::history
