#include "stats/entry_filter.h"

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

std::optional<FilteredCycles> filter_entries(const std::vector<EntryBucket>& histogram) {
  std::uint64_t entries = 0;
  for (const EntryBucket& b : histogram) entries += b.entries;
  if (entries < kMinEntries) return std::nullopt;
  // The bucket holding the median entry (the ceil(n/2)-th smallest).
  std::uint64_t seen = 0;
  std::uint64_t median_floor = 0;
  for (const EntryBucket& b : histogram) {
    seen += b.entries;
    if (2 * seen >= entries) {
      median_floor = b.floor;
      break;
    }
  }
  FilteredCycles out;
  out.cap_cycles = (median_floor == 0 ? 1 : median_floor) << kCapOctaves;
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
  if (double(out.disturbed) > kMaxDisturbedShare * double(entries)) return std::nullopt;
  out.cycles = kept_cycles * double(entries) / double(kept);
  return out;
}

}  // namespace looprace::stats
