#include "store/decision_json.h"

#include <string>

namespace looprace::store {
namespace {

using nlohmann::json;

template <typename Value>
json by_factor(const std::map<int, Value>& m) {
  json out = json::object();
  for (const auto& [factor, value] : m) out[std::to_string(factor)] = value;
  return out;
}

template <typename Value>
std::map<int, Value> factor_map(const json& j) {
  std::map<int, Value> out;
  for (const auto& [factor, value] : j.items())
    out[std::stoi(factor)] = value.template get<Value>();
  return out;
}

json speedup_column(const plans::SpeedupEvidence& e) {
  if (e.source == plans::SpeedupSource::kSameCode) {
    return {{"geometric_speedup", 1.0},
            {"median_speedup", 1.0},
            {"verdict", "baseline"},
            {"explanation", "the chosen factor has the code of GCC's default (factor 0)"}};
  }
  auto s = plans::speedup_of(e);
  if (!s) {
    return {{"verdict", "needs-more-runs"},
            {"explanation", "fewer than 2 observations of the baseline or the chosen factor"}};
  }
  return {{"speedup", s->ratio_speedup},
          {"ratio_test", stats::ratio_test_name(s->ratio_test)},
          {"geometric_speedup", s->geometric_speedup},
          {"median_speedup", s->median_speedup},
          {"ci", {s->speedup_interval.lower, s->speedup_interval.upper}},
          {"confidence", s->confidence},
          {"baseline_n", s->baseline_n},
          {"candidate_n", s->candidate_n},
          {"p_faster", s->p_faster},
          {"p_slower", s->p_slower},
          {"verdict", stats::verdict_name(s->ratio_verdict)},
          {"explanation", s->ratio_explanation},
          {"source", plans::speedup_source_name(e.source)},
          {"runs", {{"baseline", e.baseline}, {"chosen", e.chosen}, {"layouts", e.layouts}}}};
}

plans::SpeedupEvidence evidence_of(const json& j) {
  plans::SpeedupEvidence e;
  if (j.value("verdict", "") == "baseline") {
    e.source = plans::SpeedupSource::kSameCode;
    return e;
  }
  const std::string source = j.value("source", "");
  if (!j.contains("runs")) return e;  // no runs kept (needs-more-runs): nothing to test
  e.source = source == "race" ? plans::SpeedupSource::kRace : plans::SpeedupSource::kConfirmation;
  e.baseline = j["runs"].at("baseline").get<std::vector<double>>();
  e.chosen = j["runs"].at("chosen").get<std::vector<double>>();
  e.layouts = j["runs"].value("layouts", std::vector<int>{});
  e.confidence = j.value("confidence", 0.95);
  // Stores written before the paired trimmed test have Welch's.
  e.ratio_test =
      stats::parse_ratio_test(j.value("ratio_test", "welch")).value_or(stats::RatioTest::welch_log);
  return e;
}

}  // namespace

DecisionColumns to_columns(const plans::LoopDecision& d) {
  DecisionColumns c;
  c.winners = d.winners;
  c.samples = by_factor(d.samples);
  c.groups = by_factor(d.groups);
  c.rounds = json::array();
  for (const plans::FactorRound& r : d.rounds) {
    c.rounds.push_back({{"round", r.round},
                        {"sampled", r.sampled},
                        {"survivors", r.survivors},
                        {"losers", r.losers}});
    if (r.set_aside) c.rounds.back()["set_aside"] = true;
  }
  c.disqualified = by_factor(d.disqualified);
  c.speedup = speedup_column(d.speedup);
  if (d.unconfirmed) c.speedup["unconfirmed"] = *d.unconfirmed;
  if (const auto& u = d.runner_up)
    c.speedup["runner_up"] = {{"factor", u->factor},
                              {"pairs", u->pairs},
                              {"speedup", u->speedup},
                              {"ci", {u->ci_low, u->ci_high}},
                              {"joined", u->joined}};
  return c;
}

void from_columns(const DecisionColumns& c, plans::LoopDecision& d) {
  d.winners = c.winners.get<std::vector<int>>();
  d.samples = factor_map<std::size_t>(c.samples);
  d.groups = factor_map<int>(c.groups);
  d.rounds.clear();
  for (const json& r : c.rounds) {
    d.rounds.push_back({r.value("round", std::size_t{0}), r.at("sampled").get<std::vector<int>>(),
                        r.at("survivors").get<std::vector<int>>(),
                        r.at("losers").get<std::vector<int>>(), r.value("set_aside", false)});
  }
  d.disqualified = factor_map<std::string>(c.disqualified);
  d.speedup = evidence_of(c.speedup);
  d.unconfirmed.reset();
  if (c.speedup.contains("unconfirmed")) d.unconfirmed = c.speedup["unconfirmed"].get<int>();
  d.runner_up.reset();
  if (c.speedup.contains("runner_up")) {
    const json& u = c.speedup["runner_up"];
    d.runner_up =
        plans::RunnerUpCheck{u.at("factor").get<int>(),      u.at("pairs").get<std::size_t>(),
                             u.at("speedup").get<double>(),  u.at("ci").at(0).get<double>(),
                             u.at("ci").at(1).get<double>(), u.at("joined").get<bool>()};
  }
}

}  // namespace looprace::store
