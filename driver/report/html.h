// The self-contained HTML report: one file, inline CSS and inline SVG charts, no scripts and no
// network. Per loop: mean and interval per factor (chosen and winners highlighted, disqualified
// marked), samples per factor, the elimination rounds, and the Speedup-Test verdict.
#pragma once

#include <string>

#include "report/model.h"

namespace looprace::report {

std::string render_html(const Report& report);

}  // namespace looprace::report
