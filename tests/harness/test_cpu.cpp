// CPU time as a resource (sim/cpu), the analytic flow model, hard-disk seeks
// and hardware profiles in scenarios.
#include <catch2/catch.hpp>

#include "app/scenario/scenario.hpp"
#include "models/hardware/disk.hpp"
#include "app/analysis/flow_model.hpp"
#include "sim/resources/cpu.hpp"
#include "tests/support/scenario_runner.hpp"

using namespace ksim;

namespace {

// As if the scenario were a file of scenarios/, so its profile is found there.
const std::string kScenarioFile = std::string(KSIM_SOURCE_DIR) + "/scenarios/test.yaml";
app::Scenario scenario_of(const std::string& yaml) { return testing::parse_scenario(yaml, kScenarioFile); }
std::string error_of(const std::string& yaml) { return testing::scenario_error(yaml, kScenarioFile); }

}  // namespace

TEST_CASE("a thread pool runs jobs in submission order on its free threads", "[cpu]") {
  Cpu cpu(4);
  ThreadPool pool(2, cpu);
  CHECK(pool.run(0, 100) == 100);  // thread 0
  CHECK(pool.run(0, 100) == 100);  // thread 1
  CHECK(pool.run(0, 100) == 200);  // waits for a thread
  CHECK(pool.run(500, 10) == 510); // both free again
  CHECK(pool.busy_ns() == 310);
  CHECK(pool.jobs() == 4);
}

TEST_CASE("a job pinned to a thread waits for that thread, as a connection's network processor", "[cpu]") {
  Cpu cpu(4);
  ThreadPool pool(3, cpu);
  CHECK(pool.run(0, 100, 1) == 100);
  CHECK(pool.run(0, 100, 1) == 200);  // the same thread, though others are idle
  CHECK(pool.run(0, 100, 4) == 300);  // 4 % 3 == 1: the same thread again
  CHECK(pool.run(0, 100) == 100);     // any thread: an idle one
}

TEST_CASE("threads of every pool share the machine's cores", "[cpu]") {
  Cpu cpu(1);
  ThreadPool a(4, cpu);
  ThreadPool b(4, cpu);
  CHECK(a.run(0, 100) == 100);
  CHECK(b.run(0, 100) == 200);  // a thread is free, the only core is not
  CHECK(a.run(0, 50) == 250);
  CHECK(cpu.busy_ns() == 250);
  cpu.reset(10);  // a crash drops the queued work
  a.reset(10);
  CHECK(a.run(10, 5) == 15);
}

TEST_CASE("the flow model solves the traffic equations and finds the bottleneck", "[analytic]") {
  // Work enters A; 30% of it goes on to B, which sends half of what it gets back to A.
  models::FlowModel m;
  const auto a = m.add_stage("A", 1.0);
  const auto b = m.add_stage("B", 0.0);
  m.route(a, b, 0.3);
  m.route(b, a, 0.5);
  const auto cpu = m.add_resource("cpu", "broker_cpu", 2.0);  // two cores
  const auto disk = m.add_resource("disk", "disk", 1.0);
  m.demand(cpu, a, 0.001);
  m.demand(disk, b, 0.004);
  // v_A = 1 + 0.5 v_B, v_B = 0.3 v_A: v_A = 1/0.85, v_B = 0.3/0.85.
  const auto s = m.solve(100);
  const double va = 1 / 0.85, vb = 0.3 / 0.85;
  CHECK(s.resources[cpu].utilization == Approx(100 * 0.001 * va / 2));
  CHECK(s.resources[disk].utilization == Approx(100 * 0.004 * vb));
  CHECK(s.bottleneck == disk);
  CHECK(s.max_throughput == Approx(1 / (0.004 * vb)));
}

TEST_CASE("a hard disk seeks when write-back moves to another file, not along one", "[disk]") {
  models::DiskSpec spec;
  spec.write_latency = 0;
  spec.write_bytes_per_s = 1e9;
  spec.seek_time = milliseconds(8);
  models::Disk one(spec), many(spec);
  for (int i = 0; i < 10; ++i) {
    (void)one.write(1000, 0, 7);
    (void)many.write(1000, 0, static_cast<std::uint64_t>(i + 1));
  }
  CHECK(one.seeks() == 1);  // the first write moves the head to the file
  CHECK(many.seeks() == 10);
  CHECK(many.busy_ns() - one.busy_ns() == 9 * milliseconds(8));
  spec.seek_time = 0;  // an SSD
  models::Disk ssd(spec);
  for (int i = 0; i < 10; ++i) (void)ssd.write(1000, 0, static_cast<std::uint64_t>(i));
  CHECK(ssd.seeks() == 0);
}

TEST_CASE("a profile sets the machines, the scenario's own settings and overrides win", "[profile]") {
  const auto s = scenario_of(R"(
profile: {name: linkedin-2014, cores: 12, broker_costs: {record: 1us}}
brokers: {count: 3, config: {num.io.threads: 16}}
topics: [{name: t}]
producers: [{rate: max}]
)");
  REQUIRE(s.profile);
  CHECK(s.profile->cores == 12);
  const auto& k = *s.kafka;
  CHECK(k.broker.threading.cores == 12);
  CHECK(k.broker.threading.num_network_threads == 4);  // the profile's
  CHECK(k.broker.threading.num_io_threads == 16);      // the scenario's
  CHECK(k.broker.cpu_costs.record == microseconds(1));
  CHECK(k.broker.log_dirs.size() == 6);  // six disks as JBOD
  CHECK(k.broker.log_dirs[0].disk.seek_time == milliseconds(8));
  CHECK(k.broker.page_cache_bytes == (32ULL - 6) << 30);
  CHECK(s.network.host_link.bandwidth_bytes_per_s == Approx(125e6));
  CHECK(k.controller.election_time_per_partition == milliseconds(5));
  CHECK(k.producers[0].workload.closed_loop);
  CHECK(k.producers[0].workload.cpu.enabled());
}

TEST_CASE("every shipped profile loads", "[profile]") {
  for (const char* name : {"laptop-ssd", "aws-i3en-2xlarge", "aws-i3en-6xlarge", "linkedin-2014"}) {
    const auto s = scenario_of(std::string("profile: ") + name + "\nbrokers: {count: 1}\n");
    INFO(name);
    REQUIRE(s.profile);
    CHECK(s.kafka->broker.threading.cores > 0);
    CHECK(s.kafka->broker.cpu_costs.any());
  }
  CHECK(scenario_of("profile: aws-i3en-2xlarge\nbrokers: {count: 1}\n").kafka->broker.log_dirs.size() == 2);
  const auto six = scenario_of("profile: aws-i3en-6xlarge\nbrokers: {count: 1}\n");
  REQUIRE(six.kafka->broker.log_dirs.size() == 2);
  CHECK(six.kafka->broker.log_dirs[0].disk.write_bytes_per_s == Approx(819.2e6));  // AWS's 400,000 write IOPS of 4 KiB over 2 drives
  CHECK(six.kafka->broker.threading.cores == 24);
}

TEST_CASE("a bad profile is a clear error naming the key", "[profile]") {
  CHECK_THAT(error_of("profile: laptop\nbrokers: {count: 1}\n"),
             Catch::Contains("no profile 'laptop'") && Catch::Contains("laptop-ssd") && Catch::Contains("test.yaml:1:10"));
  CHECK_THAT(error_of("profile: {name: laptop-ssd, corse: 4}\nbrokers: {count: 1}\n"),
             Catch::Contains("profile.corse") && Catch::Contains("did you mean 'cores'"));
  CHECK_THAT(error_of("brokers: {count: 1}\ntopics: [{name: t}]\nproducers: [{rate: max}]\n"),
             Catch::Contains("producers.0.rate") && Catch::Contains("needs client CPU costs"));
}

TEST_CASE("the page cache merges a file's appends into large write-back I/Os, an fsync ends one", "[disk]") {
  models::DiskSpec spec;
  spec.write_latency = microseconds(50);
  spec.write_bytes_per_s = 1e9;
  spec.writeback_io_bytes = 100000;
  models::Disk disk(spec);
  for (int i = 0; i < 100; ++i) (void)disk.write(1000, 0, 7);  // 100 KB: one I/O
  CHECK(disk.writeback_ios() == 1);
  CHECK(disk.busy_ns() == microseconds(50) + microseconds(100));
  (void)disk.write(1000, 0, 7);  // past the largest I/O: a second one
  CHECK(disk.writeback_ios() == 2);
  (void)disk.write(1000, spec.writeback_interval, 7);  // the flusher took the pages: a third
  CHECK(disk.writeback_ios() == 3);
  spec.flush_latency = milliseconds(8);
  models::Disk synced(spec);
  (void)synced.write(1000, 0, 1);
  CHECK(synced.flush(0, 1) == microseconds(51) + milliseconds(8));
  (void)synced.write(1000, 0, 1);  // after the fsync: a new I/O
  CHECK(synced.writeback_ios() == 2);
}
