// Integration tests of driver/run: real child processes — exit statuses, signals, time limits,
// process groups, pinning, output capture, runs with runtime records from two processes.
#include "build_test_util.h"
#include "run/process.h"
#include "run/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace looprace::run {
namespace {

using looprace::testing::ScratchDir;
using looprace::testing::shell;
using looprace::testing::write_file;

ProcessResult sh(const std::string& command, std::chrono::milliseconds timeout = {}) {
  ProcessSpec spec;
  spec.command = command;
  spec.timeout = timeout;
  return run_process(spec);
}

TEST(RunProcess, CapturesStdoutStderrAndExitStatus) {
  ProcessResult result = sh("echo out; echo err >&2; exit 3");
  EXPECT_EQ(result.ending, Ending::exited);
  EXPECT_EQ(result.exit_status, 3);
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.out.head, "out\n");
  EXPECT_EQ(result.err.head, "err\n");
  EXPECT_EQ(result.describe(), "exit status 3");
}

// A run's CPU time is its program's, not the cost of forking a large driver: copying and
// tearing down 1 GiB of page tables took about 60 ms, thirty times what a short program takes.
TEST(RunProcess, CpuTimeIsTheProgramsNotTheDriversFork) {
  std::vector<char> driver_memory(std::size_t{1} << 30);
  for (std::size_t i = 0; i < driver_memory.size(); i += 4096) driver_memory[i] = 1;
  double fastest = 1e9;
  for (int i = 0; i < 5; ++i) {
    ProcessResult result = sh("true");
    ASSERT_TRUE(result.succeeded());
    fastest = std::min(fastest, result.user_seconds + result.system_seconds);
  }
  EXPECT_LT(fastest, 0.010) << "CPU seconds of `sh -c true` run from a 1 GiB driver";
  asm volatile("" : : "r"(driver_memory.data()) : "memory");  // the pages stay until here
}

TEST(RunProcess, MergesStderrWhenAsked) {
  ProcessSpec spec;
  spec.command = "echo a; echo b >&2; echo c";
  spec.merge_stderr = true;
  ProcessResult result = run_process(spec);
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.out.head, "a\nb\nc\n");
}

TEST(RunProcess, ReportsTheSignalThatKilledIt) {
  ProcessResult result = sh("kill -SEGV $$");
  EXPECT_EQ(result.ending, Ending::signaled);
  EXPECT_EQ(result.term_signal, SIGSEGV);
  EXPECT_NE(result.describe().find("signal 11"), std::string::npos) << result.describe();
}

TEST(RunProcess, TimeLimitKillsTheWholeGroup) {
  // The background sleep holds stdout open: only killing the group ends this quickly.
  ProcessResult result = sh("sleep 30 & sleep 30", std::chrono::milliseconds(300));
  EXPECT_EQ(result.ending, Ending::timed_out);
  EXPECT_LT(result.wall_seconds, 10.0);
  EXPECT_NE(result.describe().find("timed out"), std::string::npos);
}

TEST(RunProcess, DoesNotWaitForBackgroundChildrenAfterTheShellExits) {
  ProcessResult result = sh("sleep 30 & echo done");
  EXPECT_TRUE(result.succeeded());
  EXPECT_EQ(result.out.head, "done\n");
  EXPECT_LT(result.wall_seconds, 10.0);
}

TEST(RunProcess, StdinIsEmptyAndCwdAndEnvironmentApply) {
  ScratchDir dir;
  ProcessSpec spec;
  spec.command = "cat; pwd; echo \"$LOOPRACE_TEST_VALUE\"";
  spec.cwd = dir.path();
  spec.env.set("LOOPRACE_TEST_VALUE", "a b$c");
  ProcessResult result = run_process(spec);
  ASSERT_TRUE(result.succeeded()) << result.describe();
  EXPECT_EQ(result.out.head, std::filesystem::canonical(dir.path()).string() + "\na b$c\n");
}

TEST(RunProcess, ABadDirectoryIsASpawnFailureNamingIt) {
  ProcessSpec spec;
  spec.command = "true";
  spec.cwd = "/nonexistent/looprace";
  ProcessResult result = run_process(spec);
  EXPECT_EQ(result.ending, Ending::spawn_failed);
  EXPECT_NE(result.describe().find("chdir"), std::string::npos) << result.describe();
}

TEST(RunProcess, PinsToTheGivenCpu) {
  ProcessSpec spec;
  spec.command = "grep Cpus_allowed_list /proc/self/status";
  spec.pin_cpu = 0;
  ProcessResult result = run_process(spec);
  ASSERT_TRUE(result.succeeded()) << result.describe();
  EXPECT_EQ(result.out.head, "Cpus_allowed_list:\t0\n");
}

// The physical frame of each page of `file` in the page cache (0 where the kernel does not
// say: not cached, or not privileged to read /proc/self/pagemap).
std::vector<std::uint64_t> page_frames(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY);
  const std::size_t size = std::filesystem::file_size(file);
  auto* map = static_cast<volatile char*>(::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0));
  ::close(fd);
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  int pagemap = ::open("/proc/self/pagemap", O_RDONLY);
  std::vector<std::uint64_t> frames;
  for (std::size_t offset = 0; offset < size; offset += page) {
    (void)map[offset];  // maps the cached page
    std::uint64_t entry = 0;
    const auto index = reinterpret_cast<std::uintptr_t>(map + offset) / page;
    ::pread(pagemap, &entry, sizeof entry, static_cast<off_t>(index * sizeof entry));
    frames.push_back(entry & ((std::uint64_t{1} << 55) - 1));
  }
  ::close(pagemap);
  ::munmap(const_cast<char*>(map), size);
  return frames;
}

// The files a run names in fresh_pages are read back into newly allocated pages before it, so
// that no build keeps the physical placement its first run got (read back at once, a file
// would alternate between the same two placements); other files keep theirs.
TEST(RunProcess, FreshPagesAreReloadedBeforeTheRun) {
  ScratchDir dir;
  write_file(dir / "program", std::string(std::size_t{1} << 16, 'x'));
  write_file(dir / "other", std::string(std::size_t{1} << 16, 'y'));
  ::sync();
  const std::vector<std::uint64_t> program = page_frames(dir / "program");
  const std::vector<std::uint64_t> other = page_frames(dir / "other");
  if (program.front() == 0) GTEST_SKIP() << "/proc/self/pagemap shows no frames to this user";
  RunSpec spec;
  spec.command = "true";
  spec.cwd = dir.path();
  spec.fresh_pages = {dir / "program", dir / "missing"};
  std::set<std::vector<std::uint64_t>> placements{program};
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    spec.layout_seed = seed;
    EXPECT_TRUE(execute_run(spec).process.succeeded());
    const std::vector<std::uint64_t> reloaded = page_frames(dir / "program");
    EXPECT_EQ(std::count(reloaded.begin(), reloaded.end(), 0u), 0);
    placements.insert(reloaded);
  }
  EXPECT_EQ(placements.size(), 5u);
  EXPECT_EQ(page_frames(dir / "other"), other);
}

TEST(RunProcess, LargeOutputIsDigestedWhole) {
  ProcessSpec spec;
  spec.command = "head -c 1000000 /dev/zero";
  spec.limits.head_bytes = 100;
  spec.limits.tail_bytes = 10;
  ProcessResult result = run_process(spec);
  ASSERT_TRUE(result.succeeded());
  EXPECT_EQ(result.out.size, 1000000u);
  EXPECT_EQ(result.out.head.size(), 100u);
  EXPECT_EQ(result.out.tail.size(), 10u);
  EXPECT_FALSE(result.out.complete());
  EXPECT_EQ(result.out.digest, sh("head -c 1000000 /dev/zero").out.digest);
  EXPECT_NE(result.out.digest, sh("head -c 999999 /dev/zero").out.digest);
}

// Gone, or a zombie nobody reaped yet: either way no longer running.
bool stopped(pid_t pid) {
  std::string stat = looprace::testing::read_file("/proc/" + std::to_string(pid) + "/stat");
  auto state = stat.rfind(") ");
  return stat.empty() || (state != std::string::npos && stat[state + 2] == 'Z');
}

TEST(RunProcess, InterruptingTheDriverKillsItsChildren) {
  ScratchDir dir;
  const auto pidfile = dir / "pid";
  pid_t driver = fork();
  if (driver == 0) {
    ProcessSpec spec;
    spec.command = "sleep 30 & echo $! > " + pidfile.string() + ".tmp; mv " + pidfile.string() +
                   ".tmp " + pidfile.string() + "; wait";
    run_process(spec);
    _exit(0);
  }
  ASSERT_GT(driver, 0);
  for (int i = 0; i < 1000 && !std::filesystem::exists(pidfile); ++i) usleep(10000);
  ASSERT_TRUE(std::filesystem::exists(pidfile));
  pid_t sleeper = std::stoi(looprace::testing::read_file(pidfile));
  kill(driver, SIGINT);
  int status = 0;
  ASSERT_EQ(waitpid(driver, &status, 0), driver);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  for (int i = 0; i < 500 && !stopped(sleeper); ++i) usleep(10000);
  EXPECT_TRUE(stopped(sleeper)) << "the driver's grandchild " << sleeper << " still runs";
}

// A program linked with the real runtime: the parent and a fork child each record loop 0xaa
// with known timestamps, so the run's observation is exactly their sum.
class RunWithRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir / "prog.c", R"(
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "looprace_rt.h"
int main(int argc, char** argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  __looprace_record(0xaa, 1000, 1700, 0, 0);       /* 700 cycles in the parent */
  pid_t child = fork();
  if (child == 0) {
    __looprace_record(0xaa, 5000, 5300, 0, 0);     /* 300 cycles in the child */
    exit(0);
  }
  waitpid(child, NULL, 0);
  if (mode == 1) abort();
  if (mode == 2) for (;;) {}
  printf("ok %d\n", mode);
  if (mode != 7) {  /* 7: leaves the last run's result.txt as it is */
    FILE* out = fopen("result.txt", "w");
    fprintf(out, "mode %d\n", mode);
    fclose(out);
  }
  return 0;
}
)");
    shell("gcc -O1 -I" LOOPRACE_RT_INCLUDE " prog.c -o prog " LOOPRACE_RT_ARCHIVE, dir.path());
  }

  RunSpec spec(const std::string& args) {
    RunSpec spec;
    spec.command = "./prog " + args;
    spec.cwd = dir.path();
    spec.records_file = dir / "records.rt";
    spec.timeout = std::chrono::seconds(5);
    spec.check_files = {"result.txt"};
    return spec;
  }

  ScratchDir dir;
};

TEST_F(RunWithRuntime, SumsCyclesOverTheProcessesOfOneRun) {
  RunSpec first = spec("0");
  first.layout_seed = 7;
  RunResult run = execute_run(first);
  ASSERT_TRUE(run.process.succeeded()) << run.process.describe();
  EXPECT_EQ(run.process.out.head, "ok 0\n");
  EXPECT_EQ(run.env_padding, env_padding_length(7));
  ASSERT_EQ(run.files.size(), 1u);
  EXPECT_TRUE(run.files[0].exists);
  EXPECT_TRUE(run.files[0].written);
  EXPECT_EQ(run.files[0].content.head, "mode 0\n");
  EXPECT_EQ(run.observations.processes_ended, 2u)
      << looprace::testing::read_file(dir / "records.rt");
  ASSERT_TRUE(run.observations.cycles("00000000000000aa"));
  EXPECT_EQ(*run.observations.cycles("00000000000000aa"), 1000.0);
  EXPECT_EQ(run.observations.loops.at("00000000000000aa").entries, 2u);

  // A second run starts from a fresh records file.
  RunResult again = execute_run(spec("0"));
  EXPECT_EQ(*again.observations.cycles("00000000000000aa"), 1000.0);
  EXPECT_TRUE(judge_run(run, again, {}, true).ok());
}

TEST_F(RunWithRuntime, CrashHangAndDifferentOutputAreReportedAsSuch) {
  RunResult baseline = execute_run(spec("0"));
  ASSERT_TRUE(baseline.process.succeeded());

  Judgement crash = judge_run(baseline, execute_run(spec("1")), {}, true);
  EXPECT_EQ(crash.failure, Failure::crashed) << crash.message;
  EXPECT_NE(crash.message.find("Aborted"), std::string::npos) << crash.message;

  RunSpec hang = spec("2");
  hang.timeout = std::chrono::milliseconds(500);
  Judgement hung = judge_run(baseline, execute_run(hang), {}, true);
  EXPECT_EQ(hung.failure, Failure::timed_out) << hung.message;

  Judgement differs = judge_run(baseline, execute_run(spec("3")), {}, true);
  EXPECT_EQ(differs.failure, Failure::output_differs);
  EXPECT_EQ(differs.message,
            "stdout differs at line 1, column 4 (byte 3): expected \"ok 0\", got \"ok 3\"");

  CheckOptions files_only;
  files_only.check_output = false;
  Judgement file = judge_run(baseline, execute_run(spec("3")), files_only, true);
  EXPECT_EQ(file.failure, Failure::file_differs);
  EXPECT_NE(file.message.find("result.txt differs at line 1, column 6 (byte 5)"), std::string::npos)
      << file.message;

  // A run that does not write the file is caught even though the last run's file is there.
  ASSERT_TRUE(execute_run(spec("0")).process.succeeded());
  RunResult lazy = execute_run(spec("7"));
  EXPECT_TRUE(lazy.files[0].exists);
  EXPECT_FALSE(lazy.files[0].written);
  EXPECT_EQ(judge_run(baseline, lazy, files_only, true).failure, Failure::file_differs);
}

TEST_F(RunWithRuntime, RunsInTheGivenOrder) {
  std::vector<RunSpec> specs = {spec("4"), spec("5"), spec("6")};
  std::vector<RunResult> results = execute_in_order(specs);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].process.out.head, "ok 4\n");
  EXPECT_EQ(results[2].process.out.head, "ok 6\n");
}

}  // namespace
}  // namespace looprace::run
