#include "race/variants.h"

#include <fmt/format.h>

#include "build/elf_code.h"
#include "run/runner.h"

namespace looprace::race::detail {
namespace {

// Whether the build compiled the loop's source with the variant's settings: then the verify
// pass left a record of the loop.
bool compiled(const VariantBuild& b, const std::string& loop_id) {
  return build::read_verify_file(b.verify).count(loop_id) > 0;
}

}  // namespace

std::vector<VariantBuild> VariantBuilder::run_builds(
    const VariantRequest& r, LoopVariants& out, std::vector<build::BuildResult>& results) const {
  const build::LoopRow& loop = r.loop;
  const unsigned layouts = static_cast<unsigned>(r.layout_seeds.size());
  std::vector<VariantBuild> builds;
  std::vector<build::BuildJob> jobs;
  for (int f : r.factors) {
    for (unsigned j = 0; j < layouts; ++j) {
      VariantBuild b{
          f, j, build::variant_dir(ws_.workdir, loop.id, f, r.layout_seeds[j]), {}, false};
      b.verify = b.dir.string() + ".verify.jsonl";
      std::filesystem::remove(b.verify);
      build::VariantSpec spec;
      spec.unroll = applied_;  // the loops decided in earlier nest passes
      spec.unroll.emplace_back(loop.id, f);
      spec.instrument = {r.observed};
      spec.verify = b.verify;  // the verify pass only observes: the code stays the same
      spec.layout_seed = r.layout_seeds[j];
      // Incremental: only the loop's translation unit is compiled again, so the padding moves
      // the loop's own functions, the ones that matter, and the build stays cheap.
      b.incremental = build::prepare_incremental(b.dir, baseline_dir_, {loop.id});
      if (!b.incremental) build::prepare_fresh(b.dir);
      jobs.push_back(build_job(ws_, spec, b.dir, fmt::format("factor {} of loop {}", f, r.label)));
      builds.push_back(std::move(b));
    }
  }
  results = ws_.executor->build(jobs, ws_.jobs);
  // A build that did not compile the loop's source with the variant's settings left no verify
  // record of the loop (make kept a target up to date: a libtool .lo, a stamp): incremental
  // ones are built again from scratch, the others cannot be raced.
  std::vector<std::size_t> again;
  for (std::size_t i = 0; i < builds.size(); ++i) {
    if (results[i].ok() && !compiled(builds[i], loop.id) && builds[i].incremental)
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

LoopVariants VariantBuilder::build(const VariantRequest& r) const {
  const build::LoopRow& loop = r.loop;
  const std::vector<int>& factors = r.factors;
  LoopVariants out;
  std::vector<build::BuildResult> results;
  const std::vector<VariantBuild> builds = run_builds(r, out, results);
  // Code identity and verified factor of every factor (over all its layout builds).
  std::map<int, std::string> keys;
  std::map<int, std::vector<store::VariantRow>>& rows = out.rows;
  for (std::size_t i = 0; i < builds.size(); ++i) {
    const VariantBuild& b = builds[i];
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
      out.failures[b.factor] = "build failed: " + run::last_lines(results[i].output_tail, 3);
      rows[b.factor].push_back(std::move(v));
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
      out.failures[b.factor] = why;
    } else {
      build::CodeIdentity code = build::code_identity(b.dir);
      if (code.empty()) {
        out.failures[b.factor] = fmt::format("no ELF program in {}", b.dir.string());
      } else {
        v.built = true;
        v.code_hash = code.digest;
        keys[b.factor] += code.digest + ";";
      }
      if (record->second.applied >= 0) v.applied = record->second.applied;  // -1: not in RTL
      v.how = record->second.how;
    }
    rows[b.factor].push_back(std::move(v));
  }
  std::vector<std::string> key_list;
  for (int f : factors) {
    if (out.failures.count(f)) {
      key_list.emplace_back();
    } else {
      key_list.push_back(keep_duplicates_ ? fmt::format("{}factor {}", keys[f], f) : keys[f]);
    }
  }
  out.groups = group_variants(factors, key_list);
  return out;
}

}  // namespace looprace::race::detail
