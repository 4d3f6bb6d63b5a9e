#include "report/text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/figures.h"

namespace looprace::report {
namespace {

std::string join(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ", ") + std::to_string(v);
  return out;
}

void render_loop(std::string& out, const LoopReport& loop, std::size_t index, std::size_t count,
                 double confidence) {
  LoopFigures figures = derive_figures(loop, confidence);
  out += fmt::format("\nLoop {}/{}: {} {} in {} (loop {})", index + 1, count, loop.id,
                     loop.location, loop.function, loop.position);
  if (loop.hotness_share)
    out += ", " + hotness_text(*loop.hotness_share, loop.hotness_share_is_bound);
  out += "\n";
  if (!loop.plan.empty()) out += fmt::format("  plan: {}\n", loop.plan);
  if (!loop.raced_on.empty())
    out += fmt::format("  raced on: {}\n", fmt::join(loop.raced_on, ", "));
  if (std::string base = loop.features.value("base", ""); !base.empty())
    out += fmt::format("  base: {} (factor 0 is what GCC does with these flags)\n", base);
  out += fmt::format("  {:>6}  {:>10}  {:>23}  {:>7}  {}\n", "factor", "mean",
                     fmt::format("{:.0f}% interval", 100 * confidence), "samples", "status");
  for (const FactorFigures& f : figures.factors) {
    std::string name = f.factor == 0 ? "0 gcc" : std::to_string(f.factor);
    std::string mean = f.mean ? format_cycles(*f.mean) : "-";
    std::string interval = f.interval ? fmt::format("[{}, {}]", format_cycles(f.interval->lower),
                                                    format_cycles(f.interval->upper))
                                      : "-";
    std::string status = status_name(f.status);
    if (!f.note.empty()) status += " (" + f.note + ")";
    out += fmt::format("  {:>6}  {:>10}  {:>23}  {:>7}  {}\n", name, mean, interval, f.samples,
                       status);
  }
  if (!loop.decision) {
    out += "  No decision: the race did not finish; run `looprace race` again to resume it.\n";
  } else {
    const plans::LoopDecision& d = *loop.decision;
    out += fmt::format("  Chosen: factor {} (tied best: {}) after {} rounds{}.\n", d.chosen,
                       join(d.winners), d.rounds.size(),
                       d.cap_hit ? ", stopped by the sample cap (not statistically settled)" : "");
    if (!figures.set_aside.empty()) out += fmt::format("  {}\n", figures.set_aside);
    if (!figures.runner_up.empty()) out += fmt::format("  {}\n", figures.runner_up);
  }
  if (figures.speedup) {
    const auto& s = *figures.speedup;
    out += fmt::format(
        "  {} vs GCC's default: {:.3f} ({}), {}% interval [{:.3f}, {:.3f}], "
        "median {:.3f}: {}\n",
        figures.speedup_subject, s.ratio_speedup, stats::ratio_estimate_label(s),
        stats::percent_text(s.confidence), s.speedup_interval.lower, s.speedup_interval.upper,
        s.median_speedup, stats::verdict_name(s.ratio_verdict));
    out += fmt::format("    {}\n    From {}.\n", s.ratio_explanation, figures.speedup_source);
  } else if (loop.decision) {
    out += fmt::format("  Speedup vs GCC's default: none ({})\n", figures.speedup_note);
  }
  if (!figures.default_equivalents.empty()) {
    out += fmt::format("  GCC's default produced the same code as factor {}.\n",
                       join(figures.default_equivalents));
  }
  for (const std::string& w : loop.warnings) out += fmt::format("  Warning: {}\n", w);
}

}  // namespace

std::string hotness_text(double share, bool is_bound) {
  return fmt::format("{}{:.1f}% of the program's cycles", is_bound ? "at most " : "", 100 * share);
}

std::string render_text(const Report& report) {
  const RunContext& c = report.context;
  std::string out;
  if (!c.build_command.empty()) out += fmt::format("Build: {}\n", c.build_command);
  if (!c.run_command.empty()) out += fmt::format("Run:   {}\n", c.run_command);
  std::string machine;
  if (!c.cpu_model.empty()) machine += c.cpu_model;
  if (c.tsc_hz > 0) machine += fmt::format(", TSC {:.3f} GHz", c.tsc_hz / 1e9);
  if (c.probe_overhead_cycles > 0)
    machine += fmt::format(", probe overhead {:.0f} cycles", c.probe_overhead_cycles);
  if (!c.gcc_version.empty()) machine += fmt::format(", GCC {}", c.gcc_version);
  if (!machine.empty()) out += fmt::format("Machine: {}\n", machine);
  for (const auto& [name, value] : c.facts) out += fmt::format("  {}: {}\n", name, value);
  for (const std::string& w : c.warnings) out += fmt::format("Warning: {}\n", w);
  if (report.loops.empty()) out += "No raced loops in this store.\n";
  for (std::size_t i = 0; i < report.loops.size(); ++i)
    render_loop(out, report.loops[i], i, report.loops.size(), report.confidence);
  return out;
}

}  // namespace looprace::report
