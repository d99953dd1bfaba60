// KIP-73's replication quota as Kafka's Rate measures it (11 samples of 1 s,
// divided by at least 10 s): a burst of about ten seconds' worth passes,
// then the rate holds; samples older than the window are forgotten.
#include <catch2/catch.hpp>

#include "models/broker/replication_quota.hpp"

using ksim::models::ReplicationQuota;
using ksim::seconds;

TEST_CASE("the replication quota measures bytes as Kafka's Rate", "[kip455][quota]") {
  ReplicationQuota quota;
  CHECK_FALSE(quota.enabled());
  CHECK_FALSE(quota.exceeded(0));
  quota.set_rate(1e6);
  quota.record(5'000'000, 0);
  CHECK(quota.measured(0) == Approx(0.5e6));  // 5 MB over the minimum 10 s
  CHECK_FALSE(quota.exceeded(0));
  quota.record(6'000'000, seconds(2));
  CHECK(quota.measured(seconds(2)) == Approx(1.1e6));
  CHECK(quota.exceeded(seconds(2)));
  // Past ten full windows the elapsed time counts as it is.
  CHECK(quota.measured(seconds(10) + seconds(1) / 2) == Approx(11e6 / 10.5));
  // Eleven seconds after it began, the first sample leaves the window.
  CHECK(quota.measured(seconds(11)) == Approx(0.6e6));
  CHECK(quota.measured(seconds(14)) == 0);
}
