#include <catch2/catch.hpp>

#include <vector>

#include <algorithm>
#include <functional>

#include "sim/events/event_queue.hpp"
#include "sim/random/random.hpp"

using namespace ksim;

TEST_CASE("events run in time order", "[engine]") {
  EventQueue q;
  std::vector<int> order;
  q.schedule_at(30, [&] { order.push_back(3); });
  q.schedule_at(10, [&] { order.push_back(1); });
  q.schedule_at(20, [&] { order.push_back(2); });
  while (q.step()) {}
  CHECK(order == std::vector<int>{1, 2, 3});
  CHECK(q.now() == 30);
  CHECK(q.events_executed() == 3);
}

TEST_CASE("events at the same instant run first-in first-out", "[engine]") {
  EventQueue q;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) q.schedule_at(5, [&order, i] { order.push_back(i); });
  while (q.step()) {}
  REQUIRE(order.size() == 100);
  for (int i = 0; i < 100; ++i) CHECK(order[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("an event scheduled for now runs after those already due now", "[engine]") {
  EventQueue q;
  std::vector<int> order;
  q.schedule_at(1, [&] {
    order.push_back(1);
    q.schedule_after(0, [&] { order.push_back(3); });
  });
  q.schedule_at(1, [&] { order.push_back(2); });
  while (q.step()) {}
  CHECK(order == std::vector<int>{1, 2, 3});
}

TEST_CASE("a cancelled timer never fires and cancelling twice is harmless", "[engine]") {
  EventQueue q;
  int fired = 0;
  const TimerId a = q.schedule_at(10, [&] { fired += 1; });
  const TimerId b = q.schedule_at(20, [&] { fired += 10; });
  CHECK(q.is_pending(a));
  CHECK(q.cancel(a));
  CHECK_FALSE(q.cancel(a));
  CHECK_FALSE(q.is_pending(a));
  CHECK(q.pending() == 1);
  while (q.step()) {}
  CHECK(fired == 10);
  CHECK_FALSE(q.cancel(b));  // already ran
}

TEST_CASE("a stale timer id does not cancel the event that reused its slot", "[engine]") {
  EventQueue q;
  int fired = 0;
  const TimerId old_id = q.schedule_at(1, [&] { fired += 1; });
  q.step();
  q.schedule_at(2, [&] { fired += 10; });  // likely reuses the slot
  CHECK_FALSE(q.cancel(old_id));
  while (q.step()) {}
  CHECK(fired == 11);
}

TEST_CASE("mass cancellation keeps the order of the survivors", "[engine]") {
  EventQueue q;
  std::vector<TimerId> ids;
  std::vector<int> order;
  for (int i = 0; i < 20000; ++i) {
    ids.push_back(q.schedule_at(1000 - i % 1000, [&order, i] { order.push_back(i); }));
  }
  for (int i = 0; i < 20000; ++i) {
    if (i % 10 != 0) q.cancel(ids[static_cast<std::size_t>(i)]);
  }
  CHECK(q.pending() == 2000);
  while (q.step()) {}
  REQUIRE(order.size() == 2000);
  for (std::size_t k = 1; k < order.size(); ++k) {
    const int prev = order[k - 1], cur = order[k];
    const int prev_time = 1000 - prev % 1000, cur_time = 1000 - cur % 1000;
    CHECK((prev_time < cur_time || (prev_time == cur_time && prev < cur)));
  }
}

TEST_CASE("run_until stops at the horizon and advances the clock to it", "[engine]") {
  EventQueue q;
  int fired = 0;
  q.schedule_at(5, [&] { ++fired; });
  q.schedule_at(15, [&] { ++fired; });
  q.run_until(10);
  CHECK(fired == 1);
  CHECK(q.now() == 10);
  q.run_until(15);
  CHECK(fired == 2);
}

TEST_CASE("random schedules and cancellations run in (time, sequence) order", "[engine]") {
  // Compare against a plain sort of what should run, over many seeds.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RandomStream rng(seed);
    EventQueue q;
    struct Expected {
      SimTime time;
      int sequence;
    };
    std::vector<Expected> expected;
    std::vector<int> ran;
    int sequence = 0;
    // Events schedule more events as they run; some are cancelled.
    std::function<void(int)> body = [&](int depth) {
      const int children = static_cast<int>(rng.below(3));
      for (int i = 0; i < children && depth < 6; ++i) {
        const SimTime delay = rng.bernoulli(0.2) ? 0 : static_cast<SimTime>(rng.below(std::uint64_t{1} << rng.below(40)));
        const int id = sequence++;
        const TimerId t = q.schedule_after(delay, [&, id, depth] {
          ran.push_back(id);
          body(depth + 1);
        });
        if (rng.bernoulli(0.1)) {
          q.cancel(t);
        } else {
          expected.push_back({q.now() + delay, id});
        }
      }
    };
    for (int i = 0; i < 50; ++i) {
      const SimTime at = static_cast<SimTime>(rng.below(1000));
      const int id = sequence++;
      q.schedule_at(at, [&, id] {
        ran.push_back(id);
        body(0);
      });
      expected.push_back({at, id});
    }
    while (q.step()) {}
    // Every event ran once, at its time; times never decreased; ties kept creation order.
    std::sort(expected.begin(), expected.end(),
              [](const Expected& a, const Expected& b) { return a.time < b.time || (a.time == b.time && a.sequence < b.sequence); });
    REQUIRE(ran.size() == expected.size());
    for (std::size_t i = 0; i < ran.size(); ++i) CHECK(ran[i] == expected[i].sequence);
  }
}

// run_until() peeks at the next event, which moves the queue's internal
// minimum past the clock; an event scheduled from outside the loop before
// that minimum must still run first, and the clock never go back.
TEST_CASE("an event scheduled between run_until calls, before the next pending one, runs first", "[engine]") {
  for (const int ties : {1, 3}) {
    EventQueue q;
    std::vector<std::pair<SimTime, int>> ran;
    q.schedule_at(milliseconds(100), [&] { ran.push_back({q.now(), 0}); });
    q.schedule_at(milliseconds(100) + 7, [&] { ran.push_back({q.now(), 1}); });
    q.run_until(milliseconds(10));
    CHECK(q.now() == milliseconds(10));
    for (int i = 0; i < ties; ++i) q.schedule_at(milliseconds(10) + 800, [&, i] { ran.push_back({q.now(), 10 + i}); });
    q.schedule_after(milliseconds(50), [&] { ran.push_back({q.now(), 20}); });
    while (q.step()) {}
    std::vector<int> order;
    for (std::size_t i = 0; i < ran.size(); ++i) {
      order.push_back(ran[i].second);
      if (i > 0) CHECK(ran[i].first >= ran[i - 1].first);
    }
    std::vector<int> expected;
    for (int i = 0; i < ties; ++i) expected.push_back(10 + i);
    expected.insert(expected.end(), {20, 0, 1});
    CHECK(order == expected);
  }
}
