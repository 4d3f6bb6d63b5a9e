// Ties the loops GCC's RTL passes see to the loops the early pass identified: by the loop itself
// where it survived (same function, same loop number, or the number of the loop it was copied
// from: the vectorizer's versions and epilogues); else, for an inlined copy, among the loops of
// the function it was inlined from, by location as -fopt-info-loop reports it, then by line
// (the vectorizer can report another column of it); else among every function's loops, the
// same way. By line, only a line with one such loop ties.
#ifndef LOOPRACE_PLUGIN_LOOP_INDEX_H
#define LOOPRACE_PLUGIN_LOOP_INDEX_H

#include "gcc_headers.h"

namespace looprace {

// file, line, column of a loop
using LoopPlace = std::tuple<std::string, int, int>;

class LoopIndex {
 public:
  // Files `value` under the loop numbered loop_num of function (its assembler name) at place.
  // The first value filed for a loop is the one found by its number.
  void add(const std::string& function, int loop_num, const LoopPlace& place, std::size_t value);

  // The values of the RTL loop `loop` of function, found at place, inlined from the function
  // inlined_from ("" when not inlined); empty when none.
  std::vector<std::size_t> find(const std::string& function, const class loop* loop,
                                const LoopPlace& place, const std::string& inlined_from) const;

 private:
  using Line = std::pair<std::string, int>;  // file, line
  // The loops filed at place, else the one loop filed on its line, among `within`'s loops.
  struct Places {
    std::map<LoopPlace, std::vector<std::size_t>> by_place;
    std::map<Line, std::vector<std::size_t>> by_line;
    std::vector<std::size_t> find(const LoopPlace& place) const;
  };

  std::map<std::pair<std::string, int>, std::size_t> by_loop_;
  std::map<std::string, Places> by_function_;
  Places everywhere_;
};

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_LOOP_INDEX_H
