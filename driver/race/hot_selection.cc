#include "race/hot_selection.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace looprace::race {

HotChoice choose_hot(const std::vector<store::Hotness>& ranking,
                     const std::function<bool(const std::string&)>& candidate,
                     const HotSelection& selection) {
  HotChoice out;
  for (const auto& h : ranking) {
    if (candidate(h.id)) out.candidates += h.share;
  }
  for (const auto& h : ranking) {
    if (!candidate(h.id)) continue;
    if (selection.hot > 0 && out.chosen.size() >= selection.hot) break;
    if (selection.coverage && out.covered >= *selection.coverage * out.candidates) break;
    if (h.share > 0 && h.share < selection.min_share) {
      out.too_cold = true;
      break;
    }
    out.chosen.push_back(h);
    out.covered += h.share;
  }
  return out;
}

std::vector<LoopBudget> loop_budgets(const std::vector<store::Hotness>& chosen,
                                     std::optional<double> budget_seconds, double run_seconds,
                                     std::size_t versions, std::size_t cap, std::size_t floor) {
  if (!budget_seconds || run_seconds <= 0 || versions == 0) return {};
  double total = 0;
  for (const auto& h : chosen) total += h.share;
  const double runs = *budget_seconds / run_seconds;
  std::vector<LoopBudget> parts;
  for (const auto& h : chosen) {
    LoopBudget part;
    part.runs = runs * (total > 0 ? h.share / total : 1.0 / double(chosen.size()));
    // The small slack keeps an exact share (3/4 of 400 runs) from flooring to one less.
    const auto mine = static_cast<std::size_t>(std::floor(part.runs / double(versions) + 1e-9));
    part.cap = std::clamp(mine, std::min(floor, cap), cap);
    parts.push_back(part);
  }
  return parts;
}

double loop_indifference(double epsilon, double share) {
  if (share <= 0) return epsilon;
  return std::stod(fmt::format("{:.3g}", epsilon / std::clamp(share, 0.01, 1.0)));
}

std::string observation_loop(const std::string& loop,
                             const std::map<std::string, store::LoopPlace>& places,
                             const std::map<std::string, store::Hotness>& hotness,
                             double min_entry_cycles) {
  const auto entry_cycles = [&](const std::string& id) -> std::optional<double> {
    auto h = hotness.find(id);
    if (h == hotness.end() || h->second.entries_per_run <= 0) return std::nullopt;
    return h->second.cycles_per_run / h->second.entries_per_run;
  };
  std::string observed = loop;
  for (auto cycles = entry_cycles(loop); cycles && *cycles < min_entry_cycles;) {
    auto place = places.find(observed);
    if (place == places.end()) break;
    auto outer = store::enclosing_loop(place->second, places);
    if (!outer) break;
    cycles = entry_cycles(*outer);
    if (!cycles) break;  // the enclosing loop did not run when hotness was measured
    observed = *outer;
  }
  return observed;
}

namespace {

bool can_control(const ControlTarget& target, const ControlCandidate& c,
                 const ControlSelection& selection) {
  const store::Hotness& h = c.hotness;
  if (h.id == target.loop || h.id == target.observed || c.function == target.function) return false;
  if (!c.holds_no_other_code || h.is_bound() || h.entries_per_run <= 0) return false;
  if (h.share <= 0 || h.share < selection.min_share) return false;
  const double program_cycles = h.cycles_per_run / h.share;
  if (h.entries_per_run * selection.probe_cycles > selection.max_probe_share * program_cycles)
    return false;
  return c.tu != target.tu || (c.fn_line > 0 && c.fn_line < target.fn_line);
}

}  // namespace

std::vector<std::string> choose_controls(const ControlTarget& target,
                                         const std::vector<ControlCandidate>& candidates,
                                         const ControlSelection& selection) {
  std::vector<const ControlCandidate*> fit;
  for (const auto& c : candidates)
    if (can_control(target, c, selection)) fit.push_back(&c);
  std::stable_partition(fit.begin(), fit.end(),
                        [&](const ControlCandidate* c) { return c->tu != target.tu; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < fit.size() && i < selection.most; ++i)
    out.push_back(fit[i]->hotness.id);
  return out;
}

}  // namespace looprace::race
