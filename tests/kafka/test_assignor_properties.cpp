// Property tests of every assignor over random group shapes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/client/consumer/assignors/assignor.hpp"
#include "tests/support/assignor_checks.hpp"

using namespace ksim::models;
using namespace ksim::testing;

// ---------------------------------------------------------------------------
// Property test over random group shapes

namespace {

struct Lcg {
  std::uint64_t state;
  std::uint32_t next(std::uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state >> 33) % bound;
  }
};

std::vector<std::int32_t> random_topics(Lcg& rng, std::int32_t topics) {
  std::vector<std::int32_t> chosen;
  for (std::int32_t t = 0; t < topics; ++t) {
    if (rng.next(2) == 0) chosen.push_back(t);
  }
  if (chosen.empty()) chosen.push_back(static_cast<std::int32_t>(rng.next(static_cast<std::uint32_t>(topics))));
  return chosen;
}

struct Shape {
  Counts counts;
  Members members;
  bool equal = false;
};

Shape random_shape(Lcg& rng) {
  Shape shape;
  const auto topics = static_cast<std::int32_t>(1 + rng.next(6));
  for (std::int32_t t = 0; t < topics; ++t) shape.counts[t] = static_cast<std::int32_t>(rng.next(13));  // 0: no metadata
  shape.equal = rng.next(2) == 0;
  const auto common = random_topics(rng, topics);
  const auto count = 1 + rng.next(10);
  for (std::uint32_t i = 0; i < count; ++i) {
    std::optional<std::string> instance;
    if (rng.next(3) == 0) instance = "instance-" + std::to_string(rng.next(1000));
    shape.members.push_back(
        member("member-" + std::to_string(100 + i * 7 % 13) + "-" + std::to_string(i),
               shape.equal ? common : random_topics(rng, topics), {}, -1, instance));
  }
  if (rng.next(2) == 0) std::reverse(shape.members.begin(), shape.members.end());
  return shape;
}

// The group after a rebalance: members own what they got; some leave, one may join, and
// (unless all subscribe alike) some change their subscription.
Members next_group(Lcg& rng, const Shape& shape, const Assignment& assignment) {
  Members next;
  const auto topics = static_cast<std::int32_t>(shape.counts.size());
  for (MemberSubscription m : owning(shape.members, assignment, 1)) {
    if (shape.members.size() > 1 && rng.next(5) == 0) continue;
    if (!shape.equal && rng.next(4) == 0) m.topics = random_topics(rng, topics);
    next.push_back(std::move(m));
  }
  if (rng.next(2) == 0) {
    next.push_back(member("joiner", shape.equal ? shape.members.front().topics : random_topics(rng, topics), {}, 1));
  }
  return next;
}

void check_balance(std::string_view name, const Shape& shape, const Members& members, const Assignment& a) {
  if (name == "range") {
    for (const auto& entry : shape.counts) {
      const std::int32_t topic = entry.first;  // a plain variable: lambdas cannot capture bindings in clang < 16
      std::size_t min = SIZE_MAX, max = 0;
      for (const MemberSubscription& m : members) {
        if (std::find(m.topics.begin(), m.topics.end(), topic) == m.topics.end()) continue;
        const auto n = static_cast<std::size_t>(std::count_if(
            a.at(m.member_id).begin(), a.at(m.member_id).end(), [&](const TopicPartition& p) { return p.topic == topic; }));
        min = std::min(min, n);
        max = std::max(max, n);
      }
      CHECK((max == 0 || max - min <= 1));
    }
    return;
  }
  if (shape.equal) CHECK(fully_balanced(a));
  if (name == "roundrobin") return;
  check_sticky_balance(a);
  check_nothing_could_move(shape.counts, members, a);
}

}  // namespace

TEST_CASE("property: every assignor is valid and balanced over random groups", "[assignor]") {
  for (std::uint64_t seed = 1; seed <= 500; ++seed) {
    Lcg rng{seed};
    const Shape shape = random_shape(rng);
    for (const std::string& name : assignor_names()) {
      INFO("seed " << seed << " assignor " << name);
      const auto first = assign(name, shape.counts, shape.members);
      check_valid(shape.counts, shape.members, first, true);  // no one owns anything yet
      check_balance(name, shape, shape.members, first);
      CHECK(assign(name, shape.counts, shape.members) == first);

      Lcg next_rng{seed * 31};
      const Members members = next_group(next_rng, shape, first);
      if (name == "cooperative-sticky") {
        const auto [final_assignment, final_members] = cooperative_rounds(shape.counts, members, 1);
        check_valid(shape.counts, final_members, final_assignment, true);
        check_balance(name, Shape{shape.counts, final_members, shape.equal}, final_members, final_assignment);
        continue;
      }
      const auto second = assign(name, shape.counts, members);
      check_valid(shape.counts, members, second, true);
      const bool still_equal = std::all_of(members.begin(), members.end(), [&](const MemberSubscription& m) {
        return std::set(m.topics.begin(), m.topics.end()) ==
               std::set(members.front().topics.begin(), members.front().topics.end());
      });
      check_balance(name, Shape{shape.counts, members, still_equal}, members, second);
    }
  }
}

TEST_CASE("property: sticky assignors keep what stays balanced when a member joins", "[assignor]") {
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Lcg rng{seed};
    Shape shape = random_shape(rng);
    const auto topics = shape.members.front().topics;
    for (MemberSubscription& m : shape.members) m.topics = topics;  // the constrained case
    const auto first = assign("sticky", shape.counts, shape.members);
    Members members = owning(shape.members, first, 1);
    members.push_back(member("joiner", topics, {}, 1));
    const auto second = assign("sticky", shape.counts, members);
    INFO("seed " << seed);
    check_valid(shape.counts, members, second, true);
    CHECK(fully_balanced(second));
    // Each old member keeps min(owned, its share); only the joiner's share moves.
    std::size_t moved = 0;
    for (const MemberSubscription& m : shape.members) {
      const auto before = set_of(first.at(m.member_id));
      for (const TopicPartition& p : second.at(m.member_id)) CHECK(before.contains(p));
      moved += before.size() - second.at(m.member_id).size();
    }
    CHECK(moved == second.at("joiner").size());
  }
}
