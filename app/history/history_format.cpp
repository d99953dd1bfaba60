#include "app/history/history_format.hpp"

#include <array>

namespace ksim::app::history {

namespace {

constexpr std::array kConsumerEvents{
    std::pair{models::ConsumerEventKind::Crashed, std::string_view("crashed")},
    std::pair{models::ConsumerEventKind::Restarted, std::string_view("restarted")},
    std::pair{models::ConsumerEventKind::PollTimeout, std::string_view("poll_timeout")},
    std::pair{models::ConsumerEventKind::LeftGroup, std::string_view("left_group")},
    std::pair{models::ConsumerEventKind::Fenced, std::string_view("fenced")},
    std::pair{models::ConsumerEventKind::RebalanceJoined, std::string_view("rebalance_joined")},
    std::pair{models::ConsumerEventKind::AssignmentSettled, std::string_view("assignment_settled")},
    std::pair{models::ConsumerEventKind::Stopped, std::string_view("stopped")},
};

// Every ksim error, from None to the last of the enum.
constexpr auto kLastError = models::Error::UnsupportedAssignor;

}  // namespace

std::string_view consumer_event_name(models::ConsumerEventKind kind) {
  for (const auto& [k, name] : kConsumerEvents) {
    if (k == kind) return name;
  }
  return "?";
}

std::optional<models::ConsumerEventKind> consumer_event_kind(std::string_view name) {
  for (const auto& [k, n] : kConsumerEvents) {
    if (n == name) return k;
  }
  return std::nullopt;
}

namespace {

constexpr std::array kOutcomes{
    std::pair{models::ShareOutcome::Accepted, std::string_view("accept")},
    std::pair{models::ShareOutcome::Released, std::string_view("release")},
    std::pair{models::ShareOutcome::Rejected, std::string_view("reject")},
    std::pair{models::ShareOutcome::DeliveryLimit, std::string_view("archive_delivery_limit")},
};

constexpr std::array kReleases{
    std::pair{models::ShareRelease::LockExpired, std::string_view("lock_expired")},
    std::pair{models::ShareRelease::Released, std::string_view("released")},
    std::pair{models::ShareRelease::MemberLeft, std::string_view("member_left")},
};

template <class Table, class Key>
std::string_view name_in(const Table& table, Key key) {
  for (const auto& [k, name] : table) {
    if (k == key) return name;
  }
  return "?";
}

template <class Table>
auto key_in(const Table& table, std::string_view name) -> std::optional<typename Table::value_type::first_type> {
  for (const auto& [k, n] : table) {
    if (n == name) return k;
  }
  return std::nullopt;
}

}  // namespace

std::string_view share_outcome_name(models::ShareOutcome outcome) { return name_in(kOutcomes, outcome); }
std::optional<models::ShareOutcome> share_outcome(std::string_view name) { return key_in(kOutcomes, name); }
std::string_view share_release_name(models::ShareRelease why) { return name_in(kReleases, why); }
std::optional<models::ShareRelease> share_release(std::string_view name) { return key_in(kReleases, name); }

std::string_view error_name(models::Error error) { return models::to_string(error); }

std::optional<models::Error> error_of(std::string_view name) {
  for (int e = 0; e <= static_cast<int>(kLastError); ++e) {
    if (models::to_string(static_cast<models::Error>(e)) == name) return static_cast<models::Error>(e);
  }
  return std::nullopt;
}

}  // namespace ksim::app::history
