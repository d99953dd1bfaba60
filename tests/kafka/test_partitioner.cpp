#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "models/client/producer/partitioner.hpp"
#include "models/client/producer/sticky_partitioner.hpp"

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

namespace {

// What the accumulator and metadata say: every partition led, queues as set.
struct FakeLoad final : PartitionLoad {
  explicit FakeLoad(std::int32_t partitions) : queues(static_cast<std::size_t>(partitions), 0) {
    for (std::int32_t p = 0; p < partitions; ++p) available.push_back(p);
  }
  const std::vector<std::int32_t>& available_partitions() override { return available; }
  std::size_t queued_batches(std::int32_t p) override { return queues[static_cast<std::size_t>(p)]; }
  std::vector<std::int32_t> available;
  std::vector<std::size_t> queues;
};

// One keyless append of `bytes` to a partition whose batches are full before and after
// (the batch was sent, or filled), as RecordAccumulator.append drives it.
std::int32_t append_full(StickyPartitioner& s, PartitionLoad& load, std::uint64_t bytes) {
  s.before_append(true, load);
  const std::int32_t p = s.current(load);
  s.after_append(bytes, true, load);
  return p;
}

}  // namespace

TEST_CASE("the sticky partition holds until batch.size bytes went to it with its batches full, then moves",
          "[partitioner]") {
  FakeLoad load(6);
  StickyPartitioner sticky(6, 1000, RandomStream(3), false);
  std::vector<int> visits(6, 0);
  for (int run = 0; run < 60; ++run) {
    const auto p = sticky.current(load);
    for (int i = 0; i < 10; ++i) {
      sticky.before_append(false, load);
      CHECK(sticky.current(load) == p);
      sticky.after_append(100, i == 9, load);  // the tenth fills the batch
    }
    ++visits[static_cast<std::size_t>(p)];
  }
  for (const int v : visits) CHECK(v > 3);  // drawn uniformly, the same one included
}

TEST_CASE("the sticky partition waits for its last batch to fill before it moves, up to twice batch.size",
          "[partitioner]") {
  // BuiltInPartitioner.updatePartitionInfo: at 1,300 bytes the open batch is
  // not full (enableSwitch false): the partition stays until 2,000 bytes.
  FakeLoad load(6);
  StickyPartitioner sticky(6, 1000, RandomStream(3), false);
  const auto p = sticky.current(load);
  for (int i = 1; i <= 6; ++i) {
    sticky.after_append(300, false, load);
    CHECK(sticky.current(load) == p);
  }
  sticky.after_append(300, false, load);  // 2,100: switches whatever the batch
  CHECK(sticky.produced() == 0);
  // And a batch sent meanwhile lets the next append switch first (partitionChanged).
  StickyPartitioner sent(6, 1000, RandomStream(3), false);
  sent.current(load);
  sent.after_append(1200, false, load);
  CHECK(sent.produced() == 1200);
  sent.before_append(true, load);
  CHECK(sent.produced() == 0);
}

TEST_CASE("partitions without a leader are never drawn, unless none has one", "[partitioner]") {
  FakeLoad load(6);
  load.available = {1, 4};
  StickyPartitioner sticky(6, 100, RandomStream(9), true);
  for (int i = 0; i < 200; ++i) {
    const auto p = append_full(sticky, load, 100);
    CHECK((p == 1 || p == 4));
  }
  load.available.clear();
  StickyPartitioner none(6, 100, RandomStream(9), true);
  std::vector<int> visits(6, 0);
  for (int i = 0; i < 600; ++i) ++visits[static_cast<std::size_t>(append_full(none, load, 100))];
  for (const int v : visits) CHECK(v > 50);
}

TEST_CASE("adaptive partitioning draws partitions with shorter queues more often, max + 1 - queue", "[partitioner]") {
  FakeLoad load(3);
  load.queues = {0, 3, 1};  // weights 4, 1, 3 (BuiltInPartitioner's own example)
  StickyPartitioner adaptive(3, 100, RandomStream(5), true);
  StickyPartitioner uniform(3, 100, RandomStream(5), false);
  std::vector<int> a(3, 0), u(3, 0);
  for (int i = 0; i < 8000; ++i) {
    ++a[static_cast<std::size_t>(append_full(adaptive, load, 100))];
    ++u[static_cast<std::size_t>(append_full(uniform, load, 100))];
  }
  CHECK(a[0] > 3600);  // 4/8 of 8000
  CHECK(a[0] < 4400);
  CHECK(a[1] > 800);   // 1/8
  CHECK(a[1] < 1200);
  CHECK(a[2] > 2700);  // 3/8
  CHECK(a[2] < 3300);
  for (const int v : u) CHECK(std::abs(v - 2667) < 300);
  load.queues = {2, 2, 2};  // equal queues: uniform
  std::vector<int> e(3, 0);
  for (int i = 0; i < 6000; ++i) ++e[static_cast<std::size_t>(append_full(adaptive, load, 100))];
  for (const int v : e) CHECK(std::abs(v - 2000) < 250);
}

TEST_CASE("the same seed gives the same sticky sequence", "[partitioner]") {
  const auto sequence = [](std::uint64_t seed) {
    FakeLoad load(8);
    StickyPartitioner sticky(8, 300, RandomStream(seed), true);
    std::vector<std::int32_t> out;
    for (int i = 0; i < 200; ++i) out.push_back(append_full(sticky, load, 100));
    return out;
  };
  CHECK(sequence(42) == sequence(42));
  CHECK(sequence(42) != sequence(43));
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
