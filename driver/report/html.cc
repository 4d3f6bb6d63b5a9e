#include "report/html.h"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/figures.h"
#include "report/svg_chart.h"
#include "report/text.h"

namespace looprace::report {
namespace {

using svg::escape_xml;

constexpr const char* kStyle = R"css(
body { font-family: sans-serif; margin: 24px auto; max-width: 1100px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 0; }
section.loop { border: 1px solid #ccc; border-radius: 6px; padding: 16px; margin: 24px 0; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { padding: 3px 10px; text-align: right; border-bottom: 1px solid #eee; }
th { background: #f4f4f4; } td.left, th.left { text-align: left; }
tr.chosen td { background: #fff1e0; font-weight: bold; } tr.winner td { background: #e8f1fa; }
tr.disqualified td { color: #b00020; }
.warning { background: #fff4d6; border-left: 4px solid #e6a700; padding: 6px 10px; margin: 6px 0; }
.verdict { background: #eef7ee; border-left: 4px solid #009e73; padding: 8px 12px; margin: 10px 0; }
.charts { display: flex; flex-wrap: wrap; gap: 12px; }
code { background: #f4f4f4; padding: 1px 4px; }
)css";

const char* kChosen = "#D55E00";
const char* kWinner = "#0072B2";
const char* kOther = "#999999";
const char* kDisqualified = "#B00020";

std::vector<std::pair<double, std::string>> factor_ticks(const LoopFigures& figures) {
  std::vector<std::pair<double, std::string>> ticks;
  for (const FactorFigures& f : figures.factors)
    ticks.emplace_back(f.factor, f.factor == 0 ? "gcc" : std::to_string(f.factor));
  return ticks;
}

svg::Series markers(std::string name, const char* color, svg::Marker marker) {
  svg::Series s;
  s.name = std::move(name);
  s.color = color;
  s.line = false;
  s.marker = marker;
  return s;
}

// One series per factor status, drawn eliminated first and chosen last (on top).
struct StatusSeries {
  svg::Series chosen, winners, others, disqualified;

  void add(FactorStatus status, const svg::Point& p) {
    switch (status) {
      case FactorStatus::chosen:
        chosen.points.push_back(p);
        break;
      case FactorStatus::winner:
        winners.points.push_back(p);
        break;
      case FactorStatus::disqualified:
        disqualified.points.push_back(p);
        break;
      default:
        others.points.push_back(p);
    }
  }
  void append_to(svg::Chart& chart) const {
    for (const svg::Series* s : {&others, &winners, &chosen, &disqualified})
      if (!s->points.empty()) chart.series.push_back(*s);
  }
};

// The frame of the two per-factor charts: factors 0..16 along x.
svg::Chart factor_chart(const LoopFigures& figures, std::string title, std::string y_label) {
  svg::Chart chart;
  chart.title = std::move(title);
  chart.width = 520;
  chart.height = 320;
  chart.x.label = "unroll factor";
  chart.x.min = -0.5;
  chart.x.max = kMaxFactor + 0.5;
  chart.x.ticks = factor_ticks(figures);
  chart.y.label = std::move(y_label);
  return chart;
}

std::string means_chart(const LoopFigures& figures, double confidence) {
  svg::Chart chart = factor_chart(
      figures, fmt::format("Mean cycles per run with {:.0f}% interval", 100 * confidence),
      "cycles (geometric mean)");
  StatusSeries series{markers("chosen", kChosen, svg::Marker::diamond),
                      markers("tied best", kWinner, svg::Marker::circle),
                      markers("eliminated / undecided", kOther, svg::Marker::circle),
                      markers("disqualified", kDisqualified, svg::Marker::cross)};
  for (const FactorFigures& f : figures.factors) {
    if (!f.mean) continue;
    svg::Point p;
    p.x = f.factor;
    p.y = *f.mean;
    if (f.interval) {
      p.y_low = f.interval->lower;
      p.y_high = f.interval->upper;
    }
    series.add(f.status, p);
  }
  series.append_to(chart);
  if (!figures.factors.empty() && figures.factors.front().mean) {
    svg::ReferenceLine baseline;
    baseline.value = *figures.factors.front().mean;
    baseline.label = "GCC default";
    chart.references.push_back(baseline);
  }
  return chart.render();
}

std::string samples_chart(const LoopFigures& figures) {
  svg::Chart chart = factor_chart(figures, "Observations per factor", "program runs");
  auto bars = [](const char* name, const char* color) {
    svg::Series s;
    s.name = name;
    s.bars = true;
    s.line = false;
    s.marker = svg::Marker::none;
    s.color = color;
    return s;
  };
  StatusSeries series{bars("chosen", kChosen), bars("tied best", kWinner),
                      bars("eliminated / undecided", kOther), bars("disqualified", kDisqualified)};
  for (const FactorFigures& f : figures.factors) {
    // Factors sharing code were observed once, under their group: draw the group's bar only.
    if (f.code_group != f.factor) continue;
    svg::Point p;
    p.x = f.factor;
    p.y = static_cast<double>(f.samples);
    series.add(f.status, p);
  }
  series.append_to(chart);
  return chart.render();
}

// For every factor the rounds it was in the race, as one bar per stretch of rounds (a long
// race would be a solid band of per-round markers), and the eliminations. The survivor count
// goes in the title: plotted, it would read as a factor on this axis.
std::string rounds_chart(const plans::LoopDecision& decision) {
  svg::Chart chart;
  chart.title = fmt::format(
      "Elimination rounds: factors in the race after each round ({} after round 1, {} at the "
      "end)",
      decision.rounds.front().survivors.size(), decision.rounds.back().survivors.size());
  chart.width = 1084;
  chart.height = 340;
  chart.x.label = "round";
  chart.y.label = "unroll factor";
  chart.y.min = -0.5;
  chart.y.max = kMaxFactor + 0.5;
  for (int f = 0; f <= kMaxFactor; f += 2)
    chart.y.ticks.emplace_back(f, f == 0 ? "gcc" : std::to_string(f));
  svg::Series in;
  in.name = "in the race";
  in.color = kWinner;
  in.marker = svg::Marker::none;
  svg::Series out = markers("eliminated this round", kDisqualified, svg::Marker::cross);
  const double gap = std::numeric_limits<double>::quiet_NaN();
  for (int f = 0; f <= kMaxFactor; ++f) {
    std::optional<double> start;
    double last = 0;
    auto close = [&] {
      if (!start) return;
      in.points.push_back({*start - 0.5, static_cast<double>(f), {}, {}, {}});
      in.points.push_back({last + 0.5, static_cast<double>(f), {}, {}, {}});
      in.points.push_back({last + 0.5, gap, {}, {}, {}});
      start.reset();
    };
    for (const plans::FactorRound& r : decision.rounds) {
      const double round = static_cast<double>(r.round);
      if (std::find(r.survivors.begin(), r.survivors.end(), f) != r.survivors.end()) {
        if (!start) start = round;
        last = round;
      } else {
        close();
      }
    }
    close();
  }
  for (const plans::FactorRound& r : decision.rounds) {
    for (int f : r.losers) out.points.push_back({double(r.round), double(f), {}, {}, {}});
  }
  chart.series = {in, out};
  return chart.render();
}

std::string factor_table(const LoopReport& loop, const LoopFigures& figures, double confidence) {
  std::string out = fmt::format(
      "<table><tr><th>factor</th><th>applied</th><th>mean cycles</th><th>{:.0f}% interval</th>"
      "<th>samples</th><th class=\"left\">status</th></tr>\n",
      100 * confidence);
  for (std::size_t i = 0; i < figures.factors.size(); ++i) {
    const FactorFigures& f = figures.factors[i];
    const FactorResult& raw = loop.factors[i];
    std::string status = status_name(f.status);
    if (!f.note.empty()) status += " — " + f.note;
    out += fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td "
        "class=\"left\">{}</td></tr>\n",
        f.status == FactorStatus::undecided ? "undecided" : status_name(f.status),
        f.factor == 0 ? "0 (gcc)" : std::to_string(f.factor),
        raw.applied ? std::to_string(*raw.applied) +
                          (raw.applied_how.empty() ? "" : " (" + escape_xml(raw.applied_how) + ")")
                    : "?",
        f.mean ? format_cycles(*f.mean) : "–",
        f.interval ? format_cycles(f.interval->lower) + " – " + format_cycles(f.interval->upper)
                   : "–",
        f.samples, escape_xml(status));
  }
  return out + "</table>\n";
}

void render_loop(std::string& out, const LoopReport& loop, std::size_t index, std::size_t count,
                 double confidence) {
  LoopFigures figures = derive_figures(loop, confidence);
  out += fmt::format("<section class=\"loop\" id=\"loop-{}\">\n", escape_xml(loop.id));
  out +=
      fmt::format("<h2>Loop {}/{}: <code>{}</code> {} in <code>{}</code></h2>\n", index + 1, count,
                  escape_xml(loop.location), escape_xml(loop.id), escape_xml(loop.function));
  out += fmt::format("<p>Position {} in its function", escape_xml(loop.position));
  if (loop.hotness_share)
    out += "; " + hotness_text(*loop.hotness_share, loop.hotness_share_is_bound);
  if (!loop.plan.empty()) out += fmt::format("; plan <code>{}</code>", escape_xml(loop.plan));
  if (!loop.raced_on.empty())
    out += fmt::format("; raced on <code>{}</code>",
                       escape_xml(fmt::format("{}", fmt::join(loop.raced_on, ", "))));
  if (std::string base = loop.features.value("base", ""); !base.empty())
    out += fmt::format("; decided for a build with <code>{}</code>", escape_xml(base));
  out += ".</p>\n";
  for (const std::string& w : loop.warnings)
    out += fmt::format("<div class=\"warning\">Warning: {}</div>\n", escape_xml(w));

  out += "<div class=\"verdict\">";
  if (!loop.decision) {
    out +=
        "No decision: the race did not finish. Run <code>looprace race</code> again to resume it.";
  } else {
    const plans::LoopDecision& d = *loop.decision;
    std::string winners;
    for (int w : d.winners) winners += (winners.empty() ? "" : ", ") + std::to_string(w);
    out += fmt::format("<strong>Chosen factor: {}</strong> (tied best: {}) after {} rounds{}.",
                       d.chosen, winners, d.rounds.size(),
                       d.cap_hit ? ", stopped by the sample cap (not statistically settled)" : "");
    if (!figures.set_aside.empty()) out += "<br/>" + escape_xml(figures.set_aside);
    if (!figures.runner_up.empty()) out += "<br/>" + escape_xml(figures.runner_up);
    if (figures.speedup) {
      const auto& s = *figures.speedup;
      out += fmt::format(
          "<br/>{} against GCC's default: <strong>{:.3f}</strong> ({}), {}% "
          "interval {:.3f} – {:.3f}, median {:.3f}; verdict: <strong>{}</strong>. {} "
          "From {}.",
          escape_xml(figures.speedup_subject), s.ratio_speedup, stats::ratio_estimate_label(s),
          stats::percent_text(s.confidence), s.speedup_interval.lower, s.speedup_interval.upper,
          s.median_speedup, stats::verdict_name(s.ratio_verdict), escape_xml(s.ratio_explanation),
          escape_xml(figures.speedup_source));
    } else {
      out += fmt::format("<br/>No speedup against GCC's default: {}.",
                         escape_xml(figures.speedup_note));
    }
  }
  if (!figures.default_equivalents.empty()) {
    std::string same;
    for (int f : figures.default_equivalents)
      same += (same.empty() ? "" : ", ") + std::to_string(f);
    out += fmt::format("<br/>GCC's default produced the same code as factor {}.", same);
  }
  out += "</div>\n<div class=\"charts\">\n";
  out += means_chart(figures, confidence);
  out += samples_chart(figures);
  if (loop.decision && !loop.decision->rounds.empty()) out += rounds_chart(*loop.decision);
  out += "</div>\n";
  out += factor_table(loop, figures, confidence);
  out += "</section>\n";
}

}  // namespace

std::string render_html(const Report& report) {
  const RunContext& c = report.context;
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<title>looprace report</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<h1>looprace report</h1>\n<table>\n";
  auto fact = [&](const std::string& name, const std::string& value) {
    if (!value.empty())
      out += fmt::format("<tr><th class=\"left\">{}</th><td class=\"left\">{}</td></tr>\n",
                         escape_xml(name), escape_xml(value));
  };
  fact("build", c.build_command);
  fact("run", c.run_command);
  fact("looprace", c.looprace_version);
  fact("GCC", c.gcc_version);
  fact("CPU", c.cpu_model);
  if (c.tsc_hz > 0) fact("TSC", fmt::format("{:.3f} GHz", c.tsc_hz / 1e9));
  if (c.probe_overhead_cycles > 0)
    fact("probe overhead", fmt::format("{:.0f} cycles", c.probe_overhead_cycles));
  fact("started", c.started);
  for (const auto& [name, value] : c.facts) fact(name, value);
  out += "</table>\n";
  for (const std::string& w : c.warnings)
    out += fmt::format("<div class=\"warning\">Warning: {}</div>\n", escape_xml(w));
  if (report.loops.empty()) out += "<p>No raced loops in this store.</p>\n";
  for (std::size_t i = 0; i < report.loops.size(); ++i)
    render_loop(out, report.loops[i], i, report.loops.size(), report.confidence);
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace looprace::report
