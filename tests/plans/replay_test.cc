// Replay on small recorded datasets: CSV parsing, failure rates, determinism across threads,
// per-loop results with known answers.
#include "plans/replay.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "plans/factory.h"
#include "plans/fixed.h"
#include "plans/race.h"

namespace looprace::plans {
namespace {

std::string csv_of(const Dataset& data) {
  std::string out = "loop,version,cycles\n";
  for (const auto& loop : data)
    for (std::size_t v = 0; v < loop.versions.size(); ++v)
      for (double x : loop.cycles[v])
        out += loop.loop + "," + loop.versions[v] + "," + std::to_string(x) + "\n";
  return out;
}

// What reading `text` as the CSV `source` throws; empty when it reads.
std::string read_error(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  try {
    read_dataset_csv(in, source);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(DatasetCsv, ReadsLoopsAndSortsNumericVersions) {
  std::istringstream in(
      "loop,version,cycles\nL1,10,5\nL1,2,6\nL1,10,7\nL1,2,8\nL0,a,1\nL0,a,2\nL0,b,3\nL0,b,4\n");
  const Dataset data = read_dataset_csv(in, "x.csv");
  ASSERT_EQ(data.size(), 2u);
  EXPECT_EQ(data[0].loop, "L1");
  EXPECT_EQ(data[0].versions, (std::vector<std::string>{"2", "10"}));
  EXPECT_EQ(data[0].cycles[1], (std::vector<double>{5, 7}));
  EXPECT_EQ(data[1].versions, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(data[1].rounds(), 2u);
}

TEST(DatasetCsv, ErrorsNameTheSourceAndLine) {
  const auto message = [](const std::string& text) { return read_error(text, "d.csv"); };
  EXPECT_NE(message("a,b,c\n").find("d.csv:1: expected the header"), std::string::npos);
  EXPECT_NE(message("loop,version,cycles\nL,1,2\nL,1,-3\n")
                .find("d.csv:3: cycles must be finite and > 0"),
            std::string::npos);
  EXPECT_NE(message("loop,version,cycles\nL,1,nan\n").find("d.csv:2:"), std::string::npos);
  EXPECT_NE(message("loop,version,cycles\nL,1\n").find("d.csv:2: expected 3 fields"),
            std::string::npos);
  EXPECT_NE(
      message("loop,version,cycles\nL,1,5\nL,1,6\nL,2,5\n").find("version 2 has 1 observation"),
      std::string::npos);
}

TEST(DatasetCsv, ReadsControlsBesideTheCycles) {
  std::istringstream in(
      "loop,version,cycles,control\nL,0,100,1.0\nL,0,110,1.1\nL,1,104,1\n"
      "L,1,104,1\n");
  const Dataset data = read_dataset_csv(in, "c.csv");
  ASSERT_EQ(data.size(), 1u);
  EXPECT_EQ(data[0].cycles[0], (std::vector<double>{100, 110}));
  EXPECT_EQ(data[0].controls[0], (std::vector<double>{1.0, 1.1}));
  EXPECT_EQ(data[0].controls[1], (std::vector<double>{1, 1}));
  const auto message = [](const std::string& text) { return read_error(text, "c.csv"); };
  EXPECT_EQ(message("loop,version,cycles,control\nL,0,100,0\n"),
            "c.csv:2: control must be finite and > 0, got 0");
  EXPECT_EQ(message("loop,version,cycles,control\nL,0,100\n"),
            "c.csv:2: expected 4 fields: loop,version,cycles,control");
}

// The truth of a replay with controls is each version's mean adjusted by them: version 0's
// slow run was the machine's (its control says so), so version 0 is the faster, and a plan
// that takes every observation chooses it and does not fail.
TEST(ReplayPerLoop, WithControlsVersionsAreJudgedByTheirAdjustedMeans) {
  std::istringstream in(
      "loop,version,cycles,control\nL,0,100,1.0\nL,0,110,1.1\nL,1,104,1\n"
      "L,1,104,1\n");
  const Dataset data = read_dataset_csv(in, "c.csv");
  ConstantPlan all(2);
  const LoopReplay r = replay_per_loop({&all}, data, {4, 1, 0.005, 1})[0][0];
  EXPECT_TRUE(r.per_version[0].acceptable);
  EXPECT_FALSE(r.per_version[1].acceptable);
  EXPECT_NEAR(r.per_version[0].true_mean, 100.0 * std::pow(1.1, 0.25), 1e-9);
  EXPECT_EQ(r.failure_rate, 0.0);
}

Dataset two_loops() {
  Dataset data(2);
  data[0].loop = "easy";
  data[0].versions = {"0", "1", "2"};
  data[1].loop = "near-tie";
  data[1].versions = {"0", "1"};
  for (int i = 0; i < 200; ++i) {
    const double wobble = 1.0 + 0.02 * ((i * 37) % 11 - 5) / 5.0;
    data[0].cycles.resize(3);
    data[0].cycles[0].push_back(1000.0 * wobble);
    data[0].cycles[1].push_back(800.0 * wobble);
    data[0].cycles[2].push_back(1200.0 * wobble);
    data[1].cycles.resize(2);
    data[1].cycles[0].push_back(1000.0 * wobble);
    data[1].cycles[1].push_back(1001.0 * (2.0 - wobble));  // 0.1% slower: both acceptable
  }
  return data;
}

TEST(Replay, EasyLoopsNeverFailAndCountSamples) {
  const Dataset data = two_loops();
  ConstantPlan constant(5);
  const std::vector<const Plan*> plans = {&constant};
  const auto outcomes = replay(plans, data, {50, 1, 0.005, 2});
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes[0].failure_rate, 0.0);
  EXPECT_DOUBLE_EQ(outcomes[0].mean_samples, 5.0);
  EXPECT_DOUBLE_EQ(outcomes[0].mean_winners, 1.0);
}

TEST(Replay, FailureIsChoosingAVersionMoreThanThetaSlower) {
  // Version 1 is 0.7% slower than version 0 on average; with 1 observation the plan picks it in
  // the rounds where it happens to be faster (half of them).
  Dataset data(1);
  data[0].loop = "coin";
  data[0].versions = {"0", "1"};
  data[0].cycles = {{100, 102, 100, 102}, {101, 101, 104, 101}};
  ConstantPlan one(1), all(4);
  const std::vector<const Plan*> plans = {&one, &all};
  const auto outcomes = replay(plans, data, {400, 3, 0.005, 1});
  EXPECT_GT(outcomes[0].failure_rate, 0.4);
  EXPECT_LT(outcomes[0].failure_rate, 0.6);
  EXPECT_EQ(outcomes[1].failure_rate, 0.0);
}

TEST(Replay, SameSeedSameResultWhateverTheThreads) {
  const Dataset data = two_loops();
  RacePlan race({0.05, 0.05, 0.005, 100});
  BlockedRacePlan blocked({0.05, 0.05, 0.005, 100});
  JavaStatsPlan java({0.05, 0.01, 2, 100});
  const std::vector<const Plan*> plans = {&race, &blocked, &java};
  const auto one = replay(plans, data, {30, 7, 0.005, 1});
  const auto two = replay(plans, data, {30, 7, 0.005, 2});
  for (std::size_t p = 0; p < plans.size(); ++p) {
    EXPECT_EQ(one[p].failure_rate, two[p].failure_rate);
    EXPECT_EQ(one[p].mean_samples, two[p].mean_samples);
    EXPECT_EQ(one[p].cap_rate, two[p].cap_rate);
  }
  const auto other_seed = replay(plans, data, {30, 8, 0.005, 2});
  EXPECT_NE(one[0].mean_samples, other_seed[0].mean_samples);
}

TEST(Replay, PlanAskingForMoreRoundsThanRecordedIsAnError) {
  const Dataset data = two_loops();
  ConstantPlan too_many(201);
  const std::vector<const Plan*> plans = {&too_many};
  EXPECT_THROW(replay(plans, data, {1, 1, 0.005, 2}), std::runtime_error);
}

TEST(Replay, CsvRoundTrip) {
  const Dataset data = two_loops();
  std::istringstream in(csv_of(data));
  const Dataset back = read_dataset_csv(in, "mem");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].cycles[1].size(), 200u);
  EXPECT_NEAR(back[0].cycles[2][3], data[0].cycles[2][3], 1e-3);
}

// Version 0 is {1,2,3,4} (mean 2.5, sd sqrt(5/3)), version 1 always 10: far slower.
Dataset known_loop() {
  Dataset data(1);
  data[0].loop = "L";
  data[0].versions = {"0", "1"};
  data[0].cycles = {{1, 2, 3, 4}, {10, 10, 10, 10}};
  return data;
}

TEST(ReplayPerLoop, KnownAnswersOfAPlanTakingAllData) {
  ConstantPlan all(4);
  const auto results = replay_per_loop({&all}, known_loop(), {10, 1, 0.005, 2});
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].size(), 1u);
  const LoopReplay& r = results[0][0];
  EXPECT_EQ(r.loop, "L");
  EXPECT_EQ(r.repetitions, 10u);
  EXPECT_EQ(r.failure_rate, 0.0);
  EXPECT_EQ(r.cap_rate, 0.0);
  EXPECT_DOUBLE_EQ(r.mean_samples, 4.0);
  EXPECT_DOUBLE_EQ(r.mean_winners, 1.0);
  const VersionReplay& fast = r.per_version[0];
  EXPECT_EQ(fast.recorded, 4u);
  EXPECT_DOUBLE_EQ(fast.true_mean, 2.5);
  EXPECT_NEAR(fast.true_sd, std::sqrt(5.0 / 3.0), 1e-12);
  EXPECT_NEAR(fast.true_geometric_mean, std::pow(24.0, 0.25), 1e-12);
  EXPECT_TRUE(fast.acceptable);
  EXPECT_DOUBLE_EQ(fast.samples_mean, 4.0);
  EXPECT_EQ(fast.samples_sd, 0.0);
  // The same 4 values pooled over 10 repetitions: squared deviations 10 * 5 over 39.
  EXPECT_DOUBLE_EQ(fast.sampled_mean, 2.5);
  EXPECT_NEAR(fast.sampled_sd, std::sqrt(50.0 / 39.0), 1e-12);
  EXPECT_EQ(fast.chosen_count, 10u);
  EXPECT_EQ(fast.winner_count, 10u);
  const VersionReplay& slow = r.per_version[1];
  EXPECT_FALSE(slow.acceptable);
  EXPECT_DOUBLE_EQ(slow.true_mean, 10.0);
  EXPECT_EQ(slow.true_sd, 0.0);
  EXPECT_EQ(slow.chosen_count, 0u);
  EXPECT_EQ(slow.winner_count, 0u);
}

TEST(ReplayPerLoop, FailureByGeometricMeansWhenOneRunIsFarSlower) {
  // Version 0 is fastest but for one run 100 times slower: its arithmetic mean (25.75) loses
  // to version 1 (10), its geometric mean (100^(1/4) = 3.16) wins.
  Dataset data(1);
  data[0].loop = "tail";
  data[0].versions = {"0", "1"};
  data[0].cycles = {{1, 1, 1, 100}, {10, 10, 10, 10}};
  ConstantPlan all(4);  // compares arithmetic means: always chooses version 1
  const std::vector<const Plan*> plans = {&all};
  const LoopReplay r = replay_per_loop(plans, data, {5, 1, 0.005, 1})[0][0];
  EXPECT_NEAR(r.per_version[0].true_geometric_mean, std::sqrt(10.0), 1e-9);
  EXPECT_FALSE(r.per_version[0].acceptable);
  EXPECT_TRUE(r.per_version[0].acceptable_geometric);
  EXPECT_TRUE(r.per_version[1].acceptable);
  EXPECT_FALSE(r.per_version[1].acceptable_geometric);
  EXPECT_EQ(r.failure_rate, 0.0);
  EXPECT_EQ(r.failure_rate_geometric, 1.0);
  const auto summary = replay(plans, data, {5, 1, 0.005, 1});
  EXPECT_EQ(summary[0].failure_rate, 0.0);
  EXPECT_EQ(summary[0].failure_rate_geometric, 1.0);
}

// Two states of the host: in 10 fast rounds version 0 is 2 % faster; in 10 rounds twice as
// slow, 8 % slower. Over every round version 1 is best; over the rounds a limit of 1.1 keeps,
// version 0.
TEST(ReplayPerLoop, TheTruthCanBeTheRoundsNoStateSlowed) {
  Dataset data(1);
  data[0].loop = "states";
  data[0].versions = {"0", "1"};
  for (int k = 0; k < 20; ++k) {
    const bool slow = k % 2 == 1;
    data[0].cycles.resize(2);
    data[0].cycles[0].push_back(slow ? 2160.0 : 1000.0);
    data[0].cycles[1].push_back(slow ? 2000.0 : 1020.0);
  }
  ConstantPlan all(20);
  const std::vector<const Plan*> plans = {&all};
  ReplayOptions options{3, 1, 0.005, 1};
  const LoopReplay mixed = replay_per_loop(plans, data, options)[0][0];
  EXPECT_FALSE(mixed.per_version[0].acceptable);
  EXPECT_TRUE(mixed.per_version[1].acceptable);
  options.truth_round_limit = 1.1;
  const LoopReplay kept = replay_per_loop(plans, data, options)[0][0];
  EXPECT_DOUBLE_EQ(kept.per_version[0].true_mean, 1000.0);
  EXPECT_TRUE(kept.per_version[0].acceptable);
  EXPECT_FALSE(kept.per_version[1].acceptable);
  EXPECT_EQ(kept.failure_rate, 1.0);  // the plan over every round still picks version 1
}

TEST(ReplayPerLoop, OneObservationChoosesByTheFirstRoundDrawn) {
  // Rounds 1 and 3 make the slower version 1 (mean 101.75 vs 101: 0.74 %) look faster; the
  // first round drawn decides, so failures, choices and the pooled samples agree exactly.
  Dataset data(1);
  data[0].loop = "coin";
  data[0].versions = {"0", "1"};
  data[0].cycles = {{100, 102, 100, 102}, {101, 101, 104, 101}};
  ConstantPlan one(1);
  const LoopReplay r = replay_per_loop({&one}, data, {200, 5, 0.005, 1})[0][0];
  const VersionReplay &v0 = r.per_version[0], &v1 = r.per_version[1];
  EXPECT_TRUE(v0.acceptable);
  EXPECT_FALSE(v1.acceptable);
  EXPECT_EQ(v0.chosen_count + v1.chosen_count, 200u);
  EXPECT_GT(v1.chosen_count, 60u);
  EXPECT_LT(v1.chosen_count, 140u);
  EXPECT_DOUBLE_EQ(r.failure_rate, static_cast<double>(v1.chosen_count) / 200.0);
  // Version 0 drew 100 when it was chosen and 102 when version 1 was.
  EXPECT_NEAR(v0.sampled_mean, (100.0 * v0.chosen_count + 102.0 * v1.chosen_count) / 200.0, 1e-9);
  EXPECT_DOUBLE_EQ(v0.samples_mean, 1.0);
}

TEST(ReplayPerLoop, SummaryIsTheAverageOverLoopsAndThreadsDoNotMatter) {
  const Dataset data = two_loops();
  RacePlan race({0.05, 0.05, 0.005, 100});
  ConstantPlan constant(3);
  const std::vector<const Plan*> plans = {&race, &constant};
  const auto one = replay_per_loop(plans, data, {20, 11, 0.005, 1});
  const auto two = replay_per_loop(plans, data, {20, 11, 0.005, 2});
  const auto summary = replay(plans, data, {20, 11, 0.005, 2});
  for (std::size_t p = 0; p < plans.size(); ++p) {
    double samples = 0.0, winners = 0.0;
    for (std::size_t l = 0; l < data.size(); ++l) {
      samples += one[p][l].mean_samples;
      winners += one[p][l].mean_winners;
      for (std::size_t v = 0; v < data[l].versions.size(); ++v) {
        EXPECT_EQ(one[p][l].per_version[v].samples_mean, two[p][l].per_version[v].samples_mean);
        EXPECT_EQ(one[p][l].per_version[v].sampled_sd, two[p][l].per_version[v].sampled_sd);
        EXPECT_EQ(one[p][l].per_version[v].winner_count, two[p][l].per_version[v].winner_count);
      }
    }
    EXPECT_DOUBLE_EQ(summary[p].mean_samples, samples / 2.0);
    EXPECT_DOUBLE_EQ(summary[p].mean_winners, winners / 2.0);
  }
}

TEST(ReplayPerLoop, CsvHasOneRowPerVersionWithThePlanQuoted) {
  ConstantPlan all(4);
  const auto results = replay_per_loop({&all}, known_loop(), {10, 1, 0.005, 1});
  std::ostringstream out;
  write_per_loop_csv(out, all.describe(), results[0]);
  std::istringstream in(out.str());
  std::string header, fast, slow, end;
  std::getline(in, header);
  std::getline(in, fast);
  std::getline(in, slow);
  EXPECT_FALSE(std::getline(in, end));
  EXPECT_EQ(header, kPerLoopCsvHeader);
  const VersionReplay& v = results[0][0].per_version[0];
  EXPECT_EQ(fast, "\"constant(n=4)\",L,0,4,2.5," + fmt::format("{}", v.true_sd) + ",1," +
                      fmt::format("{}", v.true_geometric_mean) + ",1,4,0,2.5," +
                      fmt::format("{}", v.sampled_sd) + ",1,1,0,0,0,4,1,10");
  const VersionReplay& w = results[0][0].per_version[1];
  EXPECT_EQ(slow, "\"constant(n=4)\",L,1,4,10,0,0," + fmt::format("{}", w.true_geometric_mean) +
                      ",0,4,0,10,0,0,0,0,0,0,4,1,10");
}

}  // namespace
}  // namespace looprace::plans
