#include "run/observations.h"

#include "run/rt_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace looprace::run {

std::optional<double> RunObservations::cycles(const std::string& id) const {
  if (!complete()) return std::nullopt;
  auto it = loops.find(id);
  if (it == loops.end() || it->second.entries == 0) return std::nullopt;
  return double(it->second.cycles);
}

std::optional<double> RunObservations::probe_share(const std::string& id) const {
  auto total = cycles(id);
  if (!total || !probe_cycles || *total <= 0) return std::nullopt;
  double bias = double(loops.at(id).entries) * *probe_cycles;
  return std::min(1.0, bias / *total);
}

std::optional<FilteredObservation> RunObservations::filtered(const std::string& id) const {
  auto raw = cycles(id);
  if (!raw) return std::nullopt;
  const LoopTotals& totals = loops.at(id);
  std::vector<stats::EntryBucket> histogram;
  for (std::size_t b = 0; b < totals.hist_entries.size(); ++b) {
    if (totals.hist_entries[b] == 0) continue;
    histogram.push_back({rt_bucket_floor(int(b)), totals.hist_entries[b], totals.hist_cycles[b]});
  }
  FilteredObservation out;
  if (auto by_entries = stats::filter_entries(histogram)) {
    out.cycles = by_entries->cycles;
    out.disturbed = by_entries->disturbed;
    out.by_entries = true;
  } else if (!visibly_disturbed()) {
    out.cycles = raw;
  }
  return out;
}

std::optional<double> RunObservations::value(const std::string& id, ObservationKind kind) const {
  if (kind == ObservationKind::kRaw) return cycles(id);
  auto f = filtered(id);
  return f ? f->cycles : std::nullopt;
}

RunObservations summarize_records(const std::string& text) {
  RtRecords records = parse_rt_records(text);
  RunObservations result;
  for (const auto& problem : records.problems) {
    result.problems.push_back(fmt::format("line {}: {}", problem.line, problem.message));
  }
  std::vector<std::uint64_t> probes;
  for (const auto& process : records.processes) {
    ++result.processes_ended;
    if (process.how == RtExitHow::signal) ++result.processes_signaled;
    if (process.forked) ++result.forked;
    if (!result.tsc_hz && process.tsc_hz > 0) result.tsc_hz = double(process.tsc_hz);
    if (process.probe > 0) probes.push_back(process.probe);
    result.nivcsw += process.nivcsw;
    result.steal_ticks = std::max(result.steal_ticks, process.steal_ticks);
    result.off_cpu_ns += process.off_cpu_ns;
    if (process.dropped > 0) {
      result.problems.push_back(
          fmt::format("process {} dropped {} loop entries (its loop table was full)", process.pid,
                      process.dropped));
    }
    for (const auto& loop : process.loops) {
      LoopTotals& totals = result.loops[loop.id];
      totals.min = totals.processes == 0 ? loop.min : std::min(totals.min, loop.min);
      totals.max = std::max(totals.max, loop.max);
      totals.cycles += loop.cycles;
      totals.entries += loop.entries;
      totals.migrated += loop.migrated;
      totals.nested += loop.nested;
      ++totals.processes;
      for (const RtBucket& b : loop.histogram) {
        totals.hist_entries[std::size_t(b.bucket)] += b.entries;
        totals.hist_cycles[std::size_t(b.bucket)] += b.cycles;
      }
    }
  }
  if (!probes.empty()) {
    auto middle = probes.begin() + long(probes.size() / 2);
    std::nth_element(probes.begin(), middle, probes.end());
    result.probe_cycles = double(*middle);
  }
  return result;
}

RunObservations read_records_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return summarize_records(text.str());
}

}  // namespace looprace::run
