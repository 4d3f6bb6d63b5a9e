// `looprace loops`: the loops of a program (the plugin's table), ranked by measured hotness when
// a run command is given.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>

#include "build/variant_env.h"
#include "cli/commands.h"
#include "race/program.h"
#include "store/dataset.h"

namespace looprace::cli {
namespace {

struct LoopsOptions {
  std::string build_command;
  std::string run_command;
  unsigned runs = 3;
  double timeout_seconds = 0;
  bool json = false;
  std::filesystem::path workdir;  // empty: build::default_workdir(the current directory)
};

// The main features of a loop as key=value words, for the table.
std::string feature_text(const nlohmann::json& f) {
  std::string out;
  for (const char* key : {"stmts", "loads", "stores", "calls", "branches", "exits", "niter"}) {
    if (f.contains(key)) out += fmt::format("{}{}={}", out.empty() ? "" : " ", key, f[key].dump());
  }
  return out;
}

// Where `looprace loops` builds and how long a run may take, from its options.
race::Workspace loops_workspace(const LoopsOptions& o) {
  race::Workspace ws;
  ws.toolchain = build::find_toolchain();
  ws.build_command = o.build_command;
  ws.run_command = o.run_command;
  ws.srcdir = std::filesystem::current_path();
  ws.workdir =
      o.workdir.empty() ? build::default_workdir(ws.srcdir) : std::filesystem::absolute(o.workdir);
  if (o.timeout_seconds > 0) {  // else the first-run limit
    ws.run_timeout = std::chrono::milliseconds(static_cast<long>(o.timeout_seconds * 1e3));
  }
  return ws;
}

// The loops in the order they are listed: with a run command, the measured ones hottest first
// and then the loops that did not run; without, the plugin's table order.
struct RankedLoops {
  std::map<std::string, store::Hotness> hot;
  std::vector<const build::LoopRow*> order;
};

RankedLoops rank_loops(const race::Workspace& ws, const race::Baseline& baseline,
                       const LoopsOptions& o) {
  RankedLoops ranked;
  if (!o.run_command.empty()) {
    const run::RunResult reference = race::reference_run(ws, baseline);
    for (const auto& h : race::measure_hotness(ws, baseline.table, std::max(1u, o.runs),
                                               baseline.dir, race::plain_run_seconds(reference))) {
      ranked.hot[h.id] = h;
      ranked.order.push_back(build::find_loop(baseline.table, h.id));
    }
  }
  for (const auto& row : baseline.table.rows) {
    if (!ranked.hot.count(row.id)) ranked.order.push_back(&row);
  }
  return ranked;
}

// One loop as a JSON object: its table row, whether --hot may race it, and its hotness (zero
// for a loop that did not run, when hotness was measured).
nlohmann::json loop_json(const build::LoopRow& row, const RankedLoops& ranked,
                         const race::Baseline& baseline, const LoopsOptions& o) {
  nlohmann::json j = {
      {"id", row.id},         {"file", row.file},           {"line", row.line},
      {"column", row.column}, {"location", row.location()}, {"function", row.function},
      {"name", row.name},     {"depth", row.depth},         {"index", row.index},
      {"loops", row.loops},   {"features", row.features}};
  const std::string why = race::why_not_raced(row, baseline);
  j["hot_candidate"] = why.empty();
  if (!why.empty()) j["left_out"] = why;
  if (auto h = ranked.hot.find(row.id); h != ranked.hot.end()) {
    j["cycles_per_run"] = h->second.cycles_per_run;
    j["entries_per_run"] = h->second.entries_per_run;
    j["share"] = h->second.share;
    j["share_is_bound"] = h->second.is_bound();
  } else if (!o.run_command.empty()) {
    j["cycles_per_run"] = 0;
    j["share"] = 0;
  }
  return j;
}

// One table line of a loop with measured hotness: cycles per run, share of the program, and
// why --hot would leave it out.
void print_ranked_row(const build::LoopRow& row, const RankedLoops& ranked,
                      const race::Baseline& baseline) {
  auto h = ranked.hot.find(row.id);
  std::string cycles =
      h == ranked.hot.end() ? "-" : fmt::format("{:.0f}", h->second.cycles_per_run);
  std::string share = "-";
  if (h != ranked.hot.end()) {
    share = fmt::format("{}{:.1f}%", h->second.is_bound() ? "<=" : "", 100 * h->second.share);
  }
  const std::string why = race::why_not_raced(row, baseline);
  std::printf("%-16s  %-28s  %-20s  %14s  %6s  %s%s\n", row.id.c_str(), row.location().c_str(),
              row.name.c_str(), cycles.c_str(), share.c_str(), feature_text(row.features).c_str(),
              why.empty() ? "" : fmt::format("  [{}]", why).c_str());
}

// The loops as a table for people: the table's warnings on stderr, a header, one line per
// loop and, when hotness was measured, a note on how.
void print_loops_table(const RankedLoops& ranked, const race::Baseline& baseline,
                       const LoopsOptions& o) {
  for (const auto& w : baseline.table.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  if (o.run_command.empty()) {
    std::printf("%-16s  %-28s  %-20s  %-5s  %s\n", "id", "location", "function", "pos", "features");
  } else {
    std::printf("%-16s  %-28s  %-20s  %14s  %6s  %s\n", "id", "location", "function", "cycles/run",
                "share", "features  [why --hot leaves it out]");
  }
  for (const auto* row : ranked.order) {
    if (o.run_command.empty()) {
      std::printf("%-16s  %-28s  %-20s  %-5s  %s\n", row->id.c_str(), row->location().c_str(),
                  row->name.c_str(), row->position().c_str(), feature_text(row->features).c_str());
    } else {
      print_ranked_row(*row, ranked, baseline);
    }
  }
  if (!o.run_command.empty()) {
    std::printf(
        "(%zu of %zu loops ran; mean of %u runs per nest depth, only that depth's loops "
        "instrumented; shares of a plain run; <=: an upper bound, for a loop whose entries are "
        "too short to time, or that measured longer than its enclosing loop)\n",
        ranked.hot.size(), baseline.table.rows.size(), std::max(1u, o.runs));
  }
}

// Builds the program with the plugin to read its loop table and, given a run command, ranks
// the loops by measured hotness; prints them as JSON lines or as a table.
void list_loops(const LoopsOptions& o) {
  const race::Workspace ws = loops_workspace(o);
  race::Baseline baseline = race::build_baseline(ws);
  const RankedLoops ranked = rank_loops(ws, baseline, o);
  if (!o.json) {
    print_loops_table(ranked, baseline, o);
    return;
  }
  for (const auto* row : ranked.order)
    std::printf("%s\n", loop_json(*row, ranked, baseline, o).dump().c_str());
}

}  // namespace

void add_loops_command(CLI::App& app) {
  auto options = std::make_shared<LoopsOptions>();
  auto* cmd = app.add_subcommand(
      "loops", "List the loops of a program; with --run, rank them by measured hotness");
  cmd->add_option("--build", options->build_command,
                  "Build command naming the compiler as $LOOPRACE_CC (see `looprace race --help`)")
      ->required();
  cmd->add_option("--run", options->run_command,
                  "Run command; measures cycles per run and share of the program per loop");
  cmd->add_option("--runs", options->runs, "Runs that measure hotness")->capture_default_str();
  cmd->add_option("--timeout", options->timeout_seconds, "Seconds a run may take (default: 300)")
      ->check(positive_seconds());
  cmd->add_option("--workdir", options->workdir,
                  "Where the builds go (default: ~/.cache/looprace/<hash of this directory>)");
  cmd->add_flag("--json", options->json, "One JSON object per loop and line");
  cmd->footer(R"txt(Examples:
  looprace loops --build 'make -B -C "$LOOPRACE_SRCDIR" CC="$LOOPRACE_CC" OUT="$LOOPRACE_OUTDIR"'
  looprace loops --build 'make -B -C "$LOOPRACE_SRCDIR" CC="$LOOPRACE_CC" OUT="$LOOPRACE_OUTDIR"' \
                 --run '$LOOPRACE_OUTDIR/prog' --json)txt");
  cmd->callback([options] { list_loops(*options); });
}

}  // namespace looprace::cli
