#include "store/dataset.h"

#include <algorithm>

namespace looprace::store {

std::vector<Hotness> rank_hotness(const std::vector<HotnessSample>& samples, double plain_cycles) {
  double hotness_cycles = 0;  // per run, probes included
  for (const auto& s : samples) {
    hotness_cycles += s.wall_seconds * s.tsc_hz / static_cast<double>(samples.size());
  }
  // The least disturbed run of each loop's build is the most accurate: on wall time the only
  // error is other work included.
  std::map<std::string, Hotness> by_id;
  for (const auto& s : samples) {
    for (const auto& [id, totals] : s.loops) {
      double cycles = std::max(0.0, totals.first - totals.second * s.probe_cycles);
      auto [it, first] = by_id.try_emplace(id, Hotness{id, cycles, totals.second, 0});
      if (!first && cycles < it->second.cycles_per_run) {
        it->second.cycles_per_run = cycles;
        it->second.entries_per_run = totals.second;
      }
    }
  }
  const double program_cycles = plain_cycles > 0 ? plain_cycles : hotness_cycles;
  std::vector<Hotness> out;
  for (auto& [id, h] : by_id) {
    if (h.cycles_per_run <= 0) continue;
    h.share = program_cycles > 0 ? std::min(1.0, h.cycles_per_run / program_cycles) : 0;
    out.push_back(h);
  }
  std::stable_sort(out.begin(), out.end(), [](const Hotness& a, const Hotness& b) {
    return a.cycles_per_run > b.cycles_per_run;
  });
  return out;
}

std::vector<Hotness> stored_hotness(const Store& store, std::int64_t program, double tsc_hz,
                                    double probe_cycles) {
  std::vector<double> plain;
  for (const auto& r : store.runs(program, RunKind::kBaseline)) {
    if (r.ok && r.wall_seconds > 0) plain.push_back(r.wall_seconds);
  }
  std::vector<HotnessSample> samples;
  for (const auto& r : store.runs(program, RunKind::kHotness)) {
    if (!r.ok) continue;
    HotnessSample s;
    s.build = r.target_loop;
    s.wall_seconds = r.wall_seconds;
    s.tsc_hz = tsc_hz;
    s.probe_cycles = probe_cycles;
    for (const auto& o : r.observations) {
      s.loops[o.loop_id] = {static_cast<double>(o.cycles), static_cast<double>(o.entries)};
    }
    samples.push_back(std::move(s));
  }
  bool by_depth = std::any_of(samples.begin(), samples.end(),
                              [](const HotnessSample& s) { return !s.build.empty(); });
  double plain_cycles = 0;
  if (by_depth && !plain.empty())
    plain_cycles = *std::min_element(plain.begin(), plain.end()) * tsc_hz;
  return rank_hotness(samples, plain_cycles);
}

std::vector<LoopDataset> load_race_dataset(const Store& store, std::int64_t program,
                                           stats::ObservationKind kind) {
  std::vector<LoopDataset> out;
  for (const auto& loop : store.raced_loops(program)) {
    LoopDataset d;
    d.loop_id = loop;
    for (const auto& v : store.variants(program, loop)) {
      if (v.layout == 0 && v.group >= 0) d.group_of[v.factor] = v.group;
    }
    for (const auto& r : store.loop_race_runs(program, loop)) {
      std::optional<double> value = r.value(kind);
      if (!r.ok || !value) continue;
      auto group = d.group_of.find(r.factor);
      d.cycles[group == d.group_of.end() ? r.factor : group->second].push_back(*value);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace looprace::store
