// The baseline one command built and ran, recorded for other commands to reuse instead of
// building and running it again: the tasks of a sharded race and its final assembly take the
// baseline the submitting command built to choose the loops. A record is used only when it
// provably describes what this command would build: the same build and run commands, checked
// files, compiler and CPU model, the same plugin and runtime files, and a build whose code
// digest is still the recorded one; otherwise the command builds its own, as without a record.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "race/program.h"
#include "run/hygiene.h"

namespace looprace::race {

struct ReusedBaseline {
  Baseline baseline;
  run::RunResult reference;
};

// Copies the build in `baseline.dir` (with its loop table and unroller records, named as
// build_baseline names them in `ws.workdir`) beside `record` as baseline-<code digest>, unless
// that copy is already there, and writes `record` naming it, with the reference run. A copy
// of another digest is left for the tasks that may still use it.
void save_baseline_record(const std::filesystem::path& record, const Workspace& ws,
                          const run::MachineFacts& facts, const Baseline& baseline,
                          const run::RunResult& reference);

// The recorded baseline, or nullopt with `why` saying what keeps it from use: there is no
// record, it is not a record of this format, a part of its key (build or run command, source
// directory, checked files, compiler, CPU model, compiler commands, plugin, runtime or looprace
// file) differs from this command's workspace and machine, or the copied build's code is no
// longer the recorded code.
std::optional<ReusedBaseline> load_baseline_record(const std::filesystem::path& record,
                                                   const Workspace& ws,
                                                   const run::MachineFacts& facts,
                                                   std::string& why);

}  // namespace looprace::race
