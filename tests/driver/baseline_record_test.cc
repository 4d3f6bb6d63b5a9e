// The baseline record (race/baseline_record.h) on a small program really built with the plugin
// and run: a record of this workspace and machine is reused, with its loop table and reference
// run; every difference the record guards against (the record itself, the commands, the
// checked files, the compiler, the CPU model, the plugin and runtime files, the copied build)
// makes it unusable, with a `why` that names the difference.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "build/elf_code.h"
#include "build_test_util.h"
#include "one_loop_program.h"
#include "race/baseline_record.h"

namespace looprace::race {
namespace {

namespace fs = std::filesystem;
using looprace::testing::read_file;
using looprace::testing::ScratchDir;
using looprace::testing::shell;
using looprace::testing::write_file;

// Whether `why` holds `part`, showing `why` when it does not (or when it should not).
::testing::AssertionResult says(const std::string& why, const std::string& part) {
  if (why.find(part) != std::string::npos) return ::testing::AssertionSuccess() << why;
  return ::testing::AssertionFailure() << "\"" << why << "\" does not say \"" << part << "\"";
}

// A workspace whose plugin and runtime are copies in the scratch directory (so that a test may
// change them), its baseline built and run once, and the facts of a made-up machine.
class BaselineRecord : public ::testing::Test {
 protected:
  void SetUp() override {
    write_file(dir_ / "src/prog.c", looprace::testing::kOneLoopProgram);
    const build::Toolchain found = build::find_toolchain();
    ws_.toolchain = found;
    ws_.toolchain.plugin = dir_ / "lib/looprace.so";
    ws_.toolchain.runtime = dir_ / "lib/liblooprace_rt.a";
    fs::create_directories(dir_ / "lib");
    fs::copy_file(found.plugin, ws_.toolchain.plugin);
    fs::copy_file(found.runtime, ws_.toolchain.runtime);
    ws_.build_command = "$LOOPRACE_CC -O2 -o prog \"$LOOPRACE_SRCDIR/src/prog.c\"";
    ws_.run_command = "$LOOPRACE_OUTDIR/prog | tee out.txt";  // a checked file
    ws_.srcdir = dir_.path();
    ws_.workdir = dir_ / "work";
    ws_.check_files = {"out.txt"};
    facts_.cpu_model = "Test CPU @ 3.00GHz";
    facts_.compiler = "gcc (Test) 12.2.0";
    baseline_ = build_baseline(ws_);
    reference_ = reference_run(ws_, baseline_);
    save_baseline_record(record_, ws_, facts_, baseline_, reference_);
  }

  // Loads the record for `ws` on `facts`; fails the test when it is used although it should not
  // be, and returns the reason given.
  std::string why_not(const Workspace& ws, const run::MachineFacts& facts) const {
    std::string why;
    EXPECT_FALSE(load_baseline_record(record_, ws, facts, why).has_value());
    EXPECT_FALSE(why.empty());
    return why;
  }
  std::string why_not() const { return why_not(ws_, facts_); }

  // That the record is not used for `ws` on `facts`, for a reason that says `cause` and shows
  // `value`, and says nothing of `other` (a part of the key that did not change).
  void expect_named(const Workspace& ws, const run::MachineFacts& facts, const std::string& cause,
                    const std::string& value, const std::string& other) const {
    const std::string why = why_not(ws, facts);
    EXPECT_TRUE(says(why, cause));
    EXPECT_TRUE(says(why, value));
    EXPECT_FALSE(says(why, other));
  }

  // The directory the record names as its copy of the build.
  fs::path copied_build() const {
    return nlohmann::json::parse(read_file(record_)).at("dir").get<std::string>();
  }

  ScratchDir dir_;
  Workspace ws_;
  run::MachineFacts facts_;
  Baseline baseline_;
  run::RunResult reference_;
  fs::path record_ = dir_ / "shard/baseline.json";
};

// The record of this very workspace and machine is reused: the copy of the build (not the
// workspace's own, removed here), its loop table, unroller records and build time, and the
// reference run with its output and checked file.
TEST_F(BaselineRecord, RoundTripIsReused) {
  fs::remove_all(baseline_.dir);
  std::string why;
  std::optional<ReusedBaseline> reused = load_baseline_record(record_, ws_, facts_, why);
  ASSERT_TRUE(reused.has_value()) << why;
  EXPECT_TRUE(why.empty()) << why;
  EXPECT_EQ(reused->baseline.dir, copied_build());
  EXPECT_EQ(reused->baseline.dir.parent_path(), record_.parent_path());
  EXPECT_NE(reused->baseline.dir, baseline_.dir);
  EXPECT_DOUBLE_EQ(reused->baseline.build_seconds, baseline_.build_seconds);
  ASSERT_EQ(reused->baseline.table.rows.size(), baseline_.table.rows.size());
  ASSERT_FALSE(baseline_.table.rows.empty());
  for (std::size_t i = 0; i < baseline_.table.rows.size(); ++i) {
    EXPECT_EQ(reused->baseline.table.rows[i].id, baseline_.table.rows[i].id);
    EXPECT_EQ(reused->baseline.table.rows[i].features, baseline_.table.rows[i].features);
  }
  EXPECT_EQ(reused->baseline.at_unroller.size(), baseline_.at_unroller.size());
  const run::RunResult& r = reused->reference;
  EXPECT_EQ(r.process.ending, reference_.process.ending);
  EXPECT_EQ(r.process.exit_status, reference_.process.exit_status);
  EXPECT_EQ(r.process.out.digest, reference_.process.out.digest);
  EXPECT_EQ(r.process.out.head, reference_.process.out.head);
  EXPECT_DOUBLE_EQ(r.process.wall_seconds, reference_.process.wall_seconds);
  EXPECT_EQ(r.observations.tsc_hz, reference_.observations.tsc_hz);
  ASSERT_EQ(r.files.size(), 1u);
  EXPECT_EQ(r.files[0].path, "out.txt");
  EXPECT_TRUE(r.files[0].exists);
  EXPECT_EQ(r.files[0].content.digest, reference_.files[0].content.digest);
  // The copy runs as the baseline did.
  EXPECT_EQ(run_build_once(ws_, reused->baseline.dir).process.out.digest,
            reference_.process.out.digest);
}

// Saving the same build again keeps the copy (tasks may be reading it); the record is reused
// all the same.
TEST_F(BaselineRecord, SavedTwiceKeepsTheCopy) {
  const fs::path copy = copied_build();
  write_file(copy / "kept", "");
  save_baseline_record(record_, ws_, facts_, baseline_, reference_);
  EXPECT_EQ(copied_build(), copy);
  EXPECT_TRUE(fs::exists(copy / "kept"));
  std::string why;
  EXPECT_TRUE(load_baseline_record(record_, ws_, facts_, why).has_value()) << why;
}

TEST_F(BaselineRecord, MissingRecordIsNamed) {
  fs::remove(record_);
  EXPECT_EQ(why_not(), "there is no record " + record_.string());
}

TEST_F(BaselineRecord, MalformedRecordIsNamed) {
  write_file(record_, "{\"format\": 2, \"key\": ");
  const std::string why = why_not();
  EXPECT_TRUE(says(why, record_.string() + " is not valid JSON"));
  write_file(record_, "");
  EXPECT_TRUE(says(why_not(), record_.string() + " is not valid JSON"));
}

// JSON that is not a record of this format, or a record with parts missing, is refused: it
// does not throw.
TEST_F(BaselineRecord, RecordOfAnotherShapeIsRefused) {
  const std::string text = read_file(record_);
  for (const char* other : {"[]", "{}", "{\"format\": \"2\"}", "{\"format\": 1, \"key\": {}}"}) {
    write_file(record_, other);
    EXPECT_TRUE(says(why_not(), record_.string() + " is not a baseline record of format 2"))
        << other;
  }
  nlohmann::json j = nlohmann::json::parse(text);
  j.erase("reference");
  write_file(record_, j.dump());
  EXPECT_TRUE(says(why_not(), record_.string() + " cannot be read"));
  j = nlohmann::json::parse(text);
  j["key"] = 7;
  write_file(record_, j.dump());
  EXPECT_TRUE(says(why_not(), "the build command differs"));
}

TEST_F(BaselineRecord, OtherBuildOrRunCommandIsNamed) {
  Workspace other = ws_;
  other.build_command += " -DOTHER";
  expect_named(other, facts_, "the build command differs", "-DOTHER", "run command");
  other = ws_;
  other.run_command += " 10";
  expect_named(other, facts_, "the run command differs", " 10", "build command");
}

TEST_F(BaselineRecord, OtherSourceDirectoryOrCheckedFilesAreNamed) {
  Workspace other = ws_;
  other.srcdir = dir_ / "src";
  EXPECT_TRUE(says(why_not(other, facts_), "the source directory differs"));
  other = ws_;
  other.check_files.push_back("more.txt");
  expect_named(other, facts_, "the checked files differ", "more.txt", "build command");
}

TEST_F(BaselineRecord, OtherCompilerOrCpuModelIsNamed) {
  run::MachineFacts other = facts_;
  other.compiler = "gcc (Test) 13.1.0";
  expect_named(ws_, other, "the compiler differs", "13.1.0", "CPU model");
  other = facts_;
  other.cpu_model = "Other CPU @ 2.00GHz";
  expect_named(ws_, other, "the CPU model differs", "Other CPU", "compiler");
  Workspace cc = ws_;
  cc.toolchain.cc = "gcc-13";
  expect_named(cc, facts_, "the C compiler command differs", "gcc-13", "CPU model");
}

// A plugin or runtime rebuilt (here: touched) since the record was written is another.
TEST_F(BaselineRecord, ChangedPluginOrRuntimeIsNamed) {
  const auto later = fs::last_write_time(ws_.toolchain.plugin) + std::chrono::hours(1);
  fs::last_write_time(ws_.toolchain.plugin, later);
  EXPECT_TRUE(says(why_not(), "the plugin file differs"));
  save_baseline_record(record_, ws_, facts_, baseline_, reference_);
  std::string why;
  EXPECT_TRUE(load_baseline_record(record_, ws_, facts_, why).has_value()) << why;
  fs::last_write_time(ws_.toolchain.runtime, later);
  EXPECT_TRUE(says(why_not(), "the runtime file differs"));
  Workspace moved = ws_;
  moved.toolchain.runtime = dir_ / "elsewhere/liblooprace_rt.a";
  EXPECT_TRUE(says(why_not(moved, facts_), "the runtime file differs"));
}

// A copied build whose program was replaced by another (its code digest differs) or that was
// removed is not used.
TEST_F(BaselineRecord, TamperedCopyIsNamed) {
  const fs::path copy = copied_build();
  const std::string recorded = build::code_identity(copy).digest;
  shell("${CC:-cc} -O0 -x c -o prog - <<'EOF'\nint main(void) { return 0; }\nEOF", copy);
  const std::string why = why_not();
  EXPECT_TRUE(says(why, copy.string() + " no longer holds the recorded build"));
  EXPECT_TRUE(says(why, "recorded " + recorded));
  fs::remove_all(copy);
  EXPECT_EQ(why_not(), "the recorded build " + copy.string() + " is missing");
}

}  // namespace
}  // namespace looprace::race
