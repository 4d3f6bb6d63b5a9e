#include "store/report_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "plans/replay.h"
#include "report/export.h"
#include "report/figures.h"
#include "store/dataset.h"

namespace looprace::store {
namespace {

namespace fs = std::filesystem;

class ReportLoaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() /
            ("looprace-loader-test-" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".db");
    fs::remove(path_);
    auto s = Store::open(path_);
    auto p = s.program("make", "./prog");
    auto session = s.begin_session("looprace race", {{"cpu_model", "Test CPU"},
                                                     {"compiler", "gcc 12"},
                                                     {"runtime_tsc_hz", 1e9},
                                                     {"probe_cycles", 40},
                                                     {"warnings", {"load is high"}}});
    LoopRow loop;
    loop.id = "00000000000000aa";
    loop.file = "a.c";
    loop.line = 7;
    loop.column = 3;
    loop.function = "kernel";
    loop.index = 1;
    loop.loops = 2;
    loop.features = {{"stmts", 9}};
    s.put_loops(p, {loop});
    // Factors 0 and 1 share code; 2 is its own; 3 failed to build.
    for (int f : {0, 1, 2, 3}) {
      VariantRow v;
      v.loop_id = loop.id;
      v.factor = f;
      v.built = f != 3;
      v.group = f == 1 ? 0 : (f == 3 ? -1 : f);
      v.applied = f == 2 ? std::optional<int>(1) : std::nullopt;
      v.how = f == 2 ? "too-big" : "";
      s.put_variant(p, v);
    }
    RunRow hot;
    hot.kind = RunKind::kHotness;
    hot.wall_seconds = 1.0;
    hot.observations = {{loop.id, 250000000, 1, 0, 0, std::nullopt, 0}};
    s.add_run(p, session, hot);
    for (int round = 1; round <= 2; ++round) {
      for (int group : {0, 2}) {
        RunRow r;
        r.target_loop = loop.id;
        r.group = group;
        r.round = round;
        r.observations = {{loop.id, static_cast<std::uint64_t>(1000 * (group + 1) + round), 1, 0, 0,
                           std::nullopt, 0}};
        s.add_run(p, session, r);
      }
    }
    plans::LoopDecision d;
    d.loop_id = loop.id;
    d.plan = "race(cap=2)";
    d.chosen = 0;
    d.winners = {0, 1};
    d.samples = {{0, 2}, {2, 2}};
    d.groups = {{0, 0}, {1, 0}, {2, 2}, {3, -1}};
    d.cap_hit = true;
    d.rounds = {{1, {0, 2}, {0}, {2}}};
    d.disqualified = {{3, "build failed: error"}};
    d.speedup.source = plans::SpeedupSource::kSameCode;
    s.put_decision(p, d);
  }
  void TearDown() override { fs::remove(path_); }
  fs::path path_;
};

TEST_F(ReportLoaderTest, FillsContextFactorsAndDecisionByFactor) {
  auto s = Store::open(path_, false);
  report::Report r = load_report(s);
  EXPECT_EQ(r.context.build_command, "make");
  EXPECT_EQ(r.context.cpu_model, "Test CPU");
  EXPECT_DOUBLE_EQ(r.context.tsc_hz, 1e9);
  EXPECT_DOUBLE_EQ(r.context.probe_overhead_cycles, 40);
  EXPECT_EQ(r.context.warnings, (std::vector<std::string>{"load is high"}));
  ASSERT_EQ(r.loops.size(), 1u);
  const report::LoopReport& l = r.loops[0];
  EXPECT_EQ(l.location, "a.c:7:3");
  EXPECT_EQ(l.position, "1/2");
  EXPECT_EQ(l.features["stmts"], 9);
  ASSERT_TRUE(l.hotness_share.has_value());
  EXPECT_NEAR(*l.hotness_share, (250000000.0 - 40) / 1e9, 1e-12);  // net of one probe bias
  ASSERT_EQ(l.factors.size(), 17u);
  EXPECT_EQ(l.factors[0].cycles, (std::vector<double>{1001, 1002}));
  EXPECT_EQ(l.factors[1].code_group, 0);
  EXPECT_TRUE(l.factors[1].cycles.empty());  // its observations are factor 0's
  EXPECT_EQ(l.factors[2].cycles, (std::vector<double>{3001, 3002}));
  EXPECT_EQ(l.factors[2].applied, 1);
  EXPECT_TRUE(l.factors[3].disqualified);
  EXPECT_EQ(l.factors[3].disqualified_reason, "build failed: error");
  EXPECT_TRUE(l.factors[9].disqualified);  // never built
  ASSERT_TRUE(l.decision.has_value());
  EXPECT_EQ(l.decision->chosen, 0);
  EXPECT_EQ(l.decision->winners, (std::vector<int>{0, 1}));
  EXPECT_EQ(l.decision->samples.at(2), 2u);
  EXPECT_TRUE(l.decision->cap_hit);
  ASSERT_EQ(l.decision->rounds.size(), 1u);
  EXPECT_EQ(l.decision->rounds[0].losers, (std::vector<int>{2}));
  EXPECT_EQ(l.plan, "race(cap=2)");
  EXPECT_EQ(l.warnings,
            (std::vector<std::string>{"GCC made fewer copies than asked (too-big): 2→1"}));
}

// Without --observation a report shows the observations the decision was made on: filtered
// ones for a race on filtered observations, whose raw sums a disturbed run can dwarf.
TEST_F(ReportLoaderTest, ShowsTheObservationsTheDecisionRestsOn) {
  auto s = Store::open(path_, false);
  auto p = s.program("make", "./prog");
  EXPECT_EQ(decided_observation(s, p), stats::ObservationKind::kRaw);
  RunRow disturbed;
  disturbed.target_loop = "00000000000000aa";
  disturbed.group = 0;
  disturbed.round = 3;
  disturbed.observations = {{"00000000000000aa", 90000, 1, 0, 0, 1003.0, 1}};
  s.add_run(p, s.begin_session("looprace race", {{"cpu_model", "Test CPU"}}), disturbed);
  plans::LoopDecision d = *s.decision(p, "00000000000000aa", "race(cap=2)");
  d.plan = plans::plan_on_observations("race(cap=2)", stats::ObservationKind::kFiltered);
  d.decided_at = "9999-01-01T00:00:00Z";  // the latest
  s.put_decision(p, d);
  EXPECT_EQ(decided_observation(s, p), stats::ObservationKind::kFiltered);

  report::Report shown = load_report(s);
  EXPECT_EQ(shown.loops[0].factors[0].cycles.back(), 1003.0);
  EXPECT_NE(std::find(shown.context.facts.begin(), shown.context.facts.end(),
                      std::pair<std::string, std::string>{"observations", "filtered"}),
            shown.context.facts.end());
  report::Report raw = load_report(s, {}, stats::ObservationKind::kRaw);
  EXPECT_EQ(raw.loops[0].factors[0].cycles.back(), 90000.0);
}

TEST_F(ReportLoaderTest, FillsEverySessionTheRunTotalsAndTheRaceRuns) {
  auto s = Store::open(path_, false);
  auto p = s.program("make", "./prog");
  auto session = s.begin_session("looprace race --pin 1", {{"cores", 2},
                                                           {"kernel", "Linux 6.1"},
                                                           {"hypervisor", true},
                                                           {"tsc_hz", 2e9},
                                                           {"load", {0.5, 0.4, 0.3}},
                                                           {"pinned_cpu", 1}});
  RunRow disturbed;
  disturbed.target_loop = "00000000000000aa";
  disturbed.group = 2;
  disturbed.round = 3;
  disturbed.ok = false;
  disturbed.observations = {{"00000000000000aa", 5000, 64, 0, 0, 4800.5, 3}};
  s.add_run(p, session, disturbed);
  report::Report r = load_report(s);
  ASSERT_EQ(r.context.sessions.size(), 2u);
  EXPECT_EQ(r.context.sessions[0].cpu_model, "Test CPU");
  EXPECT_FALSE(r.context.sessions[0].load1.has_value());
  const report::Session& last = r.context.sessions[1];
  EXPECT_EQ(last.command, "looprace race --pin 1");
  EXPECT_EQ(last.cores, 2u);
  EXPECT_EQ(last.kernel, "Linux 6.1");
  EXPECT_TRUE(last.virtual_machine);
  EXPECT_EQ(last.tsc_hz, 2e9);
  EXPECT_EQ(last.load1, 0.5);
  EXPECT_EQ(last.pinned_cpu, 1);
  EXPECT_EQ(r.context.run_counts,
            (std::map<std::string, std::size_t>{{"hotness", 1}, {"race", 5}}));
  EXPECT_FALSE(r.context.first_run.empty());
  EXPECT_LE(r.context.first_run, r.context.last_run);
  const std::vector<report::RaceRun>& runs = r.loops[0].race_runs;
  ASSERT_EQ(runs.size(), 5u);
  EXPECT_EQ(runs[0].factor, 0);
  EXPECT_EQ(runs[0].cycles, 1001u);
  EXPECT_FALSE(runs[0].filtered.has_value());
  EXPECT_EQ(runs[4].round, 3);
  EXPECT_FALSE(runs[4].ok);
  EXPECT_EQ(runs[4].filtered, 4800.5);
  EXPECT_EQ(runs[4].entries, 64u);
  EXPECT_EQ(runs[4].disturbed, 3u);
}

TEST_F(ReportLoaderTest, TheSpeedupComesFromTheRunsTheDecisionKept) {
  auto s = Store::open(path_, false);
  report::Report r = load_report(s);
  EXPECT_EQ(r.loops[0].decision->speedup.source, plans::SpeedupSource::kSameCode);
  EXPECT_FALSE(report::derive_figures(r.loops[0], r.confidence).speedup.has_value());
  auto p = s.program("make", "./prog");
  plans::LoopDecision d = s.decisions(p).at(0);
  d.chosen = 2;
  d.speedup = {plans::SpeedupSource::kConfirmation, {10.0, 11.0, 10.5}, {5.0, 6.0, 5.5}, 0.9};
  s.put_decision(p, d);
  r = load_report(s);
  const report::LoopFigures figures = report::derive_figures(r.loops[0], r.confidence);
  ASSERT_TRUE(figures.speedup.has_value());
  // The decision's runs at the race's confidence, not the report's: the profile's figures.
  EXPECT_EQ(figures.speedup->confidence, 0.9);
  EXPECT_EQ(figures.speedup->baseline_n, 3u);
  EXPECT_EQ(figures.speedup_source, "3 confirmation runs each, taken after the race");
  d.speedup.source = plans::SpeedupSource::kRace;  // --confirm 0: the race's own observations
  s.put_decision(p, d);
  r = load_report(s);
  EXPECT_NE(report::derive_figures(r.loops[0], r.confidence).speedup_source.find("optimistic"),
            std::string::npos);
}

TEST_F(ReportLoaderTest, LoopSelectorsFilterAndUnknownOnesFail) {
  auto s = Store::open(path_, false);
  EXPECT_EQ(load_report(s, {"00000000000000aa"}).loops.size(), 1u);
  EXPECT_THROW(load_report(s, {"ffff"}), StoreError);
}

TEST_F(ReportLoaderTest, RaceDatasetHasCyclesPerRacedFactor) {
  auto s = Store::open(path_, false);
  auto data = load_race_dataset(s, s.program("make", "./prog"));
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0].cycles.size(), 2u);
  EXPECT_EQ(data[0].group_of.at(1), 0);
}

// A race with --controls: the dataset, the report and both exports carry each run's control,
// each control loop over its median in the loop's race runs; the runs that timed none (the
// fixture's) are left out of the dataset, as the race's resume leaves them.
TEST_F(ReportLoaderTest, ARaceWithControlsCarriesEachRunsControl) {
  auto s = Store::open(path_, false);
  auto p = s.program("make", "./prog");
  const std::string loop = "00000000000000aa", control = "00000000000000bb";
  auto session =
      s.begin_session("looprace race --controls " + control, {{"cpu_model", "Test CPU"}});
  const std::map<int, std::vector<std::uint64_t>> controls = {{0, {100, 300}}, {2, {200, 200}}};
  for (int round : {3, 4}) {
    for (const auto& [group, values] : controls) {
      RunRow r;
      r.target_loop = loop;
      r.observed = loop;
      r.group = group;
      r.round = round;
      r.observations = {
          {loop, static_cast<std::uint64_t>(1000 * (group + 1) + round), 1, 0, 0, std::nullopt, 0},
          {control, values[static_cast<std::size_t>(round - 3)], 1, 0, 0, std::nullopt, 0}};
      s.add_run(p, session, r);
    }
  }
  plans::LoopDecision d = s.decisions(p).at(0);
  d.plan = plans::plan_on_observations("race(cap=2)", stats::ObservationKind::kRaw, "", {control});
  d.decided_at = "9999-01-01T00:00:00Z";
  s.put_decision(p, d);

  const LoopDataset data = load_race_dataset(s, p).at(0);
  EXPECT_EQ(data.control_loops, std::vector<std::string>{control});
  EXPECT_EQ(data.cycles.at(0), (std::vector<double>{1003, 1004}));
  EXPECT_EQ(data.controls.at(0), (std::vector<double>{0.5, 1.5}));  // median 200
  EXPECT_EQ(data.controls.at(2), (std::vector<double>{1.0, 1.0}));

  const report::Report shown = load_report(s);
  EXPECT_EQ(shown.loops[0].factors[0].controls, data.controls.at(0));
  const auto& runs = shown.loops[0].race_runs;
  EXPECT_EQ(std::count_if(runs.begin(), runs.end(), [](const auto& r) { return r.control; }), 4);
  std::istringstream csv(report::export_observations_csv(shown));
  const plans::Dataset replayed = plans::read_dataset_csv(csv, "export");
  ASSERT_EQ(replayed.size(), 1u);
  EXPECT_EQ(replayed[0].controls, (std::vector<std::vector<double>>{{0.5, 1.5}, {1.0, 1.0}}));
  EXPECT_NE(report::export_runs_csv(shown).find(",1003,,1,0,0.5\n"), std::string::npos);
}

}  // namespace
}  // namespace looprace::store
