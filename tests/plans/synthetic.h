// Samplers for plan tests: log-normal versions with optional long tails and a drift factor
// shared by every observation of a round, drawn from fixed seeds.
#pragma once

#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "plans/plan.h"

namespace looprace::plans::testing {

struct VersionShape {
  double mean = 1000.0;      // median cycles
  double sigma = 0.01;       // log-scale spread
  double tail_rate = 0.0;    // probability of a long-tail outlier
  double tail_factor = 1.0;  // outlier multiplier
};

class SyntheticSampler : public Sampler {
 public:
  SyntheticSampler(std::vector<VersionShape> shapes, std::uint64_t seed, double drift_sigma = 0.0)
      : shapes_(std::move(shapes)), rng_(seed), drift_sigma_(drift_sigma) {}

  std::vector<std::optional<Observation>> round(const std::vector<std::size_t>& versions) override {
    ++rounds_;
    // A random walk in log space: slow machine drift that hits a whole round alike.
    drift_ += drift_sigma_ * std::normal_distribution<double>()(rng_);
    std::vector<std::optional<Observation>> out;
    for (std::size_t v : versions) {
      const VersionShape& s = shapes_[v];
      double x = s.mean * std::exp(drift_ + s.sigma * std::normal_distribution<double>()(rng_));
      if (std::bernoulli_distribution(s.tail_rate)(rng_)) x *= s.tail_factor;
      out.emplace_back(x);
    }
    return out;
  }
  std::size_t rounds() const { return rounds_; }

 private:
  std::vector<VersionShape> shapes_;
  std::mt19937_64 rng_;
  double drift_sigma_;
  double drift_ = 0.0;
  std::size_t rounds_ = 0;
};

// Runs on a machine with regimes: every run has its own host speed h ~ N(0, regime_sigma) on
// logs, which slows the loop by exp(response x h) and the run's control loops by exp(h), each
// with its own noise (the versions' sigma; control_sigma). `controlled`: the observations carry
// the control; the same seed draws the same cycles either way.
class RegimeSampler : public Sampler {
 public:
  struct Machine {
    double regime_sigma = 0.03;
    double response = 1.5;
    double control_sigma = 0.003;
  };
  RegimeSampler(std::vector<VersionShape> shapes, std::uint64_t seed, const Machine& machine,
                bool controlled)
      : shapes_(std::move(shapes)), rng_(seed), machine_(machine), controlled_(controlled) {}

  std::vector<std::optional<Observation>> round(const std::vector<std::size_t>& versions) override {
    std::vector<std::optional<Observation>> out;
    std::normal_distribution<double> z;
    for (std::size_t v : versions) {
      const double h = machine_.regime_sigma * z(rng_);
      const double cycles =
          shapes_[v].mean * std::exp(machine_.response * h + shapes_[v].sigma * z(rng_));
      const double control = 5000.0 * std::exp(h + machine_.control_sigma * z(rng_));
      out.emplace_back(
          Observation{cycles, controlled_ ? std::optional<double>(control) : std::nullopt});
    }
    return out;
  }

 private:
  std::vector<VersionShape> shapes_;
  std::mt19937_64 rng_;
  Machine machine_;
  bool controlled_;
};

// Replays fixed observations per version (one list per version, consumed in order); a version
// whose list is exhausted cannot be observed (std::nullopt).
class ScriptedSampler : public Sampler {
 public:
  explicit ScriptedSampler(std::vector<std::vector<double>> script)
      : script_(std::move(script)), next_(script_.size(), 0) {}
  std::vector<std::optional<Observation>> round(const std::vector<std::size_t>& versions) override {
    std::vector<std::optional<Observation>> out;
    for (std::size_t v : versions) {
      if (next_[v] < script_[v].size())
        out.emplace_back(script_[v][next_[v]++]);
      else
        out.emplace_back(std::nullopt);
    }
    return out;
  }

 private:
  std::vector<std::vector<double>> script_;
  std::vector<std::size_t> next_;
};

// A shared host in two states that last for blocks of rounds: in the fast state version v runs
// at fast[v], in the slow state (another tenant on the core) at slow[v], with log-normal noise
// `sigma`. Each period of ten blocks ends with `slow_blocks` blocks in the slow state.
class TwoStateSampler : public Sampler {
 public:
  TwoStateSampler(std::vector<double> fast, std::vector<double> slow, std::size_t slow_blocks,
                  std::uint64_t seed, std::size_t block = 10, double sigma = 0.01)
      : fast_(std::move(fast)),
        slow_(std::move(slow)),
        slow_blocks_(slow_blocks),
        block_(block),
        sigma_(sigma),
        rng_(seed) {}

  std::vector<std::optional<Observation>> round(const std::vector<std::size_t>& versions) override {
    const bool slow = (rounds_++ / block_) % 10 >= 10 - slow_blocks_;
    std::vector<std::optional<Observation>> out;
    for (std::size_t v : versions)
      out.emplace_back((slow ? slow_ : fast_)[v] *
                       std::exp(sigma_ * std::normal_distribution<double>()(rng_)));
    return out;
  }

 private:
  std::vector<double> fast_, slow_;
  std::size_t slow_blocks_, block_;
  double sigma_;
  std::mt19937_64 rng_;
  std::size_t rounds_ = 0;
};

}  // namespace looprace::plans::testing
