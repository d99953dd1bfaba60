// The same two checks as guarantees_catch2.cpp, with GoogleTest.
#include <gtest/gtest.h>

#include <ksim/ksim.hpp>

TEST(DeliveryGuarantees, RetriesWithoutIdempotenceDuplicate) {
  ksim::Scenario payments = ksim::Scenario::load(PAYMENTS_SCENARIO);
  payments.set("producers.0.config[enable.idempotence]", "false");
  ksim::Cluster cluster(payments);
  cluster.run();
  const ksim::Report report = cluster.report();
  ASSERT_TRUE(report.delivery.has_value());
  EXPECT_TRUE(report.delivery->at_least_once);
  EXPECT_GT(report.delivery->duplicated, 0u);
  EXPECT_FALSE(report.delivery->exactly_once);
}

TEST(DeliveryGuarantees, IdempotenceGivesExactlyOnce) {
  ksim::Scenario payments = ksim::Scenario::load(PAYMENTS_SCENARIO);
  payments.set("producers.0.config[enable.idempotence]", "true");
  ksim::Cluster cluster(payments);
  cluster.run();
  const ksim::Report report = cluster.report();
  ASSERT_TRUE(report.delivery.has_value());
  EXPECT_TRUE(report.delivery->exactly_once) << report.text;
}
