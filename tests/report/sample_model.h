// A synthetic but realistic report model for tests and for looking at the HTML page: loops
// raced by the real race plan on log-normal cycles with fixed seeds.
#pragma once

#include "report/model.h"

namespace looprace::report::testing {

// Three loops: a clear winner (with one disqualified factor and factors sharing code), a loop
// where every factor ties, and an interrupted race (no decision). Deterministic.
Report sample_report();

}  // namespace looprace::report::testing
