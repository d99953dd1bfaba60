#include "models/client/producer/sender_index.hpp"

namespace ksim::models {

SenderIndex::SenderIndex(std::size_t partitions, std::size_t brokers)
    : pending_(partitions), lingering_(partitions), lingering_until_(partitions, 0), ready_(brokers, Partitions(partitions)),
      visit_(partitions) {}

void SenderIndex::touch(std::size_t p) {
  lingering_.reset(p);
  for (Partitions& ready : ready_) ready.reset(p);
}

void SenderIndex::forget() {
  lingering_.reset();
  lingering_ends_ = {};
  forget_leaders();
}

void SenderIndex::clear() {
  forget();
  pending_.reset();
}

void SenderIndex::forget_leaders() {
  for (Partitions& ready : ready_) ready.reset();
}

void SenderIndex::linger(std::size_t p, SimTime until) {
  lingering_.set(p);
  lingering_until_[p] = until;
  lingering_ends_.emplace(until, p);
}

const SenderIndex::Partitions& SenderIndex::to_visit(SimTime now, const std::vector<bool>& full,
                                                     std::vector<bool>& skipped, SimTime& next_check) {
  while (!lingering_ends_.empty()) {
    const auto [until, p] = lingering_ends_.top();
    if (still_lingering(p, until) && until > now) break;
    lingering_ends_.pop();
    if (still_lingering(p, until)) lingering_.reset(p);  // its time has come
  }
  if (!lingering_ends_.empty()) next_check = std::min(next_check, lingering_ends_.top().first);
  visit_ = pending_;
  visit_ -= lingering_;
  for (std::size_t b = 0; b < ready_.size(); ++b) {
    if (!full[b]) continue;
    skipped[b] = (ready_[b] & pending_).any();
    visit_ -= ready_[b];
  }
  return visit_;
}

}  // namespace ksim::models
