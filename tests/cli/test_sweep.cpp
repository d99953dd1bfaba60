// `ksim sweep` and `ksim merge`: the plan and CSV pieces in process, the
// commands through the ksim binary in a scratch directory, as a user (or
// GNU parallel, or a Slurm array) runs them.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/sweep/csv.hpp"
#include "app/sweep/sweep.hpp"
#include "app/sweep/sweep_columns.hpp"
#include "app/sweep/sweep_order.hpp"
#include "app/sweep/sweep_plan.hpp"

using namespace ksim::app;
using namespace ksim::app::sweep;

namespace {

const std::string kKsim = KSIM_BINARY;
const std::string kQuickstart = std::string(KSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
// Quickstart cut to 2s (its faults come later, so none fires) keeps each run well under a second.
const std::string kShort = kQuickstart + " --set duration=2s --set drain=2s";
// 2 x 2 values x 2 seeds = 8 runs; the bracketed key must survive every shell on the way.
const std::string kLists = "--set 'producers.0.config[acks]=1,all' --set producers.0.rate=1000/s,2000/s --seeds 1-2";

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A directory of its own per test, removed afterwards.
class Scratch {
 public:
  Scratch() : dir_(std::filesystem::temp_directory_path() / ("ksim-sweep-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  ~Scratch() { std::filesystem::remove_all(dir_); }

  std::filesystem::path operator/(const std::string& name) const { return dir_ / name; }

  // Runs a shell command in the directory, capturing its output.
  Result shell(const std::string& command) const {
    const std::string line =
        "cd '" + dir_.string() + "' && { " + command + " ; } > stdout.txt 2> stderr.txt";
    const int status = std::system(line.c_str());
    Result r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = slurp(dir_ / "stdout.txt");
    r.err = slurp(dir_ / "stderr.txt");
    return r;
  }

  Result ksim(const std::string& arguments) const { return shell(kKsim + " " + arguments); }

 private:
  std::filesystem::path dir_;
};

std::vector<csv::Row> read_csv(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return csv::read(in);
}

}  // namespace

TEST_CASE("sweep --set lists split at top-level commas only", "[sweep]") {
  CHECK(parse_parameter("producers.0.rate=1000/s,2000/s").values == std::vector<std::string>{"1000/s", "2000/s"});
  CHECK(parse_parameter("duration=2s").values == std::vector<std::string>{"2s"});
  CHECK(parse_parameter("network.racks=[a,b]").values == std::vector<std::string>{"[a,b]"});
  CHECK(parse_parameter("network.racks=[a,b],[c]").values == std::vector<std::string>{"[a,b]", "[c]"});
  CHECK(parse_parameter("network.jitter={distribution: uniform, min: 1us, max: 2us},5us").values ==
        std::vector<std::string>{"{distribution: uniform, min: 1us, max: 2us}", "5us"});
  CHECK(parse_parameter("brokers.config[replica.lag.time.max.ms]=1s,10s").key == "brokers.config[replica.lag.time.max.ms]");
  CHECK_THROWS_AS(parse_parameter("no-equals"), SweepError);
  CHECK_THROWS_AS(parse_parameter("k=1,,2"), SweepError);
  CHECK_THROWS_AS(parse_parameters({"seed=1,2"}), SweepError);
  CHECK_THROWS_AS(parse_parameters({"duration=1s", "duration=2s"}), SweepError);
}

TEST_CASE("sweep --seeds and --shard", "[sweep]") {
  CHECK(parse_seeds("1-5") == std::vector<std::uint64_t>{1, 2, 3, 4, 5});
  CHECK(parse_seeds("1,3,7") == std::vector<std::uint64_t>{1, 3, 7});
  CHECK(parse_seeds("42") == std::vector<std::uint64_t>{42});
  CHECK(parse_seeds("1-2,10") == std::vector<std::uint64_t>{1, 2, 10});
  CHECK_THROWS_AS(parse_seeds("5-1"), SweepError);
  CHECK_THROWS_AS(parse_seeds("1,1"), SweepError);
  CHECK_THROWS_AS(parse_seeds("x"), SweepError);
  CHECK_THROWS_AS(parse_seeds("1-9999999999"), SweepError);
  const Shard shard = parse_shard("2/3");
  CHECK((shard.k == 2 && shard.n == 3));
  CHECK(shard.holds(1));
  CHECK_FALSE(shard.holds(2));
  CHECK_THROWS_AS(parse_shard("0/3"), SweepError);
  CHECK_THROWS_AS(parse_shard("4/3"), SweepError);
  CHECK_THROWS_AS(parse_shard("3"), SweepError);
}

TEST_CASE("sweep runs are numbered with the last --set varying fastest and the seed fastest of all", "[sweep]") {
  const Plan plan{{{"a", {"a1", "a2"}}, {"b", {"b1", "b2", "b3"}}}, {7, 8}};
  REQUIRE(plan.total_runs() == 12);
  CHECK(plan.run(0).values == std::vector<std::string>{"a1", "b1"});
  CHECK(plan.run(0).seed == 7);
  CHECK(plan.run(1).seed == 8);
  CHECK(plan.run(2).values == std::vector<std::string>{"a1", "b2"});
  CHECK(plan.run(6).values == std::vector<std::string>{"a2", "b1"});
  CHECK(plan.run(11).values == std::vector<std::string>{"a2", "b3"});
  CHECK(plan.run(11).overrides(plan.parameters) == std::vector<std::string>{"a=a2", "b=b3"});
  const auto shard = plan.runs(parse_shard("2/5"));
  REQUIRE(shard.size() == 3);
  CHECK((shard[0].index == 1 && shard[1].index == 6 && shard[2].index == 11));
}

TEST_CASE("a sweep starts its longest runs first: more partition replicas times more simulated time", "[sweep]") {
  const Plan plan{{{"topics.0.partitions", {"1", "100", "10"}}, {"duration", {"2s", "4s"}}}, {1, 2}};
  const auto runs = plan.runs(Shard{});
  const auto order = dispatch_order(kQuickstart, plan, runs);
  REQUIRE(order.size() == 12);
  std::vector<std::size_t> expected{6, 7, 4, 5, 10, 11, 8, 9, 2, 3, 0, 1};  // 100 at 4s, 100 at 2s, 10 at 4s, ...
  CHECK(order == expected);
  const Plan flat{{{"producers.0.rate", {"1000/s", "2000/s"}}}, {3, 4}};
  const auto flat_order = dispatch_order(kQuickstart, flat, flat.runs(Shard{}));
  CHECK(flat_order == std::vector<std::size_t>{0, 1, 2, 3});  // equal costs keep run order
}

TEST_CASE("sweep CSV cells are quoted only when they must be, and read back as written", "[sweep]") {
  CHECK(csv::field("plain") == "plain");
  CHECK(csv::field("a,b") == "\"a,b\"");
  CHECK(csv::field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  const csv::Row row{"1", "[a,b]", "", "two\nlines", "\"q\""};
  std::stringstream text;
  csv::write_row(text, row);
  csv::write_row(text, row);
  CHECK(csv::read(text) == std::vector<csv::Row>{row, row});
  std::istringstream open_quote("a,\"b\n");
  CHECK_THROWS_AS(csv::read(open_quote), csv::CsvError);
  CHECK(cell(nlohmann::json::parse("0.1")) == "0.1");
  CHECK(cell(nlohmann::json::parse("12")) == "12");
  CHECK(cell(nlohmann::json::parse("\"exactly-once\"")) == "exactly-once");
  CHECK(cell(nlohmann::json(nullptr)).empty());
}

TEST_CASE("a sweep writes the same CSV in one process, in two, and as three shards merged", "[sweep]") {
  REQUIRE(std::system("command -v parallel > /dev/null 2>&1") == 0);  // GNU parallel: scripts/setup installs it
  const Scratch scratch;
  REQUIRE(scratch.ksim("sweep " + kShort + " " + kLists + " --out one.csv").status == 0);
  REQUIRE(scratch.ksim("sweep " + kShort + " " + kLists + " -j 2 --out two.csv").status == 0);
  // -q: parallel quotes the command, so the bracketed --set reaches ksim as one word.
  const Result sharded = scratch.shell("parallel -q --halt now,fail=1 " + kKsim + " sweep " + kShort + " " + kLists +
                                       " --shard {}/3 --out shard{}.csv ::: 1 2 3");
  INFO(sharded.err);
  REQUIRE(sharded.status == 0);
  const Result merged = scratch.ksim("merge merged.csv shard1.csv shard2.csv shard3.csv");
  INFO(merged.err);
  REQUIRE(merged.status == 0);

  const std::string one = slurp(scratch / "one.csv");
  CHECK(one == slurp(scratch / "two.csv"));
  CHECK(one == slurp(scratch / "merged.csv"));

  const auto rows = read_csv(scratch / "one.csv");
  REQUIRE(rows.size() == 1 + 2 * 2 * 2);
  const csv::Row& names = rows.front();
  CHECK(names[0] == "run");
  CHECK(names[1] == "duration");
  CHECK(names[3] == "producers.0.config[acks]");
  CHECK(names[5] == "seed");
  CHECK(names[6] == "trace_hash");
  CHECK(names.back() == "expectations_held");
  CHECK(std::find(names.begin(), names.end(), "wall_s") == names.end());
  CHECK(rows[8][3] == "all");
  CHECK(rows[8][4] == "2000/s");
  CHECK(rows[8][5] == "2");

  const auto sidecar = nlohmann::json::parse(slurp(scratch / "shard2.csv.json"));
  CHECK(sidecar["total_runs"] == 8);
  CHECK(sidecar["runs_in_file"] == 3);
  CHECK(sidecar["shard"] == "2/3");
  CHECK(sidecar["runs"].size() == 3);
  const auto merged_sidecar = nlohmann::json::parse(slurp(scratch / "merged.csv.json"));
  CHECK(merged_sidecar["runs_in_file"] == 8);
  CHECK(merged_sidecar["shard"].is_null());
}

TEST_CASE("a sweep row has the trace hash ksim run gives for its seed and values", "[sweep]") {
  const Scratch scratch;
  const Result sweep = scratch.ksim("sweep " + kShort + " --set producers.0.rate=500/s,1500/s --seeds 3,9 -j 2");
  INFO(sweep.err);
  REQUIRE(sweep.status == 0);
  CHECK(sweep.err.empty());  // no progress bar when stderr is not a terminal
  std::istringstream text(sweep.out);
  const auto rows = csv::read(text);
  REQUIRE(rows.size() == 5);
  const std::size_t hash = 5;  // run, duration, drain, producers.0.rate, seed, trace_hash
  REQUIRE(rows[0][hash] == "trace_hash");
  // The last run: rate 1500/s, seed 9.
  const Result run = scratch.ksim("run " + kShort + " --set producers.0.rate=1500/s --seed 9 --json");
  REQUIRE(run.status <= 1);  // 1: the scenario's expectations, made for 30s, do not hold in 2s
  CHECK(rows[4].back() == (run.status == 0 ? "true" : "false"));
  CHECK(rows[4][3] == "1500/s");
  CHECK(rows[4][4] == "9");
  CHECK(rows[4][hash] == nlohmann::json::parse(run.out)["trace_hash"].get<std::string>());
  CHECK(rows[1][hash] != rows[4][hash]);
}

TEST_CASE("a sweep with a bad key or value exits 2 with ksim run's message, once, and writes nothing", "[sweep]") {
  const Scratch scratch;
  const Result bad_key = scratch.ksim("sweep " + kShort + " --set producers.0.rat=1/s,2/s --out bad.csv");
  CHECK(bad_key.status == 2);
  CHECK(bad_key.err == "ksim: --set: producers.0.rat: unknown key 'rat' (did you mean 'rate'?)\n");
  CHECK_FALSE(std::filesystem::exists(scratch / "bad.csv"));

  std::ofstream(scratch / "bad.yaml") << "duration: 2s\nnetwork:\n  jiter: 1ms\n";
  const Result bad_file = scratch.ksim("sweep bad.yaml --set duration=1s,2s --seeds 1-3 -j 2");
  CHECK(bad_file.status == 2);
  CHECK(bad_file.err == "ksim: bad.yaml:3:3: network.jiter: unknown key 'jiter' (did you mean 'jitter'?)\n");
  CHECK(bad_file.out.empty());

  const Result bad_value = scratch.ksim("sweep " + kShort + " --set producers.0.rate=1000/s,fast --out bad.csv");
  CHECK(bad_value.status == 2);
  CHECK_THAT(bad_value.err, Catch::Contains("producers.0.rate") && Catch::Contains("'fast'"));
  CHECK_FALSE(std::filesystem::exists(scratch / "bad.csv"));

  CHECK(scratch.ksim("sweep " + kShort + " --seeds 3-1").status == 2);
  CHECK(scratch.ksim("sweep " + kShort + " --shard 4/3").status == 2);
  CHECK(scratch.ksim("sweep " + kShort + " --set seed=1,2").status == 2);
}

TEST_CASE("a combination of values wrong only together names its run", "[sweep]") {
  // Each value is valid with the first of the other list; 3 brokers with replication factor 4 is not.
  const Scratch scratch;
  const Result r = scratch.ksim("sweep " + kShort + " --set brokers.count=5,3 --set topics.0.replication_factor=3,4");
  CHECK(r.status == 2);
  CHECK_THAT(r.err, Catch::StartsWith("ksim sweep: run 3 (--seed 1") &&
                        Catch::Contains("--set brokers.count=3 --set topics.0.replication_factor=4) failed") &&
                        Catch::Contains("must be between 1 and 3, got 4"));
}

TEST_CASE("a run that fails stops the sweep with its message and exit status 2", "[sweep]") {
  const Scratch scratch;
  const auto worker = scratch / "worker.sh";
  std::ofstream(worker) << "#!/bin/sh\necho 'ksim: something broke' >&2\nexit 2\n";
  std::filesystem::permissions(worker, std::filesystem::perms::owner_all);
  SweepArgs args;
  args.scenario = kQuickstart;
  args.sets = {"duration=1s", "drain=1s"};
  args.seeds = "1-4";
  args.jobs = 2;
  args.out = (scratch / "failed.csv").string();
  args.worker_binary = worker.string();
  std::ostringstream out, err;
  CHECK(sweep_command(args, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("failed with a scenario error:\nksim: something broke"));
  CHECK_FALSE(std::filesystem::exists(args.out));
  CHECK_FALSE(std::filesystem::exists(args.out + ".tmp"));

  args.worker_binary = "/bin/true";  // exits 0 without a report
  err.str("");
  CHECK(sweep_command(args, out, err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("not a JSON report"));
}

TEST_CASE("ksim merge of a sweep's shards rejects a run given twice, a missing shard and a foreign header", "[sweep]") {
  const Scratch scratch;
  const std::string sweep = "sweep " + kShort + " --seeds 1-2";
  REQUIRE(scratch.ksim(sweep + " --shard 1/2 --out a.csv").status == 0);
  REQUIRE(scratch.ksim(sweep + " --shard 2/2 --out b.csv").status == 0);
  std::filesystem::copy_file(scratch / "a.csv", scratch / "a-again.csv");

  const Result twice = scratch.ksim("merge out.csv a.csv b.csv a-again.csv");
  CHECK(twice.status == 2);
  CHECK_THAT(twice.err, Catch::Contains("run 0 is in both a.csv and a-again.csv"));

  const Result missing = scratch.ksim("merge out.csv a.csv");
  CHECK(missing.status == 2);
  CHECK_THAT(missing.err, Catch::Contains("1 of the sweep's 2 runs are missing: 1"));

  std::ofstream(scratch / "other.csv") << "run,seed,x\n1,2,3\n";
  const Result foreign = scratch.ksim("merge out.csv a.csv other.csv");
  CHECK(foreign.status == 2);
  CHECK_THAT(foreign.err, Catch::Contains("different headers"));
  CHECK_FALSE(std::filesystem::exists(scratch / "out.csv"));

  REQUIRE(scratch.ksim("merge out.csv b.csv a.csv").status == 0);
  REQUIRE(scratch.ksim(sweep + " --out whole.csv").status == 0);
  CHECK(slurp(scratch / "out.csv") == slurp(scratch / "whole.csv"));
}
