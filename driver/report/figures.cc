#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "stats/inference.h"
#include "stats/running_stats.h"

namespace looprace::report {

const char* status_name(FactorStatus status) {
  switch (status) {
    case FactorStatus::chosen:
      return "chosen";
    case FactorStatus::winner:
      return "winner";
    case FactorStatus::eliminated:
      return "eliminated";
    case FactorStatus::disqualified:
      return "disqualified";
    case FactorStatus::undecided:
      return "undecided";
  }
  return "";
}

namespace {

const FactorResult* find_factor(const LoopReport& loop, int factor) {
  for (const FactorResult& f : loop.factors)
    if (f.factor == factor) return &f;
  return nullptr;
}

// Observations of `factor`: its own, or its code group's when it shares another's binary.
const std::vector<plans::Observation>* observations_of(const LoopReport& loop, int factor) {
  const FactorResult* f = find_factor(loop, factor);
  if (!f) return nullptr;
  const FactorResult* group = find_factor(loop, f->code_group);
  return group ? &group->cycles : &f->cycles;
}

bool contains(const std::vector<std::size_t>& v, std::size_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

LoopFigures derive_figures(const LoopReport& loop, double confidence) {
  LoopFigures figures;
  for (const FactorResult& f : loop.factors) {
    FactorFigures ff;
    ff.factor = f.factor;
    ff.code_group = f.code_group;
    const auto& cycles = *observations_of(loop, f.factor);
    ff.samples = cycles.size();
    stats::RunningStats logs;
    for (double c : cycles) logs.add(std::log(c));
    if (logs.count() > 0) ff.mean = std::exp(logs.mean());
    if (logs.count() >= 2) {
      stats::Interval log_interval = stats::mean_interval(logs, confidence);
      ff.interval = stats::Interval{std::exp(log_interval.lower), std::exp(log_interval.upper)};
    }
    const auto group = static_cast<std::size_t>(f.code_group);
    if (f.disqualified) {
      ff.status = FactorStatus::disqualified;
      ff.note = f.disqualified_reason;
    } else if (loop.decision && loop.decision->chosen == group) {
      ff.status = FactorStatus::chosen;
    } else if (loop.decision && contains(loop.decision->winners, group)) {
      ff.status = FactorStatus::winner;
    } else if (loop.decision && ff.samples > 0) {
      ff.status = FactorStatus::eliminated;
    }
    if (f.code_group != f.factor && !f.disqualified)
      ff.note = fmt::format("same code as {}", f.code_group);
    if (f.factor != 0 &&
        f.code_group == (find_factor(loop, 0) ? find_factor(loop, 0)->code_group : -1))
      figures.default_equivalents.push_back(f.factor);
    figures.factors.push_back(ff);
  }

  if (!loop.decision) {
    figures.speedup_note = "the race did not finish";
  } else if (!find_factor(loop, 0)) {
    figures.speedup_note = "GCC's default (factor 0) was not built";
  } else {
    const int chosen = static_cast<int>(loop.decision->chosen);
    const FactorResult* base = find_factor(loop, 0);
    if (base->code_group == chosen) {
      figures.speedup_note = "the chosen factor has the same code as GCC's default";
    } else {
      try {
        figures.speedup = stats::speedup_test(*observations_of(loop, 0),
                                              *observations_of(loop, chosen), confidence);
      } catch (const std::invalid_argument& e) {
        figures.speedup_note = fmt::format("no Speedup-Test: {}", e.what());
      }
    }
  }
  return figures;
}

std::string format_cycles(double cycles) {
  if (cycles >= 1e9) return fmt::format("{:.3f}G", cycles / 1e9);
  if (cycles >= 1e6) return fmt::format("{:.3f}M", cycles / 1e6);
  if (cycles >= 1e4) return fmt::format("{:.2f}k", cycles / 1e3);
  return fmt::format("{:.0f}", cycles);
}

}  // namespace looprace::report
