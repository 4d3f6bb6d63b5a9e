// `looprace race`: the main job. Options map onto race::RaceOptions; the engine is driver/race.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "build/toolchain.h"
#include "cli/commands.h"
#include "cli/progress_line.h"
#include "cluster/sharded_race.h"
#include "cluster/slurm.h"
#include "looprace_version.h"
#include "race/race.h"
#include "report/text.h"

namespace looprace::cli {
namespace {

// Where a race runs: here, or sharded over a Slurm cluster.
struct ClusterOptions {
  bool slurm = false;
  std::vector<std::string> sbatch_args;
  unsigned per_task = 1;
  std::filesystem::path shards;
  bool mixed_nodes = false;
};

// The options that choose loops or name this race's own files, and those of the cluster: a
// task gets every other argument of the command line, and its own loops and files.
const std::set<std::string> kNotForTasks = {"--loop",
                                            "--hot",
                                            "--coverage",
                                            "--budget",
                                            "--nest-passes",
                                            "--program-check",
                                            "--program-check-time",
                                            "--check-run",
                                            "--min-share",
                                            "--store",
                                            "--profile",
                                            "--workdir",
                                            "--sbatch-arg",
                                            "--per-task",
                                            "--shards",
                                            "--reuse-baseline",
                                            "--save-baseline"};
const std::set<std::string> kFlagsNotForTasks = {"--slurm", "--mixed-nodes", "--together",
                                                 "--force"};

// The `looprace race` arguments each task of a sharded race gets.
std::vector<std::string> task_arguments(const std::vector<std::string>& command_line) {
  std::vector<std::string> args;
  for (std::size_t i = 2; i < command_line.size(); ++i) {  // after "looprace race"
    const std::string& arg = command_line[i];
    const std::string name = arg.substr(0, arg.find('='));
    if (kFlagsNotForTasks.count(name)) continue;
    if (kNotForTasks.count(name)) {
      if (name == arg) ++i;  // its value is the next argument
      continue;
    }
    args.push_back(arg);
  }
  // A task's loops are a part of the profile: the whole program is not its to check.
  args.insert(args.end(), {"--program-check", "0"});
  return args;
}

// Races over Slurm, showing where the tasks stand.
race::RaceSummary race_on_slurm(const race::RaceOptions& race, const ClusterOptions& cluster,
                                ProgressLine& progress) {
  cluster::ShardedRaceOptions o;
  o.race = race;
  o.task_arguments = task_arguments(command_line());
  o.looprace = build::current_executable();
  o.scheduler_args = cluster.sbatch_args;
  o.loops_per_task = cluster.per_task;
  o.shards = cluster.shards;
  o.mixed_nodes = cluster.mixed_nodes;
  cluster::Slurm slurm;
  return cluster::run_sharded_race(
      o, slurm, [&](const race::RaceProgress& p) { progress.update(p); },
      [&](const cluster::ShardProgress& p) {
        std::fprintf(stderr,
                     "\rslurm job %s: %zu loop(s): %zu decided, %zu running%s%s, %zu queued, %zu "
                     "failed   ",
                     p.job.c_str(), p.loops, p.decided, p.running, p.nodes.empty() ? "" : " on ",
                     fmt::format("{}", fmt::join(p.nodes, ",")).c_str(), p.queued, p.failed);
      });
}

std::string describe_speedup(const plans::LoopDecision& d) {
  const plans::SpeedupEvidence& evidence = d.speedup;
  if (evidence.source == plans::SpeedupSource::kSameCode) {
    return "the chosen code is GCC's default (factor 0)";
  }
  const auto s = plans::speedup_of(evidence);
  if (!s) return "verdict: needs-more-runs — fewer than 2 runs of factor 0 or the chosen factor";
  return fmt::format(
      "{}speedup {:.3f} ({}, CI {:.3f}..{:.3f} at {}%), median {:.3f}; {} and {} "
      "runs, verdict: {} — {}",
      d.unconfirmed
          ? fmt::format("GCC's default kept; factor {} (the plan's choice): ", *d.unconfirmed)
          : "",
      s->ratio_speedup, stats::ratio_estimate_label(*s), s->speedup_interval.lower,
      s->speedup_interval.upper, stats::percent_text(s->confidence), s->median_speedup,
      s->baseline_n, s->candidate_n, stats::verdict_name(s->ratio_verdict), s->ratio_explanation);
}

// The machine line and its warnings: what the timings below were taken on.
void print_machine(const race::RaceSummary& summary) {
  const run::MachineFacts& m = summary.facts;
  std::printf("\nmachine: %s, %u CPUs, %s", m.cpu_model.c_str(), m.cores, m.compiler.c_str());
  if (summary.tsc_hz) std::printf(", TSC %.3f GHz", *summary.tsc_hz / 1e9);
  if (summary.probe_cycles) std::printf(", empty probe %.0f cycles", *summary.probe_cycles);
  if (m.pinned_cpu) std::printf(", runs pinned to CPU %d", *m.pinned_cpu);
  std::printf("; one baseline run %.3f s\n\n", summary.baseline_seconds);
  if (!summary.facts.warnings.empty()) {
    for (const auto& w : summary.facts.warnings) std::printf("warning: %s\n", w.c_str());
    std::printf("\n");
  }
}

// Loop `k` of `count`: where it is, the factor chosen among the winners, the samples, the
// speedup over factor 0, and how it was decided (earlier, resumed) with the race's notes.
void print_loop(std::size_t k, std::size_t count, const race::LoopOutcome& o) {
  const auto& d = o.decision;
  std::string hot =
      o.hotness_share
          ? fmt::format("  ({})", report::hotness_text(*o.hotness_share, o.hotness_share_is_bound))
          : "";
  std::printf("loop %zu/%zu  %s  %s  %s%s\n", k, count, o.loop.id.c_str(),
              o.loop.location().c_str(), o.loop.name.c_str(), hot.c_str());
  std::vector<std::string> samples;
  for (const auto& [factor, n] : d.samples) samples.push_back(fmt::format("{}:{}", factor, n));
  std::printf("  chosen factor %d   winners {%s}%s\n", d.chosen,
              fmt::format("{}", fmt::join(d.winners, ",")).c_str(),
              d.cap_hit ? "   (sample cap hit: the winners could not be told apart)" : "");
  std::printf("  samples per raced factor  %s\n",
              fmt::format("{}", fmt::join(samples, " ")).c_str());
  if (const std::size_t aside = d.rounds_set_aside())
    std::printf(
        "  %zu of %zu rounds set aside: the machine ran them slower as a whole than "
        "--round-limit allows\n",
        aside, d.rounds.size());
  std::printf("  vs factor 0: %s\n", describe_speedup(d).c_str());
  if (std::string base = o.loop.features.value("base", ""); !base.empty()) {
    std::printf("  base: %s (factor 0 is what GCC does with these flags)\n", base.c_str());
  }
  if (o.decided_earlier) {
    std::printf("  (decided by an earlier run of this command; nothing was run)\n");
  } else if (o.replayed > 0) {
    std::printf("  resumed: %zu observations from the store, %zu new\n", o.replayed, o.measured);
  }
  for (const auto& n : o.notes) std::printf("  note: %s\n", n.c_str());
}

// The whole-program check of the profile's changes, when one ran: its speedup, or why the
// changes were withdrawn.
void print_program_check(const std::optional<race::ProgramCheck>& c) {
  if (c && !c->failure.empty()) {
    std::printf("\nwhole program with the profile's %zu change(s): %s; the changes are withdrawn\n",
                c->changes.size(), c->failure.c_str());
  } else if (c) {
    std::printf(
        "\nwhole program with the profile's %zu change(s) vs without, %zu interleaved runs each "
        "in %u look(s) (CPU time%s): %s%s\n",
        c->changes.size(), c->runs, c->looks, c->from_store ? ", taken by an earlier run" : "",
        race::check_figures(*c).c_str(),
        c->withdrawn ? "; the changes are withdrawn: the profile keeps GCC's choice for every loop"
                     : "");
  }
}

// Whether the race built with --try-flags, and what that rests on.
void print_flags_trial(const std::optional<race::FlagsTrial>& t) {
  if (!t) return;
  const std::string flags = profile::join_flags(t->flags);
  std::printf("--try-flags %s: %s", flags.c_str(), t->adopted ? "adopted" : "not adopted");
  if (t->from_store) {
    std::printf(", as this store's first race decided\n");
  } else if (!t->check->failure.empty()) {
    std::printf(": %s\n", t->check->failure.c_str());
  } else {
    std::printf(
        ": the program built as you would with them vs without, %zu runs each (CPU time): "
        "%s\n",
        t->check->runs, race::check_figures(*t->check).c_str());
  }
  if (t->adopted)
    std::printf("  the decisions are for builds with %s; the profile asks for them\n",
                flags.c_str());
}

// What a race prints when it ends: the machine, each loop's decision, the whole-program check,
// and where the profile and the store are.
void print_summary(const race::RaceSummary& summary) {
  print_machine(summary);
  print_flags_trial(summary.flags_trial);
  for (std::size_t k = 0; k < summary.loops.size(); ++k)
    print_loop(k + 1, summary.loops.size(), summary.loops[k]);
  print_program_check(summary.program_check);
  std::printf("\nprofile: %s\nstore:   %s\n", summary.profile.c_str(), summary.store.c_str());
  std::printf("elapsed: %.1f s\n", summary.elapsed_seconds);
  std::printf("apply with: looprace apply --profile %s\n", summary.profile.c_str());
}

// --build and --run: how a variant is built and how the program runs.
void add_build_run_options(CLI::App* cmd, race::RaceOptions* options) {
  cmd->add_option(
         "--build", options->build_command,
         "Build command, run in the variant's directory $LOOPRACE_OUTDIR (the sources are in "
         "$LOOPRACE_SRCDIR, where looprace started); names the compiler as $LOOPRACE_CC "
         "(or adds $LOOPRACE_CFLAGS and $LOOPRACE_LDFLAGS) and puts the program in "
         "$LOOPRACE_OUTDIR")
      ->required();
  cmd->add_option("--run", options->run_command,
                  "Run command, e.g. '$LOOPRACE_OUTDIR/prog input.txt'; runs in the current "
                  "directory, its stdout and exit status must not depend on the factor")
      ->required();
}

// Which loops race: named ones, the hottest by count, share or coverage, the time they may
// take, and the passes over nests.
void add_selection_options(CLI::App* cmd, race::RaceOptions* options) {
  cmd->add_option("--loop", options->loops,
                  "Race this loop (16-hex-digit id or file:line:col); repeatable");
  cmd->add_option(
         "--hot", options->hot,
         "Race the N hottest innermost loops without calls (measured); without --loop, --hot "
         "and --coverage: --coverage 0.95 with at most 10 loops")
      ->check(CLI::Range(1u, 100000u));
  cmd->add_option("--min-share", options->min_share,
                  "--hot takes only loops with at least this share of the program's cycles")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--coverage", options->coverage,
                  "Race the hottest candidate loops until they hold this part of the time of all "
                  "candidate loops (innermost, no calls after inlining), e.g. 0.95; with --hot, "
                  "at most that many")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--budget", options->budget_seconds,
                  "Time for the hot loops' races (e.g. 600, 10m, 1h): each loop's observation "
                  "cap is its part of the budget by its share of the program, so a cold loop "
                  "does not get the runs of a hot one")
      ->transform(
          CLI::AsNumberWithUnit(std::map<std::string, double>{{"s", 1}, {"m", 60}, {"h", 3600}},
                                CLI::AsNumberWithUnit::CASE_SENSITIVE))
      ->check(CLI::PositiveNumber);
  cmd->add_option(
         "--nest-passes", options->nest_passes,
         "After the hot loops are decided, up to N - 1 more passes race the loops that "
         "became innermost once the loops inside them were unrolled as decided (an 8x8 "
         "nest whose inner loop is unrolled completely); they share --budget with the first")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
}

// When a decision stands: the whole-program check and the preference for GCC's choice.
void add_decision_options(CLI::App* cmd, race::RaceOptions* options) {
  cmd->add_option("--program-check", options->program_check_runs,
                  "Before a profile that changes GCC's choice stands, time the plain program "
                  "built with all its changes against the plain base build, N interleaved runs "
                  "each (CPU time), then twice as many while the interval neither shows it "
                  "faster or slower nor lies within 1 +- --epsilon (up to 32 N); a profile that "
                  "makes it slower, or that the check does not show at most --epsilon slower "
                  "within --program-check-time, is withdrawn (0: no check)")
      ->capture_default_str();
  cmd->add_option("--check-run", options->check_run_command,
                  "Run command the whole-program check and --try-flags time, when --run's "
                  "input is smaller than the program's real use (default: --run): a loop's "
                  "race needs many short runs, a decision about the whole program a run like "
                  "the real one");
  cmd->add_option("--program-check-time", options->program_check_seconds,
                  "Seconds the whole-program check may take: no further look starts that "
                  "would end after them (the first N runs are always taken)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--try-flags", options->try_flags,
                  "Flags to try on top of the build's own before racing, e.g. -funroll-loops: "
                  "the plain program built with them is timed against the plain base as the "
                  "whole-program check times a profile; if it is faster, every build of the race "
                  "adds them (factor 0 is then what GCC does with them) and the profile asks for "
                  "them (looprace apply prints them). -f and -m options and --param only")
      ->delimiter(' ')
      ->check(CLI::Validator(
          [](std::string& flag) -> std::string {
            if (flag.rfind("-f", 0) == 0 || flag.rfind("-m", 0) == 0 ||
                flag.rfind("--param", 0) == 0)
              return "";
            return "'" + flag +
                   "' is not an -f or -m option or --param (an -O level in "
                   "the build command would override one given here)";
          },
          "", "compiler flag"))
      ->type_name("FLAG");
  cmd->add_flag("--prefer-default,!--no-prefer-default", options->prefer_default,
                "Keep GCC's choice (factor 0) unless the confirmation runs show the chosen factor "
                "faster by more than --epsilon, whether or not factor 0 survived the race")
      ->default_val(true);
}

// How the factors race: together or loop by loop, with or without duplicate code, how many
// builds at once, and which factors. Returns --together, which --layouts excludes.
CLI::Option* add_racing_options(CLI::App* cmd, race::RaceOptions* options) {
  auto* together = cmd->add_flag(
      "--together", options->together,
      "Race the chosen loops in the same runs: joint builds give every loop one of its "
      "factors, so one run observes all of them (each loop's variants are still built, "
      "verified and warmed up alone first)");
  cmd->add_flag("--keep-duplicates", options->keep_duplicates,
                "Race every factor on its own observations even when its code is byte-identical "
                "to another factor's, as the paper's experiments did (a baseline to measure "
                "deduplication against; it only costs runs)");
  cmd->add_option("--jobs,-j", options->jobs, "Variant builds run in parallel")
      ->default_val(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)))
      ->check(CLI::Range(1u, 4096u));
  cmd->add_option("--factors", options->factors,
                  "Factors to race (default 0..16; 0 = GCC's choice, always raced)")
      ->check(CLI::Range(0, 16))
      ->delimiter(',');
  return together;
}

// The sampling plan and its statistical settings (defaults filled in by resolve_plan_options).
void add_plan_options(CLI::App* cmd, race::RaceOptions* options) {
  options->plan.name = plans::default_plan_name();
  cmd->add_option("--plan", options->plan.name,
                  "Sampling plan (blocked-race: the race on per-round ratios, each round "
                  "observing every survivor)")
      ->check(CLI::IsMember(plans::plan_names()))
      ->capture_default_str();
  cmd->add_option("--alpha-lt", options->plan.alpha_lt,
                  "Level of the one-sided tests that eliminate slower factors (default: the "
                  "plan's, from replay: 0.05 over the whole race under familywise control, "
                  "0.02 per comparison)");
  cmd->add_option("--alpha-eq", options->plan.alpha_eq,
                  "1 - confidence of the intervals that decide equivalence; for the retiring "
                  "races the level of the one-sided bound of each difference to the best "
                  "(default: the plan's, from replay: 0.05; per comparison retiring-race 0.03, "
                  "blocked-retiring-race 0.001)");
  cmd->add_option("--best-ratio", options->plan.best_ratio,
                  "retiring-race: before deciding, the best is observed alone until it has this "
                  "many times the observations of every retired factor")
      ->capture_default_str();
  cmd->add_option("--test", options->plan.test,
                  "The location the race compares on log cycles: welch (means; the blocked "
                  "races' paired t-test) or yuen (20 % trimmed means; of the blocked races' "
                  "per-round differences)")
      ->transform(one_of(plans::location_test_names()))
      ->option_text("welch|yuen (default " + plans::to_string(options->plan.test) + ")");
  cmd->add_option("--error-control", options->plan.control,
                  "What --alpha-lt and --alpha-eq bound: per-comparison (each test, the "
                  "paper's) or familywise (every comparison over all factors and rounds)")
      ->transform(one_of(plans::error_control_names()))
      ->option_text("per-comparison|familywise (default: familywise for race and blocked-race)");
  cmd->add_option("--epsilon", options->plan.epsilon,
                  "Worst-case speedup below 1+epsilon counts as equal")
      ->capture_default_str();
  cmd->add_option("--round-limit", options->plan.round_limit,
                  "Blocked races: set aside a round whose factors ran, by their median, more "
                  "than this many times slower than their own fastest tenth of rounds (the "
                  "machine was busy, not the code); 0 counts every round")
      ->capture_default_str();
  cmd->add_option("--indifference", options->indifference,
                  "What --epsilon is a part of, in the race's test of equal factors and in the "
                  "confirmation of a change: loop (each loop's own time, the paper's) or "
                  "program (a loop holding a share s of the program's time is equal within "
                  "epsilon / s of its own, and a change needs a confirmed gain above that: the "
                  "factors of a cold loop stop racing once the program could not tell them apart)")
      ->transform(one_of(std::map<std::string, race::Indifference>{
          {"loop", race::Indifference::loop}, {"program", race::Indifference::program}}))
      ->option_text("loop|program (default loop)");
  cmd->add_option("--max-samples", options->plan.max_samples, "Cap on observations per factor")
      ->capture_default_str();
  cmd->add_option("--constant-size", options->plan.constant_size,
                  "Observations per factor of the constant plan (brute force)")
      ->capture_default_str();
}

// How runs are made and checked: confirmation, warm-up and hotness runs, time limits, output
// checks, pinning, what one observation is, and layout randomization.
void add_run_options(CLI::App* cmd, race::RaceOptions* options, CLI::Option* together) {
  cmd->add_option(
         "--confirm", options->confirm,
         "Observations of the chosen factor and of factor 0 in the first look of the "
         "Speedup-Test that confirms a change (fresh interleaved runs after the race: the race's "
         "own observations chose the factor and would flatter it; 0: only the race's)")
      ->capture_default_str();
  cmd->add_option("--confirm-looks", options->confirm_looks,
                  "Looks of doubling size the confirmation may take while its interval "
                  "straddles 1 + --epsilon (--confirm, then twice as many, ...), the error rate "
                  "shared among them")
      ->capture_default_str()
      ->check(CLI::Range(1u, 8u));
  cmd->add_option("--confirm-test", options->confirm_test,
                  "The test of the speedup of the confirmation's pairs and of the whole-program "
                  "check's: paired-trimmed (20 % trimmed mean of the pairs' log ratios: runs "
                  "other work disturbed are trimmed, and load both runs of a pair saw cancels) "
                  "or welch (Welch's test on log times, the Speedup-Test's)")
      ->transform(one_of(stats::ratio_test_names()))
      ->option_text("paired-trimmed|welch (default paired-trimmed)");
  cmd->add_option("--confirm-layouts", options->confirm_layouts,
                  "Code layouts of their own the first look's confirmation pairs take in turn "
                  "(factor 0 and the chosen factor built at fresh paddings; its paired-trimmed "
                  "test then counts layouts, not pairs, so a gain of the race's few layouts is "
                  "not taken for the code's); each further look adds as many new layouts as "
                  "it has; 0 or 1: the race's builds")
      ->capture_default_str()
      ->check(CLI::Range(0u, 32u));
  cmd->add_option("--warmup", options->warmup, "Discarded runs per variant before the race")
      ->capture_default_str();
  cmd->add_option("--hotness-runs", options->hotness_runs,
                  "Runs of the all-instrumented build that rank the loops")
      ->capture_default_str();
  cmd->add_option("--timeout", options->timeout_seconds,
                  "Seconds a run may take before it is killed and its variant disqualified "
                  "(default: 20 x the baseline's run, at least 10; 300 for the baseline's own)")
      ->check(positive_seconds());
  cmd->add_option("--build-timeout", options->build_timeout_seconds,
                  "Seconds a build may take before it is killed (default: 10 x the baseline's "
                  "build, at least 120; 1800 for the baseline's own)")
      ->check(positive_seconds());
  cmd->add_flag("--check-output,!--no-check-output", options->check_output,
                "Disqualify variants whose stdout or exit status differ from the baseline's")
      ->default_val(true);
  cmd->add_option("--check-file", options->check_files,
                  "A file the run writes (relative to the current directory) that must equal "
                  "the baseline's; repeatable");
  cmd->add_option("--pin", options->pin_cpu, "Pin every run to this CPU");
  add_observation_option(cmd, &options->observation);
  cmd->add_option_function<std::vector<std::string>>(
         "--controls",
         [options](const std::vector<std::string>& words) {
           options->controls = {};
           for (const std::string& word : words) {
             if (word == "auto") {
               options->controls.automatic = true;
             } else if (word == "none") {
               if (words.size() > 1)
                 throw CLI::ValidationError("--controls", "none takes no other word beside it");
             } else {
               options->controls.loops.push_back(word);
             }
           }
         },
         "Loops timed in the same runs as the raced one, which no factor changes, whose cycles "
         "adjust each observation for how fast the machine ran that run (a slope fitted within "
         "versions as the race goes; --test welch): auto (per raced loop: hot loops of other "
         "functions that hold no other code, in other translation units or defined before the "
         "raced function), loop ids or file:line:col, both, or none (the default)")
      ->delimiter(',')
      ->type_name("auto|none|LOOP,...")
      ->excludes(together);
  cmd->add_option("--layouts", options->layouts,
                  "Builds per code, each with its own random function padding, taken in turn "
                  "by the rounds, so that no code layout decides (1: the build as it comes; "
                  "every run also pads its environment by a random size; --together: 1)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 64u))
      ->excludes(together);
}

// The race's files (store, profile, build directory), its seed, and --force.
void add_output_options(CLI::App* cmd, race::RaceOptions* options) {
  cmd->add_option("--store", options->store, "SQLite store of every observation")
      ->capture_default_str();
  cmd->add_option("--profile", options->profile, "Profile to write (other loops' entries kept)")
      ->capture_default_str();
  cmd->add_option("--workdir", options->workdir,
                  "Where the variants are built (default: ~/.cache/looprace/<hash of this "
                  "directory>, outside the sources)");
  cmd->add_option("--seed", options->seed, "Seed of the run order and layouts")
      ->capture_default_str();
  cmd->add_flag("--force", options->force, "Use a store of another program or machine anyway");
  // Hidden: how a sharded race's tasks take the baseline the submitting command built (and
  // how a test records one without a cluster).
  cmd->add_option("--reuse-baseline", options->reuse_baseline,
                  "The baseline another command recorded, used when it is what this command "
                  "would build")
      ->group("");
  cmd->add_option("--save-baseline", options->save_baseline,
                  "Where to record this command's baseline for --reuse-baseline")
      ->group("");
}

// --slurm and the options that only mean something with it.
void add_cluster_options(CLI::App* cmd, ClusterOptions* cluster) {
  auto* slurm = cmd->add_flag("--slurm", cluster->slurm,
                              "Race on a Slurm cluster: one job array task per loop (or per "
                              "--per-task loops), each into its own store, merged here");
  cmd->add_option("--sbatch-arg", cluster->sbatch_args,
                  "An sbatch argument for the tasks, as --sbatch-arg=--exclusive or "
                  "--sbatch-arg=--constraint=skylake; repeatable")
      ->needs(slurm);
  cmd->add_option("--per-task", cluster->per_task, "Loops per Slurm task")
      ->check(CLI::Range(1u, 1000u))
      ->needs(slurm);
  cmd->add_option("--shards", cluster->shards,
                  "Where the tasks' stores, scripts and outputs go (default: <store>.shards; on a "
                  "file system every node shares)")
      ->needs(slurm);
  cmd->add_flag("--mixed-nodes", cluster->mixed_nodes,
                "Merge tasks raced on different kinds of machine (CPU model, compiler) anyway")
      ->needs(slurm);
}

// The examples --help shows after the options.
const char* const kRaceExamples = R"txt(Examples:
  # race the 3 hottest loops of a make project (builds run in $LOOPRACE_OUTDIR)
  looprace race --build 'make -B -C "$LOOPRACE_SRCDIR" CC="$LOOPRACE_CC" OUT="$LOOPRACE_OUTDIR"' \
                --run '$LOOPRACE_OUTDIR/prog input.dat' --hot 3
  # one loop, only a few factors, tighter statistics
  looprace race --build 'gcc -O2 $LOOPRACE_CFLAGS -o fir "$LOOPRACE_SRCDIR/fir.c" $LOOPRACE_LDFLAGS' \
                --run '$LOOPRACE_OUTDIR/fir' --loop fir.c:42:19 --factors 0,1,2,4,8 --alpha-lt 0.01
  # the 4 hottest loops in the same runs (about 4 times fewer runs than one after the other)
  looprace race --build 'make -B -C "$LOOPRACE_SRCDIR" CC="$LOOPRACE_CC" OUT="$LOOPRACE_OUTDIR"' \
                --run '$LOOPRACE_OUTDIR/prog input.dat' --hot 4 --together
  # the 20 hottest loops on a Slurm cluster, one exclusive node per loop
  looprace race --build '...' --run '...' --hot 20 --slurm --sbatch-arg=--exclusive
Running the same command again resumes an interrupted race from the store (with --slurm:
resubmits only the tasks whose loops lack a decision).)txt";

// Alpha levels not given on the command line are the chosen plan's own (from replay); a plan's
// bad options fail here, before any build.
void resolve_plan_options(plans::PlanOptions& plan, const CLI::App& cmd) {
  const bool control_given = cmd.count("--error-control") > 0;
  const plans::PlanOptions defaults =
      plans::default_options(plan.name, control_given ? std::optional(plan.control) : std::nullopt);
  plan.control = defaults.control;
  if (cmd.count("--alpha-lt") == 0) plan.alpha_lt = defaults.alpha_lt;
  if (cmd.count("--alpha-eq") == 0) plan.alpha_eq = defaults.alpha_eq;
  plans::make_plan(plan);
}

// A Slurm race gives each task its own loops: the options that race loops on one machine
// cannot go with it.
void check_cluster_options(const race::RaceOptions& options, const CLI::App& cmd,
                           const ClusterOptions& cluster) {
  if (cluster.slurm &&
      (options.budget_seconds || options.together || cmd.count("--nest-passes") > 0 ||
       options.indifference == race::Indifference::program))
    throw CLI::ValidationError(
        "--slurm",
        "--budget, --together, --nest-passes and --indifference program race on one "
        "machine (they take every loop's share of the program as this machine "
        "measured it)");
  if (cluster.slurm && !options.try_flags.empty())
    throw CLI::ValidationError("--slurm",
                               "--try-flags decides on one machine: race with the flags in the "
                               "build command instead");
}

// What `looprace race` does once its options are parsed: completes and checks them, races
// here or on Slurm with a progress line, and prints the summary.
void run_race_command(race::RaceOptions& options, const CLI::App& cmd,
                      const ClusterOptions& cluster) {
  resolve_plan_options(options.plan, cmd);
  options.looprace_version = kVersion;
  options.command_line =
      "looprace race --build " + options.build_command + " --run " + options.run_command;
  ProgressLine progress(stderr);
  check_cluster_options(options, cmd, cluster);
  race::RaceSummary summary =
      cluster.slurm
          ? race_on_slurm(options, cluster, progress)
          : race::run_race(options, [&](const race::RaceProgress& p) { progress.update(p); });
  progress.finish();
  print_summary(summary);
}

}  // namespace

// Registers `looprace race`: its options in groups (the order --help lists them), its examples,
// and what it runs.
void add_race_command(CLI::App& app) {
  auto options = std::make_shared<race::RaceOptions>();
  auto cluster = std::make_shared<ClusterOptions>();
  auto* cmd = app.add_subcommand(
      "race", "Race the unroll factors 0..16 of the hottest (or named) loops and write a profile");
  add_build_run_options(cmd, options.get());
  add_selection_options(cmd, options.get());
  add_decision_options(cmd, options.get());
  CLI::Option* together = add_racing_options(cmd, options.get());
  add_plan_options(cmd, options.get());
  add_run_options(cmd, options.get(), together);
  add_output_options(cmd, options.get());
  add_cluster_options(cmd, cluster.get());
  cmd->footer(kRaceExamples);
  cmd->callback([options, cmd, cluster] { run_race_command(*options, *cmd, *cluster); });
}

}  // namespace looprace::cli
