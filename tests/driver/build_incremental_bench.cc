// Wall time of an incremental variant build (copy of the baseline, the loop's objects deleted)
// against a fresh one, A and B interleaved, and whether both give the same code identity.
// Not a test: benchmarks/results/buildrun-incremental.md gives the command and its output.
//   build_incremental_bench WORKDIR SRCDIR BUILD_COMMAND FILE_SUFFIX PAIRS
#include "build/builder.h"
#include "build/elf_code.h"
#include "build/loop_table.h"
#include "build/toolchain.h"
#include "build/variant_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

using namespace looprace;

int bench(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: build_incremental_bench WORKDIR SRCDIR BUILD_COMMAND FILE_SUFFIX PAIRS\n";
    return 2;
  }
  const std::filesystem::path work = std::filesystem::absolute(argv[1]);
  const std::filesystem::path srcdir = std::filesystem::absolute(argv[2]);
  const std::string command = argv[3], suffix = argv[4];
  const int pairs = std::atoi(argv[5]);
  const build::Toolchain toolchain = build::find_toolchain();
  auto build_in = [&](const std::filesystem::path& dir, const build::VariantSpec& spec) {
    auto start = std::chrono::steady_clock::now();
    build::BuildResult result =
        build::run_build({dir.filename().string(),
                          command,
                          dir,
                          {},
                          build::build_environment(toolchain, spec, dir, srcdir),
                          std::chrono::minutes(10)});
    if (!result.ok()) throw build::Error(result.failure_message());
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  build::prepare_fresh(work / "baseline");
  build::VariantSpec baseline;
  baseline.table = work / "table.jsonl";
  build_in(work / "baseline", baseline);
  std::string loop;
  for (const auto& row : build::read_loop_table_dir(work / "baseline").rows) {
    if (row.file.ends_with(suffix) && row.depth == 1) {
      loop = row.id;
      std::cout << fmt::format("# loop {} {} ({})\n", row.id, row.location(), row.name);
      break;
    }
  }
  if (loop.empty()) throw build::Error("no loop in a file ending with " + suffix);

  std::cout << "pair factor mode seconds code\n";
  std::vector<double> ratios;
  for (int pair = 0; pair < pairs; ++pair) {
    int factor = 2 + pair % 15;
    build::VariantSpec spec;
    spec.unroll = {{loop, factor}};
    spec.instrument = {loop};
    double seconds[2];
    std::string digest[2];
    // Alternate which mode goes first so that slow drift hits both alike.
    for (int k = 0; k < 2; ++k) {
      bool incremental = (pair + k) % 2 == 0;
      auto dir = work / (incremental ? "incremental" : "fresh");
      if (!incremental || !build::prepare_incremental(dir, work / "baseline", {loop})) {
        if (incremental) throw build::Error("no object of the baseline holds the loop");
        build::prepare_fresh(dir);
      }
      seconds[incremental] = build_in(dir, spec);
      digest[incremental] = build::code_identity(dir).digest;
      std::cout << fmt::format("{} {} {} {:.3f} {}\n", pair, factor,
                               incremental ? "incremental" : "fresh", seconds[incremental],
                               digest[incremental]);
    }
    if (digest[0] != digest[1]) throw build::Error("incremental and fresh builds differ");
    ratios.push_back(seconds[1] / seconds[0]);
  }
  std::sort(ratios.begin(), ratios.end());
  std::cout << fmt::format(
      "# median incremental/fresh wall-time ratio {:.3f} (min {:.3f}, max "
      "{:.3f}) over {} pairs; code identical in every pair\n",
      ratios[ratios.size() / 2], ratios.front(), ratios.back(), ratios.size());
  return 0;
}

int main(int argc, char** argv) {
  try {
    return bench(argc, argv);
  } catch (const std::exception& error) {
    std::cerr << "build_incremental_bench: " << error.what() << "\n";
    return 1;
  }
}
