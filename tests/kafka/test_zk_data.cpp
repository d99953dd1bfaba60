// The topic znode's JSON (Kafka's TopicZNode, version 2 with KIP-455's
// adding_replicas and removing_replicas): what the controller writes is what
// it reads back.
#include <catch2/catch.hpp>
#include <string>
#include <vector>
#include "models/controller/zk_data.hpp"

using ksim::models::zk_data::decode_assignment;
using ksim::models::zk_data::encode_assignment;
using ksim::models::zk_data::PartitionAssignment;

TEST_CASE("zk data: a topic znode's assignment reads back as written, reassignments included", "[zookeeper]") {
  const std::vector<PartitionAssignment> written = {
      {{0, 1, 2}, {}, {}},
      {{3, 1, 2, 0}, {3}, {0}},  // moving 0 -> 3: the target first, then the replica being removed
      {{2, 0}, {}, {}},
  };
  const auto read = decode_assignment(encode_assignment(written));
  REQUIRE(read);
  CHECK(*read == written);
  CHECK_FALSE((*read)[0].reassigning());
  CHECK((*read)[1].reassigning());
}

TEST_CASE("zk data: a topic znode without the KIP-455 fields (before 2.4) has nothing being reassigned",
          "[zookeeper]") {
  const auto read = decode_assignment(R"({"version":1,"partitions":{"0":[1,2],"1":[2,0]}})");
  REQUIRE(read);
  REQUIRE(read->size() == 2);
  CHECK((*read)[1].replicas == std::vector<ksim::models::BrokerId>{2, 0});
  CHECK((*read)[1].adding.empty());
  CHECK((*read)[1].removing.empty());
}

TEST_CASE("zk data: a topic znode that is not an assignment is refused", "[zookeeper]") {
  CHECK_FALSE(decode_assignment("not json"));
  CHECK_FALSE(decode_assignment(R"({"version":2})"));
  CHECK_FALSE(decode_assignment(R"({"version":2,"partitions":[1,2]})"));
}

TEST_CASE("zk data: a topic of 10,000 partitions reads back whole", "[zookeeper]") {
  std::vector<std::vector<ksim::models::BrokerId>> replicas;
  for (int p = 0; p < 10000; ++p) replicas.push_back({p % 6, (p + 1) % 6, (p + 2) % 6});
  const auto read = decode_assignment(encode_assignment(replicas));
  REQUIRE(read);
  REQUIRE(read->size() == 10000);
  CHECK((*read)[9999].replicas == std::vector<ksim::models::BrokerId>{9999 % 6, 10000 % 6, 10001 % 6});
}
