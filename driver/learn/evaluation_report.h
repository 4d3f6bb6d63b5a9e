// An evaluation as a reader meets it: a text table, JSON, and a self-contained HTML page with
// its plots. One renderer per format, all from the same Evaluation.
#pragma once

#include <string>

#include "learn/evaluation.h"

namespace looprace::learn {

std::string evaluation_text(const Evaluation& evaluation);
std::string evaluation_json(const Evaluation& evaluation);
std::string evaluation_html(const Evaluation& evaluation);

}  // namespace looprace::learn
