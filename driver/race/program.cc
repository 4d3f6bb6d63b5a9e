#include "race/program.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace looprace::race {
namespace {

// Up to `count` loops that look like what `selector` meant: same file (nearest lines first),
// else ids sharing the longest prefix.
std::vector<const build::LoopRow*> near_matches(const build::LoopTable& table,
                                                const std::string& selector, std::size_t count) {
  std::vector<std::pair<long, const build::LoopRow*>> scored;
  std::string file = selector;
  long line = -1;
  if (auto colon = selector.find(':'); colon != std::string::npos) {
    file = selector.substr(0, colon);
    try {
      line = std::stol(selector.substr(colon + 1));
    } catch (const std::exception&) {
      line = -1;
    }
  }
  auto ends_with = [](const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  for (const auto& row : table.rows) {
    if (!file.empty() && (ends_with(row.file, file) || ends_with(file, row.file))) {
      scored.emplace_back(line < 0 ? 0 : std::labs(row.line - line), &row);
    }
  }
  if (scored.empty()) {
    for (const auto& row : table.rows) {
      std::size_t common = 0;
      while (common < row.id.size() && common < selector.size() &&
             row.id[common] == selector[common])
        ++common;
      if (common > 0) scored.emplace_back(-static_cast<long>(common), &row);
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const build::LoopRow*> out;
  for (std::size_t i = 0; i < scored.size() && i < count; ++i) out.push_back(scored[i].second);
  return out;
}

std::filesystem::path records_file(const std::filesystem::path& dir) {
  return dir.parent_path() / (dir.filename().string() + ".records");
}

}  // namespace

build::BuildJob build_job(const Workspace& ws, const build::VariantSpec& spec,
                          const std::filesystem::path& dir, const std::string& label) {
  build::BuildJob job;
  job.label = label;
  job.command = ws.build_command;
  job.dir = dir;
  build::VariantSpec with_flags = spec;
  with_flags.flags.insert(with_flags.flags.begin(), ws.flags.begin(), ws.flags.end());
  job.env = build::build_environment(ws.toolchain, with_flags, dir, ws.srcdir);
  job.timeout = ws.build_timeout;
  return job;
}

run::Environment run_environment(const Workspace& ws, const std::filesystem::path& dir) {
  run::Environment env = run::Environment::current();
  env.set("LOOPRACE_OUTDIR", dir.string());
  env.set("LOOPRACE_SRCDIR", ws.srcdir.string());
  if (ws.tsc_hz)
    env.set("LOOPRACE_TSC_HZ", fmt::format("{:.0f}", *ws.tsc_hz));
  else
    env.unset("LOOPRACE_TSC_HZ");
  return env;
}

namespace {

run::RunSpec run_spec(const Workspace& ws, const std::filesystem::path& dir) {
  run::RunSpec spec;
  spec.command = ws.run_command;
  spec.cwd = ws.srcdir;
  spec.env = run_environment(ws, dir);
  spec.timeout = ws.run_timeout;
  spec.pin_cpu = ws.pin_cpu;
  spec.check_files = ws.check_files;
  spec.fresh_pages = ws.linked_files->files(dir);
  return spec;
}

}  // namespace

run::RunResult run_build_once(const Workspace& ws, const std::filesystem::path& dir,
                              std::optional<std::uint64_t> layout_seed) {
  run::RunSpec spec = run_spec(ws, dir);
  spec.records_file = records_file(dir);
  spec.layout_seed = layout_seed;
  return ws.executor->run(spec);
}

run::RunResult run_plain_once(const Workspace& ws, const std::filesystem::path& dir,
                              std::optional<std::uint64_t> layout_seed) {
  run::RunSpec spec = run_spec(ws, dir);
  spec.layout_seed = layout_seed;
  return ws.executor->run(spec);
}

Baseline build_baseline(const Workspace& ws, const AppliedFactors& applied,
                        const std::string& name) {
  Baseline baseline;
  baseline.dir = ws.workdir / name;
  build::prepare_fresh(baseline.dir);
  std::filesystem::path table_file = ws.workdir / (name + ".loops.jsonl");
  std::filesystem::path verify_file = ws.workdir / (name + ".verify.jsonl");
  std::filesystem::remove(table_file);
  std::filesystem::remove(verify_file);
  build::VariantSpec spec;
  spec.table = table_file;
  spec.unroll = {{"all", 0}};  // later requests override earlier ones
  spec.unroll.insert(spec.unroll.end(), applied.begin(), applied.end());
  spec.verify = verify_file;
  auto result = ws.executor->build_one(build_job(ws, spec, baseline.dir, name));
  if (!result.ok()) {
    std::string hint = build::missing_source_hint(result.output_tail, ws.srcdir);
    throw Error(result.failure_message() + (hint.empty() ? "" : "\n" + hint));
  }
  baseline.build_seconds = result.process.wall_seconds;
  read_baseline(ws, baseline, table_file, verify_file);
  return baseline;
}

void read_baseline(const Workspace& ws, Baseline& baseline, const std::filesystem::path& table_file,
                   const std::filesystem::path& verify_file) {
  baseline.table = build::read_loop_table_dir(baseline.dir);
  if (baseline.table.rows.empty() && std::filesystem::exists(table_file)) {
    baseline.table = build::read_loop_table_file(table_file);
  }
  if (baseline.table.rows.empty()) {
    throw Error(fmt::format(
        "the build command produced no loop table in {}: it must compile with $LOOPRACE_CC (or "
        "add $LOOPRACE_CFLAGS/$LOOPRACE_LDFLAGS) and write its program into $LOOPRACE_OUTDIR; "
        "build command: {}",
        baseline.dir.string(), ws.build_command));
  }
  baseline.at_unroller = build::read_verify_file(verify_file);
  for (build::LoopRow& row : baseline.table.rows) {
    if (auto seen = baseline.at_unroller.find(row.id); seen != baseline.at_unroller.end()) {
      build::add_unroller_features(row.features, seen->second);
    }
  }
}

bool runs_only_its_own_code(const build::LoopRow& loop, const Baseline& baseline) {
  auto seen = baseline.at_unroller.find(loop.id);
  if (seen == baseline.at_unroller.end() || !seen->second.calls || *seen->second.calls > 0)
    return false;
  return seen->second.innermost || loop.features.value("inner", 0) > 0;
}

std::string why_not_raced(const build::LoopRow& loop, const Baseline& baseline) {
  const bool holds_loops = loop.features.value("inner", 0) > 0;
  auto seen = baseline.at_unroller.find(loop.id);
  if (seen == baseline.at_unroller.end() || !seen->second.calls) {
    // Not seen at RTL (unrolled completely or removed by GIMPLE passes, whose decisions the
    // factor can change too): the table's nesting and calls, before inlining.
    if (holds_loops) return "holds other loops";
    const int calls = loop.features.value("calls", 0);
    return calls > 0 ? fmt::format("calls {} function(s) (before inlining)", calls) : "";
  }
  // At RTL a loop whose inner loops were unrolled completely is innermost: unrolling it is
  // what -funroll-loops does to a DCT's 8x8 nests.
  if (!seen->second.innermost) {
    return holds_loops ? "holds other loops" : "holds other loops after inlining";
  }
  if (*seen->second.calls > 0) {
    return fmt::format("calls {} function(s) after inlining", *seen->second.calls);
  }
  return "";
}

// What to do about a run command that names the program relative to where looprace started,
// when the build wrote it into the variant's directory: empty when that is not the case.
std::string program_path_hint(const Workspace& ws, const Baseline& baseline) {
  std::istringstream words(ws.run_command);
  for (std::string word; words >> word;) {
    if (word.rfind("./", 0) != 0 || !std::filesystem::exists(baseline.dir / word)) continue;
    std::string name = word.substr(2);
    return fmt::format(
        "\n{} is where the build wrote it, in the variant's directory; the run command runs in "
        "{}: name the program as $LOOPRACE_OUTDIR/{} (--run '$LOOPRACE_OUTDIR/{}')",
        name, ws.srcdir.string(), name, name);
  }
  return {};
}

run::RunResult reference_run(const Workspace& ws, const Baseline& baseline) {
  run::RunResult result = run_build_once(ws, baseline.dir);
  if (!result.process.succeeded()) {
    std::string tail = run::last_lines(result.process.err.tail, 15);
    if (tail.empty()) tail = run::last_lines(result.process.out.tail, 15);
    throw Error(fmt::format(
        "the run command fails for the baseline build ({}{}): {}{}{}{}", result.process.describe(),
        result.process.ending == run::Ending::timed_out ? "; raise the limit with --timeout SECONDS"
                                                        : "",
        ws.run_command, tail.empty() ? "" : "\nlast lines of its output:\n", tail,
        program_path_hint(ws, baseline)));
  }
  return result;
}

std::vector<build::LoopRow> select_loops(const build::LoopTable& table,
                                         const std::vector<std::string>& selectors) {
  std::vector<build::LoopRow> out;
  for (const auto& selector : selectors) {
    const build::LoopRow* row = build::find_loop(table, selector);
    if (!row) {
      std::string message = fmt::format("--loop {}: no such loop in the program", selector);
      auto near = near_matches(table, selector, 5);
      if (!near.empty()) message += "; did you mean:";
      for (const auto* n : near) {
        message += fmt::format("\n  {}  {}  {}", n->id, n->location(), n->name);
      }
      message += "\n(`looprace loops --build ...` lists every loop)";
      throw Error(message);
    }
    bool seen = std::any_of(out.begin(), out.end(), [&](const auto& r) { return r.id == row->id; });
    if (!seen) out.push_back(*row);
  }
  return out;
}

namespace {

// One run of the build that instruments the loops at `depth`; throws Error when it failed.
store::HotnessSample hotness_sample(const run::RunResult& r, int depth) {
  if (!r.process.succeeded() || !r.observations.complete()) {
    throw Error(fmt::format("the hotness run (loops at nest depth {} instrumented) failed: {}{}",
                            depth, r.process.describe(),
                            r.observations.complete() ? "" : "; it wrote no runtime records"));
  }
  store::HotnessSample s;
  s.build = fmt::format("depth:{}", depth);
  s.wall_seconds = r.process.wall_seconds;
  s.off_cpu_ns = r.observations.off_cpu_ns;
  s.tsc_hz = r.observations.tsc_hz.value_or(0);
  s.probe_cycles = r.observations.probe_cycles.value_or(0);
  for (const auto& [id, totals] : r.observations.loops) {
    s.loops[id] = {static_cast<double>(totals.cycles), static_cast<double>(totals.entries)};
  }
  return s;
}

}  // namespace

std::map<std::string, store::LoopPlace> loop_places(const build::LoopTable& table) {
  std::map<std::string, store::LoopPlace> places;
  for (const auto& row : table.rows) places[row.id] = {row.function, row.depth, row.index};
  return places;
}

double plain_run_seconds(const run::RunResult& r) {
  return store::plain_run_seconds(r.process.wall_seconds, r.observations.off_cpu_ns,
                                  r.process.cpu_seconds());
}

std::vector<store::Hotness> measure_hotness(
    const Workspace& ws, const build::LoopTable& table, unsigned runs,
    const std::filesystem::path& plain_dir, double plain_seconds,
    const std::function<void(const run::RunResult&, const std::string&)>& on_run) {
  std::map<int, build::VariantSpec> by_depth;
  for (const auto& row : table.rows) by_depth[row.depth].instrument.push_back(row.id);
  std::map<int, std::filesystem::path> dirs;
  for (const auto& [depth, spec] : by_depth) {
    dirs[depth] = ws.workdir / fmt::format("hotness-depth-{}", depth);
    build::prepare_fresh(dirs[depth]);
    auto built = ws.executor->build_one(
        build_job(ws, spec, dirs[depth],
                  fmt::format("hotness (the loops at nest depth {} instrumented)", depth)));
    if (!built.ok()) throw Error(built.failure_message());
  }
  // Rounds of one plain run and one run of each depth's build, so that the least disturbed
  // of each (what the shares use) were taken under the same conditions.
  std::vector<store::HotnessSample> samples;
  double tsc_hz = 0;
  for (unsigned i = 0; i < runs; ++i) {
    run::RunResult plain = run_build_once(ws, plain_dir);
    if (on_run) on_run(plain, "plain");
    if (plain.process.succeeded()) {
      plain_seconds = std::min(plain_seconds, plain_run_seconds(plain));
    }
    for (const auto& [depth, dir] : dirs) {
      run::RunResult r = run_build_once(ws, dir);
      if (on_run) on_run(r, fmt::format("depth:{}", depth));
      samples.push_back(hotness_sample(r, depth));
      if (tsc_hz == 0) tsc_hz = samples.back().tsc_hz;
    }
  }
  return store::bound_by_enclosing(store::rank_hotness(samples, plain_seconds * tsc_hz),
                                   loop_places(table));
}

}  // namespace looprace::race
