#include "plans/factory.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

#include "plans/fixed.h"
#include "plans/race.h"

namespace looprace::plans {
namespace {

void require_level(double value, const char* option) {
  if (!(value > 0.0 && value < 1.0))
    throw std::invalid_argument(
        fmt::format("{} must be strictly between 0 and 1, got {}", option, value));
}

}  // namespace

const std::map<std::string, LocationTest>& location_test_names() {
  static const std::map<std::string, LocationTest> names = {{"welch", LocationTest::welch},
                                                            {"yuen", LocationTest::yuen}};
  return names;
}

const std::map<std::string, ErrorControl>& error_control_names() {
  static const std::map<std::string, ErrorControl> names = {
      {"per-comparison", ErrorControl::per_comparison}, {"familywise", ErrorControl::familywise}};
  return names;
}

std::string to_string(LocationTest test) { return test == LocationTest::yuen ? "yuen" : "welch"; }

std::string to_string(ErrorControl control) {
  return control == ErrorControl::familywise ? "familywise" : "per-comparison";
}

const std::vector<std::string>& plan_names() {
  static const std::vector<std::string> names = {
      "race", "blocked-race", "retiring-race", "blocked-retiring-race", "constant", "javastats"};
  return names;
}

std::optional<std::string> unsupported_combination(const PlanOptions& o) {
  if (o.control == ErrorControl::familywise && o.name.find("retiring-race") != std::string::npos)
    return fmt::format(
        "--error-control familywise: {} retires versions as winners by one-sided bounds that "
        "are not split over its looks; use race or blocked-race",
        o.name);
  return std::nullopt;
}

std::optional<std::string> refuses_controls(const PlanOptions& o) {
  if (o.name == "javastats") return "--plan javastats decides on raw cycles alone";
  if (o.name != "constant" && o.test == LocationTest::yuen)
    return "--test yuen compares trimmed means, which an adjustment by controls would recompute "
           "whole every round; use --test welch";
  return std::nullopt;
}

const std::string& default_plan_name() {
  static const std::string name = "blocked-race";
  return name;
}

PlanOptions default_options(const std::string& name, std::optional<ErrorControl> control) {
  PlanOptions o;
  o.name = name;
  o.control = ErrorControl::familywise;
  if (!races_on_levels(name) || unsupported_combination(o))
    o.control = ErrorControl::per_comparison;
  o.control = control.value_or(o.control);
  if (o.control == ErrorControl::familywise) {
    o.alpha_lt = 0.05;
    o.alpha_eq = 0.05;
  } else if (name == "retiring-race") {
    o.alpha_lt = 0.02;
    o.alpha_eq = 0.03;
  } else if (name == "blocked-retiring-race") {
    o.alpha_lt = 0.002;
    o.alpha_eq = 0.001;
  }
  return o;
}

bool races_on_levels(const std::string& name) {
  return name == "race" || name == "blocked-race" || name == "retiring-race" ||
         name == "blocked-retiring-race";
}

bool takes_round_limit(const std::string& name) {
  return name == "blocked-race" || name == "blocked-retiring-race";
}

std::unique_ptr<Plan> make_plan(const PlanOptions& o) {
  if (o.max_samples < 2)
    throw std::invalid_argument(
        fmt::format("--max-samples must be at least 2, got {}", o.max_samples));
  if (races_on_levels(o.name)) {
    require_level(o.alpha_lt, "--alpha-lt");
    require_level(o.alpha_eq, "--alpha-eq");
    if (!(o.epsilon > 0.0))
      throw std::invalid_argument(fmt::format("--epsilon must be > 0, got {}", o.epsilon));
    if (!(o.round_limit == 0.0 || o.round_limit > 1.0))
      throw std::invalid_argument(
          fmt::format("--round-limit must be 0 (keep every round) or > 1, got {}", o.round_limit));
    if (o.round_limit != 0.0 && !takes_round_limit(o.name))
      throw std::invalid_argument(fmt::format(
          "--round-limit: {} compares independent samples, not rounds; use a blocked race",
          o.name));
    const RaceParameters p{o.alpha_lt, o.alpha_eq, o.epsilon,    o.max_samples,
                           o.test,     o.control,  o.round_limit};
    if (auto reason = unsupported_combination(o)) throw std::invalid_argument(*reason);
    if (o.name == "race") return std::make_unique<RacePlan>(p);
    if (o.name == "blocked-race") return std::make_unique<BlockedRacePlan>(p);
    if (o.name == "blocked-retiring-race") return std::make_unique<BlockedRetiringRacePlan>(p);
    if (!(o.best_ratio >= 0.0))
      throw std::invalid_argument(fmt::format("--best-ratio must be >= 0, got {}", o.best_ratio));
    return std::make_unique<RetiringRacePlan>(RetiringRaceParameters{p, o.best_ratio});
  }
  if (o.name == "constant") {
    if (o.constant_size < 1 || o.constant_size > o.max_samples)
      throw std::invalid_argument(
          fmt::format("--constant-size must be between 1 and --max-samples ({}), got {}",
                      o.max_samples, o.constant_size));
    return std::make_unique<ConstantPlan>(o.constant_size);
  }
  if (o.name == "javastats") {
    require_level(o.javastats_alpha, "--javastats-alpha");
    if (!(o.javastats_theta > 0.0))
      throw std::invalid_argument(
          fmt::format("--javastats-theta must be > 0, got {}", o.javastats_theta));
    if (o.min_samples < 2 || o.min_samples > o.max_samples)
      throw std::invalid_argument(
          fmt::format("--min-samples must be between 2 and --max-samples ({}), got {}",
                      o.max_samples, o.min_samples));
    return std::make_unique<JavaStatsPlan>(
        JavaStatsParameters{o.javastats_alpha, o.javastats_theta, o.min_samples, o.max_samples});
  }
  throw std::invalid_argument(fmt::format("--plan: unknown plan '{}' (expected one of {})", o.name,
                                          fmt::join(plan_names(), ", ")));
}

}  // namespace looprace::plans
