#pragma once
// The broker around a coordinator in a unit test (models/coordinator/):
// a clock and timers on an EventQueue, the answers it sends, appends to
// __consumer_offsets that succeed at once, and the events it publishes
// handed to `published` when set. `Base`: CoordinatorHost, or a host
// interface derived from it (TxnCoordinatorHost) whose own members the test adds.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/coordinator/group_coordinator.hpp"
#include "sim/events/event_queue.hpp"

namespace ksim::testing {

template <class Base>
class FakeCoordinatorHost : public Base {
 public:
  SimTime coordinator_now() const override { return queue.now(); }
  TimerId coordinator_timer(SimTime delay, std::function<void()> callback) override {
    auto shared = std::make_shared<std::function<void()>>(std::move(callback));
    return queue.schedule_after(delay, [shared] { (*shared)(); });
  }
  void coordinator_cancel(TimerId timer) override { queue.cancel(timer); }
  void coordinator_send(ConnectionId, MessagePtr message) override { sent.push_back(std::move(message)); }
  void coordinator_append(std::int32_t, std::uint64_t, std::function<void(models::Error)> done) override {
    done(models::Error::None);
  }
  RandomStream& coordinator_rng() override { return rng; }
  models::BrokerId coordinator_id() const override { return 0; }
  void coordinator_publish(const models::ModelEvent& event) override {
    if (published) published(event);
  }
  std::int32_t coordinator_partition_count(std::int32_t) const override { return 6; }

  EventQueue queue;
  RandomStream rng{1};
  std::vector<MessagePtr> sent;
  std::function<void(const models::ModelEvent&)> published;
};

// A KIP-848 member's ConsumerGroupHeartbeat to group "g", subscribed to topic 0, owning `owned` of it.
inline models::ConsumerGroupHeartbeatRequest kip848_heartbeat_request(std::int64_t correlation, const std::string& member,
                                                                      std::int32_t epoch,
                                                                      const std::vector<std::int32_t>& owned) {
  models::ConsumerGroupHeartbeatRequest r;
  r.correlation_id = correlation;
  r.group = "g";
  r.member_id = member;
  r.member_epoch = epoch;
  r.client_id = member;
  r.rebalance_timeout = seconds(30);
  r.topics = {0};
  for (const std::int32_t p : owned) r.owned.push_back({0, p});
  return r;
}

// A classic member's JoinGroup to group "g" (range, topic 0): `member` empty for a new member.
inline models::JoinGroupRequest classic_join_request(std::int64_t correlation, const std::string& member,
                                                     const std::string& client) {
  models::JoinGroupRequest r;
  r.correlation_id = correlation;
  r.group = "g";
  r.member = models::MemberIdentity{-1, member, std::nullopt};
  r.client_id = client;
  r.session_timeout = seconds(10);
  r.rebalance_timeout = seconds(30);
  r.protocols = {"range"};
  r.subscription.topics = {0};
  return r;
}

// The last message the host sent, if it is a `Response`; null otherwise.
template <class Response, class Host>
const Response* last_sent(const Host& host) {
  return host.sent.empty() ? nullptr : dynamic_cast<const Response*>(host.sent.back().get());
}

}  // namespace ksim::testing
