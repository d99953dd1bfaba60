#include "sim/random/distribution.hpp"

#include <cassert>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace ksim {

Distribution Distribution::constant(SimTime value) {
  assert(value >= 0);
  return {Kind::Constant, static_cast<double>(value), 0};
}
Distribution Distribution::uniform(SimTime min, SimTime max) {
  assert(0 <= min && min <= max);
  return {Kind::Uniform, static_cast<double>(min), static_cast<double>(max)};
}
Distribution Distribution::exponential(SimTime mean) {
  assert(mean >= 0);
  return {Kind::Exponential, static_cast<double>(mean), 0};
}
Distribution Distribution::normal(SimTime mean, SimTime stddev) {
  assert(mean >= 0 && stddev >= 0);
  return {Kind::Normal, static_cast<double>(mean), static_cast<double>(stddev)};
}
Distribution Distribution::lognormal(SimTime median, double sigma) {
  assert(median > 0 && sigma >= 0);
  return {Kind::LogNormal, std::log(static_cast<double>(median)), sigma};
}
Distribution Distribution::pareto(SimTime scale, double shape) {
  assert(scale > 0 && shape > 0);
  return {Kind::Pareto, static_cast<double>(scale), shape};
}

static SimTime to_duration(double ns) {
  if (!(ns > 0)) return 0;  // also maps NaN to 0
  if (ns >= 9.0e18) return static_cast<SimTime>(9.0e18);
  return static_cast<SimTime>(std::llround(ns));
}

SimTime Distribution::sample(RandomStream& rng) const {
  switch (kind_) {
    case Kind::Constant: return to_duration(a_);
    case Kind::Uniform: return to_duration(rng.uniform(a_, b_));
    case Kind::Exponential: return to_duration(rng.exponential(a_));
    case Kind::Normal: return to_duration(rng.normal(a_, b_));
    case Kind::LogNormal: return to_duration(rng.lognormal(a_, b_));
    case Kind::Pareto: return to_duration(rng.pareto(a_, b_));
  }
  return 0;
}

double Distribution::mean_ns() const {
  switch (kind_) {
    case Kind::Constant: return a_;
    case Kind::Uniform: return (a_ + b_) / 2;
    case Kind::Exponential: return a_;
    case Kind::Normal: return a_;  // before truncation at zero
    case Kind::LogNormal: return std::exp(a_ + b_ * b_ / 2);
    case Kind::Pareto: return b_ <= 1 ? std::numeric_limits<double>::infinity() : b_ * a_ / (b_ - 1);
  }
  return 0;
}

std::string Distribution::describe() const {
  const auto us = [](double ns) { return fmt::format("{:g}us", ns / 1e3); };
  switch (kind_) {
    case Kind::Constant: return fmt::format("constant({})", us(a_));
    case Kind::Uniform: return fmt::format("uniform({}, {})", us(a_), us(b_));
    case Kind::Exponential: return fmt::format("exponential(mean={})", us(a_));
    case Kind::Normal: return fmt::format("normal(mean={}, stddev={})", us(a_), us(b_));
    case Kind::LogNormal: return fmt::format("lognormal(median={}, sigma={:g})", us(std::exp(a_)), b_);
    case Kind::Pareto: return fmt::format("pareto(scale={}, shape={:g})", us(a_), b_);
  }
  return "?";
}

std::string Distribution::as_yaml() const {
  const auto ns = [](double v) { return fmt::format("{}ns", std::llround(v)); };
  switch (kind_) {
    case Kind::Constant: return fmt::format("{{distribution: constant, value: {}}}", ns(a_));
    case Kind::Uniform: return fmt::format("{{distribution: uniform, min: {}, max: {}}}", ns(a_), ns(b_));
    case Kind::Exponential: return fmt::format("{{distribution: exponential, mean: {}}}", ns(a_));
    case Kind::Normal: return fmt::format("{{distribution: normal, mean: {}, stddev: {}}}", ns(a_), ns(b_));
    case Kind::LogNormal:
      return fmt::format("{{distribution: lognormal, median: {}, sigma: {:.17g}}}", ns(std::exp(a_)), b_);
    case Kind::Pareto: return fmt::format("{{distribution: pareto, scale: {}, shape: {:.17g}}}", ns(a_), b_);
  }
  return "?";
}

}  // namespace ksim
