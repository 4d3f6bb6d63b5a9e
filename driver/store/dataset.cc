#include "store/dataset.h"

#include <algorithm>
#include <optional>

#include "stats/covariate.h"
#include "stats/speedup_test.h"

namespace looprace::store {

namespace {

// The middle of a loop's runs (the lower middle of an even count). Each run's cycles lost the
// share of it that was off the CPU, as if the waiting were spread over the run, which is right
// on average; the least of them would be a run that waited outside the loop and lost cycles it
// had spent: beside two busy processes, one ranking in three put long_term.c:203:27 at 8 %
// instead of 13 %.
Hotness middle_run(std::vector<Hotness> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Hotness& a, const Hotness& b) { return a.cycles_per_run < b.cycles_per_run; });
  return runs[(runs.size() - 1) / 2];
}

// The control loops of each raced loop whose latest decision names some.
std::map<std::string, std::vector<std::string>> controls_by_loop(const Store& store,
                                                                 std::int64_t program) {
  std::map<std::string, std::vector<std::string>> out;
  for (const plans::LoopDecision& d : store.decisions(program)) out[d.loop_id] = d.controls();
  return out;
}

// Each race run's control (stats::combined_control), for the runs that timed one of the
// controls, as the race took it: a control without a value of `kind` (the filter could not
// clean it) is left out; each control centered on its median over the runs.
std::map<std::int64_t, double> run_controls(const Store& store, std::int64_t program,
                                            const std::string& loop,
                                            const std::vector<std::string>& controls,
                                            stats::ObservationKind kind) {
  std::map<std::int64_t, std::vector<std::optional<double>>> timed;
  std::vector<std::vector<double>> seen(controls.size());
  for (const RunRow& run : store.runs(program, RunKind::kRace, loop)) {
    if (!run.timed_any(controls)) continue;
    std::vector<std::optional<double>> values;
    for (std::size_t i = 0; i < controls.size(); ++i) {
      values.push_back(run.value_of(controls[i], kind));  // none: disturbed, left out
      if (values.back() && *values.back() > 0) seen[i].push_back(*values.back());
    }
    timed.emplace(run.id, std::move(values));
  }
  std::vector<double> centers;
  for (const auto& values : seen) centers.push_back(values.empty() ? 1.0 : stats::median(values));
  std::map<std::int64_t, double> out;
  for (const auto& [run, values] : timed) out[run] = stats::combined_control(values, centers);
  return out;
}

}  // namespace

std::vector<Hotness> rank_hotness(const std::vector<HotnessSample>& samples, double plain_cycles) {
  double hotness_cycles = 0;  // per run, probes included
  for (const auto& s : samples) {
    hotness_cycles += s.wall_seconds * s.tsc_hz / static_cast<double>(samples.size());
  }
  std::map<std::string, std::vector<Hotness>> by_id;
  for (const auto& s : samples) {
    // The plain run counts only its time on the CPU; a loop's cycles lose the same fraction of
    // their run, as if the waiting were spread over it, so that no share grows with the load
    // (a loop holding 3/4 of a run once came out above the whole plain run).
    const double on_cpu =
        s.wall_seconds > 0 ? undisturbed_seconds(s.wall_seconds, s.off_cpu_ns) / s.wall_seconds : 1;
    for (const auto& [id, totals] : s.loops) {
      const double raw = totals.first * on_cpu;
      const double entries = totals.second;
      Hotness h{id, std::max(0.0, raw - entries * s.probe_cycles), entries, 0};
      // Short entries: what the probe adds cannot be told from the loop's own time, so the
      // measured time (probes included) stands, as an upper bound.
      h.short_entries = s.probe_cycles > 0 && entries > 0 && raw < 2 * entries * s.probe_cycles;
      if (h.short_entries) h.cycles_per_run = raw;
      by_id[id].push_back(h);
    }
  }
  const double program_cycles = plain_cycles > 0 ? plain_cycles : hotness_cycles;
  std::vector<Hotness> out;
  for (auto& [id, measured] : by_id) {
    Hotness h = middle_run(measured);
    if (h.cycles_per_run <= 0) continue;
    h.share = program_cycles > 0 ? std::min(1.0, h.cycles_per_run / program_cycles) : 0;
    out.push_back(h);
  }
  std::stable_sort(out.begin(), out.end(), [](const Hotness& a, const Hotness& b) {
    return a.cycles_per_run > b.cycles_per_run;
  });
  return out;
}

std::optional<std::string> enclosing_loop(const LoopPlace& place,
                                          const std::map<std::string, LoopPlace>& places) {
  std::optional<std::string> found;
  int found_index = -1;
  for (const auto& [id, p] : places) {
    if (p.function == place.function && p.depth == place.depth - 1 && p.index < place.index &&
        p.index > found_index) {
      found = id;
      found_index = p.index;
    }
  }
  return found;
}

std::vector<Hotness> bound_by_enclosing(std::vector<Hotness> ranking,
                                        const std::map<std::string, LoopPlace>& places) {
  auto depth = [&](const Hotness& h) {
    auto it = places.find(h.id);
    return it == places.end() ? 0 : it->second.depth;
  };
  // Outermost first, so that a bound carries inward through a nest.
  std::stable_sort(ranking.begin(), ranking.end(),
                   [&](const Hotness& a, const Hotness& b) { return depth(a) < depth(b); });
  std::map<std::string, const Hotness*> done;
  for (auto& h : ranking) {
    auto place = places.find(h.id);
    auto outer = place == places.end() ? std::nullopt : enclosing_loop(place->second, places);
    auto bound = outer ? done.find(*outer) : done.end();
    if (bound != done.end() && bound->second->cycles_per_run < h.cycles_per_run) {
      h.bounded_by_enclosing = true;
      h.cycles_per_run = bound->second->cycles_per_run;
      h.share = bound->second->share;
    }
    done[h.id] = &h;
  }
  std::erase_if(ranking, [](const Hotness& h) { return h.cycles_per_run <= 0; });
  std::stable_sort(ranking.begin(), ranking.end(), [](const Hotness& a, const Hotness& b) {
    return a.cycles_per_run > b.cycles_per_run;
  });
  return ranking;
}

std::vector<Hotness> stored_hotness(const Store& store, std::int64_t program, double tsc_hz,
                                    double probe_cycles) {
  const std::vector<RunRow> hotness = store.runs(program, RunKind::kHotness);
  if (hotness.empty()) return {};
  const std::int64_t session = hotness.front().session;
  for (const SessionRow& s : store.sessions()) {
    if (s.id != session || !s.facts.is_object()) continue;
    tsc_hz = s.facts.value("runtime_tsc_hz", tsc_hz);
    probe_cycles = s.facts.value("probe_cycles", probe_cycles);
  }
  std::vector<double> plain;
  for (const auto& r : store.runs(program, RunKind::kBaseline)) {
    if (r.ok && r.wall_seconds > 0 && r.session == session)
      plain.push_back(plain_run_seconds(r.wall_seconds, r.off_cpu_ns, r.cpu_seconds));
  }
  std::vector<HotnessSample> samples;
  for (const auto& r : hotness) {
    if (!r.ok) continue;
    HotnessSample s;
    s.build = r.target_loop;
    s.wall_seconds = r.wall_seconds;
    s.off_cpu_ns = r.off_cpu_ns;
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
  std::map<std::string, LoopPlace> places;
  for (const auto& loop : store.loops(program)) {
    places[loop.id] = {loop.function, loop.depth, loop.index};
  }
  return bound_by_enclosing(rank_hotness(samples, plain_cycles), places);
}

std::vector<LoopDataset> load_race_dataset(const Store& store, std::int64_t program,
                                           stats::ObservationKind kind) {
  std::vector<LoopDataset> out;
  const auto controls = controls_by_loop(store, program);
  for (const auto& loop : store.raced_loops(program)) {
    LoopDataset d;
    d.loop_id = loop;
    for (const auto& v : store.variants(program, loop)) {
      if (v.layout == 0 && v.group >= 0) d.group_of[v.factor] = v.group;
    }
    if (auto c = controls.find(loop); c != controls.end() && !c->second.empty()) {
      d.control_loops = c->second;
      d.control_of_run = run_controls(store, program, loop, d.control_loops, kind);
    }
    d.runs = store.loop_race_runs(program, loop);
    for (const auto& r : d.runs) {
      std::optional<double> value = r.value(kind);
      if (!r.ok || !value) continue;
      auto group = d.group_of.find(r.factor);
      const int raced = group == d.group_of.end() ? r.factor : group->second;
      if (!d.control_loops.empty()) {
        auto control = d.control_of_run.find(r.run_id);
        if (control == d.control_of_run.end()) continue;
        d.controls[raced].push_back(control->second);
      }
      d.cycles[raced].push_back(*value);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace looprace::store
