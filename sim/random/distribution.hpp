#pragma once
// A distribution of durations (jitter, processing times, fault durations),
// sampled from a RandomStream with our own code. Samples are never negative.
#include <string>

#include "sim/random/random.hpp"
#include "sim/events/time.hpp"

namespace ksim {

class Distribution {
 public:
  enum class Kind { Constant, Uniform, Exponential, Normal, LogNormal, Pareto };

  static Distribution constant(SimTime value);
  static Distribution uniform(SimTime min, SimTime max);
  static Distribution exponential(SimTime mean);
  static Distribution normal(SimTime mean, SimTime stddev);     // truncated at zero
  static Distribution lognormal(SimTime median, double sigma);  // mu = ln(median)
  static Distribution pareto(SimTime scale, double shape);      // minimum `scale`

  Distribution() : Distribution(constant(0)) {}

  SimTime sample(RandomStream& rng) const;
  double mean_ns() const;  // analytic mean (infinite for Pareto with shape <= 1)
  Kind kind() const { return kind_; }
  bool is_zero() const { return kind_ == Kind::Constant && a_ == 0.0; }
  std::string describe() const;  // e.g. "lognormal(median=20us, sigma=0.5)"
  // As a scenario writes it, durations in whole nanoseconds:
  // "{distribution: pareto, scale: 100000ns, shape: 1.2}".
  std::string as_yaml() const;

 private:
  Distribution(Kind kind, double a, double b) : kind_(kind), a_(a), b_(b) {}
  Kind kind_;
  double a_;  // parameters in nanoseconds (or log-nanoseconds), see the factories
  double b_;
};

}  // namespace ksim
