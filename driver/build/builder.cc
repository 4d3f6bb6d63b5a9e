#include "build/builder.h"

#include "build/elf_code.h"
#include "build/loop_table.h"
#include "build/toolchain.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

namespace looprace::build {

namespace {
constexpr std::size_t kTailLines = 30;
}

std::string BuildResult::failure_message() const {
  std::string message = fmt::format("build of {} failed ({}{}) in {}", label, process.describe(),
                                    process.ending == run::Ending::timed_out
                                        ? "; raise the limit with --build-timeout SECONDS"
                                        : "",
                                    dir.string());
  if (output_tail.empty()) return message + "; it printed nothing";
  return message + "; last lines of its output:\n" + output_tail;
}

std::vector<std::string> fewer_copies_notes(const std::vector<FewerCopies>& clamped) {
  std::vector<std::string> reasons;
  std::map<std::string, std::vector<std::string>> pairs;
  for (const FewerCopies& c : clamped) {
    std::string how = c.how.empty() ? "no reason given" : c.how;
    if (!pairs.count(how)) reasons.push_back(how);
    pairs[how].push_back(fmt::format("{}→{}", c.factor, c.applied));
  }
  std::vector<std::string> out;
  for (const std::string& how : reasons) {
    out.push_back(
        fmt::format("GCC made fewer copies than asked ({}): {}", how, fmt::join(pairs[how], " ")));
  }
  return out;
}

BuildResult run_build(const BuildJob& job) {
  run::ProcessSpec spec;
  spec.command = job.command;
  spec.cwd = job.cwd.empty() ? job.dir : job.cwd;
  spec.env = job.env;
  spec.timeout = job.timeout;
  spec.merge_stderr = true;
  spec.limits.head_bytes = 0;
  BuildResult result;
  result.label = job.label;
  result.dir = job.dir;
  result.process = run::run_process(spec);
  result.output_tail = run::last_lines(result.process.out.tail, kTailLines);
  return result;
}

std::vector<BuildResult> run_builds(const std::vector<BuildJob>& jobs, unsigned parallel,
                                    const std::function<void(const BuildResult&)>& on_done) {
  std::vector<BuildResult> results(jobs.size());
  std::atomic<std::size_t> next{0};
  std::mutex report;
  auto worker = [&] {
    for (std::size_t i; (i = next++) < jobs.size();) {
      results[i] = run_build(jobs[i]);
      if (on_done) {
        std::lock_guard lock(report);
        on_done(results[i]);
      }
    }
  };
  std::vector<std::jthread> workers;
  unsigned count =
      std::clamp<unsigned>(parallel, 1, unsigned(std::max<std::size_t>(1, jobs.size())));
  for (unsigned i = 1; i < count; ++i) workers.emplace_back(worker);
  worker();
  workers.clear();  // joins: every result is written before it is returned
  return results;
}

std::filesystem::path variant_dir(const std::filesystem::path& workdir, const std::string& loop_id,
                                  int factor, std::optional<std::uint64_t> layout_seed) {
  std::string name = fmt::format("f{}", factor);
  if (layout_seed) name += fmt::format("-l{}", *layout_seed);
  return workdir / loop_id / name;
}

void prepare_fresh(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::remove_all(dir, error);
  if (!error) std::filesystem::create_directories(dir, error);
  if (error) throw Error(fmt::format("cannot create {}: {}", dir.string(), error.message()));
}

void copy_keeping_times(const std::filesystem::path& from, const std::filesystem::path& to) {
  namespace fs = std::filesystem;
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  for (const auto& entry : fs::recursive_directory_iterator(from)) {
    if (entry.is_symlink()) continue;
    auto target = to / fs::relative(entry.path(), from);
    fs::last_write_time(target, fs::last_write_time(entry.path()));
  }
}

namespace {

bool object_holds_loop(const std::filesystem::path& object, const std::string& loop_id) {
  try {
    const auto table = read_loop_table_elf(object);
    return std::any_of(table.rows.begin(), table.rows.end(),
                       [&](const LoopRow& row) { return row.id == loop_id; });
  } catch (const Error&) {
    return false;  // not an ELF object after all
  }
}

}  // namespace

// An object and what make may take for it: libtool keeps a text `x.lo` (make's target) beside
// `x.o`, and the PIC object in `.libs/x.o`; removing only the object leaves make's target up
// to date, and nothing is recompiled.
static std::vector<std::filesystem::path> object_and_siblings(const std::filesystem::path& object) {
  std::filesystem::path dir = object.parent_path();
  std::filesystem::path stem = object.stem();
  if (dir.filename() == ".libs") dir = dir.parent_path();
  std::filesystem::path lo = stem;
  lo += ".lo";
  std::filesystem::path o = stem;
  o += ".o";
  return {object, dir / lo, dir / o, dir / ".libs" / o};
}

bool prepare_incremental(const std::filesystem::path& dir,
                         const std::filesystem::path& template_dir,
                         const std::vector<std::string>& loop_ids) {
  namespace fs = std::filesystem;
  std::vector<fs::path> stale;
  std::set<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(template_dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".o") continue;
    bool holds = false;
    for (const auto& id : loop_ids) {
      if (object_holds_loop(entry.path(), id)) {
        found.insert(id);
        holds = true;
      }
    }
    if (holds) stale.push_back(fs::relative(entry.path(), template_dir));
  }
  prepare_fresh(dir);
  if (stale.empty() ||
      found.size() < std::set<std::string>(loop_ids.begin(), loop_ids.end()).size()) {
    return false;
  }
  try {
    fs::remove(dir);
    copy_keeping_times(template_dir, dir);
    for (const auto& object : stale) {
      for (const auto& file : object_and_siblings(object)) fs::remove(dir / file);
    }
  } catch (const fs::filesystem_error& error) {
    throw Error(
        fmt::format("cannot copy {} to {}: {}", template_dir.string(), dir.string(), error.what()));
  }
  return true;
}

}  // namespace looprace::build
