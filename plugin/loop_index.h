// Ties the loops GCC's RTL passes see to the loops the early pass identified: by the loop itself
// where it survived (same function, same loop number, or the number of the loop it was copied
// from: the vectorizer's versions and epilogues), else, for inlined and cloned copies, by
// location as -fopt-info-loop reports it, else by line (the vectorizer can report another
// column of it). A loop GCC made that none of these find (a vectorized loop's copy reporting
// the line of a statement) can only be told to come from one of its function's loops.
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

  // Files `value` under that loop alone, never found by location (an RTL loop itself).
  void add_exact(const std::string& function, int loop_num, std::size_t value);

  // How widely find() looks: the one loop it can tie an RTL loop to, or every loop the RTL
  // loop could come from (every loop of its line, else of its function).
  enum class Reach { one, every_candidate };

  // The values of the RTL loop `loop` of function, found at place; empty when none.
  std::vector<std::size_t> find(const std::string& function, const class loop* loop,
                                const LoopPlace& place, Reach reach = Reach::one) const;

 private:
  std::map<std::pair<std::string, int>, std::size_t> by_loop_;
  std::map<LoopPlace, std::vector<std::size_t>> by_place_;
  std::map<std::pair<std::string, int>, std::vector<std::size_t>> by_line_;
  std::map<std::string, std::vector<std::size_t>> by_function_;
};

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_LOOP_INDEX_H
