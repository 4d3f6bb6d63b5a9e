// What a sharded race needs of a batch scheduler: submit an array of tasks, and say which of
// them are still queued or running, and where. Slurm implements it (slurm.h); tests fake it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace looprace::cluster {

// One array task the scheduler still holds.
struct TaskState {
  int task = 0;
  std::string state;  // the scheduler's word: PENDING, RUNNING, COMPLETING, ...
  std::string node;   // where it runs; empty while queued
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  // Submits `script` as an array job of the given task indices, each task's output to
  // output_pattern (%a: the task index); returns the job id. Throws std::runtime_error naming
  // the scheduler's complaint.
  virtual std::string submit(const std::filesystem::path& script, const std::vector<int>& tasks,
                             const std::vector<std::string>& extra_args,
                             const std::filesystem::path& output_pattern) = 0;
  // The tasks of job the scheduler still holds (finished ones are gone).
  virtual std::vector<TaskState> tasks(const std::string& job) = 0;
};

}  // namespace looprace::cluster
