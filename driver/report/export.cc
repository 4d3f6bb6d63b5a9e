#include "report/export.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "report/figures.h"

namespace looprace::report {

using nlohmann::json;

json loop_row(const LoopReport& loop, double confidence) {
  LoopFigures figures = derive_figures(loop, confidence);
  json row = {{"id", loop.id},
              {"location", loop.location},
              {"function", loop.function},
              {"position", loop.position},
              {"features", loop.features},
              {"plan", loop.plan},
              {"confidence", confidence}};
  row["hotness_share"] = loop.hotness_share ? json(*loop.hotness_share) : json(nullptr);
  row["hotness_share_is_bound"] = loop.hotness_share_is_bound;
  json runs = json::object();
  for (const auto& [kind, t] : loop.runs) {
    runs[kind] = {{"count", t.count}, {"wall_seconds", t.wall_seconds}};
  }
  row["runs"] = runs;
  json factors = json::array();
  for (std::size_t i = 0; i < figures.factors.size(); ++i) {
    const FactorFigures& f = figures.factors[i];
    const FactorResult& raw = loop.factors[i];
    factors.push_back({{"factor", f.factor},
                       {"samples", f.samples},
                       {"mean", f.mean ? json(*f.mean) : json(nullptr)},
                       {"ci_low", f.interval ? json(f.interval->lower) : json(nullptr)},
                       {"ci_high", f.interval ? json(f.interval->upper) : json(nullptr)},
                       {"status", status_name(f.status)},
                       {"code_group", f.code_group},
                       {"applied", raw.applied ? json(*raw.applied) : json(nullptr)},
                       {"note", f.note}});
  }
  row["factors"] = factors;
  const bool decided = loop.decision.has_value();
  row["winners"] = decided ? json(loop.decision->winners) : json(nullptr);
  row["chosen"] = decided ? json(loop.decision->chosen) : json(nullptr);
  row["cap_hit"] = decided ? json(loop.decision->cap_hit) : json(nullptr);
  // The plan's choice when GCC's default was kept for want of a confirmed gain ("speedup" is
  // then that factor's, against factor 0).
  row["unconfirmed"] =
      decided && loop.decision->unconfirmed ? json(*loop.decision->unconfirmed) : json(nullptr);
  // GCC's default choice: factor 0, and which factors produced the same code, when known.
  json default_choice = {{"factor", 0}, {"same_code_as", figures.default_equivalents}};
  const FactorResult* base = loop.factors.empty() ? nullptr : &loop.factors.front();
  default_choice["applied"] =
      base && base->factor == 0 && base->applied ? json(*base->applied) : json(nullptr);
  row["gcc_default"] = default_choice;
  if (figures.speedup) {
    const auto& s = *figures.speedup;
    row["speedup"] = {{"speedup", s.ratio_speedup},
                      {"ratio_test", stats::ratio_test_name(s.ratio_test)},
                      {"geometric_speedup", s.geometric_speedup},
                      {"median_speedup", s.median_speedup},
                      {"ci_low", s.speedup_interval.lower},
                      {"ci_high", s.speedup_interval.upper},
                      {"verdict", stats::verdict_name(s.ratio_verdict)},
                      {"explanation", s.ratio_explanation},
                      {"from", figures.speedup_source}};
  } else {
    row["speedup"] = {{"note", figures.speedup_note}};
  }
  return row;
}

std::string export_jsonl(const Report& report) {
  std::string out;
  for (const LoopReport& loop : report.loops)
    out += loop_row(loop, report.confidence).dump() + "\n";
  return out;
}

namespace {

json optional_json(const auto& value) { return value ? json(*value) : json(nullptr); }

json session_json(const Session& s) {
  return {{"started", s.started},
          {"command", s.command},
          {"cpu_model", s.cpu_model},
          {"cores", optional_json(s.cores)},
          {"kernel", s.kernel},
          {"compiler", s.compiler},
          {"virtual_machine", s.virtual_machine},
          {"tsc_hz", optional_json(s.tsc_hz)},
          {"load1", optional_json(s.load1)},
          {"pinned_cpu", optional_json(s.pinned_cpu)}};
}

json context_json(const RunContext& c) {
  json out = {{"build", c.build_command},
              {"run", c.run_command},
              {"looprace_version", c.looprace_version},
              {"gcc", c.gcc_version},
              {"cpu_model", c.cpu_model},
              {"tsc_hz", c.tsc_hz},
              {"probe_overhead_cycles", c.probe_overhead_cycles},
              {"started", c.started},
              {"warnings", c.warnings},
              {"run_counts", c.run_counts}};
  out["facts"] = json::object();
  for (const auto& [key, value] : c.facts) out["facts"][key] = value;
  out["sessions"] = json::array();
  for (const Session& s : c.sessions) out["sessions"].push_back(session_json(s));
  out["first_run"] = c.first_run.empty() ? json(nullptr) : json(c.first_run);
  out["last_run"] = c.last_run.empty() ? json(nullptr) : json(c.last_run);
  return out;
}

}  // namespace

std::string export_json(const Report& report) {
  json loops = json::array();
  for (const LoopReport& loop : report.loops) loops.push_back(loop_row(loop, report.confidence));
  json out = {{"confidence", report.confidence},
              {"context", context_json(report.context)},
              {"loops", loops}};
  return out.dump(2) + "\n";
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

std::string cell(const json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return csv_field(value.get<std::string>());
  if (value.is_array()) {
    std::string joined;
    for (const json& v : value) joined += (joined.empty() ? "" : " ") + v.dump();
    return csv_field(joined);
  }
  return csv_field(value.dump());
}

}  // namespace

std::string export_observations_csv(const Report& report) {
  const bool controlled = std::any_of(report.loops.begin(), report.loops.end(), [](const auto& l) {
    return l.decision && std::any_of(l.factors.begin(), l.factors.end(),
                                     [](const FactorResult& f) { return !f.controls.empty(); });
  });
  std::string out = controlled ? "loop,version,cycles,control\n" : "loop,version,cycles\n";
  for (const LoopReport& loop : report.loops) {
    if (!loop.decision) continue;  // an unfinished race: versions may lack observations
    for (const FactorResult& factor : loop.factors) {
      if (factor.disqualified) continue;  // never a valid choice for a replayed plan
      for (std::size_t k = 0; k < factor.cycles.size(); ++k) {
        out += fmt::format("{},{},{}", loop.id, factor.factor, factor.cycles[k]);
        // A loop raced without controls beside others raced with them: a control that never
        // moves, which adjusts nothing.
        if (controlled)
          out += fmt::format(",{}", factor.controls.empty() ? 1.0 : factor.controls[k]);
        out += "\n";
      }
    }
  }
  return out;
}

std::string export_runs_csv(const Report& report) {
  std::string out = "loop,run,round,version,ok,cycles,filtered,entries,disturbed,control\n";
  for (const LoopReport& loop : report.loops) {
    for (const RaceRun& r : loop.race_runs) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", loop.id, r.run, r.round, r.factor,
                         r.ok ? 1 : 0, r.cycles ? fmt::to_string(*r.cycles) : "",
                         r.filtered ? fmt::to_string(*r.filtered) : "", r.entries, r.disturbed,
                         r.control ? fmt::to_string(*r.control) : "");
    }
  }
  return out;
}

std::string export_csv(const Report& report) {
  std::set<std::string> feature_names;
  for (const LoopReport& loop : report.loops)
    for (const auto& [name, value] : loop.features.items()) feature_names.insert(name);

  std::vector<std::string> header = {"id", "location", "function", "position", "hotness_share"};
  for (const std::string& name : feature_names) header.push_back("feature_" + name);
  for (int f = 0; f <= kMaxFactor; ++f)
    for (const char* column : {"mean", "ci_low", "ci_high", "samples", "status"})
      header.push_back(fmt::format("{}_{}", column, f));
  for (const char* column :
       {"winners", "chosen", "cap_hit", "default_same_code_as", "default_applied", "speedup",
        "speedup_ci_low", "speedup_ci_high", "median_speedup", "verdict", "plan"})
    header.push_back(column);

  std::string out;
  for (std::size_t i = 0; i < header.size(); ++i) out += (i ? "," : "") + csv_field(header[i]);
  out += "\n";
  for (const LoopReport& loop : report.loops) {
    json row = loop_row(loop, report.confidence);
    std::vector<std::string> cells = {cell(row["id"]), cell(row["location"]), cell(row["function"]),
                                      cell(row["position"]), cell(row["hotness_share"])};
    for (const std::string& name : feature_names)
      cells.push_back(row["features"].contains(name) ? cell(row["features"][name]) : "");
    for (int f = 0; f <= kMaxFactor; ++f) {
      const json* factor = nullptr;
      for (const json& candidate : row["factors"])
        if (candidate["factor"] == f) factor = &candidate;
      for (const char* column : {"mean", "ci_low", "ci_high", "samples", "status"})
        cells.push_back(factor ? cell((*factor)[column]) : "");
    }
    const json& speedup = row["speedup"];
    auto speedup_cell = [&](const char* key) {
      return speedup.contains(key) ? cell(speedup[key]) : std::string();
    };
    cells.push_back(cell(row["winners"]));
    cells.push_back(cell(row["chosen"]));
    cells.push_back(cell(row["cap_hit"]));
    cells.push_back(cell(row["gcc_default"]["same_code_as"]));
    cells.push_back(cell(row["gcc_default"]["applied"]));
    cells.push_back(speedup_cell("speedup"));
    cells.push_back(speedup_cell("ci_low"));
    cells.push_back(speedup_cell("ci_high"));
    cells.push_back(speedup_cell("median_speedup"));
    cells.push_back(speedup_cell("verdict"));
    cells.push_back(cell(row["plan"]));
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + cells[i];
    out += "\n";
  }
  return out;
}

}  // namespace looprace::report
