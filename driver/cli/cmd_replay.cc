// `looprace replay`: simulates sampling plans on recorded observations (Raced Profiles section 5)
// over a grid of parameters, and prints failure rate against average sample size as a table,
// CSV, JSON lines and the paper's Figures 5 and 6 as SVG; per loop, for the grid's first
// setting, a CSV and the paper's Figures 7-10 as SVG.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "plans/factory.h"
#include "plans/replay.h"
#include "report/figures.h"
#include "report/svg_chart.h"
#include "store/dataset.h"
#include "store/store.h"

namespace looprace::cli {
namespace {

// The confidence levels of Raced Profiles section 5.7 (its "0.005" listed twice is 0.0005).
const std::vector<double> kPaperLevels = {0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01,
                                          0.02,   0.05,   0.1,   0.2,   0.5};

struct ReplayCommandOptions {
  std::string csv;
  std::string store;
  stats::ObservationKind observation = stats::ObservationKind::kRaw;  // of a --store
  std::vector<std::string> plans = {"race", "blocked-race", "constant", "javastats"};
  std::vector<double> alpha_lt = kPaperLevels, alpha_eq = kPaperLevels;
  std::vector<plans::LocationTest> tests = {plans::LocationTest::welch};
  std::vector<plans::ErrorControl> controls = {plans::ErrorControl::per_comparison};
  std::vector<double> round_limits = {0.0};
  double epsilon = 0.005;
  std::optional<std::size_t> max_samples;
  std::vector<std::size_t> sizes;
  std::vector<double> javastats_alpha = kPaperLevels, javastats_theta = kPaperLevels;
  double target = 0.01;
  plans::ReplayOptions replay;
  bool json = false;
  std::string csv_out, svg_prefix;
  std::string per_loop_csv, per_loop_svg;
};

struct Setting {
  std::string label;  // the plan, with its test and error control when not the paper's
  plans::PlanOptions options;
  std::unique_ptr<plans::Plan> plan;
  plans::ReplayOutcome outcome;
};

plans::Dataset load_store(const std::string& path, stats::ObservationKind kind) {
  const auto db = store::Store::open(path, false);
  plans::Dataset data;
  const auto programs = db.programs();
  for (const auto& program : programs) {
    for (const auto& loop : store::load_race_dataset(db, program.id, kind)) {
      plans::LoopData d;
      d.loop = programs.size() > 1 ? fmt::format("{}/{}", program.id, loop.loop_id) : loop.loop_id;
      for (const auto& [factor, cycles] : loop.cycles) {
        if (cycles.size() < 2) continue;  // a factor disqualified at once has nothing to replay
        d.versions.push_back(std::to_string(factor));
        d.cycles.push_back(cycles);
        if (!loop.control_loops.empty()) d.controls.push_back(loop.controls.at(factor));
      }
      if (d.versions.size() >= 2) data.push_back(std::move(d));
    }
  }
  if (data.empty())
    throw std::runtime_error(path + ": no raced loop with 2 observations per factor");
  return data;
}

// Constant sizes from 2 to the cap, about 6 per doubling.
std::vector<std::size_t> default_sizes(std::size_t cap) {
  std::vector<std::size_t> sizes;
  for (double n = 2; n <= static_cast<double>(cap); n *= 1.12) {
    const auto size = static_cast<std::size_t>(n);
    if (sizes.empty() || sizes.back() != size) sizes.push_back(size);
  }
  if (sizes.back() != cap) sizes.push_back(cap);
  return sizes;
}

// "race", "race+yuen+familywise": a plan and the variants of it a replay compares.
std::string variant_label(const plans::PlanOptions& p) {
  std::string label = p.name;
  if (p.test != plans::LocationTest::welch) label += "+" + plans::to_string(p.test);
  if (p.control != plans::ErrorControl::per_comparison) label += "+" + plans::to_string(p.control);
  if (p.round_limit != 0.0) label += fmt::format("+rounds<={}", p.round_limit);
  return label;
}

// The first setting of each label, in order: one per plan variant.
std::vector<const Setting*> variants_of(const std::vector<Setting>& settings) {
  std::vector<const Setting*> variants;
  for (const auto& s : settings)
    if (std::none_of(variants.begin(), variants.end(),
                     [&](const Setting* v) { return v->label == s.label; }))
      variants.push_back(&s);
  return variants;
}

std::vector<std::string> labels_of(const std::vector<const Setting*>& variants) {
  std::vector<std::string> labels;
  for (const Setting* v : variants) labels.push_back(v->label);
  return labels;
}

// Every level pair of a race, for each test, error control and round limit the plan can run.
void add_race_grid(const ReplayCommandOptions& o, plans::PlanOptions p,
                   const std::function<void(const plans::PlanOptions&)>& add) {
  for (plans::LocationTest test : o.tests)
    for (plans::ErrorControl control : o.controls)
      for (double round_limit : o.round_limits) {
        p.test = test;
        p.control = control;
        p.round_limit = round_limit;
        if (plans::unsupported_combination(p)) continue;
        if (round_limit != 0.0 && !plans::takes_round_limit(p.name)) continue;
        for (double lt : o.alpha_lt)
          for (double eq : o.alpha_eq) {
            p.alpha_lt = lt;
            p.alpha_eq = eq;
            add(p);
          }
      }
}

std::vector<Setting> grid(const ReplayCommandOptions& o, std::size_t cap) {
  std::vector<Setting> settings;
  const auto add = [&](plans::PlanOptions p) {
    p.max_samples = cap;
    auto plan = plans::make_plan(p);
    settings.push_back({variant_label(p), p, std::move(plan), {}});
  };
  for (const std::string& name : o.plans) {
    plans::PlanOptions p;
    p.name = name;
    p.epsilon = o.epsilon;
    if (plans::races_on_levels(name)) {
      add_race_grid(o, p, add);
    } else if (name == "constant") {
      for (std::size_t n : o.sizes.empty() ? default_sizes(cap) : o.sizes) {
        if (n < 1 || n > cap)
          throw std::invalid_argument(fmt::format(
              "--sizes: {} is not between 1 and the cap ({}: --max-samples, or the fewest "
              "observations any version of a loop has)",
              n, cap));
        p.constant_size = n;
        add(p);
      }
    } else if (name == "javastats") {
      for (double a : o.javastats_alpha)
        for (double t : o.javastats_theta) {
          p.javastats_alpha = a;
          p.javastats_theta = t;
          add(p);
        }
    } else {
      add(p);  // a plan without a grid here: its defaults (the factory rejects unknown names)
    }
  }
  return settings;
}

nlohmann::json parameters(const plans::PlanOptions& p) {
  if (p.name == "constant") return {{"samples", p.constant_size}};
  if (p.name == "javastats")
    return {{"alpha", p.javastats_alpha},
            {"theta", p.javastats_theta},
            {"min_samples", p.min_samples},
            {"max_samples", p.max_samples}};
  return {{"alpha_lt", p.alpha_lt},
          {"alpha_eq", p.alpha_eq},
          {"epsilon", p.epsilon},
          {"max_samples", p.max_samples},
          {"test", plans::to_string(p.test)},
          {"control", plans::to_string(p.control)}};
}

nlohmann::json to_json(const Setting& s) {
  nlohmann::json j = {{"plan", s.options.name}, {"variant", s.label}};
  j.update(parameters(s.options));
  j.update({{"failure_rate", s.outcome.failure_rate},
            {"mean_samples", s.outcome.mean_samples},
            {"cap_rate", s.outcome.cap_rate},
            {"mean_winners", s.outcome.mean_winners}});
  return j;
}

// The cheapest setting of `plan` whose failure rate is at most `target`.
const Setting* cheapest(const std::vector<Setting>& settings, const std::string& plan,
                        double target) {
  const Setting* best = nullptr;
  for (const auto& s : settings)
    if (s.label == plan && s.outcome.failure_rate <= target &&
        (!best || s.outcome.mean_samples < best->outcome.mean_samples))
      best = &s;
  return best;
}

void write_csv(const std::string& path, const std::vector<Setting>& settings) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path + ": cannot write");
  out << "plan,alpha_lt,alpha_eq,epsilon,samples,javastats_alpha,javastats_theta,max_samples,"
         "failure_rate,mean_samples,cap_rate,mean_winners,failure_rate_geometric,test,control\n";
  for (const auto& s : settings) {
    const auto& p = s.options;
    const bool race = plans::races_on_levels(p.name);
    out << fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", p.name,
        race ? fmt::format("{}", p.alpha_lt) : "", race ? fmt::format("{}", p.alpha_eq) : "",
        race ? fmt::format("{}", p.epsilon) : "",
        p.name == "constant" ? fmt::format("{}", p.constant_size) : "",
        p.name == "javastats" ? fmt::format("{}", p.javastats_alpha) : "",
        p.name == "javastats" ? fmt::format("{}", p.javastats_theta) : "", p.max_samples,
        s.outcome.failure_rate, s.outcome.mean_samples, s.outcome.cap_rate, s.outcome.mean_winners,
        s.outcome.failure_rate_geometric, race ? plans::to_string(p.test) : "",
        race ? plans::to_string(p.control) : "");
  }
}

// Failure rates are drawn in percent on a linear axis (0 must show); sample sizes on a log axis.
report::svg::Point point(const Setting& s, std::string label = {}) {
  return {s.outcome.mean_samples, 100.0 * s.outcome.failure_rate, std::nullopt, std::nullopt,
          std::move(label)};
}

// Raced Profiles Figure 5: failure rate against average sample size, every plan and setting.
std::string failure_figure(const std::vector<Setting>& settings,
                           const std::vector<std::string>& names, double target) {
  report::svg::Chart chart;
  chart.title = "Failure rate against average samples per version (replay)";
  chart.width = 800;
  chart.height = 480;
  chart.x = {"average samples per version", true, {}, {}, false, {}};
  chart.y = {"failure rate (%)", false, 0.0, {}, true, {}};
  for (const std::string& name : names) {
    report::svg::Series series;
    series.name = name;
    series.line = name == "constant";
    series.marker = name == "constant"       ? report::svg::Marker::square
                    : name == "javastats"    ? report::svg::Marker::cross
                    : name == "race"         ? report::svg::Marker::circle
                    : name == "blocked-race" ? report::svg::Marker::diamond
                                             : report::svg::Marker::triangle;
    for (const auto& s : settings)
      if (s.label == name) series.points.push_back(point(s));
    std::sort(series.points.begin(), series.points.end(),
              [](const auto& a, const auto& b) { return a.x < b.x; });
    chart.series.push_back(std::move(series));
  }
  chart.references.push_back({100.0 * target, false, fmt::format("{}% failure", 100.0 * target)});
  return chart.render();
}

// Raced Profiles Figure 6: contours of fixed alpha_lt (solid) and fixed alpha_eq (dashed).
std::string sensitivity_figure(const std::vector<Setting>& settings, const std::string& plan,
                               const ReplayCommandOptions& o) {
  report::svg::Chart chart;
  chart.title = fmt::format("Parameter sensitivity of {} (replay)", plan);
  chart.width = 800;
  chart.height = 480;
  chart.x = {"average samples per version", true, {}, {}, false, {}};
  chart.y = {"failure rate (%)", false, 0.0, {}, true, {}};
  const auto every_other = [](const std::vector<double>& levels) {
    std::vector<double> picked;
    for (std::size_t i = 0; i<levels.size(); i += levels.size()> 6 ? 2 : 1)
      picked.push_back(levels[i]);
    return picked;
  };
  for (bool fixed_lt : {true, false}) {
    for (double level : every_other(fixed_lt ? o.alpha_lt : o.alpha_eq)) {
      report::svg::Series series;
      series.name = fmt::format("{}={}", fixed_lt ? "alpha_lt" : "alpha_eq", level);
      series.dashed = !fixed_lt;
      series.marker = fixed_lt ? report::svg::Marker::circle : report::svg::Marker::none;
      for (const auto& s : settings)
        if (s.label == plan && (fixed_lt ? s.options.alpha_lt : s.options.alpha_eq) == level)
          series.points.push_back(point(s));
      chart.series.push_back(std::move(series));
    }
  }
  chart.references.push_back(
      {100.0 * o.target, false, fmt::format("{}% failure", 100.0 * o.target)});
  return chart.render();
}

void print_table(const std::vector<Setting>& settings, const plans::Dataset& data,
                 std::size_t single_version, const ReplayCommandOptions& o, std::size_t cap) {
  std::printf(
      "replay: %zu loops, %zu repetitions each, seed %llu, cap %zu, failure = chosen > "
      "%.2f%% slower than the best by mean (geo%%: by geometric mean)\n",
      data.size(), o.replay.repetitions, static_cast<unsigned long long>(o.replay.seed), cap,
      100.0 * o.replay.theta);
  if (o.replay.truth_round_limit > 1.0)
    std::printf(
        "truth: the means of the recorded rounds a round limit of %g keeps (the others ran more "
        "than %g times slower as a whole)\n",
        o.replay.truth_round_limit, o.replay.truth_round_limit);
  const auto controlled = std::count_if(
      data.begin(), data.end(), [](const plans::LoopData& l) { return !l.controls.empty(); });
  if (controlled > 0)
    std::printf(
        "controls: %td loop(s) observed with their runs' controls: the plans adjust by "
        "them, and the best is by adjusted means\n",
        controlled);
  if (single_version > 0)
    std::printf("left out: %zu loops with a single version (nothing to choose)\n", single_version);
  std::printf("%-58s %9s %9s %8s %8s %8s\n", "plan", "failure%", "samples", "cap%", "winners",
              "geo%");
  for (const auto& s : settings)
    std::printf("%-58s %9.3f %9.2f %8.2f %8.2f %8.3f\n", s.plan->describe().c_str(),
                100.0 * s.outcome.failure_rate, s.outcome.mean_samples, 100.0 * s.outcome.cap_rate,
                s.outcome.mean_winners, 100.0 * s.outcome.failure_rate_geometric);
  std::printf("\nCheapest setting at <= %.2f%% failure:\n", 100.0 * o.target);
  const std::vector<const Setting*> variants = variants_of(settings);
  for (const std::string& name : labels_of(variants)) {
    const Setting* best = cheapest(settings, name, o.target);
    if (!best) {
      std::printf("  %-13s none reaches it\n", name.c_str());
      continue;
    }
    std::printf("  %-13s %-58s %8.2f samples, %.3f%% failure\n", name.c_str(),
                best->plan->describe().c_str(), best->outcome.mean_samples,
                100.0 * best->outcome.failure_rate);
  }
  for (const Setting* variant : variants) {
    if (!plans::races_on_levels(variant->options.name)) continue;
    const std::string& race = variant->label;
    const Setting* r = cheapest(settings, race, o.target);
    if (!r) continue;
    for (const char* other : {"constant", "javastats"}) {
      const Setting* c = cheapest(settings, other, o.target);
      if (!c) continue;
      const double saved = 1.0 - r->outcome.mean_samples / c->outcome.mean_samples;
      std::printf("  %s needs %.1f%% %s runs than %s\n", race.c_str(), 100.0 * std::abs(saved),
                  saved >= 0.0 ? "fewer" : "more", other);
    }
  }
}

// The observations to replay: a CSV file, or the raced loops of a store.
void add_input_options(CLI::App* cmd, ReplayCommandOptions* o) {
  cmd->add_option("CSV", o->csv,
                  "Observations: CSV with header loop,version,cycles or "
                  "loop,version,cycles,control (recorded order)")
      ->check(CLI::ExistingFile);
  add_observation_option(cmd, &o->observation);
  cmd->add_option("--store", o->store, "Replay the raced observations of a looprace store instead")
      ->check(CLI::ExistingFile);
}

// The grid of settings to replay: the plans and the parameter values each is tried with.
void add_grid_options(CLI::App* cmd, ReplayCommandOptions* o) {
  cmd->add_option("--plans", o->plans,
                  "Plans to replay (race, blocked-race, constant, javastats, ...), or 'all'; "
                  "plans without a grid here run with their defaults")
      ->delimiter(',');
  cmd->add_option("--alpha-lt", o->alpha_lt,
                  "alpha_LT values of the race grid (default: the paper's)")
      ->delimiter(',');
  cmd->add_option("--alpha-eq", o->alpha_eq,
                  "alpha_EQ values of the race grid (default: the paper's)")
      ->delimiter(',');
  cmd->add_option("--test", o->tests,
                  "Location tests of the races to replay: welch (means, the paper's), yuen "
                  "(20 % trimmed means; of the paired differences in the blocked races)")
      ->transform(one_of(plans::location_test_names()))
      ->delimiter(',');
  cmd->add_option("--error-control", o->controls,
                  "What the races' alpha levels bound: per-comparison (the paper's), familywise "
                  "(every comparison over all versions and rounds)")
      ->transform(one_of(plans::error_control_names()))
      ->delimiter(',');
  cmd->add_option("--round-limits", o->round_limits,
                  "Blocked races: replay each with rounds set aside whose versions ran, by their "
                  "median, more than this many times slower than their fast level (0: every "
                  "round counts; the other races replay with 0 only)")
      ->delimiter(',');
  cmd->add_option("--truth-round-limit", o->replay.truth_round_limit,
                  "Judge failure by the means of the recorded rounds this round limit keeps "
                  "(the loop's own time, when the machine changed state during the recording); "
                  "0: every recorded observation")
      ->check(CLI::Validator(
          [](std::string& v) {
            double x = 0.0;
            const bool number = CLI::detail::lexical_cast(v, x);
            return number && (x == 0.0 || x > 1.0) ? std::string() : "must be 0 or > 1";
          },
          "0 or > 1"));
  cmd->add_option("--epsilon", o->epsilon, "Race equivalence threshold");
  cmd->add_option("--max-samples", o->max_samples,
                  "Cap per version (default: the fewest rounds any loop recorded)");
  cmd->add_option("--sizes", o->sizes, "Constant plan sizes (default: 2 to the cap, ~12% apart)")
      ->delimiter(',');
  cmd->add_option("--javastats-alpha", o->javastats_alpha, "JavaSTATS alpha values")
      ->delimiter(',');
  cmd->add_option("--javastats-theta", o->javastats_theta, "JavaSTATS theta values")
      ->delimiter(',');
}

// How the replay runs (repetitions, seed, threads) and what counts as a failure.
void add_replay_run_options(CLI::App* cmd, ReplayCommandOptions* o) {
  cmd->add_option("--repetitions", o->replay.repetitions, "Repetitions per loop and setting");
  cmd->add_option("--seed", o->replay.seed, "Random seed (same seed, same result)");
  cmd->add_option("--threads", o->replay.threads, "Worker threads")->check(CLI::Range(1u, 256u));
  cmd->add_option("--theta", o->replay.theta, "Failure threshold: chosen slower than best by more");
  cmd->add_option("--target", o->target, "Failure rate at which plans are compared");
}

// What is written besides the table: JSON lines, CSV and the figures.
void add_output_options(CLI::App* cmd, ReplayCommandOptions* o) {
  cmd->add_flag("--json", o->json,
                "Print one JSON object per plan and setting instead of the table");
  cmd->add_option("--csv-out", o->csv_out, "Also write the results as CSV to this file");
  cmd->add_option(
      "--svg", o->svg_prefix,
      "Also write PREFIX-failure.svg (Figure 5) and PREFIX-sensitivity-<plan>.svg (Figure 6)");
  cmd->add_option("--per-loop", o->per_loop_csv,
                  "Write per loop and version the results of the grid's first setting as CSV");
  cmd->add_option("--per-loop-svg", o->per_loop_svg,
                  "Write Raced Profiles Figures 7-10 of the grid's first setting, DIR/<loop>.svg "
                  "for every loop");
}

// The examples --help shows after the options.
const char* const kReplayExamples = R"(Example:
  looprace replay data.csv --repetitions 100 --csv-out replay.csv --svg replay
  looprace replay --store .looprace/store.db --plans race,constant --json
  looprace replay data.csv --plans race --alpha-lt 0.02 --alpha-eq 0.02 --per-loop loops.csv \
    --per-loop-svg figures)";

// The observations to replay, from the CSV file or the store (exactly one of them given).
plans::Dataset load_observations(const ReplayCommandOptions& o) {
  if (o.csv.empty() == o.store.empty())
    throw std::runtime_error("replay: give either a CSV file or --store, not both or neither");
  if (!o.store.empty()) return load_store(o.store, o.observation);
  std::ifstream in(o.csv);
  if (!in) throw std::runtime_error(o.csv + ": cannot open");
  return plans::read_dataset_csv(in, o.csv);
}

// Leaves out the loops whose factors all gave the same code: with nothing to choose they cannot
// fail. Returns how many there were; throws when no loop is left.
std::size_t drop_single_versions(plans::Dataset& data, const ReplayCommandOptions& o) {
  const std::size_t recorded = data.size();
  const std::size_t single_version =
      std::erase_if(data, [](const plans::LoopData& loop) { return loop.versions.size() < 2; });
  if (data.empty())
    throw std::runtime_error(fmt::format("{}: none of its {} loops has 2 versions",
                                         o.csv.empty() ? o.store : o.csv, recorded));
  return single_version;
}

// The cap on observations per version: --max-samples, else the fewest rounds any loop
// recorded (a replay cannot draw more rounds than there are).
std::size_t sample_cap(const plans::Dataset& data, const ReplayCommandOptions& o) {
  std::size_t rounds = std::numeric_limits<std::size_t>::max();
  for (const auto& loop : data) rounds = std::min(rounds, loop.rounds());
  const std::size_t cap = o.max_samples.value_or(rounds);
  if (cap > rounds)
    throw std::runtime_error(fmt::format(
        "--max-samples {} exceeds the {} rounds recorded for the shortest loop", cap, rounds));
  return cap;
}

// Replays every setting on every loop and stores each setting's outcome; returns the results
// per setting and loop.
std::vector<std::vector<plans::LoopReplay>> replay_settings(std::vector<Setting>& settings,
                                                            const plans::Dataset& data,
                                                            const ReplayCommandOptions& o) {
  std::vector<const plans::Plan*> plan_list;
  for (const auto& s : settings) plan_list.push_back(s.plan.get());
  auto per_loop = plans::replay_per_loop(plan_list, data, o.replay);
  const auto outcomes = plans::summarize(per_loop);
  for (std::size_t i = 0; i < settings.size(); ++i) settings[i].outcome = outcomes[i];
  return per_loop;
}

// --svg: Figure 5 for every plan variant, and Figure 6 for each variant that races on levels.
void write_figures(const std::vector<Setting>& settings, const ReplayCommandOptions& o) {
  const std::vector<const Setting*> variants = variants_of(settings);
  write_text_file(o.svg_prefix + "-failure.svg",
                  failure_figure(settings, labels_of(variants), o.target));
  for (const Setting* variant : variants)
    if (plans::races_on_levels(variant->options.name))
      write_text_file(fmt::format("{}-sensitivity-{}.svg", o.svg_prefix, variant->label),
                      sensitivity_figure(settings, variant->label, o));
}

// --per-loop and --per-loop-svg: the grid's first setting loop by loop, as CSV and as Figures
// 7-10 per loop.
void write_per_loop(const std::vector<plans::LoopReplay>& first, const Setting& setting,
                    const ReplayCommandOptions& o) {
  if (!o.per_loop_csv.empty()) {
    std::ofstream out(o.per_loop_csv);
    plans::write_per_loop_csv(out, setting.plan->describe(), first);
    if (!out) throw std::runtime_error(o.per_loop_csv + ": cannot write");
  }
  if (!o.per_loop_svg.empty()) {
    std::filesystem::create_directories(o.per_loop_svg);
    for (const auto& loop : first) {
      // Store loops are named program/loop: one file per loop, no subdirectories.
      std::string name = loop.loop;
      std::replace(name.begin(), name.end(), '/', '_');
      write_text_file(fmt::format("{}/{}.svg", o.per_loop_svg, name),
                      report::replay_loop_figure(loop, setting.plan->describe()));
    }
  }
}

// What `looprace replay` does once its options are parsed: loads the observations, replays
// the grid of settings on them, and prints and writes the results.
void run_replay(ReplayCommandOptions& o) {
  plans::Dataset data = load_observations(o);
  if (o.plans == std::vector<std::string>{"all"}) o.plans = plans::plan_names();
  const std::size_t single_version = drop_single_versions(data, o);
  const std::size_t cap = sample_cap(data, o);

  std::vector<Setting> settings = grid(o, cap);
  if (settings.empty()) throw std::runtime_error("--plans: no plan to replay");
  const auto per_loop = replay_settings(settings, data, o);

  if (o.json)
    for (const auto& s : settings) std::printf("%s\n", to_json(s).dump().c_str());
  else
    print_table(settings, data, single_version, o, cap);
  if (!o.csv_out.empty()) write_csv(o.csv_out, settings);
  if (!o.svg_prefix.empty()) write_figures(settings, o);
  write_per_loop(per_loop.front(), settings.front(), o);
}

}  // namespace

// Registers `looprace replay`: its options in groups (the order --help lists them), its
// examples, and what it runs.
void add_replay_command(CLI::App& app) {
  auto o = std::make_shared<ReplayCommandOptions>();
  auto* cmd = app.add_subcommand(
      "replay", "Simulate sampling plans on recorded observations: failure rate vs samples");
  add_input_options(cmd, o.get());
  add_grid_options(cmd, o.get());
  add_replay_run_options(cmd, o.get());
  add_output_options(cmd, o.get());
  cmd->footer(kReplayExamples);
  cmd->callback([o] { run_replay(*o); });
}

}  // namespace looprace::cli
