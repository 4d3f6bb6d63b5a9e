// The runtime in real processes: rt_test_program (linked with liblooprace_rt.a) runs in various
// modes and its records are read back with the driver's parser.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "run/rt_records.h"

extern char** environ;

namespace looprace::run {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  pid_t pid = 0;
  int wait_status = 0;
  std::string out;
  std::string err;
  bool exited(int status) const {
    return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == status;
  }
  bool killed_by(int signal_number) const {
    return WIFSIGNALED(wait_status) && WTERMSIG(wait_status) == signal_number;
  }
};

std::string read_file(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "looprace-rt-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    records_ = dir_ / "records.txt";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Starts the test program; `out_variable` is LOOPRACE_OUT (unset when nullopt).
  pid_t start(const std::vector<std::string>& arguments,
              const std::optional<std::string>& out_variable, const std::string& name = "run") {
    std::vector<std::string> environment;
    for (char** variable = environ; *variable != nullptr; ++variable)
      if (std::string_view(*variable).substr(0, 13) != "LOOPRACE_OUT=")
        environment.emplace_back(*variable);
    if (out_variable) environment.push_back("LOOPRACE_OUT=" + *out_variable);
    std::vector<std::string> argv_text{RT_TEST_PROGRAM};
    argv_text.insert(argv_text.end(), arguments.begin(), arguments.end());

    std::vector<char*> argv, envp;
    for (std::string& argument : argv_text) argv.push_back(argument.data());
    argv.push_back(nullptr);
    for (std::string& variable : environment) envp.push_back(variable.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addchdir_np(&actions, dir_.c_str());
    std::string out = (dir_ / (name + ".out")).string(), err = (dir_ / (name + ".err")).string();
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    EXPECT_EQ(error, 0) << "cannot start " << RT_TEST_PROGRAM;
    return pid;
  }

  Outcome finish(pid_t pid, const std::string& name = "run") {
    Outcome outcome;
    outcome.pid = pid;
    EXPECT_EQ(waitpid(pid, &outcome.wait_status, 0), pid);
    outcome.out = read_file(dir_ / (name + ".out"));
    outcome.err = read_file(dir_ / (name + ".err"));
    return outcome;
  }

  Outcome run(const std::vector<std::string>& arguments,
              const std::optional<std::string>& out_variable) {
    return finish(start(arguments, out_variable));
  }

  Outcome run_recorded(const std::vector<std::string>& arguments) {
    return run(arguments, records_.string());
  }

  RtRecords records() const {
    RtRecords parsed = parse_rt_records(read_file(records_));
    for (const RtParseProblem& problem : parsed.problems)
      ADD_FAILURE() << records_ << ":" << problem.line << ": " << problem.message;
    return parsed;
  }

  fs::path dir_;
  fs::path records_;
};

const RtLoopRecord* find_loop(const RtProcessRecords& process, const std::string& id) {
  for (const RtLoopRecord& loop : process.loops)
    if (loop.id == id) return &loop;
  return nullptr;
}

// The driver gives later runs the frequency its first run measured; a value that is not a
// number is ignored and the runtime calibrates as usual.
TEST_F(RuntimeTest, TakesTheTscFrequencyTheDriverGives) {
  setenv("LOOPRACE_TSC_HZ", "2345678901", 1);
  Outcome given = run_recorded({"exact", "3"});
  EXPECT_TRUE(given.exited(3));
  ASSERT_EQ(records().processes.size(), 1u);
  EXPECT_EQ(records().processes[0].tsc_hz, 2345678901u);
  fs::remove(records_);
  setenv("LOOPRACE_TSC_HZ", "fast", 1);
  Outcome calibrated = run_recorded({"exact", "3"});
  unsetenv("LOOPRACE_TSC_HZ");
  EXPECT_TRUE(calibrated.exited(3));
  ASSERT_EQ(records().processes.size(), 1u);
  EXPECT_GT(records().processes[0].tsc_hz, 100'000'000u);
  EXPECT_NE(records().processes[0].tsc_hz, 2345678901u);
}

TEST_F(RuntimeTest, RecordsExactCountsAndKeepsTheExitStatus) {
  Outcome outcome = run_recorded({"exact", "3"});
  EXPECT_TRUE(outcome.exited(3));
  EXPECT_EQ(outcome.out, "mode exact\n");
  EXPECT_EQ(outcome.err, "");
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  const RtProcessRecords& process = parsed.processes[0];
  EXPECT_EQ(process.pid, outcome.pid);
  EXPECT_EQ(process.ppid, getpid());
  EXPECT_FALSE(process.forked);
  EXPECT_EQ(process.how, RtExitHow::exit);
  EXPECT_EQ(process.status, 3);
  EXPECT_GT(process.tsc_hz, 100'000'000u);
  EXPECT_LT(process.tsc_hz, 100'000'000'000u);
  EXPECT_GT(process.probe, 0u);
  EXPECT_GT(process.probe_call, process.probe);
  EXPECT_EQ(process.dropped, 0u);
  ASSERT_EQ(process.loops.size(), 2u);

  const RtLoopRecord& synthetic = process.loops[0];
  EXPECT_EQ(synthetic.id, "0000000000000001");
  EXPECT_EQ(synthetic.entries, 2u);
  EXPECT_EQ(synthetic.cycles, 300u);
  EXPECT_EQ(synthetic.min, 100u);
  EXPECT_EQ(synthetic.max, 200u);
  EXPECT_EQ(synthetic.migrated, 1u);
  EXPECT_EQ(synthetic.nested, 1u);
  EXPECT_EQ(synthetic.threads, 1u);
  // Entries of 100 and 200 cycles: octave buckets [64, 128) and [128, 256).
  EXPECT_EQ(synthetic.histogram, (std::vector<RtBucket>{{6, 1, 100}, {7, 1, 200}}));

  const RtLoopRecord& timed = process.loops[1];
  EXPECT_EQ(timed.id, "0000000000000002");
  EXPECT_EQ(timed.entries, 10u);
  EXPECT_GT(timed.min, 0u);
  EXPECT_LE(timed.min, timed.max);
  EXPECT_GE(timed.cycles, 10 * timed.min);
  EXPECT_LE(timed.cycles, 10 * timed.max);
  EXPECT_EQ(timed.nested, 0u);
  std::uint64_t entries = 0, cycles = 0;
  for (const RtBucket& bucket : timed.histogram) {
    entries += bucket.entries;
    cycles += bucket.cycles;
    EXPECT_GE(bucket.cycles, bucket.entries * rt_bucket_floor(bucket.bucket));
    EXPECT_LT(bucket.cycles,
              2 * bucket.entries * std::max<std::uint64_t>(rt_bucket_floor(bucket.bucket), 1));
  }
  EXPECT_EQ(entries, timed.entries);
  EXPECT_EQ(cycles, timed.cycles);
}

TEST_F(RuntimeTest, WithoutTheVariableTheProgramIsUnaffected) {
  Outcome outcome = run({"exact", "3"}, std::nullopt);
  EXPECT_TRUE(outcome.exited(3));
  EXPECT_EQ(outcome.out, "mode exact\n");
  EXPECT_EQ(outcome.err, "");
  EXPECT_FALSE(fs::exists(records_));
}

TEST_F(RuntimeTest, AProcessThatRecordedNothingStillEnds) {
  Outcome outcome = run_recorded({"nothing", "0"});
  EXPECT_TRUE(outcome.exited(0));
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  EXPECT_TRUE(parsed.processes[0].loops.empty());
}

TEST_F(RuntimeTest, CountsNestedActivations) {
  EXPECT_TRUE(run_recorded({"nested", "3"}).exited(0));
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  const RtLoopRecord* loop = find_loop(parsed.processes[0], "0000000000000050");
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->entries, 4u);
  EXPECT_EQ(loop->nested, 3u);  // every activation but the innermost enclosed another
}

TEST_F(RuntimeTest, ThreadsRunningTheSameLoopAreSummed) {
  EXPECT_TRUE(run_recorded({"threads", "4", "20000"}).exited(0));
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  const RtProcessRecords& process = parsed.processes[0];
  EXPECT_EQ(process.dropped, 0u);
  ASSERT_EQ(process.loops.size(), 2u + 8u);

  const RtLoopRecord* shared = find_loop(process, "0000000000000030");
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->entries, 2u * 4u * 20000u);  // two waves of four threads
  EXPECT_EQ(shared->cycles, 7u * 2u * 4u * 20000u);
  EXPECT_EQ(shared->min, 7u);
  EXPECT_EQ(shared->max, 7u);
  EXPECT_EQ(shared->nested, 0u);
  EXPECT_EQ(shared->threads, 8u);
  const RtLoopRecord* timed = find_loop(process, "0000000000000031");
  ASSERT_NE(timed, nullptr);
  EXPECT_EQ(timed->entries, 8u);
  EXPECT_EQ(timed->threads, 8u);
  for (int thread = 0; thread < 8; ++thread) {
    const RtLoopRecord* own = find_loop(process, "000000000000010" + std::to_string(thread));
    ASSERT_NE(own, nullptr) << thread;
    EXPECT_EQ(own->entries, 1u);
    EXPECT_EQ(own->cycles, 5u);
    EXPECT_EQ(own->threads, 1u);
  }
}

TEST_F(RuntimeTest, AForkChildWritesOnlyItsOwnRecords) {
  Outcome outcome = run_recorded({"fork"});
  EXPECT_TRUE(outcome.exited(0));
  EXPECT_EQ(outcome.err, "");
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 2u);
  // The child exits first: its parent waits for it.
  const RtProcessRecords& child = parsed.processes[0];
  const RtProcessRecords& parent = parsed.processes[1];
  EXPECT_TRUE(child.forked);
  EXPECT_EQ(child.ppid, outcome.pid);
  EXPECT_NE(child.pid, outcome.pid);
  EXPECT_EQ(child.status, 4);
  ASSERT_EQ(child.loops.size(), 2u);
  EXPECT_EQ(find_loop(child, "0000000000000040")->entries, 3u);
  EXPECT_EQ(find_loop(child, "0000000000000041")->entries, 1u);

  EXPECT_FALSE(parent.forked);
  EXPECT_EQ(parent.pid, outcome.pid);
  ASSERT_EQ(parent.loops.size(), 1u);
  EXPECT_EQ(find_loop(parent, "0000000000000040")->entries, 5u + 2u);
}

class RuntimeSignalTest : public RuntimeTest, public ::testing::WithParamInterface<int> {};

TEST_P(RuntimeSignalTest, ACatchableFatalSignalWritesTheRecordsAndStillKills) {
  int signal_number = GetParam();
  Outcome outcome = run_recorded({"signal", std::to_string(signal_number)});
  EXPECT_TRUE(outcome.killed_by(signal_number)) << outcome.wait_status;
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  EXPECT_EQ(parsed.processes[0].how, RtExitHow::signal);
  EXPECT_EQ(parsed.processes[0].status, signal_number);
  ASSERT_EQ(parsed.processes[0].loops.size(), 1u);
  EXPECT_EQ(parsed.processes[0].loops[0].entries, 4u);
  EXPECT_EQ(parsed.processes[0].loops[0].cycles, 36u);
}

INSTANTIATE_TEST_SUITE_P(Signals, RuntimeSignalTest,
                         ::testing::Values(SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGPIPE,
                                           SIGALRM));

TEST_F(RuntimeTest, ASegmentationFaultWritesTheRecords) {
  Outcome outcome = run_recorded({"segv"});
  EXPECT_TRUE(outcome.killed_by(SIGSEGV)) << outcome.wait_status;
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  EXPECT_EQ(parsed.processes[0].how, RtExitHow::signal);
  EXPECT_EQ(parsed.processes[0].status, SIGSEGV);
}

TEST_F(RuntimeTest, AbortWritesTheRecords) {
  Outcome outcome = run_recorded({"abort"});
  EXPECT_TRUE(outcome.killed_by(SIGABRT)) << outcome.wait_status;
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  EXPECT_EQ(parsed.processes[0].status, SIGABRT);
}

TEST_F(RuntimeTest, TheProgramsOwnHandlerWins) {
  Outcome outcome = run_recorded({"own-handler"});
  EXPECT_TRUE(outcome.exited(3));
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  EXPECT_EQ(parsed.processes[0].how, RtExitHow::exit);
  EXPECT_EQ(parsed.processes[0].status, 3);
}

TEST_F(RuntimeTest, SigkillLeavesAMissingObservationNotAZero) {
  Outcome outcome = run_recorded({"signal", std::to_string(SIGKILL)});
  EXPECT_TRUE(outcome.killed_by(SIGKILL));
  RtRecords parsed = records();
  EXPECT_TRUE(parsed.processes.empty());
}

TEST_F(RuntimeTest, ARelativeDestinationSurvivesChdir) {
  EXPECT_TRUE(run({"chdir"}, "records.txt").exited(0));
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  EXPECT_EQ(parsed.processes[0].loops.size(), 1u);
}

TEST_F(RuntimeTest, ATableOverflowIsCountedAndReported) {
  Outcome outcome = run_recorded({"many", "1100"});
  EXPECT_TRUE(outcome.exited(0));
  EXPECT_NE(outcome.err.find("not recorded"), std::string::npos) << outcome.err;
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), 1u);
  EXPECT_EQ(parsed.processes[0].loops.size(), 1024u);
  EXPECT_EQ(parsed.processes[0].dropped, 1100u - 1024u);
}

TEST_F(RuntimeTest, ConcurrentWritersNeverInterleave) {
  constexpr int kProcesses = 16;
  constexpr int kLoops = 1000;  // about 140 kB of records per process
  fs::path gate = dir_ / "gate";
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcesses; ++i)
    pids.push_back(start({"many", std::to_string(kLoops), gate.string()}, records_.string(),
                         "w" + std::to_string(i)));
  std::ofstream(gate).put('\n');  // all of them finish and write at about the same time
  for (int i = 0; i < kProcesses; ++i)
    EXPECT_TRUE(finish(pids[i], "w" + std::to_string(i)).exited(0));
  RtRecords parsed = records();
  ASSERT_EQ(parsed.processes.size(), std::size_t{kProcesses});
  for (const RtProcessRecords& process : parsed.processes) {
    ASSERT_EQ(process.loops.size(), std::size_t{kLoops});
    for (const RtLoopRecord& loop : process.loops) EXPECT_EQ(loop.entries, 1u);
  }
}

class RuntimeDestinationTest : public RuntimeTest {
 protected:
  // The program runs to its normal end with its own output and status; stderr says why no
  // records were written.
  void expect_unaffected(const std::string& destination, const std::string& message) {
    Outcome outcome = run({"exact", "3"}, destination);
    EXPECT_TRUE(outcome.exited(3));
    EXPECT_EQ(outcome.out, "mode exact\n");
    EXPECT_NE(outcome.err.find(message), std::string::npos) << outcome.err;
  }
};

TEST_F(RuntimeDestinationTest, MissingDirectory) {
  std::string destination = (dir_ / "no-such-dir" / "records.txt").string();
  expect_unaffected(destination, "LOOPRACE_OUT=" + destination + ": No such file or directory");
}

TEST_F(RuntimeDestinationTest, ADirectory) {
  expect_unaffected(dir_.string(), "LOOPRACE_OUT=" + dir_.string() + ": Is a directory");
}

TEST_F(RuntimeDestinationTest, EmptyValue) {
  expect_unaffected("", "LOOPRACE_OUT is set but empty");
}

TEST_F(RuntimeDestinationTest, DestinationRemovedDuringTheRun) {
  fs::path sub = dir_ / "sub";
  fs::create_directory(sub);
  fs::path destination = sub / "records.txt";
  Outcome outcome = run({"remove", destination.string(), sub.string()}, destination.string());
  EXPECT_TRUE(outcome.exited(5));
  EXPECT_NE(outcome.err.find("cannot open LOOPRACE_OUT=" + destination.string()), std::string::npos)
      << outcome.err;
}

}  // namespace
}  // namespace looprace::run
