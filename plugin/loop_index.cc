// Early loops found again at RTL.
#include "loop_index.h"

namespace looprace {

void LoopIndex::add(const std::string& function, int loop_num, const LoopPlace& place,
                    std::size_t value) {
  by_loop_.try_emplace({function, loop_num}, value);
  by_place_[place].push_back(value);
  by_line_[{std::get<0>(place), std::get<1>(place)}].push_back(value);
  by_function_[function].push_back(value);
}

void LoopIndex::add_exact(const std::string& function, int loop_num, std::size_t value) {
  by_loop_.try_emplace({function, loop_num}, value);
}

std::vector<std::size_t> LoopIndex::find(const std::string& function, const class loop* loop,
                                         const LoopPlace& place, Reach reach) const {
  for (int num : {loop->num, loop->orig_loop_num}) {
    if (num <= 0) continue;  // 0 is the function body, never a loop of ours
    if (auto same_loop = by_loop_.find({function, num}); same_loop != by_loop_.end())
      return {same_loop->second};
  }
  if (auto at_place = by_place_.find(place); at_place != by_place_.end()) return at_place->second;
  auto on_line = by_line_.find({std::get<0>(place), std::get<1>(place)});
  const bool every = reach == Reach::every_candidate;
  if (on_line != by_line_.end() && (on_line->second.size() == 1 || every)) return on_line->second;
  if (auto in_function = by_function_.find(function); every && in_function != by_function_.end())
    return in_function->second;
  return {};
}

}  // namespace looprace
