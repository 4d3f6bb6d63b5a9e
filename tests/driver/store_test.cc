#include "store/store.h"

#include "store/dataset.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>

namespace looprace::store {
namespace {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("looprace-store-test-" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

RunRow race_run(const std::string& loop, int group, int round, std::uint64_t cycles) {
  RunRow r;
  r.kind = RunKind::kRace;
  r.target_loop = loop;
  r.group = group;
  r.round = round;
  r.observations.push_back({loop, cycles, 10, 0, 0, std::nullopt, 0});
  r.observations.push_back({"other", cycles / 2, 1, 0, 0, std::nullopt, 0});
  return r;
}

TEST_F(StoreTest, CreatesDirectoryAndSchema) {
  auto s = Store::open(dir_ / "sub" / "store.db");
  EXPECT_TRUE(fs::exists(dir_ / "sub" / "store.db"));
  EXPECT_FALSE(s.identity().has_value());
}

TEST_F(StoreTest, OpenWithoutCreateOfMissingFileFails) {
  EXPECT_THROW(Store::open(dir_ / "missing.db", false), StoreError);
}

TEST_F(StoreTest, RefusesFilesThatAreNotStores) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "junk.db") << "this is not a database at all, just some text to fill pages";
  try {
    Store::open(dir_ / "junk.db");
    FAIL() << "opened a text file as a store";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("junk.db"), std::string::npos) << e.what();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "other.db").c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  try {
    Store::open(dir_ / "other.db");
    FAIL() << "opened a foreign database as a store";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("not a looprace store"), std::string::npos) << e.what();
  }
}

TEST_F(StoreTest, IdentityMismatchNamesBothUnlessForced) {
  auto path = dir_ / "store.db";
  {
    auto s = Store::open(path);
    s.bind_identity({program_key("make", "./a"), "host | cpu"}, false);
  }
  auto s = Store::open(path);
  EXPECT_NO_THROW(s.bind_identity({program_key("make", "./a"), "host | cpu"}, false));
  try {
    s.bind_identity({program_key("make", "./b"), "host | cpu"}, false);
    FAIL() << "accepted another program";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("another program"), std::string::npos) << e.what();
  }
  try {
    s.bind_identity({program_key("make", "./a"), "other | cpu"}, false);
    FAIL() << "accepted another machine";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("another machine"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(s.bind_identity({program_key("make", "./b"), "x | y"}, true));
}

TEST_F(StoreTest, RunsSurviveReopenInRoundOrderWithObservations) {
  auto path = dir_ / "store.db";
  {
    auto s = Store::open(path);
    auto p = s.program("make", "./a");
    auto session = s.begin_session("looprace race", {{"cpu", "test"}});
    s.add_run(p, session, race_run("L1", 0, 2, 300));
    s.add_run(p, session, race_run("L1", 4, 1, 100));
    s.add_run(p, session, race_run("L2", 0, 1, 999));
    RunRow bad = race_run("L1", 8, 1, 0);
    bad.ok = false;
    bad.reason = "output differs";
    bad.observations.clear();
    s.add_run(p, session, bad);
  }
  auto s = Store::open(path, false);
  auto p = s.program("make", "./a");
  auto runs = s.runs(p, RunKind::kRace, "L1");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].round, 1);
  EXPECT_EQ(runs[0].group, 4);
  ASSERT_EQ(runs[0].observations.size(), 2u);
  EXPECT_EQ(runs[1].group, 8);
  EXPECT_FALSE(runs[1].ok);
  EXPECT_EQ(runs[1].reason, "output differs");
  EXPECT_EQ(runs[2].round, 2);
  std::uint64_t l1_cycles = 0;
  for (const auto& o : runs[2].observations) {
    if (o.loop_id == "L1") l1_cycles = o.cycles;
  }
  EXPECT_EQ(l1_cycles, 300u);
  EXPECT_EQ(s.runs(p, RunKind::kRace, "L2").size(), 1u);
  EXPECT_TRUE(s.runs(p, RunKind::kHotness).empty());
}

TEST_F(StoreTest, LoopsVariantsAndDecisionsRoundTrip) {
  auto s = Store::open(dir_ / "store.db");
  auto p = s.program("make", "./a");
  LoopRow l;
  l.id = "00000000000000aa";
  l.file = "a.c";
  l.line = 3;
  l.column = 5;
  l.function = "main";
  l.features = {{"stmts", 7}};
  s.put_loops(p, {l});
  s.put_loops(p, {l});  // idempotent
  ASSERT_EQ(s.loops(p).size(), 1u);
  EXPECT_EQ(s.loops(p)[0].features["stmts"], 7);

  VariantRow v;
  v.loop_id = l.id;
  v.factor = 4;
  v.code_hash = "abc";
  v.applied = 4;
  v.built = true;
  v.group = 4;
  s.put_variant(p, v);
  v.factor = 5;
  v.applied.reset();
  v.group = 4;
  s.put_variant(p, v);
  auto vs = s.variants(p, l.id);
  ASSERT_EQ(vs.size(), 2u);
  EXPECT_EQ(vs[0].applied, 4);
  EXPECT_FALSE(vs[1].applied.has_value());
  EXPECT_EQ(vs[1].group, 4);

  plans::LoopDecision d;
  d.loop_id = l.id;
  d.plan = "race()";
  d.chosen = 4;
  d.winners = {4, 5};
  d.samples = {{4, 10}, {0, 10}};
  d.groups = {{0, 0}, {4, 4}, {5, 4}};
  d.rounds = {{1, {0, 4}, {4}, {0}}, {2, {4}, {4}, {}, true}};
  d.disqualified = {{7, "crashed"}};
  d.speedup = {plans::SpeedupSource::kConfirmation,
               {10, 11, 12},
               {8, 9, 8.5},
               0.9,
               stats::RatioTest::paired_trimmed};
  s.put_decision(p, d);
  auto got = s.decision(p, l.id, "race()");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->winners, (std::vector<int>{4, 5}));
  EXPECT_EQ(got->samples, d.samples);
  EXPECT_EQ(got->groups, d.groups);
  ASSERT_EQ(got->rounds.size(), 2u);
  EXPECT_EQ(got->rounds[0].losers, (std::vector<int>{0}));
  EXPECT_FALSE(got->rounds[0].set_aside);
  EXPECT_TRUE(got->rounds[1].set_aside);
  EXPECT_EQ(got->disqualified, d.disqualified);
  EXPECT_EQ(got->speedup.source, plans::SpeedupSource::kConfirmation);
  EXPECT_EQ(got->speedup.chosen, d.speedup.chosen);
  EXPECT_EQ(got->speedup.confidence, 0.9);
  EXPECT_EQ(got->speedup.ratio_test, stats::RatioTest::paired_trimmed);
  EXPECT_EQ(got->winner_samples(), (std::vector<std::size_t>{10, 10}));
  EXPECT_FALSE(got->unconfirmed.has_value());
  // GCC's default kept for want of a confirmed gain: the plan's choice and its runs stay.
  d.chosen = 0;
  d.unconfirmed = 4;
  s.put_decision(p, d);
  got = s.decision(p, l.id, "race()");
  EXPECT_EQ(got->chosen, 0);
  EXPECT_EQ(got->unconfirmed, 4);
  EXPECT_EQ(got->speedup.chosen, d.speedup.chosen);
  d.chosen = 4;
  d.unconfirmed.reset();
  s.put_decision(p, d);
  // The speedup column keeps the figures of those runs for readers of the store's SQL.
  const auto test = plans::speedup_of(d.speedup);
  ASSERT_TRUE(test.has_value());
  sqlite3_stmt* q = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(s.handle(),
                               "SELECT json_extract(speedup, '$.ci[0]'), "
                               "json_extract(speedup, '$.verdict') FROM decisions",
                               -1, &q, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(q), SQLITE_ROW);
  EXPECT_DOUBLE_EQ(sqlite3_column_double(q, 0), test->speedup_interval.lower);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(q, 1)),
               stats::verdict_name(test->ratio_verdict));
  sqlite3_finalize(q);
  EXPECT_FALSE(s.decision(p, l.id, "constant(n=10)").has_value());
  EXPECT_EQ(s.decisions(p).size(), 1u);
}

TEST_F(StoreTest, MergeCopiesOnceAndChecksIdentity) {
  Identity id{program_key("make", "./a"), "h | c"};
  auto a = Store::open(dir_ / "a.db");
  a.bind_identity(id, false);
  auto pa = a.program("make", "./a");
  auto sa = a.begin_session("race", {});
  a.add_run(pa, sa, race_run("L1", 0, 1, 10));
  auto b = Store::open(dir_ / "b.db");
  b.bind_identity(id, false);
  auto pb = b.program("make", "./a");
  auto sb = b.begin_session("race", {});
  b.add_run(pb, sb, race_run("L1", 0, 1, 20));
  b.add_run(pb, sb, race_run("L1", 2, 1, 30));

  auto counts = a.merge_from(b, false);
  EXPECT_EQ(counts.runs, 2u);
  EXPECT_EQ(counts.observations, 4u);
  EXPECT_EQ(a.merge_from(b, false).runs, 0u);  // merging twice adds nothing
  EXPECT_EQ(a.runs(pa, RunKind::kRace, "L1").size(), 3u);
  EXPECT_EQ(a.sessions().size(), 2u);

  auto c = Store::open(dir_ / "c.db");
  c.bind_identity({program_key("make", "./other"), id.machine}, false);
  EXPECT_THROW(a.merge_from(c, false), StoreError);
  EXPECT_NO_THROW(a.merge_from(c, true));
}

// A run of a race observed through the loop around the raced one ("outer") also timed the
// race's controls: its observation is the loop it names, never the lowest id it timed.
TEST_F(StoreTest, ARaceRunsObservationIsTheLoopItObservedAmongItsControls) {
  auto s = Store::open(dir_ / "s.db");
  auto p = s.program("make", "./a");
  auto session = s.begin_session("race --controls auto", {});
  RunRow run = race_run("outer", 4, 1, 500);
  run.target_loop = "inner";
  run.observed = "outer";
  run.observations.push_back({"a-control", 70, 1, 0, 0, std::nullopt, 0});
  s.add_run(p, session, run);
  const auto runs = s.loop_race_runs(p, "inner");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].observed, "outer");
  EXPECT_EQ(runs[0].cycles, 500u);
  EXPECT_EQ(s.runs(p, RunKind::kRace, "inner").at(0).observed, "outer");
}

TEST_F(StoreTest, JointRunsAreSeenByEachLoopThroughTheirSlots) {
  auto s = Store::open(dir_ / "s.db");
  auto p = s.program("make", "./a");
  auto session = s.begin_session("race --together", {});
  s.add_run(p, session, race_run("L1", 4, 1, 100));  // L1 raced alone first
  s.put_joint_slots(p, "joint:ab", {{"L1", {0, 4}}, {"L2", {2, 0}}});
  EXPECT_EQ(s.joint_slots(p, "joint:ab"),
            (std::map<std::string, std::vector<int>>{{"L1", {0, 4}}, {"L2", {2, 0}}}));
  RunRow joint;
  joint.kind = RunKind::kRace;
  joint.group = -1;
  joint.joint = JointSlot{"joint:ab", 1};  // slot 1: L1 at factor 4, L2 at factor 0
  joint.round = 2;
  joint.observations = {{"L1", 110, 1, 0, 0, std::nullopt, 0},
                        {"L2", 220, 1, 0, 0, std::nullopt, 0}};
  s.add_run(p, session, joint);
  joint.joint->slot = 0;  // slot 0 failed: no observations
  joint.round = 3;
  joint.ok = false;
  joint.reason = "crashed";
  joint.observations.clear();
  s.add_run(p, session, joint);

  auto l1 = s.loop_race_runs(p, "L1");
  ASSERT_EQ(l1.size(), 3u);
  EXPECT_EQ(l1[0].factor, 4);
  EXPECT_EQ(l1[0].cycles, 100u);
  EXPECT_EQ(l1[0].entries, 10u);
  EXPECT_FALSE(l1[0].joint);
  EXPECT_EQ(l1[1].factor, 4);
  EXPECT_EQ(l1[1].cycles, 110u);
  EXPECT_EQ(l1[1].entries, 1u);
  EXPECT_TRUE(l1[1].joint);
  EXPECT_EQ(l1[2].factor, 0);
  EXPECT_FALSE(l1[2].ok);
  EXPECT_EQ(l1[2].reason, "crashed");
  EXPECT_FALSE(l1[2].cycles.has_value());
  auto l2 = s.loop_race_runs(p, "L2");
  ASSERT_EQ(l2.size(), 2u);
  EXPECT_EQ(l2[0].factor, 0);
  EXPECT_EQ(l2[0].cycles, 220u);
  EXPECT_EQ(l2[1].factor, 2);
  // Loops, never batches, in the order their races started.
  EXPECT_EQ(s.raced_loops(p), (std::vector<std::string>{"L1", "L2"}));
  // The batch's runs carry their slots; a loop's own runs are only those of its race alone.
  auto batch = s.joint_runs(p, RunKind::kRace, "joint:ab");
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].joint, (JointSlot{"joint:ab", 1}));
  EXPECT_EQ(batch[1].joint, (JointSlot{"joint:ab", 0}));
  EXPECT_TRUE(batch[0].target_loop.empty());
  EXPECT_EQ(s.runs(p, RunKind::kRace, "L1").size(), 1u);
  EXPECT_FALSE(s.runs(p, RunKind::kRace, "L1")[0].joint.has_value());
  EXPECT_EQ(s.run_tally(p, "L1").kinds.at(RunKind::kRace).count, 1u);
  EXPECT_TRUE(s.run_tally(p, "L2").kinds.empty());
  // The program's tally counts the joint runs too.
  const Store::RunTally all = s.run_tally(p);
  EXPECT_EQ(all.kinds.at(RunKind::kRace).count, 3u);
  EXPECT_FALSE(all.first_taken.empty());
  EXPECT_LE(all.first_taken, all.last_taken);

  // A merge carries the slots with the joint runs.
  auto m = Store::open(dir_ / "m.db");
  m.merge_from(s, false);
  auto pm = m.program("make", "./a");
  EXPECT_EQ(m.loop_race_runs(pm, "L2").size(), 2u);
  EXPECT_EQ(m.joint_runs(pm, RunKind::kRace, "joint:ab")[0].joint, (JointSlot{"joint:ab", 1}));
}

TEST_F(StoreTest, RaceHostsIncludeJointRunsAndFirstWallSecondsIsTheFirstRun) {
  auto s = Store::open(dir_ / "s.db");
  auto p = s.program("make", "./a");
  EXPECT_FALSE(s.first_wall_seconds(p, RunKind::kBaseline).has_value());
  auto first = s.begin_session("race", {{"hostname", "node1"}});
  RunRow base;
  base.kind = RunKind::kBaseline;
  base.wall_seconds = 0.25;
  s.add_run(p, first, base);
  base.wall_seconds = 0.5;
  s.add_run(p, first, base);
  EXPECT_EQ(s.first_wall_seconds(p, RunKind::kBaseline), 0.25);
  s.add_run(p, first, race_run("L1", 0, 1, 10));
  auto second = s.begin_session("race --together", {{"hostname", "node2"}});
  s.put_joint_slots(p, "joint:ab", {{"L1", {0}}, {"L2", {0}}});
  RunRow joint;
  joint.group = -1;
  joint.joint = JointSlot{"joint:ab", 0};
  s.add_run(p, second, joint);
  EXPECT_EQ(s.race_hosts(p, "L1"), (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(s.race_hosts(p, "L2"), (std::vector<std::string>{"node2"}));
}

// Stored shares are of the plain runs' CPU time: a plain run that waited for a CPU before its
// runtime started (12 ms of wall time, none of it off the CPU as the runtime saw it) counts the
// 4 ms it ran, and a resumed race ranks its loops as the first session did.
TEST_F(StoreTest, StoredHotnessIsOfThePlainRunsCpuTime) {
  auto s = Store::open(dir_ / "s.db");
  auto p = s.program("make", "./a");
  auto session = s.begin_session("race", {});
  RunRow plain;
  plain.kind = RunKind::kBaseline;
  plain.wall_seconds = 0.012;
  plain.cpu_seconds = 0.004;
  s.add_run(p, session, plain);
  RunRow hot;
  hot.kind = RunKind::kHotness;
  hot.target_loop = "depth:1";
  hot.wall_seconds = 0.005;
  hot.observations.push_back({"L1", 1'000'000, 10, 0, 0, std::nullopt, 0});  // 1 ms at 1 GHz
  s.add_run(p, session, hot);
  EXPECT_DOUBLE_EQ(s.runs(p, RunKind::kBaseline).at(0).cpu_seconds, 0.004);
  auto ranked = stored_hotness(s, p, 1e9, 0);
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_DOUBLE_EQ(ranked[0].share, 0.25);
}

// A later session's baseline runs and its TSC frequency and probe cost do not move the shares:
// they are those of the session that measured hotness (a rerun names the same plans).
TEST_F(StoreTest, StoredHotnessIsTheSharesOfTheSessionThatMeasuredIt) {
  auto s = Store::open(dir_ / "s.db");
  auto p = s.program("make", "./a");
  RunRow plain;
  plain.kind = RunKind::kBaseline;
  plain.wall_seconds = plain.cpu_seconds = 0.004;
  RunRow hot;
  hot.kind = RunKind::kHotness;
  hot.target_loop = "depth:1";
  hot.wall_seconds = 0.005;
  hot.observations.push_back({"L1", 1'100'000, 10, 0, 0, std::nullopt, 0});
  auto first = s.begin_session("race", {{"runtime_tsc_hz", 1e9}, {"probe_cycles", 10000.0}});
  s.add_run(p, first, plain);
  s.add_run(p, first, hot);
  const double share = stored_hotness(s, p, 2e9, 0).at(0).share;
  EXPECT_DOUBLE_EQ(share, 0.25);  // (1.1 M - 10 x 10,000) cycles at 1 GHz of a 4 ms run
  auto later = s.begin_session("race", {{"runtime_tsc_hz", 1.5e9}, {"probe_cycles", 0.0}});
  plain.wall_seconds = plain.cpu_seconds = 0.002;
  s.add_run(p, later, plain);
  EXPECT_DOUBLE_EQ(stored_hotness(s, p, 1.5e9, 0).at(0).share, share);
}

}  // namespace
}  // namespace looprace::store
