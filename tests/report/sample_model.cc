#include "sample_model.h"

#include <cmath>
#include <numeric>
#include <random>

#include "plans/factory.h"

namespace looprace::report::testing {
namespace {

// Log-normal cycles around a per-factor mean; factors listed in `broken` cannot be observed.
class SyntheticSampler : public plans::Sampler {
 public:
  SyntheticSampler(std::vector<double> means, std::vector<std::size_t> broken, unsigned seed)
      : means_(std::move(means)),
        broken_(std::move(broken)),
        rng_(seed),
        recorded_(means_.size()) {}
  std::vector<std::optional<plans::Observation>> round(
      const std::vector<std::size_t>& versions) override {
    std::vector<std::optional<plans::Observation>> out;
    for (std::size_t v : versions) {
      if (std::find(broken_.begin(), broken_.end(), v) != broken_.end()) {
        out.push_back(std::nullopt);
        continue;
      }
      std::normal_distribution<double> noise(0, 0.03);
      double cycles = means_[v] * std::exp(noise(rng_));
      recorded_[v].push_back(cycles);
      out.push_back(cycles);
    }
    return out;
  }
  const std::vector<std::vector<double>>& recorded() const { return recorded_; }

 private:
  std::vector<double> means_;
  std::vector<std::size_t> broken_;
  std::mt19937_64 rng_;
  std::vector<std::vector<double>> recorded_;
};

// The decision as a race without confirmation runs writes it: every factor its own group, the
// speedup on the race's own observations.
plans::LoopDecision in_factors(const LoopReport& loop, const plans::Decision& decision,
                               const std::vector<std::vector<double>>& recorded) {
  std::vector<int> factors(recorded.size());
  std::iota(factors.begin(), factors.end(), 0);
  plans::LoopDecision d = plans::in_factors(decision, factors, factors, factors, {});
  d.loop_id = loop.id;
  d.plan = loop.plan;
  if (d.chosen == 0) {
    d.speedup.source = plans::SpeedupSource::kSameCode;
  } else {
    d.speedup = {plans::SpeedupSource::kRace, recorded[0],
                 recorded[static_cast<std::size_t>(d.chosen)], 0.95};
  }
  return d;
}

LoopReport raced_loop(std::string id, std::string location, std::vector<double> means,
                      std::vector<std::size_t> broken, unsigned seed, bool finish) {
  LoopReport loop;
  loop.id = std::move(id);
  loop.location = std::move(location);
  loop.function = "kernel_<int>, \"quoted\"";
  loop.position = "0/2";
  loop.hotness_share = 0.42;
  loop.features = {{"blocks", 4}, {"stmts", 17}, {"loads", 2}, {"niter", -1}};
  plans::PlanOptions options;
  options.max_samples = 40;
  auto plan = plans::make_plan(options);
  loop.plan = plan->describe();
  SyntheticSampler sampler(means, broken, seed);
  plans::Decision decision = plan->run(means.size(), sampler);
  for (int f = 0; f <= kMaxFactor; ++f) {
    FactorResult r;
    r.factor = f;
    r.code_group = f;
    r.applied = f == 0 ? 4 : std::max(f, 1);
    r.cycles = sampler.recorded()[static_cast<std::size_t>(f)];
    if (std::find(broken.begin(), broken.end(), static_cast<std::size_t>(f)) != broken.end()) {
      r.disqualified = true;
      r.disqualified_reason = "output differs from the baseline";
    }
    loop.factors.push_back(r);
  }
  if (finish) loop.decision = in_factors(loop, decision, sampler.recorded());
  return loop;
}

}  // namespace

Report sample_report() {
  Report report;
  report.context.build_command = "make -C examples/demo CC=\"$LOOPRACE_CC\"";
  report.context.run_command = "./demo < input.txt";
  report.context.looprace_version = "0.1.0";
  report.context.gcc_version = "12.2.0";
  report.context.cpu_model = "AMD EPYC 7B13";
  report.context.tsc_hz = 2.45e9;
  report.context.probe_overhead_cycles = 97;
  report.context.facts = {{"governor", "not exposed (VM)"}, {"load", "1.8 on 2 CPUs"}};
  report.context.warnings = {"the machine was loaded (1.8 on 2 CPUs): timings are noisy"};

  std::vector<double> clear(kMaxFactor + 1);
  for (int f = 0; f <= kMaxFactor; ++f) clear[f] = 1e6 * (1 + 0.04 * std::abs(f - 4));
  clear[0] = clear[1] * 0.98;
  report.loops.push_back(raced_loop("1a2b3c4d5e6f7081", "src/fir.c:42:19", clear, {13}, 7, true));
  // Factors 9..16 made the same code as 8: raced once, under 8.
  for (int f = 9; f <= kMaxFactor; ++f) {
    if (f == 13) continue;  // disqualified on its own
    report.loops.back().factors[f].code_group = 8;
    report.loops.back().factors[f].cycles.clear();
  }

  std::vector<double> tie(kMaxFactor + 1, 5e4);
  report.loops.push_back(raced_loop("00000000deadbeef", "src/io.c:7:3", tie, {}, 11, true));
  report.loops.back().warnings = {"factor 16 was not applied as requested (too-big)"};
  report.loops.push_back(raced_loop("0123456789abcdef", "src/tail.c:99:5", clear, {}, 13, false));
  return report;
}

}  // namespace looprace::report::testing
