#include "app/scenario/distribution_reader.hpp"

namespace ksim::config {

namespace {

Distribution read_mapping(MapReader in) {
  const std::string kind = in.get_choice(
      "distribution", {"constant", "uniform", "exponential", "normal", "lognormal", "pareto"}, "constant");
  const Range<SimTime> positive{1, kNever};
  if (kind == "constant") return Distribution::constant(in.required<Duration>("value"));
  if (kind == "uniform") {
    const SimTime min = in.required<Duration>("min");
    const SimTime max = in.required<Duration>("max");
    if (max < min) throw in.error("max", "must not be less than min");
    return Distribution::uniform(min, max);
  }
  if (kind == "exponential") return Distribution::exponential(in.required<Duration>("mean"));
  if (kind == "normal") {
    const SimTime mean = in.required<Duration>("mean");
    return Distribution::normal(mean, in.required<Duration>("stddev"));
  }
  if (kind == "lognormal") {
    const SimTime median = in.required<Duration>("median", positive);
    return Distribution::lognormal(median, in.get<double>("sigma", 0.5, {0.0, 10.0}));
  }
  const SimTime scale = in.required<Duration>("scale", positive);
  return Distribution::pareto(scale, in.required<double>("shape", {0.01, 100.0}));
}

}  // namespace

Distribution read_distribution(MapReader& parent, std::string_view key, const Distribution& default_value) {
  if (!parent.has(key)) {
    parent.ignore(key);
    return default_value;
  }
  if (parent.has_map(key)) return read_mapping(parent.map(key));
  return Distribution::constant(parent.required<Duration>(key));
}

}  // namespace ksim::config
