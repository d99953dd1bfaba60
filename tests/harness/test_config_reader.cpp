#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "app/scenario/config_reader.hpp"

using namespace ksim;
using namespace ksim::config;

namespace {

Document parse(const std::string& text) { return Document::from_string(text, "scenario.yaml"); }

// Runs `action` and returns the ConfigError it must throw.
template <class Action>
ConfigError error_from(Action&& action) {
  try {
    action();
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError");
  throw std::logic_error("unreachable");
}

// Runs `action` and returns the error it recorded on `doc` (reading goes on), or threw.
template <class Action>
ConfigError error_from(const Document& doc, Action&& action) {
  const std::size_t before = doc.errors().size();
  try {
    action();
  } catch (const ConfigError& e) {
    return e;
  }
  if (doc.errors().size() > before) return doc.errors().back();
  FAIL("expected a ConfigError");
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("reading a nested scenario returns typed values", "[config]") {
  const Document doc = parse(
      "brokers: 3\n"
      "name: baseline\n"
      "tls: true\n"
      "network:\n"
      "  latency: 250us\n"
      "  bandwidth: 10Gbps\n"
      "  loss: 1%\n"
      "producer:\n"
      "  rate: 10k/s\n"
      "  batch: 16KiB\n"
      "  skew: 1.25\n");
  MapReader root = doc.root();
  CHECK(root.required<int>("brokers") == 3);
  CHECK(root.get<std::string>("name", "x") == "baseline");
  CHECK(root.get<bool>("tls", false));
  MapReader network = root.map("network");
  CHECK(network.get<Duration>("latency", 0) == microseconds(250));
  CHECK(network.get<Bandwidth>("bandwidth", 0) == Approx(1.25e9));
  CHECK(network.get<Fraction>("loss", 0) == Approx(0.01));
  MapReader producer = root.map("producer");
  CHECK(producer.get<Rate>("rate", 0) == Approx(10'000));
  CHECK(producer.get<Bytes>("batch", 0) == 16'384);
  CHECK(producer.get<double>("skew", 1.0) == Approx(1.25));
  CHECK_NOTHROW(root.finish());
}

TEST_CASE("absent keys and maps yield defaults", "[config]") {
  const Document doc = parse("brokers: 3\n");
  MapReader root = doc.root();
  CHECK(root.get<int>("partitions", 12) == 12);
  CHECK_FALSE(root.optional<Duration>("timeout").has_value());
  MapReader network = root.map("network");
  CHECK(network.get<Duration>("latency", milliseconds(1)) == milliseconds(1));
  CHECK(root.list("faults").empty());
  root.ignore("brokers");
  CHECK_NOTHROW(root.finish());
}

TEST_CASE("an unknown key is reported at its 1-based position with a suggestion", "[config]") {
  const Document doc = parse(
      "network:\n"
      "  jiter: 2ms\n"
      "  latency: 1ms\n");
  MapReader root = doc.root();
  MapReader network = root.map("network");
  network.get<Duration>("latency", 0);
  network.get<Duration>("jitter", 0);  // asked about after the misspelt key was seen
  const ConfigError e = error_from([&] { network.finish(); });
  CHECK(e.location().file == "scenario.yaml");
  CHECK(e.location().line == 2);
  CHECK(e.location().column == 3);
  CHECK(e.key_path() == "network.jiter");
  CHECK(std::string(e.what()) == "scenario.yaml:2:3: network.jiter: unknown key 'jiter' (did you mean 'jitter'?)");
}

TEST_CASE("an unknown key far from every known key lists the expected keys", "[config]") {
  const Document doc = parse("brokers: 3\nzzzzzz: 1\n");
  MapReader root = doc.root();
  root.get<int>("brokers", 1);
  root.get<int>("partitions", 1);
  const ConfigError e = error_from([&] { root.finish(); });
  CHECK(e.message() == "unknown key 'zzzzzz' (expected 'brokers' or 'partitions')");
}

TEST_CASE("a short unknown key gets no far-fetched suggestion", "[config]") {
  const Document doc = parse("id: 1\n");
  MapReader root = doc.root();
  root.get<int>("at", 0);
  CHECK(error_from([&] { root.finish(); }).message() == "unknown key 'id' (expected 'at')");
}

TEST_CASE("a swap of two adjacent letters counts as one typo", "[config]") {
  const Document doc = parse("di: 1\n");
  MapReader root = doc.root();
  root.get<int>("id", 0);
  CHECK(error_from([&] { root.finish(); }).message() == "unknown key 'di' (did you mean 'id'?)");
}

TEST_CASE("error text leaves out the parts of the location that are unknown", "[config]") {
  CHECK(std::string(ConfigError({"a.yaml", 3, 7}, "x.y", "bad").what()) == "a.yaml:3:7: x.y: bad");
  CHECK(std::string(ConfigError({"a.yaml", 3, 0}, "x.y", "bad").what()) == "a.yaml:3: x.y: bad");
  CHECK(std::string(ConfigError({"--set", 0, 0}, "x.y", "bad").what()) == "--set: x.y: bad");
  CHECK(std::string(ConfigError({"a.yaml", 1, 1}, "", "bad").what()) == "a.yaml:1:1: bad");
}

TEST_CASE("finish on the root reports the first unknown key in document order, nested ones included", "[config]") {
  const Document doc = parse(
      "network:\n"
      "  latncy: 1ms\n"
      "brokrs: 3\n"
      "producer:\n"
      "  rat: 1/s\n");
  MapReader root = doc.root();
  root.get<int>("brokers", 1);
  root.map("network").get<Duration>("latency", 0);  // the sub-readers themselves are never finished
  root.map("producer").get<Rate>("rate", 0);
  const ConfigError e = error_from([&] { root.finish(); });
  CHECK(e.key_path() == "network.latncy");
  CHECK(e.location().line == 2);
}

TEST_CASE("two readers of the same sub-map share what was read", "[config]") {
  const Document doc = parse("network:\n  latency: 1ms\n  jitter: 2ms\n");
  MapReader root = doc.root();
  root.map("network").get<Duration>("latency", 0);
  root.map("network").get<Duration>("jitter", 0);
  CHECK_NOTHROW(root.finish());
}

TEST_CASE("a wrong type names what was expected and what was found", "[config]") {
  const Document doc = parse(
      "brokers: abc\n"
      "timeout: 10\n"
      "network: fast\n"
      "replicas: {a: 1}\n"
      "enabled: maybe\n");
  MapReader root = doc.root();
  const ConfigError integer = error_from(doc, [&] { root.get<int>("brokers", 1); });
  CHECK(integer.message() == "expected an integer, got 'abc'");
  CHECK(integer.location().line == 1);
  CHECK(integer.location().column == 10);
  const ConfigError duration = error_from(doc, [&] { root.get<Duration>("timeout", 0); });
  CHECK(duration.message() == "expected a duration like 250ms, got '10' (missing unit, e.g. 250ms)");
  const ConfigError mapping = error_from(doc, [&] { root.map("network"); });
  CHECK(mapping.message() == "expected a mapping, got 'fast'");
  const ConfigError scalar = error_from(doc, [&] { root.get<int>("replicas", 1); });
  CHECK(scalar.message() == "expected an integer, got a mapping");
  const ConfigError boolean = error_from(doc, [&] { root.get<bool>("enabled", false); });
  CHECK(boolean.message() == "expected true or false, got 'maybe'");
}

TEST_CASE("an empty value is not a scalar but reads as an empty map or list", "[config]") {
  const Document doc = parse("timeout:\nfaults:\nnetwork:\n");
  MapReader root = doc.root();
  const ConfigError e = error_from(doc, [&] { root.get<Duration>("timeout", 0); });
  CHECK(e.message() == "expected a duration like 250ms, got nothing");
  CHECK(e.location().line == 1);
  CHECK(root.list("faults").size() == 0);
  CHECK(root.map("network").get<int>("mtu", 1500) == 1500);
  CHECK(errors_of(error_from([&] { root.finish(); })).size() == 1);  // the timeout's, recorded above
}

TEST_CASE("a value out of range names the bounds and the value", "[config]") {
  const Document doc = parse("port: 0\ntimeout: 0\nretries: -1\n");
  MapReader root = doc.root();
  const ConfigError port = error_from(doc, [&] { root.get<int>("port", 9092, {1, 65535}); });
  CHECK(port.message() == "must be between 1 and 65535, got 0");
  CHECK(port.key_path() == "port");
  const ConfigError timeout =
      error_from(doc, [&] { root.get<Duration>("timeout", seconds(1), Range<SimTime>::at_least(milliseconds(1))); });
  CHECK(timeout.message() == "must be at least 1ms, got 0");
  // A required key: reading stops (with the errors recorded before, here none).
  const Document alone = parse("retries: -1\n");
  const ConfigError retries = error_from(alone, [&] { alone.root().required<std::int64_t>("retries", Range{0, 10}); });
  CHECK(retries.message() == "must be between 0 and 10, got -1");
  CHECK(root.get<int>("absent", 5, {1, 10}) == 5);
}

TEST_CASE("integers too large for their type are rejected", "[config]") {
  const Document doc = parse("count: 3000000000\nsize: -4\n");
  MapReader root = doc.root();
  CHECK_THAT(error_from(doc, [&] { root.get<int>("count", 0); }).message(),
             Catch::Contains("must be between -2147483648 and 2147483647"));
  CHECK(root.get<std::int64_t>("count", 0) == 3'000'000'000);
  CHECK_THAT(error_from(doc, [&] { root.get<std::uint64_t>("size", 0); }).message(),
             Catch::Contains("must not be negative"));
}

TEST_CASE("a choice outside the allowed set lists the choices and suggests the nearest", "[config]") {
  const Document doc = parse("acks: al\nmode: leader\n");
  MapReader root = doc.root();
  CHECK(root.get_choice("mode", {"leader", "follower"}, "follower") == "leader");
  CHECK(root.get_choice("compression", {"none", "lz4"}, "none") == "none");
  const ConfigError e = error_from(doc, [&] { root.get_choice("acks", {"0", "1", "all"}, "all"); });
  CHECK(e.message() == "must be one of '0', '1' or 'all', got 'al' (did you mean 'all'?)");
}

TEST_CASE("errors in nested maps carry the full key path", "[config]") {
  const Document doc = parse(
      "network:\n"
      "  jitter:\n"
      "    median: fast\n");
  MapReader root = doc.root();
  MapReader jitter = root.map("network").map("jitter");
  CHECK(jitter.path() == "network.jitter");
  const ConfigError e = error_from(doc, [&] { jitter.get<Duration>("median", 0); });
  CHECK(e.key_path() == "network.jitter.median");
  CHECK(std::string(e.what()) ==
        "scenario.yaml:3:13: network.jitter.median: expected a duration like 250ms, got 'fast' (not a number)");
}

TEST_CASE("a missing required key is reported at its map", "[config]") {
  const Document doc = parse("cluster:\n  name: a\n");
  MapReader cluster = doc.root().map("cluster");
  const ConfigError e = error_from([&] { cluster.required<int>("brokers"); });
  CHECK(e.message() == "missing required key 'brokers'");
  CHECK(e.key_path() == "cluster.brokers");
  CHECK(e.location().line == 2);
}

TEST_CASE("model code can raise errors located at a key's value", "[config]") {
  const Document doc = parse("replication: 5\nbrokers: 3\n");
  MapReader root = doc.root();
  const ConfigError e = root.error("replication", "cannot exceed brokers (3)");
  CHECK(std::string(e.what()) == "scenario.yaml:1:14: replication: cannot exceed brokers (3)");
}

TEST_CASE("a list of maps is read item by item with indexed paths", "[config]") {
  const Document doc = parse(
      "faults:\n"
      "  - at: 1s\n"
      "    kind: crash\n"
      "  - at: 2.5s\n"
      "    kind: crash\n"
      "    brokr: 1\n"
      "ports: [9092, 9093]\n");
  MapReader root = doc.root();
  ListReader faults = root.list("faults");
  REQUIRE(faults.size() == 2);
  std::vector<SimTime> times;
  for (std::size_t i = 0; i < faults.size(); ++i) {
    MapReader fault = faults.map_at(i);
    times.push_back(fault.required<Duration>("at"));
    fault.get_choice("kind", {"crash", "partition"}, "crash");
    fault.get<int>("broker", 0);
  }
  CHECK(times == std::vector<SimTime>{seconds(1), milliseconds(2500)});
  CHECK(root.list("ports").values<int>() == std::vector<int>{9092, 9093});
  const ConfigError e = error_from([&] { root.finish(); });
  CHECK(e.key_path() == "faults.1.brokr");
  CHECK(e.message() == "unknown key 'brokr' (did you mean 'broker'?)");
  CHECK(e.location().line == 6);
  CHECK(e.location().column == 5);
}

TEST_CASE("a list item of the wrong type is located at the item", "[config]") {
  const Document doc = parse("ports: [9092, x]\nfaults: [1]\nname: [a]\n");
  MapReader root = doc.root();
  const ConfigError item = error_from(doc, [&] { root.list("ports").at<int>(1); });
  CHECK(item.key_path() == "ports.1");
  CHECK(item.location().column == 15);
  CHECK(error_from(doc, [&] { root.list("faults").map_at(0); }).message() == "expected a mapping, got '1'");
  CHECK(error_from([&] { root.list("ports").at<int>(5); }).message() == "there is no item 5 (the list has 2)");
  CHECK(error_from(doc, [&] { root.get<std::string>("name", ""); }).message() == "expected a string, got a list");
}

TEST_CASE("duplicate keys are rejected", "[config]") {
  const Document doc = parse("brokers: 3\nbrokers: 4\n");
  const ConfigError e = error_from(doc, [&] { doc.root(); });
  CHECK(e.message() == "duplicate key 'brokers' (first given at line 1)");
  CHECK(e.location().line == 2);
}

TEST_CASE("override: --set replaces an existing value and locates it at --set", "[config][set]") {
  Document doc = parse("network:\n  jitter:\n    median: 1ms\n");
  doc.apply_override("network.jitter.median=5ms");
  MapReader jitter = doc.root().map("network").map("jitter");
  CHECK(jitter.get<Duration>("median", 0) == milliseconds(5));

  doc.apply_override("network.jitter.median=soon");
  MapReader again = doc.root().map("network").map("jitter");
  const ConfigError e = error_from(doc, [&] { again.get<Duration>("median", 0); });
  CHECK(e.location().file == "--set");
  CHECK(e.location().line == 0);
  CHECK(std::string(e.what()) ==
        "--set: network.jitter.median: expected a duration like 250ms, got 'soon' (not a number)");
}

TEST_CASE("override: --set creates missing maps for a new key", "[config][set]") {
  Document doc = parse("brokers: 3\n");
  doc.apply_override("clients.count=4");
  doc.apply_override("clients.tls=true");
  MapReader root = doc.root();
  MapReader clients = root.map("clients");
  CHECK(clients.get<int>("count", 1) == 4);
  CHECK(clients.get<bool>("tls", false));
  root.get<int>("brokers", 1);
  CHECK_NOTHROW(root.finish());
}

TEST_CASE("override: --set parses its value as YAML", "[config][set]") {
  Document doc = parse("{}\n");
  doc.apply_override("ports=[1, 2, 3]");
  doc.apply_override("network={latency: 2ms}");
  MapReader root = doc.root();
  CHECK(root.list("ports").values<int>() == std::vector<int>{1, 2, 3});
  CHECK(root.map("network").get<Duration>("latency", 0) == milliseconds(2));
}

TEST_CASE("override: --set with a numeric segment indexes an existing list item", "[config][set]") {
  Document doc = parse("faults:\n  - at: 1s\n  - at: 2s\n");
  doc.apply_override("faults.1.at=3s");
  ListReader faults = doc.root().list("faults");
  CHECK(faults.map_at(0).get<Duration>("at", 0) == seconds(1));
  CHECK(faults.map_at(1).get<Duration>("at", 0) == seconds(3));
  CHECK(faults.size() == 2);

  const ConfigError e = error_from([&] { doc.apply_override("faults.2.at=4s"); });
  CHECK(e.message() == "index 2 is out of range: 'faults' has 2 items");
  CHECK(e.location().file == "--set");
  CHECK_THAT(error_from([&] { doc.apply_override("faults.first.at=4s"); }).message(),
             Catch::Contains("must be an index"));
}

TEST_CASE("a malformed --set without '=' is rejected", "[config][set]") {
  Document doc = parse("brokers: 3\n");
  const ConfigError e = error_from([&] { doc.apply_override("brokers"); });
  CHECK(e.location().file == "--set");
  CHECK(e.message() == "malformed override 'brokers': expected key.path=value");
  CHECK_THAT(error_from([&] { doc.apply_override("network..latency=1ms"); }).message(),
             Catch::Contains("empty key"));
  CHECK_THAT(error_from([&] { doc.apply_override("ports=[1,"); }).message(), Catch::Contains("cannot parse value"));
}

TEST_CASE("override: --set through a scalar is rejected and leaves the document intact", "[config][set]") {
  Document doc = parse("network:\n  latency: 1ms\n");
  const ConfigError e = error_from([&] { doc.apply_override("network.latency.median=5ms"); });
  CHECK(e.location().file == "--set");
  CHECK(e.key_path() == "network.latency.median");
  CHECK(e.message() == "cannot set it: 'network.latency' is '1ms', not a mapping or a list");
  CHECK(doc.root().map("network").get<Duration>("latency", 0) == milliseconds(1));
}

TEST_CASE("an unknown key added by --set is reported at --set", "[config][set]") {
  Document doc = parse("network:\n  latency: 1ms\n");
  doc.apply_override("network.latencyy=2ms");
  MapReader root = doc.root();
  root.map("network").get<Duration>("latency", 0);
  const ConfigError e = error_from([&] { root.finish(); });
  CHECK(std::string(e.what()) == "--set: network.latencyy: unknown key 'latencyy' (did you mean 'latency'?)");
}

TEST_CASE("an empty file reads as an empty mapping", "[config]") {
  for (const std::string text : {"", "# nothing yet\n", "---\n"}) {
    const Document doc = parse(text);
    MapReader root = doc.root();
    CHECK(root.get<int>("brokers", 3) == 3);
    CHECK(root.keys().empty());
    CHECK_NOTHROW(root.finish());
  }
}

TEST_CASE("a top level that is not a mapping is rejected", "[config]") {
  const Document doc = parse("- a\n- b\n");
  CHECK(error_from([&] { doc.root(); }).message() ==
        "expected a mapping of keys to values at the top level, got a list");
}

TEST_CASE("a YAML syntax error is located at yaml-cpp's mark, 1-based", "[config]") {
  const ConfigError e = error_from([] { parse("a: 1\n  b: 2\n"); });
  CHECK(e.location().file == "scenario.yaml");
  CHECK(e.location().line == 2);
  CHECK(e.location().column == 4);
  CHECK_THAT(e.what(), Catch::StartsWith("scenario.yaml:2:4: invalid YAML"));
}

TEST_CASE("a file with two YAML documents is rejected", "[config]") {
  CHECK(error_from([] { parse("a: 1\n---\nb: 2\n"); }).message() ==
        "expected one YAML document, found a second one");
}

TEST_CASE("load_file names the file in locations and reports unreadable files", "[config]") {
  const std::string path = "ksim_test_config_reader.yaml";
  {
    std::ofstream out(path);
    out << "brokers: 3\nbrokerz: 4\n";
  }
  const Document doc = Document::load_file(path);
  MapReader root = doc.root();
  root.get<int>("brokers", 1);
  const ConfigError e = error_from([&] { root.finish(); });
  std::remove(path.c_str());
  CHECK(std::string(e.what()) == path + ":2:1: brokerz: unknown key 'brokerz' (did you mean 'brokers'?)");

  const ConfigError missing = error_from([] { Document::load_file("/nonexistent/ksim.yaml"); });
  CHECK(missing.location().file == "/nonexistent/ksim.yaml");
  CHECK_THAT(missing.message(), Catch::StartsWith("cannot read the file"));
}

TEST_CASE("keys lists a map's keys in document order", "[config]") {
  const Document doc = parse("topics:\n  orders: {partitions: 12}\n  audit: {partitions: 1}\n");
  MapReader topics = doc.root().map("topics");
  CHECK(topics.keys() == std::vector<std::string>{"orders", "audit"});
  CHECK(topics.map("orders").get<int>("partitions", 1) == 12);
}

TEST_CASE("override: a bracketed --set segment may hold dots, for Kafka config names", "[config][set]") {
  auto doc = ksim::config::Document::from_string("brokers:\n  config:\n    replica.lag.time.max.ms: 30s\n", "t.yaml");
  doc.apply_override("brokers.config[replica.lag.time.max.ms]=10s");
  doc.apply_override("brokers.config[num.replica.fetchers]=2");
  auto root = doc.root();
  auto config = root.map("brokers").map("config");
  CHECK(config.get<ksim::config::Duration>("replica.lag.time.max.ms", 0) == ksim::seconds(10));
  CHECK(config.get<int>("num.replica.fetchers", 1) == 2);
}

TEST_CASE("a ',' outside a flow collection is an error, not yaml-cpp 0.7's endless loop", "[config]") {
  for (const std::string text : {",", ", b\n", "- a\n,\n", "{a: 1}, b\n"}) {
    INFO(text);
    CHECK_THAT(error_from([&] { parse(text); }).message(), Catch::StartsWith("invalid YAML"));
  }
  CHECK(error_from([] { parse("- a\n,\n"); }).location().line == 2);
}

TEST_CASE("override: a --set value holding itself through an alias is an error, not endless recursion", "[config][set]") {
  Document doc = parse("brokers: 3\n");
  CHECK_THAT(error_from([&] { doc.apply_override("x=&a [*a]"); }).message(), Catch::Contains("nests deeper than"));
}
