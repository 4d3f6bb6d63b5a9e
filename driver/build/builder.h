// Running build commands: one per variant, each in its own directory, several in parallel.
#pragma once

#include "run/process.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace looprace::build {

struct BuildJob {
  std::string label;          // for messages, e.g. "factor 4 of loop 1a2b3c4d5e6f7081"
  std::string command;        // run by /bin/sh -c
  std::filesystem::path dir;  // the variant's directory (LOOPRACE_OUTDIR); must exist
  // Where the command runs; empty: `dir`, the variant's directory (docs/formats.md section 2).
  std::filesystem::path cwd;
  run::Environment env;  // from build_environment()
  std::chrono::milliseconds timeout{0};
};

struct BuildResult {
  std::string label;
  std::filesystem::path dir;
  run::ProcessResult process;  // stdout and stderr merged
  std::string output_tail;     // the last 30 lines of the build's output

  bool ok() const { return process.succeeded(); }
  // "build of factor 4 ... failed (exit status 2) in DIR; last lines of its output:\n..."
  std::string failure_message() const;
};

BuildResult run_build(const BuildJob& job);

// A factor GCC did not apply as asked: requested copies, the copies it made, and why.
struct FewerCopies {
  int factor = 0;
  int applied = 0;
  std::string how;
};
// One line per reason, "GCC made fewer copies than asked (runtime-pow2): 3→2 5→4", in the
// order the reasons are first met: the summary and the report say it once, not per factor.
std::vector<std::string> fewer_copies_notes(const std::vector<FewerCopies>& clamped);

// Runs the jobs with at most `parallel` at once; results in the order of `jobs`.
// `on_done` (optional) is called, serialized, as each build finishes.
std::vector<BuildResult> run_builds(const std::vector<BuildJob>& jobs, unsigned parallel,
                                    const std::function<void(const BuildResult&)>& on_done = {});

// <workdir>/<loop id>/f<factor>[-l<seed>]: the directory of one variant.
std::filesystem::path variant_dir(const std::filesystem::path& workdir, const std::string& loop_id,
                                  int factor, std::optional<std::uint64_t> layout_seed = {});

// Empties (or creates) a variant directory for a build from scratch.
void prepare_fresh(const std::filesystem::path& dir);

// Copies a tree keeping modification times (like cp -p), so make sees the copy as up to date.
void copy_keeping_times(const std::filesystem::path& from, const std::filesystem::path& to);

// Incremental variant: copies `template_dir` (a finished build with the plugin loaded and no
// loop selected, whose objects land in LOOPRACE_OUTDIR) to `dir` keeping modification times,
// then deletes the object files whose embedded loop table holds one of `loop_ids`, so that
// make recompiles only those translation units and relinks. Returns false (and leaves `dir`
// fresh) when a loop is in no object file of the template: the caller then builds from scratch.
bool prepare_incremental(const std::filesystem::path& dir,
                         const std::filesystem::path& template_dir,
                         const std::vector<std::string>& loop_ids);

}  // namespace looprace::build
