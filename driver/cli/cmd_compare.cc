// `looprace compare A B [A2 B2 ...]`: the Speedup-Test protocol (the Speedup-Test) on samples of
// execution times, one observation per line; with several pairs also the set-level summary.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "stats/speedup_test.h"

namespace looprace::cli {
namespace {

struct CompareOptions {
  std::vector<std::string> files;
  double confidence = 0.95;
  stats::RatioTest test = stats::RatioTest::welch_log;
  bool json = false;
};

// One number per line; blank lines and `#` comments skipped. `-` reads standard input.
std::vector<double> read_sample(const std::string& name) {
  std::ifstream file;
  if (name != "-") {
    file.open(name);
    if (!file) throw std::runtime_error(name + ": cannot open");
  }
  std::istream& in = name == "-" ? std::cin : file;
  std::vector<double> values;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    const auto last = line.find_last_not_of(" \t\r");
    const std::string text = line.substr(first, last - first + 1);
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size())
      throw std::runtime_error(fmt::format("{}:{}: '{}' is not a number", name, number, text));
    if (!(value > 0.0) || !std::isfinite(value))
      throw std::runtime_error(
          fmt::format("{}:{}: {} is not a time (must be finite and > 0)", name, number, text));
    values.push_back(value);
  }
  return values;
}

// One pair's result as one JSON object (--json).
nlohmann::json to_json(const std::string& a, const std::string& b,
                       const stats::SpeedupTestResult& r) {
  const auto normality = [](const std::optional<stats::ShapiroWilk>& sw) -> nlohmann::json {
    if (!sw) return nullptr;
    return {{"w", sw->w}, {"p_value", sw->p_value}};
  };
  return {{"baseline", a},
          {"candidate", b},
          {"confidence", r.confidence},
          {"baseline_n", r.baseline_n},
          {"candidate_n", r.candidate_n},
          {"baseline_mean", r.baseline_mean},
          {"candidate_mean", r.candidate_mean},
          {"baseline_median", r.baseline_median},
          {"candidate_median", r.candidate_median},
          {"median_speedup", r.median_speedup},
          {"ratio_test", stats::ratio_test_name(r.ratio_test)},
          {"speedup", r.ratio_speedup},
          {"geometric_speedup", r.geometric_speedup},
          {"difference_ci", {r.difference.lower, r.difference.upper}},
          {"speedup_ci", {r.speedup_interval.lower, r.speedup_interval.upper}},
          {"welch_df", r.welch_df},
          {"p_faster", r.p_faster},
          {"p_slower", r.p_slower},
          {"baseline_normality", normality(r.baseline_normality)},
          {"candidate_normality", normality(r.candidate_normality)},
          {"verdict", stats::verdict_name(r.verdict)},
          {"explanation", r.explanation},
          // The verdict of speedup and speedup_ci: the one to print beside them.
          {"ratio_verdict", stats::verdict_name(r.ratio_verdict)},
          {"ratio_explanation", r.ratio_explanation}};
}

// One pair's result as text: both samples, the speedup with its intervals, the verdict.
void print_text(const std::string& a, const std::string& b, const stats::SpeedupTestResult& r) {
  const auto normality = [](const std::optional<stats::ShapiroWilk>& sw, std::size_t n) {
    if (sw) return fmt::format("Shapiro-Wilk W={:.4f} p={:.4g}", sw->w, sw->p_value);
    return n >= stats::kLargeSample ? std::string("n >= 30, normality not required")
                                    : std::string("normality not testable");
  };
  std::printf("%s vs %s\n", a.c_str(), b.c_str());
  std::printf("  baseline : n=%zu mean=%.6g median=%.6g (%s)\n", r.baseline_n, r.baseline_mean,
              r.baseline_median, normality(r.baseline_normality, r.baseline_n).c_str());
  std::printf("  candidate: n=%zu mean=%.6g median=%.6g (%s)\n", r.candidate_n, r.candidate_mean,
              r.candidate_median, normality(r.candidate_normality, r.candidate_n).c_str());
  std::printf(
      "  speedup %.4fx (%s, CI [%.4f, %.4f]), median speedup %.4fx; mean difference "
      "CI [%.6g, %.6g] (Welch, df=%.1f, p_faster=%.3g, p_slower=%.3g)\n",
      r.ratio_speedup, stats::ratio_estimate_label(r).c_str(), r.speedup_interval.lower,
      r.speedup_interval.upper, r.median_speedup, r.difference.lower, r.difference.upper,
      r.welch_df, r.p_faster, r.p_slower);
  std::printf("  verdict: %s - %s\n", stats::verdict_name(r.verdict), r.explanation.c_str());
}

// The set-level summary of several pairs: how many improved (with a confidence interval of
// the proportion) and the weighted overall gain, as JSON or text.
void print_set_summary(const stats::SetSummary& s, bool json) {
  if (json) {
    const nlohmann::json summary = {
        {"set_summary",
         {{"cases", s.cases},
          {"improved", s.improved},
          {"proportion", s.proportion},
          {"proportion_ci", {s.proportion_interval.lower, s.proportion_interval.upper}},
          {"overall_gain", s.overall_gain},
          {"confidence", s.confidence}}}};
    std::printf("%s\n", summary.dump().c_str());
  } else {
    std::printf(
        "set: %zu of %zu cases faster (%.1f%%, %.0f%% CI %.1f%%..%.1f%%); weighted "
        "overall gain %.2f%% of the baseline time\n",
        s.improved, s.cases, 100.0 * s.proportion, 100.0 * s.confidence,
        100.0 * s.proportion_interval.lower, 100.0 * s.proportion_interval.upper,
        100.0 * s.overall_gain);
  }
}

// Runs the Speedup-Test on each pair of files, printing each result as it comes, then the set
// summary when there are several pairs. Throws naming the pair whose samples cannot be tested.
void compare(const CompareOptions& options) {
  const auto& files = options.files;
  if (files.size() % 2 != 0)
    throw std::runtime_error(fmt::format(
        "compare: expected pairs of files (BASELINE CANDIDATE ...), got {} file(s)", files.size()));
  if (std::count(files.begin(), files.end(), "-") > 1)
    throw std::runtime_error("compare: '-' (standard input) may be given only once");
  std::vector<stats::SpeedupTestResult> results;
  for (std::size_t i = 0; i < files.size(); i += 2) {
    try {
      results.push_back(stats::speedup_test(read_sample(files[i]), read_sample(files[i + 1]),
                                            options.confidence, options.test));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{} vs {}: {}", files[i], files[i + 1], e.what()));
    }
    const auto& r = results.back();
    if (options.json)
      std::printf("%s\n", to_json(files[i], files[i + 1], r).dump().c_str());
    else
      print_text(files[i], files[i + 1], r);
  }
  if (results.size() < 2) return;
  print_set_summary(stats::summarize_set(results, options.confidence), options.json);
}

}  // namespace

// `looprace compare`: its options and help, the work done by compare().
void add_compare_command(CLI::App& app) {
  auto options = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand(
      "compare", "Speedup-Test of candidate times against baseline times (one per line)");
  cmd->add_option("FILES", options->files,
                  "BASELINE CANDIDATE [BASELINE2 CANDIDATE2 ...]; '-' reads standard input")
      ->required();
  cmd->add_option("--confidence", options->confidence, "Confidence level of the tests")
      ->check(CLI::Range(0.5, 0.9999));
  cmd->add_option("--test", options->test,
                  "The test of the speedup interval: welch (Welch's test on log times) or "
                  "paired-trimmed (each BASELINE line paired with the CANDIDATE line of the same "
                  "number, as interleaved runs are; the 20 % trimmed mean of their log ratios)")
      ->transform(one_of(stats::ratio_test_names()))
      ->option_text("welch|paired-trimmed (default welch)");
  cmd->add_flag("--json", options->json, "Print JSON (one object per pair, then the set summary)");
  cmd->footer(R"(With several pairs, also prints the weighted overall gain and the proportion of
improved cases with its confidence interval. Example:
  looprace compare base.txt unrolled.txt --confidence 0.99)");
  cmd->callback([options] { compare(*options); });
}

}  // namespace looprace::cli
