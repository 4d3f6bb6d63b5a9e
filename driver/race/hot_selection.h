// Which loops a race takes, and how many observations each may cost: pure policy over the
// hotness ranking, unit-tested without processes. A loop's share of the program bounds what
// racing it can pay (a 1.7 % loop made 10 % faster saves 0.17 % of the run), so a time budget
// is spent in proportion to the shares.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "store/dataset.h"

namespace looprace::race {

struct HotSelection {
  unsigned hot = 3;                // at most this many loops (0: no limit)
  std::optional<double> coverage;  // stop once the chosen hold this part of the candidates' time
  double min_share = 0.01;         // never a loop below this share of the program
};

struct HotChoice {
  std::vector<store::Hotness> chosen;  // hottest first
  double covered = 0;                  // the chosen loops' share of the program
  double candidates = 0;               // every candidate's share of the program, summed
  bool too_cold = false;               // a candidate was left out for min_share
};

// Walks `ranking` (hottest first), keeping the loops `candidate` accepts until `hot` loops,
// the coverage or a loop under min_share (a share of 0, unknown, is never too cold).
HotChoice choose_hot(const std::vector<store::Hotness>& ranking,
                     const std::function<bool(const std::string&)>& candidate,
                     const HotSelection& selection);

// The observation cap of each chosen loop under a time budget: the budget's runs shared in
// proportion to the loops' shares, over `versions` versions each, never above `cap` nor below
// `floor` (a race needs a few rounds to decide anything). Without a budget, `cap` for all.
std::vector<std::size_t> budget_caps(const std::vector<store::Hotness>& chosen,
                                     std::optional<double> budget_seconds, double run_seconds,
                                     std::size_t versions, std::size_t cap, std::size_t floor = 6);

}  // namespace looprace::race
