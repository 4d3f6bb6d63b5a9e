// The program under study: its baseline build (plugin loaded, nothing selected) with the loop
// table, runs of any build of it, loop selection, and the hotness measurement that ranks loops.
// Shared by `looprace loops` and `looprace race`.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "build/builder.h"
#include "build/elf_code.h"
#include "build/loop_table.h"
#include "build/toolchain.h"
#include "build/variant_env.h"
#include "race/executor.h"
#include "run/runner.h"
#include "store/dataset.h"

namespace looprace::race {

// Bad input or a failed step, with a message that names what is at fault.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where and how the program is built and run.
struct Workspace {
  build::Toolchain toolchain;
  std::string build_command;
  std::string run_command;
  std::filesystem::path workdir;  // variant directories live here (absolute)
  std::filesystem::path srcdir;   // where looprace was started: cwd of the run command
  unsigned jobs = 2;
  // Every build and run has a limit: before anything was measured the generous first ones,
  // then limits derived from the baseline's (Racer::prepare; --build-timeout, --timeout).
  std::chrono::milliseconds build_timeout = kFirstBuildLimit;
  std::chrono::milliseconds run_timeout = kFirstRunLimit;
  static constexpr std::chrono::milliseconds kFirstBuildLimit{30 * 60 * 1000};
  static constexpr std::chrono::milliseconds kFirstRunLimit{5 * 60 * 1000};
  std::optional<int> pin_cpu;
  std::vector<std::filesystem::path> check_files;
  // The TSC frequency the runtime measured in the first run, given to every later run
  // (LOOPRACE_TSC_HZ) so that none waits the 1 ms its own calibration takes.
  std::optional<double> tsc_hz;
  // Flags every build adds before the build's own (--try-flags, once adopted).
  std::vector<std::string> flags;
  // The executables and shared objects of each build directory, whose cached pages are
  // reloaded elsewhere before every run of the build.
  std::shared_ptr<build::LinkedElfFileCache> linked_files =
      std::make_shared<build::LinkedElfFileCache>();
  // Every build and run goes through it (tests script runs with their own).
  std::shared_ptr<const Executor> executor = process_executor();
};

// The job that builds `spec` into `dir` (prepared by the caller: fresh or incremental).
build::BuildJob build_job(const Workspace& ws, const build::VariantSpec& spec,
                          const std::filesystem::path& dir, const std::string& label);

// The environment a build in `dir` ran with, for running that build.
run::Environment run_environment(const Workspace& ws, const std::filesystem::path& dir);

// Runs the program built in `dir` once; the runtime records go to `dir`/../<name>.records.
run::RunResult run_build_once(const Workspace& ws, const std::filesystem::path& dir,
                              std::optional<std::uint64_t> layout_seed = {});

// Runs the program built in `dir` once with the runtime off, to time the whole program: the
// runtime's start-up work, and the 1 ms its clock calibration waits for at exit, would be
// counted (a 1 ms program then measures 1 ms whatever its code).
run::RunResult run_plain_once(const Workspace& ws, const std::filesystem::path& dir,
                              std::optional<std::uint64_t> layout_seed = {});

struct Baseline {
  std::filesystem::path dir;
  build::LoopTable table;
  // Per loop id, what GCC's RTL unroller saw of it (copies, calls left after inlining); a loop
  // with no record never reached it.
  std::map<std::string, build::VerifyRecord> at_unroller;
  double build_seconds = 0;  // wall time of its (fresh) build
};

// Why `--hot` leaves `loop` out, or "" when it is a candidate: GCC unrolls a loop that holds
// others only completely, so racing an outer loop races 17 copies of the same code; a loop
// that still calls functions after inlining spends its time in them, which its unrolling does
// not change (counted before inlining for a loop no copy of which reached the unroller).
std::string why_not_raced(const build::LoopRow& loop, const Baseline& baseline);

// Whether `loop` runs only code of its own function at the RTL unroller: no calls are left in
// it and inlining brought no loop into it (it holds loops only if its source does). Such a
// loop can hold no other function's loop, so it can control another's race
// (race/hot_selection.h). False when no copy of it reached the unroller.
bool runs_only_its_own_code(const build::LoopRow& loop, const Baseline& baseline);

// Builds with the plugin loaded, no loop selected and every loop verified (factor 0: GCC's own
// choice, the code unchanged; `applied` loops at their factors instead), into
// <workdir>/<name>, and reads the loop table from the program's ELF files (or the table= file).
// Throws Error with the build's output tail when the build fails, and when it produced no
// loops (the build does not use $LOOPRACE_CC).
using AppliedFactors = std::vector<std::pair<std::string, int>>;  // loop id, factor
Baseline build_baseline(const Workspace& ws, const AppliedFactors& applied = {},
                        const std::string& name = "baseline");

// Reads the loop table and the unroller's records of the baseline built in `baseline.dir`
// (build_baseline's second half; a reused baseline's too). Throws Error when it has no loops.
void read_baseline(const Workspace& ws, Baseline& baseline, const std::filesystem::path& table_file,
                   const std::filesystem::path& verify_file);

// Runs the baseline once as the reference output; throws Error when the run fails.
run::RunResult reference_run(const Workspace& ws, const Baseline& baseline);

// Resolves --loop selectors (id or file:line:col); throws Error listing near matches when one
// names no loop.
std::vector<build::LoopRow> select_loops(const build::LoopTable& table,
                                         const std::vector<std::string>& selectors);

// Where each loop of `table` sits in its function (store::LoopPlace), by id.
std::map<std::string, store::LoopPlace> loop_places(const build::LoopTable& table);

// The time a plain run took on a CPU (store::plain_run_seconds), what hotness shares are of.
double plain_run_seconds(const run::RunResult& r);

// Each loop's share of a plain run: one build per nest depth, with only that depth's loops
// instrumented, run `runs` times each, so that no loop's time holds the probes of the loops
// inside it (a nest whose inner loop runs millions of times made the all-instrumented run many
// times slower); shares are of the shortest of `plain_seconds` and `runs` more runs of the
// uninstrumented build in `plain_dir`. Returns the loops that ran, hottest first. Every run is
// passed to `on_run` with its build ("depth:D", or "plain"). Throws Error when a build or a
// run fails.
std::vector<store::Hotness> measure_hotness(
    const Workspace& ws, const build::LoopTable& table, unsigned runs,
    const std::filesystem::path& plain_dir, double plain_seconds,
    const std::function<void(const run::RunResult&, const std::string&)>& on_run = {});

}  // namespace looprace::race
