#include "plans/loop_decision.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>

namespace looprace::plans {

const char* speedup_source_name(SpeedupSource source) {
  switch (source) {
    case SpeedupSource::kSameCode:
      return "baseline";
    case SpeedupSource::kConfirmation:
      return "confirmation";
    case SpeedupSource::kRace:
      return "race";
    case SpeedupSource::kNone:
      break;
  }
  return "none";
}

std::size_t LoopDecision::rounds_set_aside() const {
  return static_cast<std::size_t>(std::count_if(rounds.begin(), rounds.end(),
                                                [](const FactorRound& r) { return r.set_aside; }));
}

std::vector<std::size_t> LoopDecision::winner_samples() const {
  std::vector<std::size_t> out;
  for (int f : winners) {
    auto g = groups.find(f);
    auto n = samples.find(g != groups.end() ? g->second : f);
    out.push_back(n != samples.end() ? n->second : 0);
  }
  return out;
}

namespace {
const std::string kFilteredSuffix = " on " + stats::to_string(stats::ObservationKind::kFiltered);
}  // namespace

stats::ObservationKind LoopDecision::observation() const {
  const std::string kind =
      plan.substr(0, std::min(plan.find(" through "), plan.find(" controlled by ")));
  return kind.ends_with(kFilteredSuffix) ? stats::ObservationKind::kFiltered
                                         : stats::ObservationKind::kRaw;
}

std::vector<std::string> LoopDecision::controls() const {
  const std::string marker = " controlled by ";
  const std::size_t at = plan.find(marker);
  std::vector<std::string> ids;
  if (at == std::string::npos) return ids;
  std::istringstream list(plan.substr(at + marker.size()));
  for (std::string id; std::getline(list, id, ',');)
    if (!id.empty()) ids.push_back(id);
  return ids;
}

std::string plan_on_observations(const std::string& plan, stats::ObservationKind kind,
                                 const std::string& through,
                                 const std::vector<std::string>& controls) {
  std::string name =
      kind == stats::ObservationKind::kRaw ? plan : plan + " on " + stats::to_string(kind);
  if (!through.empty()) name += " through " + through;
  if (!controls.empty()) name += fmt::format(" controlled by {}", fmt::join(controls, ","));
  return name;
}

namespace {

std::vector<int> factors_of(const std::vector<std::size_t>& versions,
                            const std::vector<int>& representatives) {
  std::vector<int> out;
  for (std::size_t v : versions) out.push_back(representatives.at(v));
  return out;
}

}  // namespace

LoopDecision in_factors(const Decision& decision, const std::vector<int>& representatives,
                        const std::vector<int>& group_of, const std::vector<int>& factors,
                        const std::map<std::size_t, std::string>& reasons) {
  LoopDecision d;
  d.chosen = representatives.at(decision.chosen);
  for (int f : factors) {
    const int g = group_of.at(static_cast<std::size_t>(f));
    d.groups[f] = g;
    for (std::size_t w : decision.winners) {
      if (g == representatives.at(w)) d.winners.push_back(f);
    }
  }
  for (std::size_t v = 0; v < representatives.size() && v < decision.samples.size(); ++v) {
    d.samples[representatives[v]] = decision.samples[v];
  }
  d.cap_hit = decision.cap_hit;
  for (const RoundTrace& t : decision.rounds) {
    d.rounds.push_back({t.round, factors_of(t.sampled, representatives),
                        factors_of(t.survivors, representatives),
                        factors_of(t.losers, representatives), t.set_aside});
  }
  for (std::size_t v : decision.disqualified) {
    auto why = reasons.find(v);
    for (int f : factors) {
      if (group_of.at(static_cast<std::size_t>(f)) == representatives.at(v)) {
        d.disqualified[f] =
            why != reasons.end() ? why->second : "not observed (no build carries it)";
      }
    }
  }
  return d;
}

std::optional<stats::SpeedupTestResult> speedup_of(const SpeedupEvidence& evidence) {
  if (evidence.source == SpeedupSource::kSameCode || evidence.baseline.size() < 2 ||
      evidence.chosen.size() < 2) {
    return std::nullopt;
  }
  return stats::speedup_test(evidence.baseline, evidence.chosen, evidence.confidence,
                             evidence.ratio_test, evidence.layouts);
}

}  // namespace looprace::plans
