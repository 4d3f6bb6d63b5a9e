// A race sharded over a batch scheduler: the loops are chosen once, here (baseline build, loop
// table, hotness), then one array task per batch of loops races them on its node into its own
// store; the command follows the tasks, merges their stores into the race's store, and writes
// the profile and summary exactly as a local race of the same loops would. Run again after a
// crash, a cancelled task or a lost node, it resubmits only the tasks whose loops lack a
// decision (and waits for those still queued or running); each task resumes its own store.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cluster/scheduler.h"
#include "race/race.h"

namespace looprace::cluster {

struct ShardedRaceOptions {
  race::RaceOptions race;
  // `looprace race` arguments every task gets (build, run, plan, ...), beside its own --loop,
  // --store, --profile and --workdir.
  std::vector<std::string> task_arguments;
  std::filesystem::path looprace;  // the executable the tasks run
  std::vector<std::string> scheduler_args;
  unsigned loops_per_task = 1;
  std::filesystem::path shards;          // empty: <store>.shards beside the store
  bool mixed_nodes = false;              // merge stores of nodes of different kinds anyway
  std::chrono::milliseconds poll{2000};  // how often the scheduler is asked
  // How often the tasks' stores are looked at between: once every loop of the tasks the
  // scheduler still holds is decided, they are only ending, and it is asked this often.
  std::chrono::milliseconds finishing_poll{200};
};

// Where the tasks stand, for the progress display.
struct ShardProgress {
  std::string job;
  std::size_t loops = 0, decided = 0, running = 0, queued = 0, failed = 0;
  std::vector<std::string> nodes;  // where tasks run now
};

// Throws race::Error (or std::runtime_error from the scheduler) naming what went wrong; a task
// that ended with loops undecided is named with its output file, and the command fails after
// merging what the others decided.
race::RaceSummary run_sharded_race(
    const ShardedRaceOptions& options, Scheduler& scheduler,
    const std::function<void(const race::RaceProgress&)>& race_progress,
    const std::function<void(const ShardProgress&)>& shard_progress);

// The kind of machine a store's identity names: CPU model and compiler, not the host.
std::string machine_kind(const std::string& machine);

}  // namespace looprace::cluster
