#include "store/dataset.h"

#include <algorithm>

namespace looprace::store {

std::vector<Hotness> rank_hotness(const std::vector<HotnessSample>& samples) {
  std::map<std::string, Hotness> by_id;
  double program_cycles = 0;
  for (const auto& s : samples) {
    program_cycles += s.wall_seconds * s.tsc_hz;
    for (const auto& [id, totals] : s.loops) {
      auto& h = by_id[id];
      h.id = id;
      h.cycles_per_run += std::max(0.0, totals.first - totals.second * s.probe_cycles);
      h.entries_per_run += totals.second;
    }
  }
  std::vector<Hotness> out;
  for (auto& [id, h] : by_id) {
    if (h.cycles_per_run <= 0) continue;
    h.share = program_cycles > 0 ? std::min(1.0, h.cycles_per_run / program_cycles) : 0;
    h.cycles_per_run /= static_cast<double>(samples.size());
    h.entries_per_run /= static_cast<double>(samples.size());
    out.push_back(h);
  }
  std::stable_sort(out.begin(), out.end(), [](const Hotness& a, const Hotness& b) {
    return a.cycles_per_run > b.cycles_per_run;
  });
  return out;
}

std::vector<Hotness> stored_hotness(const Store& store, std::int64_t program, double tsc_hz,
                                    double probe_cycles) {
  std::vector<HotnessSample> samples;
  for (const auto& r : store.runs(program, RunKind::kHotness)) {
    if (!r.ok) continue;
    HotnessSample s;
    s.wall_seconds = r.wall_seconds;
    s.tsc_hz = tsc_hz;
    s.probe_cycles = probe_cycles;
    for (const auto& o : r.observations) {
      s.loops[o.loop_id] = {static_cast<double>(o.cycles), static_cast<double>(o.entries)};
    }
    samples.push_back(std::move(s));
  }
  return rank_hotness(samples);
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
