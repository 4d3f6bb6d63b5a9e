// Replays plans over settings `looprace replay` does not grid (the retiring race's best_ratio)
// and breaks the results down by loop family (the name before the last '-', or the whole name
// for loops without one), for benchmarks/results/plans-improved.md.
//
// Build against a looprace build tree BUILD, from the repository root, in one line:
//   g++ -std=c++20 -O2 -I driver benchmarks/replay/plan_ablation.cc -o plan_ablation
//   BUILD/lib/liblooprace_plans.a BUILD/lib/liblooprace_stats.a -lfmt -lpthread
// Usage: plan_ablation CSV PLAN ALPHA_LT,.. ALPHA_EQ,.. BEST_RATIO,.. EPSILON CAP REPETITIONS
#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "plans/factory.h"
#include "plans/replay.h"

using namespace looprace::plans;

namespace {

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::stod(item));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::fprintf(stderr,
                 "usage: %s CSV PLAN ALPHA_LT,.. ALPHA_EQ,.. BEST_RATIO,.. EPSILON CAP "
                 "REPETITIONS\n",
                 argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  const Dataset data = read_dataset_csv(in, argv[1]);
  std::vector<std::unique_ptr<Plan>> owned;
  std::vector<const Plan*> plans;
  for (double ratio : numbers(argv[5]))
    for (double lt : numbers(argv[3]))
      for (double eq : numbers(argv[4])) {
        PlanOptions o = default_options(argv[2]);
        o.alpha_lt = lt;
        o.alpha_eq = eq;
        o.best_ratio = ratio;
        o.epsilon = std::stod(argv[6]);
        o.max_samples = std::stoul(argv[7]);
        owned.push_back(make_plan(o));
        plans.push_back(owned.back().get());
      }
  ReplayOptions options;
  options.repetitions = std::stoul(argv[8]);
  options.seed = 1;
  options.threads = 2;
  const auto results = replay_per_loop(plans, data, options);
  for (std::size_t p = 0; p < plans.size(); ++p) {
    // failure, geometric failure, samples, cap rate, loops
    std::map<std::string, std::array<double, 5>> families;
    for (const LoopReplay& loop : results[p]) {
      const auto dash = loop.loop.rfind('-');
      auto& f = families[dash == std::string::npos ? loop.loop : loop.loop.substr(0, dash)];
      f[0] += loop.failure_rate;
      f[1] += loop.failure_rate_geometric;
      f[2] += loop.mean_samples;
      f[3] += loop.cap_rate;
      f[4] += 1.0;
    }
    std::array<double, 5> all{};
    for (const auto& [name, f] : families)
      for (std::size_t i = 0; i < 5; ++i) all[i] += f[i];
    std::printf("%s: failure %.3f%%, geo %.3f%%, samples %.2f, cap %.2f%%\n",
                plans[p]->describe().c_str(), 100 * all[0] / all[4], 100 * all[1] / all[4],
                all[2] / all[4], 100 * all[3] / all[4]);
    for (const auto& [name, f] : families)
      std::printf("  %-18s failure %6.2f%%  geo %6.2f%%  samples %8.2f  cap %6.2f%%\n",
                  name.c_str(), 100 * f[0] / f[4], 100 * f[1] / f[4], f[2] / f[4],
                  100 * f[3] / f[4]);
  }
}
