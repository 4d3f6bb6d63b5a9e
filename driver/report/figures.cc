#include "report/figures.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "report/svg_chart.h"
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
const std::vector<double>* observations_of(const LoopReport& loop, int factor) {
  const FactorResult* f = find_factor(loop, factor);
  if (!f) return nullptr;
  const FactorResult* group = find_factor(loop, f->code_group);
  return group ? &group->cycles : &f->cycles;
}

bool contains(const std::vector<int>& v, int x) {
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
    const int group = f.code_group;
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
    return figures;
  }
  if (const std::size_t n = loop.decision->rounds_set_aside())
    figures.set_aside = fmt::format(
        "{} of its {} rounds set aside: the machine ran them slower as a whole than the round "
        "limit allows (other work on the machine or its host); the tests count the other {}.",
        n, loop.decision->rounds.size(), loop.decision->rounds.size() - n);
  if (const auto& u = loop.decision->runner_up)
    figures.runner_up = fmt::format(
        "Runner-up: factor {}, the best the race eliminated, {}: {} fresh pairs, factor {} {:.3f} "
        "times as fast [{:.3f}, {:.3f}].",
        u->factor, u->joined ? "joined the tied best" : "stayed out", u->pairs,
        loop.decision->chosen, u->speedup, u->ci_low, u->ci_high);
  const plans::SpeedupEvidence& evidence = loop.decision->speedup;
  switch (evidence.source) {
    case plans::SpeedupSource::kSameCode:
      figures.speedup_note = "the chosen factor has the same code as GCC's default";
      break;
    case plans::SpeedupSource::kConfirmation:
      figures.speedup_source =
          fmt::format("{} confirmation runs each, taken after the race", evidence.chosen.size());
      if (loop.decision->unconfirmed) {
        figures.speedup_subject =
            fmt::format("Factor {} (the plan's choice, not confirmed: GCC's default kept)",
                        *loop.decision->unconfirmed);
      }
      break;
    case plans::SpeedupSource::kRace:
      figures.speedup_source =
          "the race's own observations (no confirmation runs: they chose the factor, so the "
          "speedup is optimistic)";
      break;
    case plans::SpeedupSource::kNone:
      figures.speedup_note = "fewer than 2 runs of factor 0 or of the chosen factor";
      break;
  }
  try {
    figures.speedup = plans::speedup_of(evidence);
  } catch (const std::invalid_argument& e) {
    figures.speedup_note = fmt::format("no Speedup-Test: {}", e.what());
  }
  return figures;
}

std::string replay_loop_figure(const plans::LoopReplay& loop, const std::string& plan) {
  // Versions sit at their index, named by their label (deduplicated factors leave gaps in the
  // factor numbers, which would only spread the points).
  std::vector<std::pair<double, std::string>> ticks;
  for (std::size_t v = 0; v < loop.versions.size(); ++v)
    ticks.emplace_back(static_cast<double>(v), loop.versions[v]);
  const svg::Axis versions{"version", false, -0.5, static_cast<double>(loop.versions.size()) - 0.5,
                           false,     ticks};

  svg::Chart cycles;
  cycles.title = fmt::format("Loop {}: cycles over all {} rounds", loop.loop,
                             loop.per_version.empty() ? 0 : loop.per_version[0].recorded);
  cycles.width = 560;
  cycles.x = versions;
  cycles.y = {"mean cycles (1 sd bars)", false, {}, {}, false, {}};
  svg::Series best{"within theta of the best", {}, "#009E73", false, false, svg::Marker::circle};
  svg::Series slower{"slower", {}, "#D55E00", false, false, svg::Marker::square};
  for (std::size_t v = 0; v < loop.versions.size(); ++v) {
    const plans::VersionReplay& r = loop.per_version[v];
    (r.acceptable ? best : slower)
        .points.push_back({static_cast<double>(v), r.true_mean, r.true_mean - r.true_sd,
                           r.true_mean + r.true_sd, ""});
  }
  cycles.series = {best, slower};

  svg::Chart samples;
  samples.title = fmt::format("{:.1f} samples per version, {:.0f}% failed, {:.0f}% capped",
                              loop.mean_samples, 100.0 * loop.failure_rate, 100.0 * loop.cap_rate);
  samples.width = 560;
  samples.x = versions;
  samples.x.label = plan;
  samples.y = {fmt::format("samples per repetition (mean of {}, 1 sd bars)", loop.repetitions),
               false,
               {},
               {},
               true,
               {}};
  svg::Series taken{"", {}, "#0072B2", false, false, svg::Marker::none, true};
  for (std::size_t v = 0; v < loop.versions.size(); ++v) {
    const plans::VersionReplay& r = loop.per_version[v];
    // Sample counts are never negative: the lower bar stops at 0.
    taken.points.push_back({static_cast<double>(v), r.samples_mean,
                            std::max(0.0, r.samples_mean - r.samples_sd),
                            r.samples_mean + r.samples_sd, ""});
  }
  samples.series = {taken};
  return svg::side_by_side({cycles, samples});
}

std::string format_cycles(double cycles) {
  if (cycles >= 1e9) return fmt::format("{:.3f}G", cycles / 1e9);
  if (cycles >= 1e6) return fmt::format("{:.3f}M", cycles / 1e6);
  if (cycles >= 1e4) return fmt::format("{:.2f}k", cycles / 1e3);
  return fmt::format("{:.0f}", cycles);
}

}  // namespace looprace::report
