// sbatch and squeue.
#include "cluster/slurm.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "run/process.h"

namespace looprace::cluster {

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

namespace {

run::ProcessResult run_slurm(const std::string& command) {
  run::ProcessSpec spec;
  spec.command = command;
  spec.timeout = std::chrono::seconds(60);
  return run::run_process(spec);
}

bool succeeded(const run::ProcessResult& result) {
  return result.ending == run::Ending::exited && result.exit_status == 0;
}

std::runtime_error failure(const std::string& command, const run::ProcessResult& result) {
  return std::runtime_error(
      fmt::format("`{}` failed: {}{}", command, result.err.tail, result.spawn_error));
}

// Runs a Slurm command; its stdout, or std::runtime_error with its stderr.
std::string slurm(const std::string& command) {
  run::ProcessResult result = run_slurm(command);
  if (!succeeded(result)) throw failure(command, result);
  return result.out.head;
}

}  // namespace

std::string Slurm::submit(const std::filesystem::path& script, const std::vector<int>& tasks,
                          const std::vector<std::string>& extra_args,
                          const std::filesystem::path& output_pattern) {
  std::string array;
  for (int task : tasks) array += (array.empty() ? "" : ",") + std::to_string(task);
  std::string command = "sbatch --parsable --job-name=looprace --array=" + array +
                        " --output=" + shell_quote(output_pattern.string());
  for (const std::string& arg : extra_args) command += " " + shell_quote(arg);
  command += " " + shell_quote(script.string());
  std::string out = slurm(command);
  std::string id = out.substr(0, out.find_first_of(";\n"));  // "ID" or "ID;cluster"
  if (id.empty()) throw std::runtime_error("sbatch printed no job id: " + out);
  return id;
}

std::vector<TaskState> Slurm::tasks(const std::string& job) {
  // %K: array index; %T: state; %N: node list. One line per task with -r.
  const std::string command = "squeue -h -r -j " + shell_quote(job) + " -o '%K %T %N'";
  run::ProcessResult result = run_slurm(command);
  std::vector<TaskState> states;
  // A job the controller no longer knows (purged MinJobAge after it ended, or a controller
  // started afresh) holds none of its tasks.
  if (!succeeded(result) && result.err.tail.find("Invalid job id") != std::string::npos)
    return states;
  if (!succeeded(result)) throw failure(command, result);
  std::istringstream lines(result.out.head);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    TaskState state;
    if (fields >> state.task >> state.state) {
      fields >> state.node;
      states.push_back(state);
    }
  }
  return states;
}

}  // namespace looprace::cluster
