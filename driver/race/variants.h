// Variant building for one loop's race: every factor built with the loop (or the loop
// observing it) and the race's controls instrumented and verified, rebuilt from scratch where an
// incremental build did not recompile the loop, then identified by code so that byte-identical
// factors race once; the race's other layouts are built for one factor of each code. Knows builds
// and code identity, nothing of the store, the plans or the runs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "build/builder.h"
#include "race/program.h"
#include "race/race.h"
#include "store/store.h"

namespace looprace::race::detail {

// One build of one factor (and layout) of a loop.
struct VariantBuild {
  int factor;
  unsigned layout;
  std::filesystem::path dir, verify;
  bool incremental = false;  // started from a copy of the baseline build
};

// What building a loop's variants gave.
struct LoopVariants {
  std::map<int, std::vector<store::VariantRow>> rows;  // per factor, one per layout
  VariantGroups groups;                                // the factors that built, by code
  std::map<int, std::string> failures;                 // factor -> why it is not raced
  std::vector<std::string> notes;                      // for the loop's summary
};

// The loop to build: its row, the loop each variant instruments (the loop itself or one
// around it) and the race's controls, timed too, its label in messages, the factors and the
// layout seeds.
struct VariantRequest {
  const build::LoopRow& loop;
  const std::string& observed;
  const std::vector<std::string>& controls;
  const std::string& label;
  const std::vector<int>& factors;
  const std::vector<std::optional<std::uint64_t>>& layout_seeds;
};

class VariantBuilder {
 public:
  // `baseline_dir`: the build incremental variants start from; `applied`: the loops decided in
  // earlier nest passes, set in every variant; `keep_duplicates`: byte-identical factors race
  // apart (--keep-duplicates).
  VariantBuilder(const Workspace& ws, const std::filesystem::path& baseline_dir,
                 const AppliedFactors& applied, bool keep_duplicates)
      : ws_(ws),
        baseline_dir_(baseline_dir),
        applied_(applied),
        keep_duplicates_(keep_duplicates) {}

  // Builds every factor at the first layout, groups the factors by code, and the other layouts
  // for one factor of each group; throws when factor 0 does not build or does not compile the
  // loop.
  LoopVariants build(const VariantRequest& request) const;

 private:
  // The build the variants start from: the baseline, or, with controls, a build from it whose
  // controls' units were compiled again to time them (at no layout of their own), so that each
  // variant compiles only the raced loop's unit again. Throws when it does not build or does
  // not compile the controls.
  std::filesystem::path controls_base(const VariantRequest& request) const;
  // The wanted (factor, layout) builds from a copy of `from`, again from scratch where an
  // incremental build did not recompile the loop's source; `results` in the order of the
  // returned builds.
  std::vector<VariantBuild> run_builds(const VariantRequest& request,
                                       const std::vector<std::pair<int, unsigned>>& wanted,
                                       LoopVariants& out, std::vector<build::BuildResult>& results,
                                       const std::filesystem::path& from) const;
  // Runs the wanted builds into out (rows, failures); the code digest of each factor built.
  std::map<int, std::string> record_builds(const VariantRequest& request,
                                           const std::vector<std::pair<int, unsigned>>& wanted,
                                           LoopVariants& out,
                                           const std::filesystem::path& from) const;
  // The factors grouped by digest, the failed ones left out (apart under --keep-duplicates).
  VariantGroups groups_of(const std::vector<int>& factors,
                          const std::map<int, std::string>& digests,
                          const std::map<int, std::string>& failures) const;
  const Workspace& ws_;
  const std::filesystem::path& baseline_dir_;
  const AppliedFactors& applied_;
  bool keep_duplicates_;
};

}  // namespace looprace::race::detail
