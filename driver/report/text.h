// The terminal summary, hyperfine style: context and warnings first, then per loop a table of
// factors (mean ± interval, samples, status), the chosen factor and its speedup in plain words.
#pragma once

#include <string>

#include "report/model.h"

namespace looprace::report {

std::string render_text(const Report& report);

// "12.3% of the program's cycles", or "at most 12.3% ..." when the share is an upper bound.
std::string hotness_text(double share, bool is_bound);

}  // namespace looprace::report
