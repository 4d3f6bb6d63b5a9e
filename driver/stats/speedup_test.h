// The Speedup-Test protocol (the Speedup-Test) on two samples of execution times, and its set-level
// summary for many pairs. Pure functions: other rooms call them with plain vectors.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stats/inference.h"
#include "stats/shapiro_wilk.h"

namespace looprace::stats {

enum class Verdict {
  faster,           // the candidate's mean time is lower, significant at the confidence
  slower,           // the candidate's mean time is higher, significant at the confidence
  no_difference,    // the Welch test cannot tell the means apart
  needs_more_runs,  // n < 30 and a sample fails Shapiro–Wilk (or n < 3): the t-test is not trusted
};

const char* verdict_name(
    Verdict verdict);  // "faster", "slower", "no-difference", "needs-more-runs"

// The test behind the printed speedup interval. welch_log: Welch's test on log times, the ratio
// of geometric means (the Speedup-Test's samples need not be paired). paired_trimmed: the
// samples are interleaved pairs (A_i, B_i run back to back); the 20 % trimmed mean of the
// pairs' log ratios with the winsorized standard error (Tukey and McLaughlin's one-sample
// trimmed t-test). A run another process preempted or interrupted lands in the tails and is
// trimmed, and the pairing cancels load that changes between pairs.
enum class RatioTest { welch_log, paired_trimmed };

// Each test by its name on the command line and in stores: "welch", "paired-trimmed".
const std::map<std::string, RatioTest>& ratio_test_names();
const char* ratio_test_name(RatioTest test);
// The test of that name; std::nullopt for any other text.
std::optional<RatioTest> parse_ratio_test(const std::string& name);

// The share of each tail the paired trimmed test cuts.
inline constexpr double kPairTrim = 0.2;

// A confidence level as a percentage with the decimals it needs ("95", "98.75", "99.17"): a
// level shared among looks is not rounded to a level it is not.
std::string percent_text(double confidence);

// Below this many observations the protocol checks normality before trusting the t-test.
inline constexpr std::size_t kLargeSample = 30;

struct SpeedupTestResult {
  double confidence = 0.95;
  std::size_t baseline_n = 0, candidate_n = 0;
  double baseline_mean = 0.0, candidate_mean = 0.0;
  double baseline_median = 0.0, candidate_median = 0.0;
  // median(baseline) / median(candidate): > 1 means the candidate is faster (the paper's speedup).
  double median_speedup = 1.0;
  // mean(baseline) / mean(candidate): the speedup the Welch verdict is about.
  double mean_speedup = 1.0;
  // Two-sided Welch interval at `confidence` of mean(baseline) - mean(candidate) (time units).
  Interval difference;
  // Ratio of geometric means baseline / candidate.
  double geometric_speedup = 1.0;
  // The test of the ratio: `ratio_speedup`, `speedup_interval` and `ratio_verdict` are its.
  RatioTest ratio_test = RatioTest::welch_log;
  // The estimate `speedup_interval` is centred on, so the two are shown together (the
  // profile's `speedup=` and `ci=` evidence): the ratio of geometric means (welch_log), or
  // exp of the trimmed mean of log(baseline_i / candidate_i) (paired_trimmed).
  double ratio_speedup = 1.0;
  // Two-sided interval at `confidence` of that ratio.
  Interval speedup_interval;
  // The code layouts the paired_trimmed interval rests on (0: the pairs themselves, as if
  // each were of its own layout).
  std::size_t layouts = 0;
  double welch_df = 0.0;
  double p_faster = 1.0;  // one-sided p-value of "candidate mean < baseline mean"
  double p_slower = 1.0;  // one-sided p-value of "candidate mean > baseline mean"
  // One-sided bound at `confidence` on the mean time the verdict's direction saves (faster) or
  // loses (slower); 0 for the other verdicts. Consistent with the one-sided verdict, unlike the
  // two-sided `difference`.
  double bound = 0.0;
  // Shapiro–Wilk of each sample, computed when that sample has 3 <= n < 30 and is not constant.
  std::optional<ShapiroWilk> baseline_normality, candidate_normality;
  Verdict verdict = Verdict::no_difference;
  std::string explanation;  // the verdict in plain words, one sentence
  // The verdict of the ratio: faster when `speedup_interval` lies above 1,
  // slower when below, no difference when it holds 1 (needs-more-runs as `verdict`). What the
  // race's decisions and every display that prints `speedup_interval` show, so that the
  // verdict and the interval beside it never disagree; `verdict` (Welch on mean times) is the
  // protocol's, which one preempted run can turn.
  Verdict ratio_verdict = Verdict::no_difference;
  std::string ratio_explanation;
};

// What a result's speedup estimate is, for displays: "geometric mean", "trimmed mean of pair
// ratios", "mean over 8 layouts of trimmed pair ratios".
std::string ratio_estimate_label(const SpeedupTestResult& result);

// Runs the protocol: normality check when n < 30 (Shapiro–Wilk at level 1 - confidence), Welch
// test at `confidence` (0 < confidence < 1), interval of the difference, median speedup; and
// the ratio's interval by `ratio_test`. Observations must be finite and > 0, at least 2 per
// sample (paired_trimmed: as many of each, and 2 pairs kept after trimming); throws
// std::invalid_argument naming the sample and position otherwise.
//
// `layouts`, for paired_trimmed, names each pair's code layout (one per pair, or empty). A
// layout moves both of its pair's runs the same way but each layout differently, so pairs of
// one layout are not independent: with two layouts or more, the ratio is the mean over
// layouts of each layout's trimmed mean of its pairs' log ratios, and its interval a t
// interval on those layout means (layouts - 1 df). A gain a few layouts happen to favour then
// shows as the spread it is.
SpeedupTestResult speedup_test(const std::vector<double>& baseline,
                               const std::vector<double>& candidate, double confidence = 0.95,
                               RatioTest ratio_test = RatioTest::welch_log,
                               const std::vector<int>& layouts = {});

struct SetSummary {
  std::size_t cases = 0;
  std::size_t improved = 0;      // verdict == faster
  double proportion = 0.0;       // improved / cases
  Interval proportion_interval;  // R's prop.test interval at `confidence`
  // Weighted overall gain of the Speedup-Test section 3, weights = baseline medians:
  // sum w_k (M1_k - M2_k) / sum w_k M1_k over all cases (M = medians). Positive = time saved.
  double overall_gain = 0.0;
  double confidence = 0.95;
};

SetSummary summarize_set(const std::vector<SpeedupTestResult>& results, double confidence = 0.95);

double median(std::vector<double> values);  // of a non-empty vector

}  // namespace looprace::stats
