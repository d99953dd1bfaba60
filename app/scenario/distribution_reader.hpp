#pragma once
// Reads a duration distribution from a scenario. Either a plain duration
// (`2s`, a constant) or a mapping naming the distribution and its parameters:
//   {distribution: constant,    value: 1ms}
//   {distribution: uniform,     min: 1s, max: 5s}
//   {distribution: exponential, mean: 200us}
//   {distribution: normal,      mean: 1ms, stddev: 200us}   (truncated at 0)
//   {distribution: lognormal,   median: 50us, sigma: 0.5}
//   {distribution: pareto,      scale: 10us, shape: 1.5}
#include <string_view>

#include "app/scenario/config_reader.hpp"
#include "sim/random/distribution.hpp"

namespace ksim::config {

Distribution read_distribution(MapReader& parent, std::string_view key, const Distribution& default_value);

}  // namespace ksim::config
