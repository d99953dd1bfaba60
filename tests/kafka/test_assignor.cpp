// The assignors' names and protocols, and what every assignor does alike.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/client/consumer/assignors/assignor.hpp"
#include "tests/support/assignor_checks.hpp"

using namespace ksim::models;
using namespace ksim::testing;

// ---------------------------------------------------------------------------
// Names and protocols

TEST_CASE("assignors are found by Kafka's short and class names", "[assignor]") {
  for (const std::string& name : assignor_names()) {
    const auto a = make_assignor(name);
    REQUIRE(a);
    CHECK(a->name() == name);
  }
  CHECK(assignor_names() == std::vector<std::string>{"range", "roundrobin", "sticky", "cooperative-sticky"});
  CHECK(make_assignor("org.apache.kafka.clients.consumer.RangeAssignor")->name() == "range");
  CHECK(make_assignor("org.apache.kafka.clients.consumer.RoundRobinAssignor")->name() == "roundrobin");
  CHECK(make_assignor("org.apache.kafka.clients.consumer.StickyAssignor")->name() == "sticky");
  CHECK(make_assignor("org.apache.kafka.clients.consumer.CooperativeStickyAssignor")->name() == "cooperative-sticky");
  CHECK(make_assignor("uniform") == nullptr);
  CHECK(make_assignor("Range") == nullptr);
  CHECK(make_assignor("") == nullptr);
}

TEST_CASE("supportedProtocols: only cooperative-sticky supports COOPERATIVE", "[assignor]") {
  using P = RebalanceProtocol;
  CHECK(make_assignor("range")->supported_protocols() == std::vector<P>{P::Eager});
  CHECK(make_assignor("roundrobin")->supported_protocols() == std::vector<P>{P::Eager});
  CHECK(make_assignor("sticky")->supported_protocols() == std::vector<P>{P::Eager});
  CHECK(make_assignor("cooperative-sticky")->supported_protocols() == std::vector<P>{P::Cooperative, P::Eager});
  CHECK(to_string(P::Eager) == "EAGER");
  CHECK(to_string(P::Cooperative) == "COOPERATIVE");
}

TEST_CASE("the consumer's protocol is the highest that all its assignors support", "[assignor]") {
  CHECK(common_protocol({"cooperative-sticky"}) == RebalanceProtocol::Cooperative);
  CHECK(common_protocol({"range", "cooperative-sticky"}) == RebalanceProtocol::Eager);  // KIP-429 upgrade path
  CHECK(common_protocol({"cooperative-sticky", "sticky"}) == RebalanceProtocol::Eager);
  CHECK(common_protocol({"range"}) == RebalanceProtocol::Eager);
  CHECK(common_protocol({"org.apache.kafka.clients.consumer.CooperativeStickyAssignor"}) ==
        RebalanceProtocol::Cooperative);
}

// ---------------------------------------------------------------------------
// Every member appears; determinism

TEST_CASE("every member appears, also one whose topics have no partitions", "[assignor]") {
  const Counts counts{{kTopic1, 2}};
  const Members members{member("a", {kTopic1}), member("b", {kTopic2}), member("c", {})};
  for (const std::string& name : assignor_names()) {
    const auto a = assign(name, counts, members);
    CHECK(a.size() == 3);
    CHECK(show(a, "a") == "1-0 1-1");
    CHECK(a.at("b").empty());
    CHECK(a.at("c").empty());
  }
  for (const std::string& name : assignor_names()) CHECK(assign(name, counts, {}).empty());
}

TEST_CASE("assignments are deterministic and independent of the members' order", "[assignor]") {
  const Counts counts{{0, 5}, {1, 3}, {2, 7}};
  Members members{member("m3", {0, 1, 2}, {tp(2, 0), tp(0, 4)}, 3), member("m1", {0, 2}, {tp(0, 0), tp(2, 1)}, 3),
                  member("m2", {1, 2}, {tp(0, 1)}, 2), member("m4", {0, 1, 2}, {}, -1)};
  for (const std::string& name : assignor_names()) {
    const auto expected = assign(name, counts, members);
    for (int i = 0; i < 5; ++i) CHECK(assign(name, counts, members) == expected);
    Members reversed(members.rbegin(), members.rend());
    CHECK(assign(name, counts, reversed) == expected);
  }
}
