// The terminal summary, hyperfine style: context and warnings first, then per loop a table of
// factors (mean ± interval, samples, status), the chosen factor and its speedup in plain words.
#pragma once

#include <string>

#include "report/model.h"

namespace looprace::report {

std::string render_text(const Report& report);

}  // namespace looprace::report
