// Early loops found again at RTL.
#include "loop_index.h"

namespace looprace {

void LoopIndex::add(const std::string& function, int loop_num, const LoopPlace& place,
                    std::size_t value) {
  by_loop_.try_emplace({function, loop_num}, value);
  const Line line{std::get<0>(place), std::get<1>(place)};
  for (Places* places : {&by_function_[function], &everywhere_}) {
    places->by_place[place].push_back(value);
    places->by_line[line].push_back(value);
  }
}

std::vector<std::size_t> LoopIndex::Places::find(const LoopPlace& place) const {
  if (auto at_place = by_place.find(place); at_place != by_place.end()) return at_place->second;
  auto on_line = by_line.find({std::get<0>(place), std::get<1>(place)});
  if (on_line != by_line.end() && on_line->second.size() == 1) return on_line->second;
  return {};
}

std::vector<std::size_t> LoopIndex::find(const std::string& function, const class loop* loop,
                                         const LoopPlace& place,
                                         const std::string& inlined_from) const {
  for (int num : {loop->num, loop->orig_loop_num}) {
    if (num <= 0) continue;  // 0 is the function body, never a loop of ours
    if (auto same_loop = by_loop_.find({function, num}); same_loop != by_loop_.end())
      return {same_loop->second};
  }
  if (auto origin = by_function_.find(inlined_from); origin != by_function_.end())
    if (std::vector<std::size_t> found = origin->second.find(place); !found.empty()) return found;
  return everywhere_.find(place);
}

}  // namespace looprace
