#pragma once
// The `ksim bench` commands: each runs one benchmark and prints its figures
// as text or one JSON object. Returns the process exit status.
#include <ostream>

#include "bench/network_bench.hpp"
#include "bench/phold.hpp"
#include "bench/produce_bench.hpp"
#include "bench/soak_bench.hpp"

namespace ksim::bench {

int bench_engine_command(const PholdOptions& options, bool json, std::ostream& out);
int bench_network_command(const NetworkBenchOptions& options, bool json, std::ostream& out);
int bench_produce_command(const ProduceBenchOptions& options, bool json, std::ostream& out);
int bench_soak_command(const SoakBenchOptions& options, bool json, std::ostream& out);

}  // namespace ksim::bench
