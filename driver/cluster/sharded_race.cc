// Planning, submitting, following and merging the tasks of a sharded race.
#include "cluster/sharded_race.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cluster/slurm.h"
#include "race/program.h"
#include "store/store.h"

namespace looprace::cluster {

std::string machine_kind(const std::string& machine) {
  std::size_t bar = machine.find(" | ");  // "hostname | cpu model | compiler"
  return bar == std::string::npos ? machine : machine.substr(bar + 3);
}

namespace {

namespace fs = std::filesystem;

// The tasks: loops in batches, in the order they were chosen (hottest first).
struct ShardPlan {
  std::vector<std::vector<std::string>> tasks;
  std::string job;  // the last job that ran them
  // The loops this command races (its store has not decided them) -> their plan's name.
  std::map<std::string, std::string> loop_plans;
};

fs::path shard_dir(const ShardedRaceOptions& o) {
  if (!o.shards.empty()) return fs::absolute(o.shards);
  fs::path store = fs::absolute(o.race.store);
  return store.parent_path() / (store.filename().string() + ".shards");
}

fs::path task_store(const fs::path& dir, std::size_t task) {
  return dir / fmt::format("task-{}.db", task);
}

// Where the submitting command records its baseline for the tasks and the final assembly.
fs::path baseline_record(const fs::path& dir) { return dir / "baseline.json"; }

// The plan a previous run of this race left in `file`, if any.
ShardPlan previous_plan(const fs::path& file) {
  ShardPlan plan;
  std::ifstream in(file);
  if (!in) return plan;
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return plan;
  try {
    plan.tasks = json.value("tasks", plan.tasks);
    plan.job = json.value("job", "");
  } catch (const nlohmann::json::exception&) {
    return {};  // not a plan this command wrote: plan afresh
  }
  return plan;
}

// This run's plan: the previous run's tasks keep their indexes (their stores resume, and the
// scheduler may still hold them), and the loops to race that no earlier run planned go into new
// tasks after them, `per_task` to a task, hottest first.
ShardPlan extend_plan(ShardPlan plan, const std::vector<std::string>& loops, unsigned per_task) {
  std::set<std::string> planned;
  for (const auto& task : plan.tasks) planned.insert(task.begin(), task.end());
  std::size_t in_last = per_task;  // a new task starts at the first new loop
  for (const std::string& loop : loops) {
    if (planned.count(loop)) continue;
    if (in_last == per_task) {
      plan.tasks.emplace_back();
      in_last = 0;
    }
    plan.tasks.back().push_back(loop);
    ++in_last;
  }
  return plan;
}

// The chosen loops the race's own store holds no decision for that the race would take (a
// local race or an earlier sharded one of the same code and plan may have), with their plans'
// names: only these go to the cluster.
std::map<std::string, std::string> undecided_loops(const race::LoopChoice& choice) {
  std::map<std::string, std::string> undecided;
  for (const auto& loop : choice.loops)
    if (!choice.decided.count(loop.id)) undecided[loop.id] = choice.plans.at(loop.id);
  return undecided;
}

void save_plan(const fs::path& file, const ShardPlan& plan) {
  std::ofstream out(file);
  out << nlohmann::json{{"tasks", plan.tasks}, {"job", plan.job}}.dump(1) << "\n";
  if (!out) throw race::Error("cannot write " + file.string());
}

// Writes task-<i>.sh for every task and the array job's script; returns the job script.
fs::path write_scripts(const ShardedRaceOptions& o, const fs::path& dir, const ShardPlan& plan) {
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    const std::string workdir = shell_quote((dir / fmt::format("work-{}", i)).string());
    std::string command = "cd " + shell_quote(fs::current_path().string()) + " && " +
                          shell_quote(fs::absolute(o.looprace).string()) + " race";
    for (const std::string& arg : o.task_arguments) command += " " + shell_quote(arg);
    for (const std::string& loop : plan.tasks[i]) command += " --loop " + loop;
    // The baseline the submitting command built, unless it is not what this node would build.
    command += " --reuse-baseline " + shell_quote(baseline_record(dir).string());
    // A resubmitted task may resume its store on another node (of the same kind: checked
    // when the stores are merged).
    command += " --force --store " + shell_quote(task_store(dir, i).string()) + " --profile " +
               shell_quote((dir / fmt::format("task-{}.profile", i)).string()) + " --workdir " +
               workdir;
    // A task that decided its loops leaves its store, not its builds (a copy of the program per
    // variant: thousands of tasks would fill the shared file system); a failed one keeps them
    // to resume.
    command += " && exec rm -rf -- " + workdir;
    std::ofstream(dir / fmt::format("task-{}.sh", i)) << "#!/bin/sh\n" << command << "\n";
  }
  fs::path job = dir / "job.sh";
  std::ofstream(job) << "#!/bin/sh\n# one looprace race per array task\nexec /bin/sh "
                     << shell_quote(dir.string()) << "/task-$SLURM_ARRAY_TASK_ID.sh\n";
  return job;
}

// The loops of a task that need no more racing: decided in its store by this race's plan (a
// decision by another plan, of an earlier command, is raced again, as a local race would), or
// not raced by this command at all (an earlier plan's loop the race's store has decided).
std::size_t decided_in(const fs::path& store, const std::vector<std::string>& loops,
                       const ShardPlan& plan) {
  std::set<std::pair<std::string, std::string>> decided;
  if (fs::exists(store)) decided = store::Store::open(store, /*create=*/false).decided_loop_plans();
  std::size_t n = 0;
  for (const std::string& loop : loops) {
    auto name = plan.loop_plans.find(loop);
    n += name == plan.loop_plans.end() || decided.count({loop, name->second});
  }
  return n;
}

// Whether every loop of the tasks in `held` is decided: they are only ending.
bool all_decided(const fs::path& dir, const ShardPlan& plan, const std::map<int, TaskState>& held) {
  for (const auto& [task, state] : held) {
    if (task < 0 || static_cast<std::size_t>(task) >= plan.tasks.size()) return false;
    const auto& loops = plan.tasks[static_cast<std::size_t>(task)];
    if (decided_in(task_store(dir, static_cast<std::size_t>(task)), loops, plan) < loops.size())
      return false;
  }
  return true;
}

// Sleeps until the scheduler is to be asked again: o.poll, or o.finishing_poll once the tasks
// it holds have decided their loops, so that the command does not wait a whole interval for
// tasks that ended just after it asked.
void wait_to_poll(const ShardedRaceOptions& o, const fs::path& dir, const ShardPlan& plan,
                  const std::map<int, TaskState>& held) {
  const auto until = std::chrono::steady_clock::now() + o.poll;
  while (std::chrono::steady_clock::now() < until) {
    if (all_decided(dir, plan, held)) {
      std::this_thread::sleep_for(o.finishing_poll);
      return;
    }
    std::this_thread::sleep_for(std::min(o.poll, o.finishing_poll));
  }
}

// Follows the job until the scheduler holds none of its tasks; the tasks left undecided.
std::vector<std::size_t> follow(const ShardedRaceOptions& o, Scheduler& scheduler,
                                const fs::path& dir, const ShardPlan& plan,
                                const std::function<void(const ShardProgress&)>& progress) {
  while (true) {
    std::map<int, TaskState> held;
    if (!plan.job.empty())
      for (const TaskState& t : scheduler.tasks(plan.job)) held[t.task] = t;
    ShardProgress p;
    p.job = plan.job;
    std::vector<std::size_t> undecided;
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
      const std::size_t decided = decided_in(task_store(dir, i), plan.tasks[i], plan);
      p.loops += plan.tasks[i].size();
      p.decided += decided;
      auto state = held.find(static_cast<int>(i));
      if (decided == plan.tasks[i].size()) continue;
      if (state == held.end()) {
        p.failed += plan.tasks[i].size() - decided;
        undecided.push_back(i);
      } else if (state->second.state == "PENDING") {
        p.queued += plan.tasks[i].size() - decided;
      } else {
        p.running += plan.tasks[i].size() - decided;
        p.nodes.push_back(state->second.node);
      }
    }
    if (progress) progress(p);
    if (held.empty()) return undecided;
    wait_to_poll(o, dir, plan, held);
  }
}

// Merges every task's store into the race's; refuses stores of other kinds of machine.
void merge_tasks(const ShardedRaceOptions& o, const fs::path& dir, const ShardPlan& plan) {
  store::Store target = store::Store::open(o.race.store);
  const std::string kind = target.identity() ? machine_kind(target.identity()->machine) : "";
  for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
    if (!fs::exists(task_store(dir, i))) continue;
    store::Store shard = store::Store::open(task_store(dir, i), /*create=*/false);
    auto id = shard.identity();
    if (id && !kind.empty() && machine_kind(id->machine) != kind && !o.mixed_nodes)
      throw race::Error(fmt::format(
          "{} was raced on another kind of machine ({}) than this race's ({}): decisions are "
          "made on one kind (--sbatch-arg --constraint=... picks nodes; --mixed-nodes merges "
          "anyway)",
          task_store(dir, i).string(), machine_kind(id->machine), kind));
    // The identity differs by host name only (checked above): merge regardless.
    target.merge_from(shard, /*force=*/true);
  }
}

}  // namespace

race::RaceSummary run_sharded_race(
    const ShardedRaceOptions& o, Scheduler& scheduler,
    const std::function<void(const race::RaceProgress&)>& race_progress,
    const std::function<void(const ShardProgress&)>& shard_progress) {
  const fs::path dir = shard_dir(o);
  fs::create_directories(dir);
  race::RaceOptions choose = o.race;
  choose.save_baseline = baseline_record(dir);
  const race::LoopChoice choice = race::choose_race_loops(choose, race_progress);
  const std::vector<build::LoopRow>& loops = choice.loops;
  ShardPlan plan = previous_plan(dir / "plan.json");
  plan.loop_plans = undecided_loops(choice);
  std::vector<std::string> to_race;  // hottest first
  for (const auto& loop : loops)
    if (plan.loop_plans.count(loop.id)) to_race.push_back(loop.id);
  plan = extend_plan(std::move(plan), to_race, std::max(1u, o.loops_per_task));
  const fs::path job_script = write_scripts(o, dir, plan);

  // Tasks still held by the scheduler go on; the others with undecided loops are (re)submitted.
  std::vector<std::size_t> resubmit = follow(o, scheduler, dir, plan, {});
  if (!resubmit.empty()) {
    plan.job = scheduler.submit(job_script, {resubmit.begin(), resubmit.end()}, o.scheduler_args,
                                dir / "task-%a.out");
  }
  save_plan(dir / "plan.json", plan);
  std::vector<std::size_t> failed = follow(o, scheduler, dir, plan, shard_progress);
  merge_tasks(o, dir, plan);
  if (!failed.empty()) {
    std::string which;
    for (std::size_t i : failed)
      which += fmt::format("\n  task {}: {}", i, (dir / fmt::format("task-{}.out", i)).string());
    throw race::Error(fmt::format(
        "{} task(s) of job {} ended with loops undecided (their decided loops are merged); run "
        "the same command again to resubmit them:{}",
        failed.size(), plan.job, which));
  }
  race::RaceOptions assemble = o.race;
  assemble.loops.clear();
  for (const auto& loop : loops) assemble.loops.push_back(loop.id);
  assemble.hot.reset();
  assemble.coverage.reset();
  assemble.force = true;  // the tasks' stores carry their nodes' host names
  assemble.reuse_baseline = baseline_record(dir);  // built and run moments ago, to choose
  return race::run_race(assemble, race_progress);
}

}  // namespace looprace::cluster
