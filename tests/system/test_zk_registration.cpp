// A ZooKeeper-era broker restarted while its previous session lives finds
// its registration taken (NODEEXISTS): Kafka's KafkaServer.startup fails
// before the socket server processes requests and before the controller
// starts. ksim's broker refuses every connection and its side stands for no
// election until it registers (models/controller/zk_controller.cpp).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "app/harness/cluster.hpp"
#include "tests/support/scenario_runner.hpp"

TEST_CASE("ZooKeeper era: a broker whose registration is still taken serves nothing until it registers",
          "[zookeeper][system]") {
  // auto-created-topic on 2.8 (seed 1): the topic's one replica is on broker-1, which loses power at 30 s and is
  // back at 33 s; its old session lives until about 48 s. The controller (broker-0, crashed at 20 s) is gone
  // until its own session expires at 38 s, and the next one tells the brokers what ZooKeeper holds: broker-1
  // leads the partition in epoch 0. Served at 38 s, that made broker-1 leader in epoch 0 with the log the power
  // loss emptied. Refusing until it registers again, it hears nothing before its old session is gone.
  std::ifstream file(std::string(KSIM_SOURCE_DIR) + "/scenarios/auto-created-topic.yaml");
  std::stringstream yaml;
  yaml << file.rdbuf() << "\nkafka_version: \"2.8\"\n";
  const auto scenario = ksim::testing::parse_scenario(yaml.str());
  ksim::app::Cluster cluster(scenario, ksim::app::RunOptions{});
  std::vector<ksim::SimTime> led_at;
  cluster.model_events()->subscribe([&](ksim::SimTime t, const ksim::Node&, const ksim::models::ModelEvent& e) {
    const auto* l = std::get_if<ksim::models::BecameLeader>(&e);
    if (l && l->broker == 1 && l->partition == ksim::models::TopicPartition{0, 0}) led_at.push_back(t);
  });
  cluster.run();
  REQUIRE(!led_at.empty());
  CHECK(led_at.back() > ksim::seconds(48));  // from a new epoch, once it registered again
  for (const ksim::SimTime t : led_at) {
    INFO("broker-1 led orders-0 at " << t);
    CHECK((t < ksim::seconds(30) || t > ksim::seconds(48)));
  }
  const auto report = ksim::app::make_report(cluster, 0);
  CHECK(report.kafka->invariant_violations == 0);
  CHECK(report.kafka->delivery.lost > 1000);  // the power loss of the only replica still loses
}
