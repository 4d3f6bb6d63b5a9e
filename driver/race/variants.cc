#include "race/variants.h"

#include <fmt/format.h>

#include <algorithm>

#include "build/elf_code.h"
#include "run/runner.h"

namespace looprace::race::detail {
namespace {

// Whether a build compiled the sources of `loop_ids` with its settings: then its verify pass
// left a record of each.
bool compiled(const std::filesystem::path& verify, const std::vector<std::string>& loop_ids) {
  const auto records = build::read_verify_file(verify);
  return std::all_of(loop_ids.begin(), loop_ids.end(),
                     [&](const std::string& id) { return records.count(id) > 0; });
}

// A spec's unroll requests: the loops decided in earlier nest passes, and the controls at
// GCC's choice before them, so that a decision of theirs overrides it (later requests win)
// and their units leave verify records.
AppliedFactors with_controls(const AppliedFactors& applied,
                             const std::vector<std::string>& controls) {
  AppliedFactors unroll;
  for (const std::string& id : controls) unroll.emplace_back(id, 0);
  unroll.insert(unroll.end(), applied.begin(), applied.end());
  return unroll;
}

}  // namespace

std::filesystem::path VariantBuilder::controls_base(const VariantRequest& r) const {
  if (r.controls.empty()) return baseline_dir_;
  const std::filesystem::path dir = ws_.workdir / r.loop.id / "controls";
  const std::filesystem::path verify = dir.string() + ".verify.jsonl";
  build::VariantSpec spec;
  spec.unroll = with_controls(applied_, r.controls);
  spec.instrument = r.controls;
  spec.verify = verify;
  const build::BuildJob job =
      build_job(ws_, spec, dir, fmt::format("the controls of loop {}", r.label));
  for (bool incremental : {true, false}) {
    std::filesystem::remove(verify);
    if (!incremental || !build::prepare_incremental(dir, baseline_dir_, r.controls)) {
      incremental = false;
      build::prepare_fresh(dir);
    }
    const build::BuildResult result = ws_.executor->build({job}, 1).at(0);
    if (!result.ok())
      throw Error(fmt::format("the build that times loop {}'s controls failed: {}", r.label,
                              result.failure_message()));
    if (compiled(verify, r.controls)) return dir;
    if (!incremental) break;
  }
  throw Error(fmt::format(
      "the build did not compile the controls of loop {} with their settings (no verify record "
      "of each in {}): the build command must compile their sources with $LOOPRACE_CC",
      r.label, verify.string()));
}

std::vector<VariantBuild> VariantBuilder::run_builds(
    const VariantRequest& r, const std::vector<std::pair<int, unsigned>>& wanted, LoopVariants& out,
    std::vector<build::BuildResult>& results, const std::filesystem::path& from) const {
  const build::LoopRow& loop = r.loop;
  std::vector<VariantBuild> builds;
  std::vector<build::BuildJob> jobs;
  for (auto [f, j] : wanted) {
    VariantBuild b{f, j, build::variant_dir(ws_.workdir, loop.id, f, r.layout_seeds[j]), {}, false};
    b.verify = b.dir.string() + ".verify.jsonl";
    std::filesystem::remove(b.verify);
    build::VariantSpec spec;
    spec.unroll = with_controls(applied_, r.controls);
    spec.unroll.emplace_back(loop.id, f);
    spec.instrument = {r.observed};
    spec.instrument.insert(spec.instrument.end(), r.controls.begin(), r.controls.end());
    spec.verify = b.verify;  // the verify pass only observes: the code stays the same
    spec.layout_seed = r.layout_seeds[j];
    // Incremental: only the loop's translation unit is compiled again, so the padding moves
    // the loop's own functions, the ones that matter, and the build stays cheap.
    b.incremental = build::prepare_incremental(b.dir, from, {loop.id});
    if (!b.incremental) build::prepare_fresh(b.dir);
    jobs.push_back(build_job(ws_, spec, b.dir, fmt::format("factor {} of loop {}", f, r.label)));
    builds.push_back(std::move(b));
  }
  results = ws_.executor->build(jobs, ws_.jobs);
  // A build that did not compile the loop's source with the variant's settings left no verify
  // record of the loop (make kept a target up to date: a libtool .lo, a stamp): incremental
  // ones are built again from scratch, the others cannot be raced.
  std::vector<std::size_t> again;
  for (std::size_t i = 0; i < builds.size(); ++i) {
    if (results[i].ok() && !compiled(builds[i].verify, {loop.id}) && builds[i].incremental)
      again.push_back(i);
  }
  if (!again.empty()) {
    out.notes.push_back(fmt::format(
        "{} incremental variant build(s) did not recompile the loop's source (make kept its "
        "target up to date): built again from scratch",
        again.size()));
    std::vector<build::BuildJob> fresh_jobs;
    for (std::size_t i : again) {
      build::prepare_fresh(builds[i].dir);
      std::filesystem::remove(builds[i].verify);
      fresh_jobs.push_back(jobs[i]);
    }
    auto fresh = ws_.executor->build(fresh_jobs, ws_.jobs);
    for (std::size_t k = 0; k < again.size(); ++k) results[again[k]] = std::move(fresh[k]);
  }
  return builds;
}

std::map<int, std::string> VariantBuilder::record_builds(
    const VariantRequest& r, const std::vector<std::pair<int, unsigned>>& wanted, LoopVariants& out,
    const std::filesystem::path& from) const {
  const build::LoopRow& loop = r.loop;
  std::vector<build::BuildResult> results;
  const std::vector<VariantBuild> builds = run_builds(r, wanted, out, results, from);
  std::map<int, std::string> digests;
  for (std::size_t i = 0; i < builds.size(); ++i) {
    const VariantBuild& b = builds[i];
    const std::string at = b.layout == 0 ? "" : fmt::format(" at layout {}", b.layout);
    store::VariantRow v;
    v.loop_id = loop.id;
    v.factor = b.factor;
    v.layout = static_cast<int>(b.layout);
    if (!results[i].ok()) {
      if (b.factor == 0) {
        throw Error("the baseline variant (factor 0) does not build: " +
                    results[i].failure_message());
      }
      v.build_log = results[i].output_tail;
      out.failures[b.factor] =
          "build failed" + at + ": " + run::last_lines(results[i].output_tail, 3);
      out.rows[b.factor].push_back(std::move(v));
      continue;
    }
    const auto verify = build::read_verify_file(b.verify);
    const auto record = verify.find(loop.id);
    if (record == verify.end()) {
      std::string why = fmt::format(
          "the build did not compile the loop with this variant's settings (no verify record "
          "of it in {}): the build command must recompile {} with $LOOPRACE_CC every time",
          b.verify.string(), loop.file);
      if (b.factor == 0) throw Error("the baseline variant (factor 0): " + why);
      out.failures[b.factor] = why + at;
    } else {
      build::CodeIdentity code = build::code_identity(b.dir);
      if (code.empty()) {
        out.failures[b.factor] = fmt::format("no ELF program in {}{}", b.dir.string(), at);
      } else {
        v.built = true;
        v.code_hash = code.digest;
        digests[b.factor] = code.digest;
      }
      if (record->second.applied >= 0) v.applied = record->second.applied;  // -1: not in RTL
      v.how = record->second.how;
    }
    out.rows[b.factor].push_back(std::move(v));
  }
  return digests;
}

VariantGroups VariantBuilder::groups_of(const std::vector<int>& factors,
                                        const std::map<int, std::string>& digests,
                                        const std::map<int, std::string>& failures) const {
  std::vector<std::string> keys;
  for (int f : factors) {
    auto digest = digests.find(f);
    if (failures.count(f) || digest == digests.end())
      keys.emplace_back();
    else
      keys.push_back(keep_duplicates_ ? fmt::format("{}factor {}", digest->second, f)
                                      : digest->second);
  }
  return group_variants(factors, keys);
}

LoopVariants VariantBuilder::build(const VariantRequest& r) const {
  LoopVariants out;
  // Every factor at the first layout: which factors share code.
  std::vector<std::pair<int, unsigned>> first;
  for (int f : r.factors) first.emplace_back(f, 0u);
  const std::filesystem::path from = controls_base(r);
  const std::map<int, std::string> digests = record_builds(r, first, out, from);
  out.groups = groups_of(r.factors, digests, out.failures);
  // The other layouts for one factor of each code only: the padding depends on the seed and
  // the functions' names, so factors with equal code at one layout have it at every layout.
  std::vector<std::pair<int, unsigned>> rest;
  for (int f : out.groups.representatives)
    for (unsigned j = 1; j < r.layout_seeds.size(); ++j) rest.emplace_back(f, j);
  if (rest.empty()) return out;
  const std::map<int, std::string> before = out.failures;
  record_builds(r, rest, out, from);
  if (out.failures == before) return out;
  // A code that failed at another layout cannot be raced: its whole group goes.
  for (int f : r.factors) {
    const int representative = out.groups.group_of[static_cast<std::size_t>(f)];
    if (representative < 0 || representative == f || !out.failures.count(representative)) continue;
    out.failures[f] =
        fmt::format("same code as factor {} ({})", representative, out.failures.at(representative));
  }
  out.groups = groups_of(r.factors, digests, out.failures);
  return out;
}

}  // namespace looprace::race::detail
