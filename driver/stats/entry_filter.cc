#include "stats/entry_filter.h"

#include <algorithm>
#include <stdexcept>

namespace looprace::stats {

std::string to_string(ObservationKind kind) {
  return kind == ObservationKind::kRaw ? "raw" : "filtered";
}

ObservationKind observation_kind_from_string(const std::string& text) {
  if (text == "raw") return ObservationKind::kRaw;
  if (text == "filtered") return ObservationKind::kFiltered;
  throw std::invalid_argument("observation kind '" + text + "' is neither raw nor filtered");
}

namespace {

// The floor of the bucket holding the entry with `rank` entries before it, counted from the
// shortest (`from_longest` false) or the longest.
std::uint64_t floor_of_entry(const std::vector<EntryBucket>& histogram, std::uint64_t rank,
                             bool from_longest) {
  std::uint64_t seen = 0;
  const auto find = [&](auto begin, auto end) -> std::uint64_t {
    for (auto b = begin; b != end; ++b) {
      seen += b->entries;
      if (seen > rank) return b->floor;
    }
    return 0;
  };
  return from_longest ? find(histogram.rbegin(), histogram.rend())
                      : find(histogram.begin(), histogram.end());
}

// Entries at or above `cap` cycles.
std::uint64_t entries_from(const std::vector<EntryBucket>& histogram, std::uint64_t cap) {
  std::uint64_t count = 0;
  for (const EntryBucket& b : histogram)
    if (b.floor >= cap) count += b.entries;
  return count;
}

// The disturbed entries' least cycles: kCapOctaves above the bucket of `floor`.
std::uint64_t cap_above(std::uint64_t floor) { return (floor == 0 ? 1 : floor) << kCapOctaves; }

}  // namespace

std::optional<FilteredCycles> filter_entries(const std::vector<EntryBucket>& histogram) {
  std::uint64_t entries = 0;
  for (const EntryBucket& b : histogram) entries += b.entries;
  if (entries < kMinEntries) return std::nullopt;
  const auto allowance =
      std::max(kLeastAllowance, static_cast<std::uint64_t>(kMaxDisturbedShare * double(entries)));
  FilteredCycles out;
  // The median entry is the ceil(n/2)-th shortest.
  out.cap_cycles = cap_above(floor_of_entry(histogram, (entries - 1) / 2, false));
  if (entries_from(histogram, out.cap_cycles) > allowance)
    out.cap_cycles = cap_above(floor_of_entry(histogram, allowance, true));
  double kept_cycles = 0;
  std::uint64_t kept = 0;
  for (const EntryBucket& b : histogram) {
    if (b.floor >= out.cap_cycles) {
      out.disturbed += b.entries;
    } else {
      kept += b.entries;
      kept_cycles += double(b.cycles);
    }
  }
  out.cycles = kept_cycles * double(entries) / double(kept);
  return out;
}

}  // namespace looprace::stats
