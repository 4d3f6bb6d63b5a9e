#include "plans/rounds.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace looprace::plans {

RoundKeeper::RoundKeeper(std::size_t versions, Sampler& sampler, const RoundObserver& observer)
    : sampler_(sampler), observer_(observer), disqualified_(versions, false) {
  if (versions == 0) throw std::invalid_argument("a plan needs at least one version");
  decision_.samples.assign(versions, 0);
}

std::vector<std::size_t> RoundKeeper::alive() const {
  std::vector<std::size_t> result;
  for (std::size_t v = 0; v < disqualified_.size(); ++v)
    if (!disqualified_[v]) result.push_back(v);
  return result;
}

std::vector<std::optional<Observation>> RoundKeeper::pull(
    const std::vector<std::size_t>& versions) {
  auto observations = sampler_.round(versions);
  if (observations.size() != versions.size())
    throw std::invalid_argument(fmt::format("sampler returned {} observations for {} versions",
                                            observations.size(), versions.size()));
  for (std::size_t i = 0; i < versions.size(); ++i) {
    const std::size_t v = versions[i];
    if (!observations[i]) {
      disqualified_[v] = true;
      decision_.disqualified.push_back(v);
      continue;
    }
    const Observation& o = *observations[i];
    if (!std::isfinite(o.cycles) || o.cycles <= 0.0)
      throw std::invalid_argument(
          fmt::format("observation {} of version {} is {}: cycles must be finite and > 0",
                      decision_.samples[v] + 1, v, o.cycles));
    check_control(o, v);
    ++decision_.samples[v];
  }
  return observations;
}

void RoundKeeper::check_control(const Observation& o, std::size_t v) {
  if (!controlled_) controlled_ = o.control.has_value();
  if (*controlled_ != o.control.has_value())
    throw std::invalid_argument(fmt::format(
        "observation {} of version {} has {} control where the plan's first had {}: a plan's "
        "observations have controls all or none",
        decision_.samples[v] + 1, v, o.control ? "a" : "no", *controlled_ ? "one" : "none"));
  if (o.control && (!std::isfinite(*o.control) || *o.control <= 0.0))
    throw std::invalid_argument(
        fmt::format("observation {} of version {} has control {}: it must be finite and > 0",
                    decision_.samples[v] + 1, v, *o.control));
}

void RoundKeeper::trace(const std::vector<std::size_t>& sampled,
                        const std::vector<std::size_t>& survivors) {
  RoundTrace round;
  round.round = decision_.rounds.size() + 1;
  round.sampled = sampled;
  round.survivors = survivors;
  for (std::size_t v : alive())
    if (std::find(survivors.begin(), survivors.end(), v) == survivors.end())
      round.losers.push_back(v);
  decision_.rounds.push_back(std::move(round));
  if (observer_) observer_(decision_.rounds.back());
}

}  // namespace looprace::plans
