#include <catch2/catch.hpp>

#include "app/scenario/units.hpp"

using namespace ksim;
using namespace ksim::units;

namespace {

template <class T>
T parsed(const ParseResult<T>& result) {
  INFO("parse error: " << result.error());
  REQUIRE(result.ok());
  return result.value();
}

template <class T>
std::string failure(const ParseResult<T>& result) {
  REQUIRE_FALSE(result.ok());
  return result.error();
}

}  // namespace

TEST_CASE("durations parse with every supported unit", "[units][duration]") {
  CHECK(parsed(parse_duration("250ms")) == milliseconds(250));
  CHECK(parsed(parse_duration("10s")) == seconds(10));
  CHECK(parsed(parse_duration("1.5s")) == milliseconds(1500));
  CHECK(parsed(parse_duration("20us")) == microseconds(20));
  CHECK(parsed(parse_duration("100ns")) == nanoseconds(100));
  CHECK(parsed(parse_duration("2m")) == seconds(120));
  CHECK(parsed(parse_duration("1h")) == seconds(3600));
  CHECK(parsed(parse_duration(" 5ms ")) == milliseconds(5));
}

TEST_CASE("a bare zero is a valid duration but other bare numbers are not", "[units][duration]") {
  CHECK(parsed(parse_duration("0")) == 0);
  CHECK_THAT(failure(parse_duration("10")), Catch::Contains("missing unit, e.g. 250ms"));
}

TEST_CASE("durations round to the nearest nanosecond", "[units][duration]") {
  CHECK(parsed(parse_duration("1.5ns")) == 2);
  CHECK(parsed(parse_duration("1.4ns")) == 1);
  CHECK(parsed(parse_duration("0.0000000014s")) == 1);
  CHECK(parsed(parse_duration("0.333333333333s")) == 333'333'333);
}

TEST_CASE("bad durations are rejected with a reason", "[units][duration]") {
  CHECK_THAT(failure(parse_duration("-5ms")), Catch::Contains("negative"));
  CHECK_THAT(failure(parse_duration("5sec")), Catch::Contains("unknown unit 'sec'"));
  CHECK_THAT(failure(parse_duration("ms")), Catch::Contains("not a number"));
  CHECK_THAT(failure(parse_duration("")), Catch::Contains("empty"));
  CHECK_THAT(failure(parse_duration("1.s")), Catch::Contains("not a number"));
  CHECK_THAT(failure(parse_duration("3000000h")), Catch::Contains("too large"));
  CHECK_THAT(failure(parse_duration("99999999999999999999ns")), Catch::Contains("too large"));
}

TEST_CASE("sizes distinguish decimal KB from binary KiB", "[units][bytes]") {
  CHECK(parsed(parse_bytes("16KB")) == 16'000);
  CHECK(parsed(parse_bytes("16KiB")) == 16'384);
  CHECK(parsed(parse_bytes("1MB")) == 1'000'000);
  CHECK(parsed(parse_bytes("1MiB")) == 1'048'576);
  CHECK(parsed(parse_bytes("1GB")) == 1'000'000'000);
  CHECK(parsed(parse_bytes("1GiB")) == 1'073'741'824);
  CHECK(parsed(parse_bytes("1TB")) == 1'000'000'000'000);
  CHECK(parsed(parse_bytes("1TiB")) == 1'099'511'627'776);
  CHECK(parsed(parse_bytes("512B")) == 512);
  CHECK(parsed(parse_bytes("1.5KiB")) == 1'536);
}

TEST_CASE("a bare whole number is a size in bytes", "[units][bytes]") {
  CHECK(parsed(parse_bytes("4096")) == 4096);
  CHECK_THAT(failure(parse_bytes("1.5")), Catch::Contains("whole number of bytes"));
}

TEST_CASE("bad sizes are rejected with a reason", "[units][bytes]") {
  CHECK_THAT(failure(parse_bytes("16kb")), Catch::Contains("unknown unit 'kb'"));
  CHECK_THAT(failure(parse_bytes("-1B")), Catch::Contains("negative"));
  CHECK_THAT(failure(parse_bytes("20000000TiB")), Catch::Contains("too large"));
}

TEST_CASE("rates are events per second with time units and k/M multipliers", "[units][rate]") {
  CHECK(parsed(parse_rate("10000/s")) == Approx(10'000));
  CHECK(parsed(parse_rate("50/ms")) == Approx(50'000));
  CHECK(parsed(parse_rate("10k/s")) == Approx(10'000));
  CHECK(parsed(parse_rate("1.5k/s")) == Approx(1'500));
  CHECK(parsed(parse_rate("2M/s")) == Approx(2'000'000));
  CHECK(parsed(parse_rate("3/us")) == Approx(3'000'000));
  CHECK(parsed(parse_rate("60/m")) == Approx(1));
  CHECK(parsed(parse_rate("7200/h")) == Approx(2));
  CHECK(parsed(parse_rate("0")) == 0.0);
}

TEST_CASE("bad rates are rejected with a reason", "[units][rate]") {
  CHECK_THAT(failure(parse_rate("100")), Catch::Contains("missing unit"));
  CHECK_THAT(failure(parse_rate("10/sec")), Catch::Contains("unknown unit '/sec'"));
  CHECK_THAT(failure(parse_rate("10x/s")), Catch::Contains("unknown unit"));
}

TEST_CASE("bandwidth in bits per second uses decimal prefixes", "[units][bandwidth]") {
  CHECK(parsed(parse_bandwidth("1Gbps")) == Approx(125e6));
  CHECK(parsed(parse_bandwidth("10Gbps")) == Approx(1.25e9));
  CHECK(parsed(parse_bandwidth("25Gbps")) == Approx(3.125e9));
  CHECK(parsed(parse_bandwidth("100Mbps")) == Approx(12.5e6));
  CHECK(parsed(parse_bandwidth("500Kbps")) == Approx(62'500));
  CHECK(parsed(parse_bandwidth("1bps")) == Approx(0.125));
}

TEST_CASE("bandwidth in bytes per second accepts any size unit", "[units][bandwidth]") {
  CHECK(parsed(parse_bandwidth("100MB/s")) == Approx(1e8));
  CHECK(parsed(parse_bandwidth("327MB/s")) == Approx(3.27e8));
  CHECK(parsed(parse_bandwidth("1GiB/s")) == Approx(1'073'741'824.0));
}

TEST_CASE("bits and bytes per second differ by a factor of eight", "[units][bandwidth]") {
  CHECK(parsed(parse_bandwidth("8Mbps")) == Approx(parsed(parse_bandwidth("1MB/s"))));
  CHECK(parsed(parse_bandwidth("1Gbps")) != Approx(parsed(parse_bandwidth("1GB/s"))));
}

TEST_CASE("bad bandwidths are rejected with a reason", "[units][bandwidth]") {
  CHECK_THAT(failure(parse_bandwidth("100")), Catch::Contains("missing unit"));
  CHECK_THAT(failure(parse_bandwidth("1Gb")), Catch::Contains("unknown unit 'Gb'"));
  CHECK_THAT(failure(parse_bandwidth("1GBps")), Catch::Contains("unknown unit 'GBps'"));
  CHECK_THAT(failure(parse_bandwidth("1Gib/s")), Catch::Contains("unknown unit 'Gib/s'"));
}

TEST_CASE("fractions are plain numbers or percentages", "[units][fraction]") {
  CHECK(parsed(parse_fraction("0.25")) == Approx(0.25));
  CHECK(parsed(parse_fraction("50%")) == Approx(0.5));
  CHECK(parsed(parse_fraction("1e-3")) == Approx(0.001));
  CHECK_THAT(failure(parse_fraction("half")), Catch::Contains("not a number"));
  CHECK_THAT(failure(parse_fraction("%")), Catch::Contains("not a number"));
}

TEST_CASE("durations format with the largest fitting unit", "[units][format]") {
  CHECK(format_duration(milliseconds(250)) == "250ms");
  CHECK(format_duration(milliseconds(1500)) == "1.5s");
  CHECK(format_duration(microseconds(20)) == "20us");
  CHECK(format_duration(nanoseconds(7)) == "7ns");
  CHECK(format_duration(seconds(3600)) == "1h");
  CHECK(format_duration(0) == "0s");
}

TEST_CASE("sizes format exactly in decimal or binary units", "[units][format]") {
  CHECK(format_bytes(16'384) == "16KiB");
  CHECK(format_bytes(16'000) == "16KB");
  CHECK(format_bytes(1'536) == "1.5KiB");
  CHECK(format_bytes(1'500) == "1.5KB");
  CHECK(format_bytes(2'048'000) == "2000KiB");
  CHECK(format_bytes(1'048'576) == "1MiB");
  CHECK(format_bytes(512) == "512B");
  CHECK(format_bytes(0) == "0B");
}

TEST_CASE("bandwidth and rates format in bits per second and events per second", "[units][format]") {
  CHECK(format_bandwidth(125e6) == "1Gbps");
  CHECK(format_bandwidth(12.5e6) == "100Mbps");
  CHECK(format_bandwidth(62'500) == "500Kbps");
  CHECK(format_rate(10'000) == "10k/s");
  CHECK(format_rate(0.5) == "30/m");
}

TEST_CASE("formatted quantities parse back to the same value", "[units][format]") {
  for (const SimTime d : {milliseconds(250), microseconds(1500), seconds(90), nanoseconds(1)}) {
    CHECK(parsed(parse_duration(format_duration(d))) == d);
  }
  for (const std::uint64_t b : {std::uint64_t{1536}, std::uint64_t{16'000}, std::uint64_t{1} << 40}) {
    CHECK(parsed(parse_bytes(format_bytes(b))) == b);
  }
  CHECK(parsed(parse_bandwidth(format_bandwidth(3.125e9))) == Approx(3.125e9));
  CHECK(parsed(parse_rate(format_rate(2'500))) == Approx(2'500));
}
