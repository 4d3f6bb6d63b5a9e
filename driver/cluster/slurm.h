// The Slurm scheduler: sbatch to submit job arrays, squeue to follow them (no accounting
// database needed), through the same child-process runner as builds and runs.
#pragma once

#include "cluster/scheduler.h"

namespace looprace::cluster {

class Slurm : public Scheduler {
 public:
  std::string submit(const std::filesystem::path& script, const std::vector<int>& tasks,
                     const std::vector<std::string>& extra_args,
                     const std::filesystem::path& output_pattern) override;
  std::vector<TaskState> tasks(const std::string& job) override;
};

// A word quoted for /bin/sh.
std::string shell_quote(const std::string& word);

}  // namespace looprace::cluster
