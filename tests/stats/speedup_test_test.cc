// The Speedup-Test protocol on its paper's examples; reference values from R via reference.R.
#include "stats/speedup_test.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace looprace::stats {
namespace {

const std::vector<double> kT1 = {2.799, 2.046, 1.259, 1.877, 2.244};
const std::vector<double> kT2 = {1.046, 0.259, 0.877, 1.244, 1.799};

TEST(SpeedupTest, PaperExampleIsFasterAt95ButNotAt99) {
  const SpeedupTestResult at95 = speedup_test(kT1, kT2, 0.95);
  EXPECT_EQ(at95.verdict, Verdict::faster);
  ASSERT_TRUE(at95.baseline_normality);
  EXPECT_NEAR(at95.baseline_normality->w, 0.986190408160782, 1e-9);
  EXPECT_NEAR(at95.p_faster, 0.0111820592279741, 1e-10);
  EXPECT_NEAR(at95.difference.lower, 0.183356057013855, 1e-10);  // two-sided 95% (R)
  EXPECT_NEAR(at95.difference.upper, 1.81664394298614, 1e-10);
  EXPECT_NEAR(at95.median_speedup, 2.046 / 1.046, 1e-12);
  // The estimate the speedup interval is centred on (in log space), inside it.
  double log_ratio = 0;
  for (std::size_t i = 0; i < kT1.size(); ++i) log_ratio += std::log(kT1[i]) - std::log(kT2[i]);
  EXPECT_NEAR(at95.geometric_speedup, std::exp(log_ratio / kT1.size()), 1e-12);
  EXPECT_NEAR(std::log(at95.geometric_speedup),
              (std::log(at95.speedup_interval.lower) + std::log(at95.speedup_interval.upper)) / 2,
              1e-12);
  EXPECT_NEAR(at95.baseline_median, 2.046, 1e-12);
  EXPECT_NE(at95.explanation.find("faster at 95% confidence"), std::string::npos);
  // The verdict's own one-sided bound (R: t.test(T1, T2, alternative = "greater")$conf.int[1]),
  // and the mean speedup it is about, so the words never contradict the test.
  EXPECT_NEAR(at95.bound, 0.341463175040261, 1e-10);
  EXPECT_NEAR(at95.mean_speedup, (10.225 / 5) / (5.225 / 5), 1e-12);
  EXPECT_EQ(speedup_test(kT1, kT2, 0.99).verdict, Verdict::no_difference);
  const SpeedupTestResult reversed = speedup_test(kT2, kT1, 0.95);
  EXPECT_EQ(reversed.verdict, Verdict::slower);
  EXPECT_NEAR(reversed.bound, 0.341463175040261, 1e-10);  // time lost, at least
  EXPECT_LT(reversed.mean_speedup, 1.0);
}

// A level shared among looks is printed as it is, not rounded to the next whole percent.
TEST(SpeedupTest, ConfidenceIsPrintedWithTheDecimalsItNeeds) {
  EXPECT_EQ(percent_text(0.95), "95");
  EXPECT_EQ(percent_text(1 - 0.05 / 4), "98.75");
  EXPECT_EQ(percent_text(1 - 0.05 / 6), "99.17");
  EXPECT_EQ(percent_text(0.999), "99.9");
  const SpeedupTestResult r =
      speedup_test({10, 11, 10.5, 10.2, 10.8}, {9, 9.5, 9.2, 9.1, 9.4}, 1 - 0.05 / 4);
  EXPECT_NE(r.ratio_explanation.find("98.75% confidence"), std::string::npos)
      << r.ratio_explanation;
}

TEST(SpeedupTest, SpeedupIntervalIsWelchOnLogs) {
  const SpeedupTestResult r = speedup_test(kT1, kT2, 0.95);
  RunningStats a, b;
  for (double x : kT1) a.add(std::log(x));
  for (double x : kT2) b.add(std::log(x));
  const TTest logs = welch_t_test(a, b, Alternative::two_sided, 0.95);
  EXPECT_NEAR(r.speedup_interval.lower, std::exp(logs.interval.lower), 1e-12);
  EXPECT_NEAR(r.speedup_interval.upper, std::exp(logs.interval.upper), 1e-12);
}

TEST(SpeedupTest, SmallNonNormalSampleNeedsMoreRuns) {
  const std::vector<double> tailed = {1.5,  1.1,  0.9, 1.0,  1.2,  5.8,  1.05, 0.95, 1.3,  1.15,
                                      0.99, 1.02, 7.5, 1.01, 1.08, 1.12, 0.97, 1.04, 1.09, 1.11};
  const SpeedupTestResult r = speedup_test(tailed, kT2, 0.95);
  EXPECT_EQ(r.verdict, Verdict::needs_more_runs);
  EXPECT_NE(r.explanation.find("the baseline"), std::string::npos);
}

TEST(SpeedupTest, LargeSamplesSkipTheNormalityCheck) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> slow(std::log(110.0), 0.3), fast(std::log(100.0), 0.3);
  std::vector<double> a, b;
  for (int i = 0; i < 400; ++i) {
    a.push_back(slow(rng));
    b.push_back(fast(rng));
  }
  const SpeedupTestResult r = speedup_test(a, b, 0.95);
  EXPECT_FALSE(r.baseline_normality);
  EXPECT_EQ(r.verdict, Verdict::faster);
  EXPECT_GT(r.median_speedup, 1.0);
}

TEST(SpeedupTest, IdenticalObservationsGiveNoDifferenceWithoutNaN) {
  const SpeedupTestResult r = speedup_test({5, 5, 5}, {5, 5, 5}, 0.95);
  EXPECT_EQ(r.verdict, Verdict::no_difference);
  EXPECT_EQ(r.median_speedup, 1.0);
  EXPECT_FALSE(std::isnan(r.difference.lower));
  const SpeedupTestResult two = speedup_test({5, 6}, {4, 4.5}, 0.95);
  EXPECT_EQ(two.verdict, Verdict::needs_more_runs);  // n = 2 cannot be checked for normality
}

TEST(SpeedupTest, RejectsNonPositiveNaNAndTooFew) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(speedup_test({1, 2, nan}, kT2), std::invalid_argument);
  EXPECT_THROW(speedup_test(kT1, {1, 0, 2}), std::invalid_argument);
  EXPECT_THROW(speedup_test(kT1, {1}), std::invalid_argument);
  EXPECT_THROW(speedup_test(kT1, kT2, 1.5), std::invalid_argument);
  try {
    speedup_test(kT1, {1, -2, 2});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("candidate observation 2"), std::string::npos);
  }
}

TEST(SetSummary, WeightedGainAndProportionFollowThePaper) {
  // the Speedup-Test example 3.1: P1 3 s -> 1 s, P2 3600 s -> 3428 s, weights = baseline medians.
  SpeedupTestResult p1, p2;
  p1.baseline_median = 3;
  p1.candidate_median = 1;
  p1.verdict = Verdict::faster;
  p2.baseline_median = 3600;
  p2.candidate_median = 3428;
  p2.verdict = Verdict::no_difference;
  const SetSummary s = summarize_set({p1, p2}, 0.95);
  EXPECT_NEAR(s.overall_gain, (3.0 * 2.0 + 3600.0 * 172.0) / (9.0 + 3600.0 * 3600.0), 1e-12);
  EXPECT_EQ(s.improved, 1u);
  EXPECT_EQ(s.cases, 2u);
  EXPECT_DOUBLE_EQ(s.proportion, 0.5);
  const Interval expected = proportion_interval(1, 2, 0.95);
  EXPECT_DOUBLE_EQ(s.proportion_interval.lower, expected.lower);
  EXPECT_THROW(summarize_set({}, 0.95), std::invalid_argument);
}

TEST(Median, EvenAndOdd) {
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_THROW(median({}), std::invalid_argument);
}

}  // namespace
}  // namespace looprace::stats

namespace looprace::stats {
namespace {

// The verdict shown beside the speedup interval is the interval's own: on heavy-tailed samples
// the protocol's verdict on mean times can say "faster" while that interval holds 1.
TEST(SpeedupTest, TheRatioVerdictAgreesWithThePrintedInterval) {
  std::mt19937_64 random(20261124);
  std::lognormal_distribution<double> body(0.0, 0.05);
  std::exponential_distribution<double> tail(1.0);
  int disagreements_of_the_mean_verdict = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<double> base, cand;
    const double shift = 1.0 + 0.02 * double(trial % 5);
    for (int i = 0; i < 30; ++i) {
      base.push_back(shift * body(random) * (random() % 10 == 0 ? 1.0 + 3 * tail(random) : 1.0));
      cand.push_back(body(random) * (random() % 10 == 0 ? 1.0 + 3 * tail(random) : 1.0));
    }
    SpeedupTestResult r = speedup_test(base, cand, 0.95);
    const Interval& ci = r.speedup_interval;
    EXPECT_EQ(r.ratio_verdict == Verdict::faster, ci.lower > 1.0);
    EXPECT_EQ(r.ratio_verdict == Verdict::slower, ci.upper < 1.0);
    if ((r.verdict == Verdict::faster) != (ci.lower > 1.0)) ++disagreements_of_the_mean_verdict;
  }
  // The case this guards against does occur on such samples.
  EXPECT_GT(disagreements_of_the_mean_verdict, 0);
}

// Two runs of each pair disturbed (30.5 and 25.0 against about 10; 22.0 against about 10):
// Welch's test on log times cannot tell the versions apart, the pairs' trimmed ratios can
// (reference values from R, reference.R "paired trimmed").
const std::vector<double> kP1 = {10.0, 11.2, 10.4, 30.5, 10.1, 10.6,
                                 10.3, 10.9, 10.2, 25.0, 10.7, 10.5};
const std::vector<double> kP2 = {9.6, 10.5, 10.0, 9.9, 9.7, 10.1, 22.0, 10.4, 9.8, 10.0, 10.2, 9.9};

TEST(SpeedupTest, PairedTrimmedRatioMatchesR) {
  const SpeedupTestResult r = speedup_test(kP1, kP2, 0.95, RatioTest::paired_trimmed);
  EXPECT_EQ(r.ratio_test, RatioTest::paired_trimmed);
  EXPECT_NEAR(r.ratio_speedup, 1.04966223741888, 1e-12);
  EXPECT_NEAR(r.speedup_interval.lower, 1.0382162669204, 1e-12);
  EXPECT_NEAR(r.speedup_interval.upper, 1.06123439573084, 1e-12);
  // Under 30 runs the protocol asks for normal samples, and these are not.
  EXPECT_EQ(r.ratio_verdict, Verdict::needs_more_runs);
  const SpeedupTestResult shared = speedup_test(kP1, kP2, 0.9875, RatioTest::paired_trimmed);
  EXPECT_NEAR(shared.speedup_interval.lower, 1.03355394371465, 1e-12);
  EXPECT_NEAR(shared.speedup_interval.upper, 1.06602158442094, 1e-12);
  // The same runs by Welch on log times: the three disturbed runs hide the gain.
  const SpeedupTestResult welch = speedup_test(kP1, kP2, 0.95);
  EXPECT_NEAR(welch.speedup_interval.lower, 0.880808602035766, 1e-12);
  EXPECT_NEAR(welch.speedup_interval.upper, 1.50959334717402, 1e-12);
  EXPECT_DOUBLE_EQ(welch.ratio_speedup, welch.geometric_speedup);
}

// The same pairs three times over (36, so the protocol needs no normality): the verdict
// printed beside each interval is that interval's.
TEST(SpeedupTest, PairedTrimmedVerdictIsItsIntervals) {
  std::vector<double> a, b;
  for (int i = 0; i < 3; ++i) {
    a.insert(a.end(), kP1.begin(), kP1.end());
    b.insert(b.end(), kP2.begin(), kP2.end());
  }
  const SpeedupTestResult trimmed = speedup_test(a, b, 0.95, RatioTest::paired_trimmed);
  EXPECT_GT(trimmed.speedup_interval.lower, 1.0);
  EXPECT_EQ(trimmed.ratio_verdict, Verdict::faster);
  EXPECT_NE(trimmed.ratio_explanation.find("trimmed t-test on paired log ratios"),
            std::string::npos)
      << trimmed.ratio_explanation;
  const SpeedupTestResult welch = speedup_test(a, b, 0.95);
  EXPECT_LT(welch.speedup_interval.lower, 1.0);
  EXPECT_EQ(welch.ratio_verdict, Verdict::no_difference);
  // The protocol's own verdict (Welch on mean times) is the same under both ratio tests.
  EXPECT_EQ(trimmed.verdict, welch.verdict);
}

// The paired trimmed test of q1 against q2, pair i on layout i % layouts + 1.
SpeedupTestResult over_layouts(const std::vector<double>& q1, const std::vector<double>& q2,
                               int layouts) {
  std::vector<int> of_pair;
  for (std::size_t i = 0; i < q1.size(); ++i) of_pair.push_back(static_cast<int>(i) % layouts + 1);
  return speedup_test(q1, q2, 0.95, RatioTest::paired_trimmed, of_pair);
}

void expect_speedup(const SpeedupTestResult& r, double speedup, double lower, double upper) {
  EXPECT_NEAR(r.ratio_speedup, speedup, 1e-12);
  EXPECT_NEAR(r.speedup_interval.lower, lower, 1e-12);
  EXPECT_NEAR(r.speedup_interval.upper, upper, 1e-12);
}

// 40 pairs on 10 layouts of 4, two of them disturbed (30 and 24 against about 10): 20 % of 4
// pairs trims none, so each layout counts its median, and the layouts' 20 % trimmed mean
// (Yuen's, reference.R "layouts yuen") gives an interval a tenth as wide as a t interval over
// the layouts' means (1.001 to 1.164, centred 4.6 % higher).
TEST(SpeedupTest, PairedTrimmedOverManyLayoutsTrimsTheLayoutsMatchesR) {
  const std::vector<double> q1 = {10.108, 10.244, 10.358, 10.07,  30,     10.311, 10.322, 10.537,
                                  10.056, 10.569, 10.152, 10.074, 10.158, 10.357, 10.336, 10.241,
                                  24,     10.172, 10.56,  10.346, 10.186, 10.112, 10.263, 9.967,
                                  10.205, 10.153, 10.547, 10.515, 10.29,  10.073, 10.492, 10.482,
                                  10.456, 10.457, 10.232, 10.451, 10.576, 10.312, 10.105, 10.469};
  const std::vector<double> q2 = {10.159, 9.938,  10.346, 9.842,  10.07,  9.557,  9.968,  10.229,
                                  9.909,  9.822,  10.146, 9.839,  10.054, 9.659,  9.722,  9.91,
                                  9.795,  10.276, 10.185, 9.844,  10.115, 10.185, 10.051, 10.071,
                                  10.238, 9.904,  9.917,  10.193, 9.745,  10.037, 9.994,  10.094,
                                  10.207, 10.054, 10.046, 10.151, 10.246, 10.077, 9.804,  9.969};
  const SpeedupTestResult r = over_layouts(q1, q2, 10);
  EXPECT_EQ(r.layouts, 10u);
  expect_speedup(r, 1.03189957853366, 1.02345940227841, 1.04040935850261);
}

// Pairs of three code layouts: the interval is over the layouts' trimmed means, with 2 df
// (reference.R "layout trimmed"), far wider than over the 15 pairs as if independent.
TEST(SpeedupTest, PairedTrimmedOverLayoutsMatchesR) {
  const std::vector<double> q1 = {10.0, 10.9, 10.2, 10.1, 11.0, 10.3, 30.0, 10.8,
                                  10.2, 10.0, 11.1, 10.4, 10.1, 10.9, 25.0};
  const std::vector<double> q2 = {9.7, 10.1, 10.0, 9.8,  10.2, 10.1, 9.8, 10.0,
                                  9.9, 9.6,  10.3, 10.2, 9.9,  10.1, 10.0};
  const SpeedupTestResult r = over_layouts(q1, q2, 3);
  EXPECT_EQ(r.layouts, 3u);
  expect_speedup(r, 1.04529131885266, 0.975141584101099, 1.12048748518497);
  const SpeedupTestResult pooled = speedup_test(q1, q2, 0.95, RatioTest::paired_trimmed);
  EXPECT_EQ(pooled.layouts, 0u);
  EXPECT_EQ(ratio_estimate_label(r), "trimmed mean over 3 layouts of trimmed pair ratios");
  EXPECT_EQ(ratio_estimate_label(pooled), "trimmed mean of pair ratios");
  EXPECT_GT(pooled.speedup_interval.lower, r.speedup_interval.lower);
  // One layout for every pair is no clustering at all.
  const SpeedupTestResult one =
      speedup_test(q1, q2, 0.95, RatioTest::paired_trimmed, std::vector<int>(15, 7));
  EXPECT_EQ(one.layouts, 0u);
  EXPECT_DOUBLE_EQ(one.speedup_interval.lower, pooled.speedup_interval.lower);
  EXPECT_THROW(speedup_test(q1, q2, 0.95, RatioTest::paired_trimmed, {1, 2}),
               std::invalid_argument);
}

TEST(SpeedupTest, PairedTrimmedNeedsPairs) {
  EXPECT_THROW(speedup_test({1, 2, 3, 4}, {1, 2, 3}, 0.95, RatioTest::paired_trimmed),
               std::invalid_argument);
  EXPECT_EQ(parse_ratio_test("paired-trimmed"), RatioTest::paired_trimmed);
  EXPECT_EQ(parse_ratio_test("welch"), RatioTest::welch_log);
  EXPECT_FALSE(parse_ratio_test("trimmed"));
  EXPECT_STREQ(ratio_test_name(RatioTest::paired_trimmed), "paired-trimmed");
}

}  // namespace
}  // namespace looprace::stats
