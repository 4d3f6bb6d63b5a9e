#include "stats/speedup_test.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace looprace::stats {

std::string percent_text(double confidence) {
  std::string text = fmt::format("{:.2f}", 100.0 * confidence);
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

namespace {

RunningStats summarize(const std::vector<double>& values, const char* name, bool logarithm) {
  RunningStats stats;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = values[i];
    if (!std::isfinite(x) || x <= 0.0)
      throw std::invalid_argument(
          fmt::format("{} observation {} is {}: times must be finite and > 0", name, i + 1, x));
    stats.add(logarithm ? std::log(x) : x);
  }
  if (stats.count() < 2)
    throw std::invalid_argument(
        fmt::format("{} needs at least 2 observations, got {}", name, stats.count()));
  return stats;
}

// Shapiro–Wilk when the protocol asks for it (3 <= n < 30) and the sample is not constant.
std::optional<ShapiroWilk> normality(const std::vector<double>& values) {
  if (values.size() < 3 || values.size() >= kLargeSample) return std::nullopt;
  if (std::all_of(values.begin(), values.end(), [&](double x) { return x == values.front(); }))
    return std::nullopt;
  return shapiro_wilk(values);
}

// A small sample is trusted when Shapiro–Wilk does not reject normality at 1 - confidence.
bool trusted(const std::vector<double>& values, const std::optional<ShapiroWilk>& test,
             double confidence) {
  if (values.size() >= kLargeSample) return true;
  if (values.size() < 3) return false;
  return !test || test->p_value >= 1.0 - confidence;
}

// The test and the estimate of the ratio, in the words of the verdict's sentence.
std::string ratio_method_words(const SpeedupTestResult& r) {
  std::string test = "Welch test on log times";
  if (r.ratio_test == RatioTest::paired_trimmed)
    test = r.layouts >= 2 ? fmt::format(
                                "Yuen's t-test over {} code layouts of their pairs' "
                                "trimmed log ratios",
                                r.layouts)
                          : "trimmed t-test on paired log ratios";
  return fmt::format("({}): speedup {:.3f}x ({})", test, r.ratio_speedup, ratio_estimate_label(r));
}

// The verdict of the printed interval of the ratio, in words.
void set_ratio_verdict(SpeedupTestResult& r, const std::string& percent) {
  const Interval& ci = r.speedup_interval;
  const std::string method = ratio_method_words(r);
  if (r.verdict == Verdict::needs_more_runs) {
    r.ratio_verdict = Verdict::needs_more_runs;
    r.ratio_explanation = r.explanation;
  } else if (ci.lower > 1.0 || ci.upper < 1.0) {
    r.ratio_verdict = ci.lower > 1.0 ? Verdict::faster : Verdict::slower;
    r.ratio_explanation = fmt::format(
        "The candidate is {} at {}% confidence {}, interval {:.3f} to {:.3f} (median speedup "
        "{:.3f}x).",
        ci.lower > 1.0 ? "faster" : "slower", percent, method, ci.lower, ci.upper,
        r.median_speedup);
  } else {
    r.ratio_verdict = Verdict::no_difference;
    r.ratio_explanation = fmt::format(
        "No significant difference at {}% confidence: the interval of the speedup {:.3f} to "
        "{:.3f} holds 1 (median speedup {:.3f}x).",
        percent, ci.lower, ci.upper, r.median_speedup);
  }
}

// One layout's location: its pairs' 20 % trimmed mean, and the median of up to 4 pairs, of
// which 20 % trims none: one disturbed pair must not move its layout far.
double layout_location(const std::vector<double>& sorted) {
  if (sorted.size() <= 4) return median(sorted);
  return trimmed_mean_estimate(sorted, kPairTrim).value;
}

// The location of the pairs' log ratios: their 20 % trimmed mean, or with two layouts or more
// the 20 % trimmed mean (Yuen's) of the layouts' locations, with the spread between layouts as
// its error. The layouts are trimmed too: with a few pairs each, a layout whose pairs other
// work disturbed lands in a tail.
LocationEstimate paired_location(std::vector<double> ratios, const std::vector<int>& layouts,
                                 std::size_t* layout_count) {
  std::map<int, std::vector<double>> by_layout;
  for (std::size_t i = 0; i < layouts.size(); ++i) by_layout[layouts[i]].push_back(ratios[i]);
  *layout_count = by_layout.size() >= 2 ? by_layout.size() : 0;
  if (*layout_count == 0) {
    std::sort(ratios.begin(), ratios.end());
    return trimmed_mean_estimate(ratios, kPairTrim);
  }
  std::vector<double> means;
  for (auto& [layout, values] : by_layout) {
    std::sort(values.begin(), values.end());
    means.push_back(layout_location(values));
  }
  std::sort(means.begin(), means.end());
  return trimmed_mean_estimate(means, kPairTrim);
}

// The ratio baseline / candidate and its interval by `r.ratio_test`.
void set_ratio(SpeedupTestResult& r, const std::vector<double>& baseline,
               const std::vector<double>& candidate, const std::vector<int>& layouts,
               const RunningStats& log_base, const RunningStats& log_cand) {
  LocationEstimate log_ratio;
  if (r.ratio_test == RatioTest::paired_trimmed) {
    if (baseline.size() != candidate.size())
      throw std::invalid_argument(fmt::format(
          "the paired trimmed test needs pairs: {} baseline and {} candidate observations",
          baseline.size(), candidate.size()));
    if (!layouts.empty() && layouts.size() != baseline.size())
      throw std::invalid_argument(
          fmt::format("{} layouts for {} pairs: one per pair", layouts.size(), baseline.size()));
    std::vector<double> ratios(baseline.size());
    for (std::size_t i = 0; i < ratios.size(); ++i)
      ratios[i] = std::log(baseline[i]) - std::log(candidate[i]);
    log_ratio = paired_location(std::move(ratios), layouts, &r.layouts);
  } else {
    log_ratio = difference(mean_estimate(log_base), mean_estimate(log_cand));
  }
  const Interval interval = location_interval(log_ratio, r.confidence);
  r.ratio_speedup = std::exp(log_ratio.value);
  r.speedup_interval = {std::exp(interval.lower), std::exp(interval.upper)};
}

}  // namespace

const std::map<std::string, RatioTest>& ratio_test_names() {
  static const std::map<std::string, RatioTest> names = {
      {"welch", RatioTest::welch_log}, {"paired-trimmed", RatioTest::paired_trimmed}};
  return names;
}

const char* ratio_test_name(RatioTest test) {
  for (const auto& [name, value] : ratio_test_names())
    if (value == test) return name.c_str();
  return "welch";
}

std::optional<RatioTest> parse_ratio_test(const std::string& name) {
  const auto found = ratio_test_names().find(name);
  if (found == ratio_test_names().end()) return std::nullopt;
  return found->second;
}

std::string ratio_estimate_label(const SpeedupTestResult& result) {
  if (result.ratio_test != RatioTest::paired_trimmed) return "geometric mean";
  if (result.layouts >= 2)
    return fmt::format("trimmed mean over {} layouts of trimmed pair ratios", result.layouts);
  return "trimmed mean of pair ratios";
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster:
      return "faster";
    case Verdict::slower:
      return "slower";
    case Verdict::no_difference:
      return "no-difference";
    case Verdict::needs_more_runs:
      return "needs-more-runs";
  }
  return "unknown";
}

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of an empty sample");
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower =
      *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

SpeedupTestResult speedup_test(const std::vector<double>& baseline,
                               const std::vector<double>& candidate, double confidence,
                               RatioTest ratio_test, const std::vector<int>& layouts) {
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("confidence must be strictly between 0 and 1");
  const RunningStats base = summarize(baseline, "baseline", false);
  const RunningStats cand = summarize(candidate, "candidate", false);
  const RunningStats log_base = summarize(baseline, "baseline", true);
  const RunningStats log_cand = summarize(candidate, "candidate", true);

  SpeedupTestResult r;
  r.confidence = confidence;
  r.baseline_n = baseline.size();
  r.candidate_n = candidate.size();
  r.baseline_mean = base.mean();
  r.candidate_mean = cand.mean();
  r.baseline_median = median(baseline);
  r.candidate_median = median(candidate);
  r.median_speedup = r.baseline_median / r.candidate_median;
  r.mean_speedup = r.baseline_mean / r.candidate_mean;

  const TTest two_sided = welch_t_test(base, cand, Alternative::two_sided, confidence);
  r.difference = two_sided.interval;
  r.welch_df = two_sided.df;
  const TTest faster = welch_t_test(base, cand, Alternative::greater, confidence);
  const TTest slower = welch_t_test(base, cand, Alternative::less, confidence);
  r.p_faster = faster.p_value;
  r.p_slower = slower.p_value;
  r.geometric_speedup = std::exp(log_base.mean() - log_cand.mean());
  r.ratio_test = ratio_test;
  set_ratio(r, baseline, candidate, layouts, log_base, log_cand);

  r.baseline_normality = normality(baseline);
  r.candidate_normality = normality(candidate);
  const double alpha = 1.0 - confidence;
  const std::string percent = percent_text(confidence);
  if (!trusted(baseline, r.baseline_normality, confidence) ||
      !trusted(candidate, r.candidate_normality, confidence)) {
    r.verdict = Verdict::needs_more_runs;
    r.explanation = fmt::format(
        "Cannot conclude: with fewer than {} runs the samples must look normal (Shapiro-Wilk) "
        "and {} does not; run each version at least {} times.",
        kLargeSample,
        trusted(baseline, r.baseline_normality, confidence) ? "the candidate" : "the baseline",
        kLargeSample);
  } else if (r.p_faster < alpha) {
    r.verdict = Verdict::faster;
    r.bound = faster.interval.lower;
    r.explanation = fmt::format(
        "The candidate is faster at {}% confidence (one-sided Welch test on mean times): mean "
        "speedup {:.3f}x, mean time saved at least {:.4g} per run (median speedup {:.3f}x).",
        percent, r.mean_speedup, r.bound, r.median_speedup);
  } else if (r.p_slower < alpha) {
    r.verdict = Verdict::slower;
    r.bound = -slower.interval.upper;
    r.explanation = fmt::format(
        "The candidate is slower at {}% confidence (one-sided Welch test on mean times): mean "
        "speedup {:.3f}x, mean time lost at least {:.4g} per run (median speedup {:.3f}x).",
        percent, r.mean_speedup, r.bound, r.median_speedup);
  } else {
    r.verdict = Verdict::no_difference;
    r.explanation = fmt::format(
        "No significant difference at {}% confidence: mean speedup {:.3f}x, the interval of the "
        "mean difference {:.4g} to {:.4g} contains 0 (median speedup {:.3f}x).",
        percent, r.mean_speedup, r.difference.lower, r.difference.upper, r.median_speedup);
  }
  set_ratio_verdict(r, percent);
  return r;
}

SetSummary summarize_set(const std::vector<SpeedupTestResult>& results, double confidence) {
  if (results.empty()) throw std::invalid_argument("set summary of no results");
  SetSummary s;
  s.confidence = confidence;
  s.cases = results.size();
  double weighted_gain = 0.0, weighted_time = 0.0;
  for (const auto& r : results) {
    if (r.verdict == Verdict::faster) ++s.improved;
    const double weight = r.baseline_median;  // normalizing the weights cancels in the ratio
    weighted_gain += weight * (r.baseline_median - r.candidate_median);
    weighted_time += weight * r.baseline_median;
  }
  s.proportion = static_cast<double>(s.improved) / static_cast<double>(s.cases);
  s.proportion_interval = proportion_interval(s.improved, s.cases, confidence);
  s.overall_gain = weighted_gain / weighted_time;
  return s;
}

}  // namespace looprace::stats
