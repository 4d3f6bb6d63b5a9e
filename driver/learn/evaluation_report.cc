// Text, JSON and HTML of an evaluation.
#include "learn/evaluation_report.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/svg_chart.h"

namespace looprace::learn {

namespace {

namespace svg = report::svg;

// The best always-the-same factor in hindsight (the highest share of the oracle).
const PolicyResult* best_constant(const std::vector<PolicyResult>& policies) {
  const PolicyResult* best = nullptr;
  for (const PolicyResult& policy : policies)
    if (policy.name.rfind("always ", 0) == 0 &&
        (!best || policy.share_of_oracle > best->share_of_oracle))
      best = &policy;
  return best;
}

const PolicyResult* policy_named(const Evaluation& evaluation, std::string_view prefix) {
  for (const PolicyResult& policy : evaluation.policies)
    if (policy.name.rfind(prefix, 0) == 0) return &policy;
  return nullptr;
}

// The policies a reader compares: the model, GCC, -funroll-loops, the best constant, the oracle.
std::vector<const PolicyResult*> headline_policies(const Evaluation& evaluation) {
  std::vector<const PolicyResult*> shown;
  for (std::string_view prefix : {"model", "best constant of", "GCC", "-funroll-loops"})
    if (const PolicyResult* policy = policy_named(evaluation, prefix)) shown.push_back(policy);
  if (const PolicyResult* constant = best_constant(evaluation.policies)) shown.push_back(constant);
  if (const PolicyResult* oracle = policy_named(evaluation, "oracle")) shown.push_back(oracle);
  return shown;
}

std::string percent(double share) { return fmt::format("{:.1f} %", 100 * share); }

// A policy's name short enough for an axis tick.
std::string tick_name(const std::string& name) {
  if (name.rfind("always ", 0) == 0) return name.substr(7);
  if (name.rfind("best constant", 0) == 0) return "const.";
  if (name.rfind("GCC", 0) == 0) return "GCC";
  if (name.rfind("-funroll", 0) == 0) return "-funroll";
  return name.substr(0, name.find(' '));
}

}  // namespace

namespace {

// The table of the headline policies (and the best constant in hindsight) among policies.
std::string policy_table(const std::vector<PolicyResult>& policies) {
  std::string out = fmt::format("{:<38} {:>13} {:>10} {:>10} {:>9} {:>9}\n", "policy",
                                "share of gain", "slowdown", "worst", "exact", "tied");
  const PolicyResult* constant = best_constant(policies);
  for (const PolicyResult& p : policies) {
    bool headline = p.name.rfind("always ", 0) != 0 || &p == constant;
    if (!headline) continue;
    std::string name = &p == constant ? p.name + " (best in hindsight)" : p.name;
    out += fmt::format("{:<38} {:>13} {:>10.4f} {:>10.3f} {:>9} {:>9}\n", name,
                       percent(p.share_of_oracle), p.geomean_slowdown, p.worst_slowdown,
                       percent(p.exact_accuracy), percent(p.tied_accuracy));
  }
  return out;
}

}  // namespace

std::string evaluation_text(const Evaluation& e) {
  std::string out = fmt::format(
      "Leave-one-program-out over {} loop(s) of {} program(s); the oracle's factors are\n"
      "{:.2f} % faster than GCC's (geometric mean over loops).\n\n",
      e.loops.size(), e.programs, 100 * (e.oracle_speedup - 1));
  out += policy_table(e.policies);
  out +=
      "\nshare of gain: of the oracle's speedup over GCC's heuristic, the share reached\n"
      "slowdown:      geometric mean against each loop's best factor (worst: the largest)\n"
      "exact, tied:   how often the policy picks the best factor's code, or one of the race's\n"
      "               tied best; every other constant factor is in the JSON\n";
  if (e.resolved_policies.empty()) return out;
  out += fmt::format(
      "\nOn the {} loop(s) whose race resolved something (some factor's code outside the tied\n"
      "best; on the other {} every factor is tied and the oracle's gain there is noise):\n\n",
      e.resolved_loops.size(), e.loops.size() - e.resolved_loops.size());
  out += policy_table(e.resolved_policies);
  out += fmt::format(
      "\n{}: the tied-best factor with the highest mean, a policy always right\n"
      "as far as the races could tell; the oracle's gain above it is the tie sets' noise\n",
      kWorstTiedPolicy);
  return out;
}

std::string evaluation_json(const Evaluation& e) {
  nlohmann::ordered_json json = {
      {"loops", e.loops.size()}, {"programs", e.programs}, {"oracle_speedup", e.oracle_speedup}};
  json["policies"] = nlohmann::ordered_json::array();
  json["resolved"] = {{"loops", e.resolved_loops.size()},
                      {"policies", nlohmann::ordered_json::array()}};
  for (const PolicyResult& p : e.resolved_policies)
    json["resolved"]["policies"].push_back({{"name", p.name},
                                            {"share_of_oracle", p.share_of_oracle},
                                            {"geomean_slowdown", p.geomean_slowdown},
                                            {"worst_slowdown", p.worst_slowdown},
                                            {"exact_accuracy", p.exact_accuracy},
                                            {"tied_accuracy", p.tied_accuracy}});
  for (const PolicyResult& p : e.policies) {
    nlohmann::ordered_json choices = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < p.choices.size(); ++i)
      choices.push_back({{"program", e.loops[i]->program},
                         {"id", e.loops[i]->id},
                         {"location", e.loops[i]->location},
                         {"factor", p.choices[i].factor},
                         {"slowdown", p.choices[i].slowdown},
                         {"exact", p.choices[i].exact},
                         {"tied", p.choices[i].tied}});
    json["policies"].push_back({{"name", p.name},
                                {"share_of_oracle", p.share_of_oracle},
                                {"geomean_slowdown", p.geomean_slowdown},
                                {"worst_slowdown", p.worst_slowdown},
                                {"exact_accuracy", p.exact_accuracy},
                                {"tied_accuracy", p.tied_accuracy},
                                {"choices", choices}});
  }
  return json.dump(2) + "\n";
}

namespace {

// Each headline policy's slowdowns, sorted: how far from the best its loops land.
std::string slowdown_chart(const Evaluation& e) {
  svg::Chart chart;
  chart.title = "Slowdown against each loop's best factor (loops sorted per policy)";
  chart.x.label = "loops, sorted";
  chart.y.label = "slowdown (mean / best mean)";
  chart.y.min = 1;
  for (const PolicyResult* p : headline_policies(e)) {
    std::vector<double> slowdowns;
    for (const Choice& choice : p->choices) slowdowns.push_back(choice.slowdown);
    std::sort(slowdowns.begin(), slowdowns.end());
    svg::Series series;
    series.name = p->name;
    series.marker = svg::Marker::none;
    for (std::size_t i = 0; i < slowdowns.size(); ++i)
      series.points.push_back({static_cast<double>(i + 1), slowdowns[i], {}, {}, ""});
    chart.series.push_back(series);
  }
  return chart.render();
}

// The share of the oracle's gain of every policy, as bars.
std::string share_chart(const Evaluation& e) {
  svg::Chart chart;
  chart.title = "Share of the oracle's speedup over GCC's heuristic";
  chart.y.label = "share (1 = oracle, 0 = GCC)";
  chart.y.include_zero = true;
  chart.width = 900;
  svg::Series bars;
  bars.bars = true;
  bars.line = false;
  bars.marker = svg::Marker::none;
  for (std::size_t i = 0; i < e.policies.size(); ++i) {
    bars.points.push_back({static_cast<double>(i), e.policies[i].share_of_oracle, {}, {}, ""});
    chart.x.ticks.emplace_back(static_cast<double>(i), tick_name(e.policies[i].name));
  }
  chart.x.label =
      "policy (const.: the best constant of the other programs; numbers: always that factor)";
  chart.series.push_back(bars);
  chart.legend = false;
  return chart.render();
}

}  // namespace

std::string evaluation_html(const Evaluation& e) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<title>looprace evaluate</title>\n<style>body { font-family: sans-serif; margin: 24px "
      "auto; max-width: 1000px; color: #222; } pre { background: #f4f4f4; padding: 8px; }"
      "</style>\n</head>\n<body>\n<h1>Unroll model: leave-one-program-out evaluation</h1>\n";
  html += "<pre>" + svg::escape_xml(evaluation_text(e)) + "</pre>\n";
  html += share_chart(e) + "\n" + slowdown_chart(e) + "\n</body>\n</html>\n";
  return html;
}

}  // namespace looprace::learn
