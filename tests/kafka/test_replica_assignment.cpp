#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/controller/replica_assignment.hpp"

using namespace ksim;
using namespace ksim::models;

namespace {

using ReplicaLists = std::vector<std::vector<BrokerId>>;

std::vector<BrokerPlacement> brokers_without_racks(std::vector<BrokerId> ids) {
  std::vector<BrokerPlacement> brokers;
  for (const auto id : ids) brokers.push_back({id, ""});
  return brokers;
}

std::vector<BrokerPlacement> brokers_in_racks(const std::map<BrokerId, std::string>& racks) {
  std::vector<BrokerPlacement> brokers;
  for (const auto& [id, rack] : racks) brokers.push_back({id, rack});
  return brokers;
}

std::map<BrokerId, int> leader_counts(const ReplicaLists& assignment) {
  std::map<BrokerId, int> counts;
  for (const auto& replicas : assignment) ++counts[replicas.front()];
  return counts;
}

std::map<BrokerId, int> replica_counts(const ReplicaLists& assignment) {
  std::map<BrokerId, int> counts;
  for (const auto& replicas : assignment)
    for (const auto broker : replicas) ++counts[broker];
  return counts;
}

}  // namespace

TEST_CASE("every partition gets replication-factor distinct brokers", "[assignment]") {
  const auto brokers = brokers_without_racks({11, 3, 7, 20, 5});  // any ids, in any order
  for (std::int32_t rf = 1; rf <= 5; ++rf) {
    RandomStream rng(static_cast<std::uint64_t>(rf));
    const auto assignment = assign_replicas(brokers, 17, rf, rng);
    REQUIRE(assignment.size() == 17);
    for (const auto& replicas : assignment) {
      CHECK(replicas.size() == static_cast<std::size_t>(rf));
      CHECK(std::set<BrokerId>(replicas.begin(), replicas.end()).size() == static_cast<std::size_t>(rf));
      for (const auto broker : replicas) CHECK(std::set<BrokerId>{3, 5, 7, 11, 20}.count(broker) == 1);
    }
  }
}

TEST_CASE("leaders and replicas spread evenly over the brokers", "[assignment]") {
  const auto brokers = brokers_without_racks({0, 1, 2, 3, 4, 5});
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    RandomStream rng(seed);
    const auto assignment = assign_replicas(brokers, 60, 3, rng);
    const auto leaders = leader_counts(assignment);
    const auto replicas = replica_counts(assignment);
    REQUIRE(leaders.size() == 6);
    REQUIRE(replicas.size() == 6);
    for (const auto& [broker, count] : leaders) CHECK(count == 10);
    for (const auto& [broker, count] : replicas) CHECK(count == 30);
  }
}

TEST_CASE("rack-aware replicas cover as many racks as they can", "[assignment]") {
  const std::map<BrokerId, std::string> three_racks{{0, "a"}, {1, "b"}, {2, "c"}, {3, "a"}, {4, "b"}, {5, "c"}};
  const std::map<BrokerId, std::string> two_racks{{0, "a"}, {1, "a"}, {2, "a"}, {3, "b"}, {4, "b"}, {5, "b"}};
  for (const auto& racks : {three_racks, two_racks}) {
    std::set<std::string> names;
    for (const auto& [id, rack] : racks) names.insert(rack);
    const std::size_t rack_count = names.size();
    for (std::int32_t rf = 1; rf <= 4; ++rf) {
      RandomStream rng(static_cast<std::uint64_t>(rf) * 31);
      const auto assignment = assign_replicas(brokers_in_racks(racks), 24, rf, rng);
      for (const auto& replicas : assignment) {
        std::set<std::string> covered;
        for (const auto broker : replicas) covered.insert(racks.at(broker));
        CHECK(covered.size() == std::min<std::size_t>(static_cast<std::size_t>(rf), rack_count));
        CHECK(std::set<BrokerId>(replicas.begin(), replicas.end()).size() == static_cast<std::size_t>(rf));
      }
    }
  }
}

TEST_CASE("rack-aware leaders and replicas spread evenly with even racks", "[assignment]") {
  const std::map<BrokerId, std::string> racks{{0, "rack1"}, {1, "rack2"}, {2, "rack2"},
                                              {3, "rack3"}, {4, "rack3"}, {5, "rack1"}};
  RandomStream rng(9);
  const auto assignment = assign_replicas(brokers_in_racks(racks), 60, 3, rng);
  for (const auto& [broker, count] : leader_counts(assignment)) CHECK(count == 10);
  for (const auto& [broker, count] : replica_counts(assignment)) CHECK(count == 30);
}

TEST_CASE("the same seed gives the same assignment", "[assignment]") {
  const auto brokers = brokers_without_racks({0, 1, 2, 3, 4, 5, 6});
  const auto assign = [&](std::uint64_t seed) {
    RandomStream rng(seed);
    return assign_replicas(brokers, 30, 3, rng);
  };
  CHECK(assign(5) == assign(5));
  bool some_seed_differs = false;
  for (std::uint64_t seed = 6; seed < 16; ++seed) some_seed_differs |= assign(seed) != assign(5);
  CHECK(some_seed_differs);
}

TEST_CASE("brokers with only some racks are assigned as if none had one", "[assignment]") {
  auto partial = brokers_without_racks({0, 1, 2, 3});
  partial[0].rack = "a";
  partial[2].rack = "b";
  RandomStream rng_a(3), rng_b(3);
  CHECK(assign_replicas(partial, 12, 2, rng_a) == assign_replicas(brokers_without_racks({0, 1, 2, 3}), 12, 2, rng_b));
}

TEST_CASE("a fixed start gives Kafka's AdminTest.testReplicaAssignment answer", "[assignment]") {
  // Brokers 0-4, 10 partitions, RF 3, fixedStartIndex 0.
  const ReplicaLists expected{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1},
                            {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}};
  CHECK(ksim::models::detail::assign_replicas(brokers_without_racks({4, 2, 0, 3, 1}), 10, 3, 0, 0) == expected);
}

TEST_CASE("a fixed start gives Kafka's AdminRackAwareTest answer", "[assignment]") {
  // testGetRackAlternatedBrokerListAndAssignReplicasToBrokers: the rack-alternated
  // list is 0, 3, 1, 5, 4, 2; 7 partitions, RF 3, fixedStartIndex 0.
  const std::map<BrokerId, std::string> racks{{0, "rack1"}, {1, "rack3"}, {2, "rack3"},
                                              {3, "rack2"}, {4, "rack2"}, {5, "rack1"}};
  const ReplicaLists expected{{0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2}, {4, 2, 0}, {2, 0, 3}, {0, 4, 2}};
  CHECK(ksim::models::detail::assign_replicas(brokers_in_racks(racks), 7, 3, 0, 0) == expected);
}
