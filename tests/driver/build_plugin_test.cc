// Integration tests of driver/build with the real plugin and runtime: builds of a small make
// project and of the same project under CMake, variants in parallel, code identity per factor,
// verified factors, the loop table from the executable, incremental variants, failing builds.
#include "build/builder.h"
#include "build/elf_code.h"
#include "build/loop_table.h"
#include "build/toolchain.h"
#include "build/variant_env.h"
#include "build_test_util.h"
#include "run/runner.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace looprace::build {
namespace {

using looprace::testing::ScratchDir;

// A copy of tests/driver/build_project: builds run in it and must not write into the sources.
const std::filesystem::path& project() {
  static ScratchDir copy;
  static bool copied = false;
  if (!copied) {
    std::filesystem::copy(LOOPRACE_TEST_PROJECT, copy.path(),
                          std::filesystem::copy_options::recursive);
    copied = true;
  }
  return copy.path();
}
const std::string kMake =
    R"(make -f "$LOOPRACE_SRCDIR/Makefile" CC="$LOOPRACE_CC" OUT="$LOOPRACE_OUTDIR")";

BuildJob job(const std::string& label, const std::filesystem::path& dir, const VariantSpec& spec,
             const std::string& command = kMake) {
  std::filesystem::create_directories(dir);
  return {label,
          command,
          dir,
          {},
          build_environment(find_toolchain(), spec, dir, project()),
          std::chrono::seconds(120)};
}

TEST(Builds, AFailingBuildShowsTheTailOfItsOutput) {
  ScratchDir work;
  BuildJob failing = job("factor 4", work / "f4", {},
                         "for i in $(seq 1 100); do echo line $i; done; echo oops >&2; exit 2");
  BuildResult result = run_build(failing);
  EXPECT_FALSE(result.ok());
  std::string message = result.failure_message();
  EXPECT_NE(message.find("build of factor 4 failed (exit status 2)"), std::string::npos) << message;
  EXPECT_NE(message.find("line 100\noops\n"), std::string::npos) << message;
  EXPECT_NE(message.find("line 72\n"), std::string::npos) << message;
  EXPECT_EQ(message.find("line 71\n"), std::string::npos) << message;  // 30 lines kept
}

TEST(Builds, RunInParallelEachInItsOwnDirectory) {
  ScratchDir work;
  std::vector<BuildJob> jobs;
  for (int factor = 0; factor < 5; ++factor) {
    jobs.push_back(job(fmt::format("factor {}", factor), work / fmt::format("f{}", factor), {},
                       "pwd > \"$LOOPRACE_OUTDIR/where\"; sleep 0.2"));
  }
  jobs[4].cwd = project();
  std::vector<std::string> finished;
  auto results = run_builds(jobs, 2, [&](const BuildResult& r) { finished.push_back(r.label); });
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(finished.size(), 5u);
  for (int factor = 0; factor < 5; ++factor) {
    EXPECT_TRUE(results[factor].ok()) << results[factor].failure_message();
    EXPECT_EQ(results[factor].label, fmt::format("factor {}", factor));
    // Builds run in their variant's directory ($LOOPRACE_OUTDIR) unless told otherwise.
    auto dir = std::filesystem::canonical(work / fmt::format("f{}", factor));
    auto cwd = factor == 4 ? std::filesystem::canonical(project()) : dir;
    EXPECT_EQ(looprace::testing::read_file(dir / "where"), cwd.string() + "\n");
  }
}

class MakeProject : public ::testing::Test {
 protected:
  void SetUp() override {
    VariantSpec spec;
    spec.table = work / "table.jsonl";
    BuildResult result = run_build(job("baseline", baseline, spec));
    ASSERT_TRUE(result.ok()) << result.failure_message();
    LoopTable table = read_loop_table_elf(baseline / "prog");
    for (const auto& row : table.rows) {
      if (row.file.ends_with("kern.c")) loop = row.id;
    }
    ASSERT_FALSE(loop.empty()) << "no loop of kern.c in the table of " << baseline / "prog";
    EXPECT_EQ(read_loop_table_file(work / "table.jsonl").rows.size(), table.rows.size());
  }

  VariantSpec variant(int factor) {
    VariantSpec spec;
    spec.unroll = {{loop, factor}};
    spec.instrument = {loop};
    spec.verify = work / fmt::format("verify-{}.jsonl", factor);
    return spec;
  }

  ScratchDir work;
  std::filesystem::path baseline = work / "baseline";
  std::string loop;
};

TEST_F(MakeProject, VariantsDifferByFactorAndAgreeWhenRebuilt) {
  std::vector<BuildJob> jobs;
  for (int factor : {1, 4, 8}) {
    jobs.push_back(job(fmt::format("factor {}", factor), variant_dir(work.path(), loop, factor),
                       variant(factor)));
  }
  jobs.push_back(job("factor 1 again", work / "again", variant(1)));
  auto results = run_builds(jobs, 2);
  for (const auto& result : results) ASSERT_TRUE(result.ok()) << result.failure_message();

  std::vector<std::string> digests;
  for (const auto& result : results) digests.push_back(code_identity(result.dir).digest);
  EXPECT_NE(digests[0], digests[1]);
  EXPECT_NE(digests[1], digests[2]);
  EXPECT_EQ(digests[0], digests[3]);

  for (int factor : {4, 8}) {
    auto records = read_verify_file(work / fmt::format("verify-{}.jsonl", factor));
    ASSERT_EQ(records.count(loop), 1u) << "factor " << factor;
    EXPECT_EQ(records.at(loop).requested, factor);
    EXPECT_EQ(records.at(loop).applied, factor) << records.at(loop).how;
  }

  // The instrumented variant reports the loop; its output equals the baseline's.
  run::RunSpec base_run;
  base_run.command = (baseline / "prog").string();
  base_run.records_file = work / "base.rt";
  run::RunResult reference = run::execute_run(base_run);
  ASSERT_TRUE(reference.process.succeeded());
  run::RunSpec variant_run = base_run;
  variant_run.command = (results[2].dir / "prog").string();
  variant_run.records_file = work / "f8.rt";
  run::RunResult measured = run::execute_run(variant_run);
  EXPECT_TRUE(run::judge_run(reference, measured, {}, true).ok());
  ASSERT_TRUE(measured.observations.cycles(loop));
  EXPECT_EQ(measured.observations.loops.at(loop).entries, 100u);
}

TEST_F(MakeProject, LayoutSeedMovesTheCodeNotTheResult) {
  const std::uint64_t seed = 1;  // pads the functions of this program by nonzero amounts
  VariantSpec padded = variant(4);
  padded.layout_seed = seed;
  auto results = run_builds({job("factor 4", work / "plain", variant(4)),
                             job("factor 4 padded", work / "padded", padded)},
                            2);
  for (const auto& result : results) ASSERT_TRUE(result.ok()) << result.failure_message();
  EXPECT_NE(code_identity(work / "plain").digest, code_identity(work / "padded").digest);

  run::RunSpec plain_run;
  plain_run.command = (work / "plain/prog").string();
  plain_run.records_file = work / "plain.rt";
  run::RunSpec padded_run = plain_run;
  padded_run.command = (work / "padded/prog").string();
  padded_run.records_file = work / "padded.rt";
  padded_run.layout_seed = seed;
  run::RunResult reference = run::execute_run(plain_run);
  ASSERT_TRUE(reference.process.succeeded()) << reference.process.describe();
  run::RunResult moved = run::execute_run(padded_run);
  EXPECT_EQ(moved.env_padding, run::env_padding_length(seed));
  EXPECT_TRUE(run::judge_run(reference, moved, {}, true).ok());
  EXPECT_TRUE(moved.observations.cycles(loop));
}

TEST_F(MakeProject, IncrementalVariantRecompilesOnlyTheLoopsUnit) {
  auto dir = variant_dir(work.path(), loop, 8);
  ASSERT_TRUE(prepare_incremental(dir, baseline, {loop}));
  EXPECT_TRUE(std::filesystem::exists(dir / "main.o"));
  EXPECT_FALSE(std::filesystem::exists(dir / "kern.o"));
  BuildResult incremental = run_build(job("factor 8", dir, variant(8)));
  ASSERT_TRUE(incremental.ok()) << incremental.failure_message();
  EXPECT_NE(incremental.output_tail.find("kern.c"), std::string::npos) << incremental.output_tail;
  EXPECT_EQ(incremental.output_tail.find("main.c"), std::string::npos) << incremental.output_tail;

  BuildResult fresh = run_build(job("factor 8 fresh", work / "fresh", variant(8)));
  ASSERT_TRUE(fresh.ok()) << fresh.failure_message();
  EXPECT_EQ(code_identity(dir).digest, code_identity(work / "fresh").digest);

  EXPECT_FALSE(prepare_incremental(work / "none", baseline, {"00000000000000aa"}));
  EXPECT_TRUE(std::filesystem::is_empty(work / "none"));
}

TEST(CMakeProject, FlagsPassThroughCcOrCFlagsAndLinkerFlags) {
  ScratchDir work;
  auto dir = work / "cmake";
  VariantSpec spec;
  spec.table = work / "table.jsonl";
  // The compiler command from CC: CMake keeps the flags after it.
  BuildResult table_build =
      run_build(job("cmake table", dir, spec,
                    R"(CC="$LOOPRACE_CC" cmake -S "$LOOPRACE_SRCDIR" -B . && )"
                    R"(cmake --build .)"));
  ASSERT_TRUE(table_build.ok()) << table_build.failure_message();
  LoopTable table = read_loop_table_dir(dir);
  const LoopRow* kern = nullptr;
  for (const auto& row : table.rows) {
    if (row.file.ends_with("kern.c")) kern = &row;
  }
  ASSERT_NE(kern, nullptr);
  EXPECT_EQ(
      find_loop(table, "kern.c:" + std::to_string(kern->line) + ":" + std::to_string(kern->column)),
      kern);

  // Flags through CMake cache variables: the runtime is linked and records the loop.
  VariantSpec timed;
  timed.instrument = {kern->id};
  BuildResult instrumented =
      run_build(job("cmake instrumented", work / "timed", timed,
                    R"(cmake -S "$LOOPRACE_SRCDIR" -B . -DCMAKE_C_FLAGS="$LOOPRACE_CFLAGS -O2" )"
                    R"(-DCMAKE_EXE_LINKER_FLAGS="$LOOPRACE_LDFLAGS" && cmake --build .)"));
  ASSERT_TRUE(instrumented.ok()) << instrumented.failure_message();
  run::RunSpec spec_run;
  spec_run.command = (work / "timed/prog").string() + " 500";
  spec_run.records_file = work / "timed.rt";
  run::RunResult run = run::execute_run(spec_run);
  ASSERT_TRUE(run.process.succeeded()) << run.process.describe();
  ASSERT_TRUE(run.observations.cycles(kern->id));
  EXPECT_EQ(run.observations.loops.at(kern->id).entries, 100u);
}

}  // namespace
}  // namespace looprace::build
