// How a race meets the world: it builds variants and runs programs only through an Executor,
// so that a test can script what the runs observe (a loop's cycles, a crash, a hang) while the
// race, its plans, its store and its profile stay the real ones.
#pragma once

#include <memory>
#include <vector>

#include "build/builder.h"
#include "run/runner.h"

namespace looprace::race {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs the build jobs, at most `parallel` at once; results in the order of `jobs`.
  virtual std::vector<build::BuildResult> build(const std::vector<build::BuildJob>& jobs,
                                                unsigned parallel) const = 0;
  // Runs the program once as `spec` says.
  virtual run::RunResult run(const run::RunSpec& spec) const = 0;
  // One build job.
  build::BuildResult build_one(const build::BuildJob& job) const {
    auto results = build({job}, 1);
    return results.front();
  }
};

// Real processes: build commands through /bin/sh, runs with their records read back.
class ProcessExecutor : public Executor {
 public:
  std::vector<build::BuildResult> build(const std::vector<build::BuildJob>& jobs,
                                        unsigned parallel) const override {
    return build::run_builds(jobs, parallel);
  }
  run::RunResult run(const run::RunSpec& spec) const override { return run::execute_run(spec); }
};

// The executor of real processes, shared.
inline std::shared_ptr<const Executor> process_executor() {
  static const auto executor = std::make_shared<const ProcessExecutor>();
  return executor;
}

}  // namespace looprace::race
