// Unit tests of driver/run's pure parts: digests, tails, output differences, record sums,
// judgements, layout padding.
#include "run/digest.h"
#include "run/hygiene.h"
#include "run/observations.h"
#include "run/process.h"
#include "run/runner.h"

#include <gtest/gtest.h>

#include <csignal>

namespace looprace::run {
namespace {

TEST(Digest, IsFnv1a64) {
  EXPECT_EQ(Digest().hex(), "cbf29ce484222325");
  Digest a;
  a.update("a");
  EXPECT_EQ(a.hex(), "af63dc4c8601ec8c");
  Digest split;
  split.update("foo");
  split.update("bar");
  Digest whole;
  whole.update("foobar");
  EXPECT_EQ(split.value(), whole.value());
}

TEST(LastLines, KeepsTheLastCompleteLines) {
  EXPECT_EQ(last_lines("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(last_lines("a\nb\nc", 2), "b\nc");
  EXPECT_EQ(last_lines("a\nb\n", 5), "a\nb\n");
  EXPECT_EQ(last_lines("", 3), "");
  EXPECT_EQ(last_lines("x\n", 0), "");
}

CapturedOutput captured(const std::string& text, std::size_t head_limit = 1024) {
  CapturedOutput out;
  Digest digest;
  digest.update(text);
  out.digest = digest.hex();
  out.size = text.size();
  out.head = text.substr(0, head_limit);
  out.tail = text;
  return out;
}

TEST(DescribeDifference, EqualOutputsHaveNone) {
  EXPECT_FALSE(describe_difference(captured("same\n"), captured("same\n"), "stdout"));
}

TEST(DescribeDifference, NamesFirstDifferingByteAndLine) {
  auto message =
      describe_difference(captured("one\ntwo 42\n"), captured("one\ntwo 43\n"), "stdout");
  ASSERT_TRUE(message);
  EXPECT_EQ(*message,
            "stdout differs at line 2, column 6 (byte 9): expected \"two 42\", got \"two 43\"");
}

TEST(DescribeDifference, ShorterAndLongerOutputs) {
  auto shorter = describe_difference(captured("abc\ndef\n"), captured("abc\n"), "stdout");
  ASSERT_TRUE(shorter);
  EXPECT_NE(shorter->find("ends early at line 2, column 1 (byte 4); expected \"def\""),
            std::string::npos)
      << *shorter;
  auto longer = describe_difference(captured("abc\n"), captured("abc\nextra\n"), "out.txt");
  ASSERT_TRUE(longer);
  EXPECT_NE(longer->find("out.txt has extra output from line 2, column 1 (byte 4): \"extra\""),
            std::string::npos)
      << *longer;
}

TEST(DescribeDifference, BeyondTheKeptHead) {
  auto message = describe_difference(captured("abcdefX", 4), captured("abcdefY", 4), "stdout");
  ASSERT_TRUE(message);
  EXPECT_EQ(*message, "stdout differs after the first 4 bytes (7 bytes expected, 7 bytes got)");
}

TEST(DescribeDifference, EscapesControlBytes) {
  auto message = describe_difference(captured("a\tb"), captured("a\tc"), "stdout");
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("\"a\\x09b\""), std::string::npos) << *message;
}

const char* kTwoProcesses =
    "looprace-rt 1 loop pid=11 ppid=10 forked=0 id=00000000000000aa entries=2 cycles=1000 "
    "min=400 max=600 migrated=1 nested=0 threads=1\n"
    "looprace-rt 1 loop pid=11 ppid=10 forked=0 id=00000000000000bb entries=1 cycles=50 min=50 "
    "max=50 migrated=0 nested=0 threads=1\n"
    "looprace-rt 1 end pid=11 ppid=10 forked=0 loops=2 how=exit status=0 tsc_hz=2600000000 "
    "probe=90 probe_call=110 dropped=0\n"
    "looprace-rt 1 loop pid=12 ppid=11 forked=1 id=00000000000000aa entries=3 cycles=2000 "
    "min=300 max=900 migrated=0 nested=1 threads=2\n"
    "looprace-rt 1 end pid=12 ppid=11 forked=1 loops=1 how=exit status=0 tsc_hz=2600000000 "
    "probe=100 probe_call=120 dropped=0\n";

TEST(SummarizeRecords, SumsCyclesOverTheProcessesOfARun) {
  RunObservations run = summarize_records(kTwoProcesses);
  EXPECT_TRUE(run.problems.empty());
  EXPECT_EQ(run.processes_ended, 2u);
  EXPECT_EQ(run.forked, 1u);
  ASSERT_EQ(run.loops.count("00000000000000aa"), 1u);
  const LoopTotals& aa = run.loops.at("00000000000000aa");
  EXPECT_EQ(aa.cycles, 3000u);
  EXPECT_EQ(aa.entries, 5u);
  EXPECT_EQ(aa.min, 300u);
  EXPECT_EQ(aa.max, 900u);
  EXPECT_EQ(aa.migrated, 1u);
  EXPECT_EQ(aa.nested, 1u);
  EXPECT_EQ(aa.processes, 2u);
  EXPECT_EQ(run.cycles("00000000000000aa"), 3000.0);
  EXPECT_EQ(run.cycles("00000000000000bb"), 50.0);
  EXPECT_FALSE(run.cycles("00000000000000cc"));  // not entered in this run
  EXPECT_EQ(run.tsc_hz, 2.6e9);
  ASSERT_TRUE(run.probe_cycles);
  EXPECT_GE(*run.probe_cycles, 90.0);
  EXPECT_LE(*run.probe_cycles, 100.0);
  // 5 entries x ~100 cycles of probe in 3000 cycles; 1 entry x ~100 in 50 is capped at 1.
  ASSERT_TRUE(run.probe_share("00000000000000aa"));
  EXPECT_NEAR(*run.probe_share("00000000000000aa"), 5 * *run.probe_cycles / 3000, 1e-12);
  EXPECT_EQ(run.probe_share("00000000000000bb"), 1.0);
  EXPECT_FALSE(run.probe_share("00000000000000cc"));
}

TEST(SummarizeRecords, NoEndLineIsAMissingObservationNeverZero) {
  RunObservations empty = summarize_records("");
  EXPECT_FALSE(empty.complete());
  EXPECT_FALSE(empty.cycles("00000000000000aa"));
  // A cut file: loop lines whose `end` never came are not counted.
  RunObservations cut = summarize_records(
      "looprace-rt 1 loop pid=11 ppid=10 forked=0 id=00000000000000aa entries=2 cycles=1000 "
      "min=400 max=600 migrated=0 nested=0 threads=1\n");
  EXPECT_FALSE(cut.complete());
  EXPECT_FALSE(cut.cycles("00000000000000aa"));
  EXPECT_FALSE(cut.problems.empty());
}

TEST(SummarizeRecords, ReportsDroppedEntries) {
  RunObservations run = summarize_records(
      "looprace-rt 1 end pid=5 ppid=1 forked=0 loops=0 how=signal status=11 tsc_hz=1 probe=1 "
      "probe_call=1 dropped=7\n");
  EXPECT_TRUE(run.complete());
  EXPECT_EQ(run.processes_signaled, 1u);
  ASSERT_EQ(run.problems.size(), 1u);
  EXPECT_NE(run.problems[0].find("dropped 7"), std::string::npos);
}

RunResult exited(int status, const std::string& out) {
  RunResult run;
  run.process.ending = Ending::exited;
  run.process.exit_status = status;
  run.process.out = captured(out);
  run.process.err = captured("");
  run.observations = summarize_records(kTwoProcesses);
  return run;
}

TEST(JudgeRun, AcceptsTheSameOutput) {
  EXPECT_TRUE(judge_run(exited(0, "x\n"), exited(0, "x\n"), {}, true).ok());
}

TEST(JudgeRun, ReportsEachKindOfFailure) {
  RunResult baseline = exited(0, "x\n");
  EXPECT_EQ(judge_run(baseline, exited(0, "y\n"), {}, true).failure, Failure::output_differs);
  EXPECT_EQ(judge_run(baseline, exited(1, "x\n"), {}, true).failure, Failure::status_differs);

  RunResult crashed = exited(0, "");
  crashed.process.ending = Ending::signaled;
  crashed.process.term_signal = SIGSEGV;
  crashed.process.err = captured("boom\n");
  Judgement crash = judge_run(baseline, crashed, {}, true);
  EXPECT_EQ(crash.failure, Failure::crashed);
  EXPECT_NE(crash.message.find("signal 11"), std::string::npos) << crash.message;
  EXPECT_NE(crash.message.find("boom"), std::string::npos) << crash.message;

  Judgement shell_crash = judge_run(baseline, exited(139, ""), {}, true);
  EXPECT_EQ(shell_crash.failure, Failure::crashed);
  EXPECT_NE(shell_crash.message.find("signal 11"), std::string::npos) << shell_crash.message;

  RunResult child_crash = exited(0, "x\n");
  child_crash.observations.processes_signaled = 1;
  EXPECT_EQ(judge_run(baseline, child_crash, {}, true).failure, Failure::crashed);

  RunResult hung = exited(0, "");
  hung.process.ending = Ending::timed_out;
  EXPECT_EQ(judge_run(baseline, hung, {}, true).failure, Failure::timed_out);

  RunResult silent = exited(0, "x\n");
  silent.observations = {};
  EXPECT_EQ(judge_run(baseline, silent, {}, true).failure, Failure::no_records);
  EXPECT_TRUE(judge_run(baseline, silent, {}, false).ok());
}

TEST(JudgeRun, OutputCheckCanBeTurnedOffButFilesAreStillCompared) {
  CheckOptions unchecked;
  unchecked.check_output = false;
  RunResult baseline = exited(0, "x\n");
  EXPECT_TRUE(judge_run(baseline, exited(3, "other\n"), unchecked, true).ok());

  baseline.files.push_back({"out.txt", true, true, captured("1 2 3\n")});
  RunResult differs = exited(0, "x\n");
  differs.files.push_back({"out.txt", true, true, captured("1 2 4\n")});
  Judgement judgement = judge_run(baseline, differs, unchecked, true);
  EXPECT_EQ(judgement.failure, Failure::file_differs);
  EXPECT_NE(judgement.message.find("out.txt differs at line 1, column 5 (byte 4)"),
            std::string::npos)
      << judgement.message;
  RunResult missing = exited(0, "x\n");
  missing.files.push_back({"out.txt", false, false, {}});
  EXPECT_EQ(judge_run(baseline, missing, unchecked, true).failure, Failure::file_differs);
  RunResult stale = exited(0, "x\n");
  stale.files.push_back({"out.txt", true, false, captured("1 2 3\n")});
  Judgement left = judge_run(baseline, stale, unchecked, true);
  EXPECT_EQ(left.failure, Failure::file_differs);
  EXPECT_NE(left.message.find("earlier run"), std::string::npos) << left.message;
}

TEST(EnvPadding, IsDeterministicAndBounded) {
  EXPECT_EQ(env_padding_length(42), env_padding_length(42));
  bool varies = false;
  for (std::uint64_t seed = 0; seed < 64; ++seed) {
    EXPECT_LT(env_padding_length(seed), 4096u);
    varies |= env_padding_length(seed) != env_padding_length(0);
  }
  EXPECT_TRUE(varies);
}

TEST(Environment, SetsUnsetsAndListsSorted) {
  Environment env;
  env.set("B", "2");
  env.set("A", "1=one");
  env.set("C", "3");
  env.unset("C");
  EXPECT_EQ(env.get("A"), "1=one");
  EXPECT_FALSE(env.get("C"));
  EXPECT_EQ(env.entries(), (std::vector<std::string>{"A=1=one", "B=2"}));
  EXPECT_TRUE(Environment::current().get("PATH"));
}

}  // namespace
}  // namespace looprace::run

namespace looprace::run {
namespace {

MachineFacts quiet_machine() {
  MachineFacts facts;
  facts.cores = 2;
  facts.load1 = 0.2;
  facts.governors = {"performance"};
  facts.boost = false;
  facts.constant_tsc = facts.nonstop_tsc = true;
  return facts;
}

TEST(MachineWarnings, NoneOnAQuietMachine) {
  EXPECT_TRUE(machine_warnings(quiet_machine()).empty());
}

TEST(MachineWarnings, NamesEachProblem) {
  MachineFacts facts = quiet_machine();
  facts.load1 = 1.9;
  facts.governors = {"performance", "powersave"};
  facts.boost = true;
  facts.nonstop_tsc = false;
  facts.hypervisor = true;
  auto warnings = machine_warnings(facts);
  ASSERT_EQ(warnings.size(), 5u);
  EXPECT_EQ(warnings[0], "load average 1.90 on 2 CPUs: timings are noisy");
  EXPECT_NE(warnings[1].find("governor \"powersave\""), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find("boost"), std::string::npos) << warnings[2];
  EXPECT_NE(warnings[3].find("not invariant"), std::string::npos) << warnings[3];
  EXPECT_NE(warnings[4].find("virtual machine"), std::string::npos) << warnings[4];
}

TEST(CpuDescription, NamesTheGenerationBehindAModelNameItSharesWithOthers) {
  EXPECT_EQ(cpu_description("AMD EPYC", "25", "17", "1"),
            "AMD EPYC (family 25, model 17, stepping 1)");
  EXPECT_NE(cpu_description("AMD EPYC", "25", "1", "1"),
            cpu_description("AMD EPYC", "25", "17", "1"));
  EXPECT_EQ(cpu_description("AMD EPYC", "25", "17", ""), "AMD EPYC (family 25, model 17)");
  // Off x86 /proc/cpuinfo has no family: the model name alone.
  EXPECT_EQ(cpu_description("Neoverse-N1", "", "", ""), "Neoverse-N1");
}

TEST(SameCpu, ComparesWhatBothDescriptionsTell) {
  const std::string zen4 = "AMD EPYC (family 25, model 17, stepping 1)";
  EXPECT_TRUE(same_cpu(zen4, zen4));
  EXPECT_FALSE(same_cpu(zen4, "AMD EPYC (family 25, model 1, stepping 1)"));
  // A profile from before the family was recorded: the model names alone.
  EXPECT_TRUE(same_cpu("AMD EPYC", zen4));
  EXPECT_TRUE(same_cpu(zen4, "AMD EPYC"));
  EXPECT_FALSE(same_cpu("Intel(R) Xeon(R) Platinum 8375C", zen4));
}

TEST(MachineFacts, CollectedFromThisMachine) {
  MachineFacts facts = collect_machine_facts("gcc", 99999);
  EXPECT_GT(facts.cores, 0u);
  EXPECT_FALSE(facts.hostname.empty());
  EXPECT_FALSE(facts.kernel.empty());
  EXPECT_NE(facts.compiler.find("gcc"), std::string::npos) << facts.compiler;
#if defined(__x86_64__)
  ASSERT_TRUE(facts.tsc_hz);
  EXPECT_GT(*facts.tsc_hz, 1e8);
#endif
  bool pin_warned = false;
  for (const auto& warning : facts.warnings)
    pin_warned |= warning.find("CPU 99999") != std::string::npos;
  EXPECT_TRUE(pin_warned);
  nlohmann::json json = facts.to_json();
  EXPECT_EQ(json.at("cores"), facts.cores);
  EXPECT_EQ(json.at("pinned_cpu"), 99999);
  EXPECT_NE(facts.identity().find(facts.hostname), std::string::npos);
#if defined(__x86_64__)
  EXPECT_NE(facts.cpu_model.find("(family "), std::string::npos) << facts.cpu_model;
#endif
  EXPECT_NE(
      collect_machine_facts("no-such-compiler-xyz").warnings.back().find("no-such-compiler-xyz"),
      std::string::npos);
}

}  // namespace
}  // namespace looprace::run
