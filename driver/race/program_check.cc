// The whole-program check: the race timed each loop with probes in place, one loop changed at a
// time; the program the user builds has no probes and every change at once. A change also
// moves and reschedules the code around it (in the payoff, an 8x8 loop unrolled completely ran
// 1.56x faster by its probes while the program it sat in got 2 % slower at -O3). So before a
// profile that changes GCC's choice stands, the program built as the user builds it with all
// its changes is timed against the same build without them, interleaved, in looks of doubling
// size until it shows the program faster, slower or equal (plans/program_check_policy.h); a
// profile that makes it slower, or that no look showed within epsilon of not slower, is
// withdrawn.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>

#include "plans/program_check_policy.h"
#include "profile/profile_file.h"
#include "race/paired_runs.h"
#include "race/racer.h"
#include "stats/speedup_test.h"

namespace looprace::race {

std::string check_figures(const ProgramCheck& check) {
  return fmt::format("speedup {:.3f} ({}, CI {:.3f}..{:.3f} at {}%), {}", check.speedup,
                     check.estimate, check.ci_low, check.ci_high,
                     stats::percent_text(check.confidence), check.verdict);
}

// A finished check as the store keeps it (what the runs showed; its changes are the key's).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(ProgramCheck, runs, looks, confidence, estimate, speedup, ci_low,
                                   ci_high, verdict, outcome, withdrawn)

}  // namespace looprace::race

namespace looprace::race::detail {

AppliedFactors Racer::profile_changes(std::span<const LoopOutcome> outcomes) {
  AppliedFactors changes;
  for (const auto& o : outcomes) {
    if (o.decision.chosen != 0) changes.emplace_back(o.loop.id, o.decision.chosen);
  }
  return changes;
}

// What a check compares and by which rule: a rerun with the same key answers from the store.
std::string Racer::program_check_key(const AppliedFactors& changes) const {
  const plans::ProgramCheckPolicy policy = check_policy();
  std::string key = fmt::format(
      "program {} flags '{}' check-run '{}' pairs {} confidence {} epsilon {} test {} seconds {} "
      "changes",
      program_, profile::join_flags(ws_.flags), options_.check_run_command,
      policy.sequence.first_pairs, policy.sequence.confidence, policy.epsilon,
      stats::ratio_test_name(policy.test), options_.program_check_seconds);
  for (const auto& [loop, factor] : changes) key += fmt::format(" {}={}", loop, factor);
  return key;
}

std::optional<ProgramCheck> Racer::check_program(const std::vector<LoopOutcome>& outcomes) {
  const AppliedFactors changes = profile_changes(outcomes);
  if (changes.empty() || options_.program_check_runs == 0) return std::nullopt;
  const std::string key = program_check_key(changes);
  if (auto stored = store_->program_check(key); stored && stored->is_object()) {
    try {
      ProgramCheck check = stored->get<ProgramCheck>();
      check.changes = changes;
      check.from_store = true;
      return check;
    } catch (const nlohmann::json::exception&) {
      // A record this version cannot read: the check is taken again and recorded anew.
    }
  }
  RaceProgress p;
  p.phase = "building the whole program with the profile";
  p.loop_label = fmt::format("{} change(s)", changes.size());
  report(p);

  ProgramCheck check;
  check.changes = changes;
  // A profile whose program does not build or run as the base does is withdrawn, never kept.
  auto withdraw = [&](std::string why) {
    check.withdrawn = true;
    check.failure = std::move(why);
    return check;
  };
  std::string failure;
  const std::optional<std::filesystem::path> base = users_base(failure);
  if (!base) return withdraw("the base does not build without looprace's runtime: " + failure);
  const std::optional<std::filesystem::path> profiled =
      build_as_user(ws_.flags, changes, "program-check", "the program with the profile", failure);
  if (!profiled) return withdraw("does not build: " + failure);
  check = take_program_check(std::move(check), *profiled, *base);
  // A failure (a build, a run) may not recur; only what the runs showed is kept.
  if (check.failure.empty()) store_->record_program_check(key, check);
  return check;
}

// Builds the program into workdir/`name` as the user builds it with a profile: `flags`, the
// plugin applying `changes` and nothing else, no runtime. A whole-program comparison times
// these builds, not the race's: the runtime, linked first, moves every function of the program
// (at -O3 the race's trial saw -funroll-loops equal on a program it made 2 % faster).
std::optional<std::filesystem::path> Racer::build_as_user(const std::vector<std::string>& flags,
                                                          const AppliedFactors& changes,
                                                          const std::string& name,
                                                          const std::string& label,
                                                          std::string& failure) {
  const std::filesystem::path dir = ws_.workdir / name;
  build::prepare_fresh(dir);
  Workspace ws = ws_;
  ws.flags = flags;
  build::VariantSpec spec;
  spec.as_users_build = true;
  spec.unroll = changes;
  auto built = ws.executor->build_one(build_job(ws, spec, dir, label));
  if (built.ok()) return dir;
  failure = built.failure_message();
  return std::nullopt;
}

// The user's build without a profile, with the flags every build of the race has: the base of
// the whole-program check and of the --try-flags trial. Built once per set of flags.
std::optional<std::filesystem::path> Racer::users_base(std::string& failure) {
  const std::string flags = profile::join_flags(ws_.flags);
  if (auto found = users_bases_.find(flags); found != users_bases_.end()) return found->second;
  auto dir = build_as_user(ws_.flags, {}, fmt::format("users-base-{}", users_bases_.size()),
                           "the program as the user builds it", failure);
  if (dir) users_bases_[flags] = *dir;
  return dir;
}

// `pairs` interleaved pairs of runs of the base and the profiled build: their CPU seconds, or
// why a run failed.
PairedRuns Racer::time_program_pairs(const Workspace& ws, const run::RunResult& reference,
                                     const std::filesystem::path& profiled,
                                     const std::filesystem::path& base, std::size_t pairs,
                                     std::uint64_t seed, std::string& failure) {
  return take_pairs(pairs, seed, [&](bool is_profiled, std::size_t i) -> std::optional<double> {
    // A random environment size per run: the two builds' directory names differ in length.
    run::RunResult r =
        run_plain_once(ws, is_profiled ? profiled : base, mix(seed, 2 * i + is_profiled));
    run::Judgement j =
        run::judge_run(reference, r, run::CheckOptions{options_.check_output}, false);
    if (j.ok()) return r.process.cpu_seconds();
    failure = fmt::format("a run of the {} build failed: {}", is_profiled ? "changed" : "base",
                          j.message);
    return std::nullopt;
  });
}

// Progress: which look of the check runs, and how many runs it has of each build.
void Racer::report_look(const ProgramCheck& check, unsigned look,
                        const plans::ProgramCheckPolicy& policy, std::size_t pairs_so_far) {
  RaceProgress p;
  p.phase = fmt::format("checking the whole program: look {} of up to {}, {} runs each", look + 1,
                        policy.sequence.looks, plans::pairs_after_look(policy.sequence, look));
  p.loop_label = fmt::format("{} change(s)", check.changes.size());
  p.observations = pairs_so_far;
  report(p);
}

// The sequential check's looks, at the race's confidence and epsilon.
plans::ProgramCheckPolicy Racer::check_policy() const {
  plans::ProgramCheckPolicy policy;
  // --program-check 0 turns off the check of the profile, not the --try-flags trial's.
  policy.sequence.first_pairs = options_.program_check_runs > 0 ? options_.program_check_runs
                                                                : RaceOptions{}.program_check_runs;
  policy.sequence.confidence = options_.confidence;
  policy.epsilon = options_.plan.epsilon;
  policy.test = options_.confirm_test;
  return policy;
}

// With --check-run, the workspace runs that command and the base's first run of it is the
// output both builds must print; false when that run fails (`reference` says how).
bool Racer::check_run_setup(const std::filesystem::path& base, Workspace& ws,
                            run::RunResult& reference) {
  if (options_.check_run_command.empty()) return true;
  ws.run_command = options_.check_run_command;
  reference = run_plain_once(ws, base);
  return reference.process.succeeded();
}

// The check's looks: pairs of runs of the base and the profiled build, interleaved, until the
// policy's outcome is resolved, its looks run out, or the next look would pass
// --program-check-time (the first look is always taken).
ProgramCheck Racer::take_program_check(ProgramCheck check, const std::filesystem::path& profiled,
                                       const std::filesystem::path& base) {
  const plans::ProgramCheckPolicy policy = check_policy();
  const auto start = std::chrono::steady_clock::now();
  auto seconds_so_far = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  Workspace ws = ws_;
  run::RunResult reference = reference_;
  if (!check_run_setup(base, ws, reference)) {
    check.withdrawn = true;
    check.failure = "the base build fails the --check-run command: " + reference.process.describe();
    return check;
  }
  std::vector<double> a, b;
  plans::ProgramCheckOutcome outcome = plans::ProgramCheckOutcome::unresolved;
  stats::SpeedupTestResult test;
  for (unsigned look = 0; look < policy.sequence.looks; ++look) {
    const std::size_t wanted = plans::pairs_after_look(policy.sequence, look);
    const double per_pair = a.empty() ? 0 : seconds_so_far() / static_cast<double>(a.size());
    if (look > 0 && seconds_so_far() + per_pair * static_cast<double>(wanted - a.size()) >
                        options_.program_check_seconds)
      break;
    report_look(check, look, policy, a.size());
    std::string failure;
    PairedRuns pairs = time_program_pairs(ws, reference, profiled, base, wanted - a.size(),
                                          mix(options_.seed, 0x70726f67ULL + look), failure);
    if (pairs.failed) {
      check.withdrawn = true;
      check.failure = failure;
      return check;
    }
    a.insert(a.end(), pairs.a.begin(), pairs.a.end());
    b.insert(b.end(), pairs.b.begin(), pairs.b.end());
    outcome = plans::judge_look(policy, a, b, &test);
    check.looks = look + 1;
    if (outcome != plans::ProgramCheckOutcome::unresolved) break;
  }
  check.runs = a.size();
  check.confidence = test.confidence;
  check.estimate = stats::ratio_estimate_label(test);
  check.speedup = test.ratio_speedup;
  check.ci_low = test.speedup_interval.lower;
  check.ci_high = test.speedup_interval.upper;
  check.outcome = outcome;
  check.verdict = plans::program_check_outcome_name(outcome);
  check.withdrawn = !plans::keeps_changes(policy, outcome, test.speedup_interval);
  return check;
}

}  // namespace looprace::race::detail
