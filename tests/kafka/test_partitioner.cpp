#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/client/producer/partitioner.hpp"

using namespace ksim;
using namespace ksim::models;

TEST_CASE("murmur2 gives the values of Kafka's UtilsTest.testMurmur2", "[partitioner]") {
  CHECK(murmur2("21") == -973932308);
  CHECK(murmur2("foobar") == -790332482);
  CHECK(murmur2("a-little-bit-long-string") == -985981536);
  CHECK(murmur2("a-little-bit-longer-string") == -1486304829);
  CHECK(murmur2("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8") == -58897971);
  const std::vector<std::uint8_t> abc{'a', 'b', 'c'};
  CHECK(murmur2(abc) == 479470107);
}

TEST_CASE("to_positive clears the sign bit, as Kafka's Utils.toPositive", "[partitioner]") {
  CHECK(to_positive(-973932308) == (-973932308 & 0x7fffffff));
  CHECK(to_positive(-1) == 0x7fffffff);
  CHECK(to_positive(INT32_MIN) == 0);
  CHECK(to_positive(42) == 42);
}

TEST_CASE("a keyed record goes to toPositive(murmur2(key)) % partitions, always the same", "[partitioner]") {
  Partitioner a(12, 16384, RandomStream(1));
  Partitioner b(12, 16384, RandomStream(2));
  CHECK(a.partition("21", 100) == to_positive(-973932308) % 12);
  for (int i = 0; i < 100; ++i) {
    const std::string key = "key-" + std::to_string(i);
    const auto p = a.partition(key, 100);
    CHECK(a.partition(key, 100) == p);
    CHECK(b.partition(key, 100) == p);  // the key alone decides
  }
}

TEST_CASE("keys spread roughly uniformly over the partitions", "[partitioner]") {
  Partitioner partitioner(12, 16384, RandomStream(7));
  std::vector<int> counts(12, 0);
  for (int i = 0; i < 12'000; ++i) ++counts[static_cast<std::size_t>(partitioner.partition("key-" + std::to_string(i), 100))];
  for (const int count : counts) {
    CHECK(count > 850);  // expected 1000, standard deviation about 30
    CHECK(count < 1150);
  }
}

TEST_CASE("the sticky partition holds until batch.size bytes, then moves to another", "[partitioner]") {
  Partitioner partitioner(6, 1000, RandomStream(3));
  std::int32_t previous = -1;
  for (int run = 0; run < 50; ++run) {
    const auto sticky = partitioner.partition(std::nullopt, 100);
    CHECK(sticky != previous);
    for (int i = 1; i < 10; ++i) CHECK(partitioner.partition(std::nullopt, 100) == sticky);  // 1000 bytes in all
    previous = sticky;
  }
}

TEST_CASE("keyed records do not count towards the sticky partition's batch", "[partitioner]") {
  Partitioner partitioner(6, 1000, RandomStream(3));
  const auto sticky = partitioner.partition(std::nullopt, 500);
  for (int i = 0; i < 20; ++i) partitioner.partition("key-" + std::to_string(i), 500);
  CHECK(partitioner.partition(std::nullopt, 400) == sticky);
  CHECK(partitioner.partition(std::nullopt, 100) == sticky);  // reaches 1000 bytes
  CHECK(partitioner.partition(std::nullopt, 100) != sticky);
}

TEST_CASE("the sticky partitioner visits every partition over time", "[partitioner]") {
  Partitioner partitioner(5, 100, RandomStream(11));
  std::vector<int> visits(5, 0);
  for (int i = 0; i < 500; ++i) ++visits[static_cast<std::size_t>(partitioner.partition(std::nullopt, 100))];
  for (const int v : visits) CHECK(v > 50);
}

TEST_CASE("a single partition takes every record", "[partitioner]") {
  Partitioner partitioner(1, 100, RandomStream(5));
  for (int i = 0; i < 10; ++i) CHECK(partitioner.partition(std::nullopt, 60) == 0);
  CHECK(partitioner.partition("k", 60) == 0);
}

TEST_CASE("the same seed gives the same sticky sequence", "[partitioner]") {
  const auto sequence = [](std::uint64_t seed) {
    Partitioner partitioner(8, 300, RandomStream(seed));
    std::vector<std::int32_t> out;
    for (int i = 0; i < 200; ++i) out.push_back(partitioner.partition(std::nullopt, 100));
    return out;
  };
  CHECK(sequence(42) == sequence(42));
  CHECK(sequence(42) != sequence(43));
}

TEST_CASE("the sticky partition waits for its last batch to fill before it moves, up to twice batch.size",
          "[partitioner]") {
  // batch.size 1000 and a 61-byte batch header: three 300-byte records fill a
  // batch to 961; the fourth opens a batch, so at 1,322 bytes produced the
  // last batch is not full and the partition stays (enableSwitch false) until
  // the seventh record opens a third batch and passes 2,000 bytes.
  Partitioner partitioner(6, 1000, RandomStream(3), 61);
  const auto sticky = partitioner.partition(std::nullopt, 300);
  for (int i = 2; i <= 7; ++i) {
    INFO("record " << i);
    CHECK(partitioner.partition(std::nullopt, 300) == sticky);
  }
  const auto next = partitioner.partition(std::nullopt, 300);
  CHECK(next != sticky);
  // Records of 313 bytes fill a batch exactly (61 + 3 x 313 = 1000): it is full at batch.size, so the partition moves at once.
  Partitioner exact(6, 1000, RandomStream(3), 61);
  const auto first = exact.partition(std::nullopt, 313);
  CHECK(exact.partition(std::nullopt, 313) == first);
  CHECK(exact.partition(std::nullopt, 313) == first);
  CHECK(exact.partition(std::nullopt, 313) != first);
}

TEST_CASE("a sticky batch sent at linger.ms counts as full: the partition moves only once batch.size went to it",
          "[partitioner]") {
  // BuiltInPartitioner.java's own example, scaled: batch.size 1000, linger.ms
  // 500, a 100-byte record every 80 ms. The first batch lingers out with 700
  // bytes (not enough to switch); the second passes 1,000 bytes produced but
  // is not full, so the partition stays; it lingers out too, and the next
  // record switches: batches of 700 and 700, not 700 and 300.
  Partitioner partitioner(6, 1000, RandomStream(3), 0, milliseconds(500));
  const auto sticky = partitioner.partition(std::nullopt, 100, 0);
  for (int i = 2; i <= 14; ++i) {
    INFO("record " << i);
    CHECK(partitioner.partition(std::nullopt, 100, milliseconds(80) * (i - 1)) == sticky);
  }
  CHECK(partitioner.partition(std::nullopt, 100, milliseconds(80) * 14) != sticky);
}

TEST_CASE("RoundRobinPartitioner sends every record, keyed or not, to the next partition in turn from 0",
          "[partitioner]") {
  Partitioner partitioner(6, 1000, RandomStream(5), 0, kNever, PartitionerClass::RoundRobin);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60; ++i) {
    const std::optional<std::string> key = i % 2 ? std::optional<std::string>("same-key") : std::nullopt;
    const auto p = partitioner.partition(key, 100);
    CHECK(p == i % 6);  // the key is ignored, as Kafka's RoundRobinPartitioner ignores it
    ++counts[static_cast<std::size_t>(p)];
  }
  for (const int count : counts) CHECK(count == 10);
}

TEST_CASE("DefaultPartitioner (KIP-480) moves a keyless record to another partition whenever it would open a batch",
          "[partitioner]") {
  SECTION("a full batch: batch.size 1000 holds ten records of 100 bytes, the eleventh moves") {
    Partitioner partitioner(6, 1000, RandomStream(3), 0, kNever, PartitionerClass::StickyOnNewBatch);
    std::int32_t previous = -1;
    for (int run = 0; run < 30; ++run) {
      const auto sticky = partitioner.partition(std::nullopt, 100);
      CHECK(sticky != previous);
      for (int i = 1; i < 10; ++i) CHECK(partitioner.partition(std::nullopt, 100) == sticky);
      previous = sticky;
    }
  }
  SECTION("a sent batch: linger.ms after its first record the next record moves, the batch half full") {
    Partitioner partitioner(6, 1000, RandomStream(4), 0, milliseconds(10), PartitionerClass::StickyOnNewBatch);
    const auto first = partitioner.partition(std::nullopt, 100, 0);
    CHECK(partitioner.partition(std::nullopt, 100, milliseconds(9)) == first);
    CHECK(partitioner.partition(std::nullopt, 100, milliseconds(10)) != first);
  }
  SECTION("keyed records go by their key's hash, as with the built-in partitioner") {
    Partitioner partitioner(12, 16384, RandomStream(1), 0, kNever, PartitionerClass::StickyOnNewBatch);
    CHECK(partitioner.partition("21", 100) == to_positive(-973932308) % 12);
  }
}
