#pragma once
// The records an application hands to its producer: when (Poisson or
// constant arrivals at `rate`), to which partition (the partitioner, from
// the key drawn) and how large. Drawn ahead on demand from a stream of its
// own, so the producer can look ahead and simulate only the arrivals that
// change something (see Producer::plan_arrivals).
#include <optional>
#include <vector>

#include "models/hardware/cpu_costs.hpp"
#include "models/protocol/kafka_types.hpp"
#include "models/protocol/record_format.hpp"
#include "models/client/producer/partitioner.hpp"
#include "sim/random/random.hpp"

namespace ksim::models {

struct ProducerWorkload {
  std::int32_t topic = 0;
  double rate_per_s = 1000;
  bool poisson = true;  // exponential gaps; false: constant gaps
  // Closed loop, as kafka-producer-perf-test --throughput -1: the application
  // calls send() again as soon as the last call returned, so records come as
  // fast as its thread's CPU allows (and send() blocking on buffer.memory
  // holds them back). Needs client CPU costs.
  bool closed_loop = false;
  // Paced by a consumer, as Kafka's end-to-end latency tool
  // (kafka.tools.EndToEndLatency): one record at `start`, then each next one
  // when a consumer has polled the last (Producer::record_polled).
  bool paced_by_consumer = false;
  ClientCpuCosts cpu;  // the client machine's costs: send() is never faster than these
  enum class Keys { None, Uniform, Zipf };
  Keys keys = Keys::None;
  std::uint64_t key_count = 1000;
  double zipf_exponent = 1.0;
  // keys.tombstones: the fraction of keyed records sent with a null value (a
  // delete of the key on a compacted topic); drawn only when above 0.
  double tombstone_fraction = 0;
  std::uint64_t record_bytes_min = 1024;  // uniform between min and max
  std::uint64_t record_bytes_max = 1024;
  SimTime start = 0;
  SimTime stop = kNever;
  SimTime warmup_end = 0;  // records sent before it are measured apart (the scenario's `warmup`)
  // A transactional producer's application: a transaction per this many records,
  // of which this fraction the application aborts instead of committing.
  std::uint64_t records_per_transaction = 100;
  double abort_probability = 0;
  // Records come from an application (a consume-transform-produce app calls
  // send_output), not from a rate; it also decides when transactions end.
  bool external = false;
};

// A keyless record for the built-in partitioner: its partition is chosen
// when it is appended (StickyPartitioner), not when it is drawn.
inline constexpr std::int32_t kStickyPartition = -1;

struct Arrival {
  SimTime at = 0;
  TopicPartition partition;  // partition kStickyPartition: the sticky partition at its append
  RecordShape record;        // its key's and value's sizes
};

class ArrivalStream {
 public:
  // `format`: the topic's, in which the sticky partitioner counts a record's
  // bytes; `linger`: linger.ms, when it takes a batch as sent.
  ArrivalStream(const ProducerWorkload& workload, std::int32_t partitions, std::uint64_t batch_size,
                RecordFormat format, SimTime linger, RandomStream rng, RandomStream partitioner_rng,
                PartitionerClass partitioner = PartitionerClass::BuiltIn, bool ignore_keys = false);

  // Forgets the arrivals drawn ahead; the next one comes a gap after `from`.
  void restart(SimTime from);
  // paced_by_consumer: the next record may come, at `at`.
  void release_one(SimTime at);
  // The i-th upcoming arrival (0: the next), or nullptr when there is none before `stop`.
  const Arrival* peek(std::size_t i);
  Arrival pop();

 private:
  bool draw_one();
  std::optional<std::uint64_t> draw_key();
  std::uint64_t draw_bytes();

  ProducerWorkload workload_;
  RecordFormat format_;
  RandomStream rng_;
  Partitioner partitioner_;
  PartitionerClass kind_;
  bool ignore_keys_;  // partitioner.ignore.keys: the built-in partitioner treats keyed records as keyless
  std::vector<double> zipf_cdf_;
  std::vector<Arrival> upcoming_;  // drawn ahead; the next is upcoming_[head_]
  std::size_t head_ = 0;
  SimTime last_ = 0;
  bool exhausted_ = false;  // past `stop`
  bool released_ = true;    // paced_by_consumer: the next record may be drawn (the first at `start`)
};

}  // namespace ksim::models
