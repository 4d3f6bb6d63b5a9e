// Shapiro–Wilk test of normality: W statistic and p-value by Royston's method (Applied
// Statistics algorithm AS R94, the one behind R's shapiro.test), for 3 <= n <= 5000.
#pragma once

#include <vector>

namespace looprace::stats {

struct ShapiroWilk {
  double w = 0.0;
  double p_value = 0.0;
};

// Throws std::invalid_argument when n is outside 3..5000 or all values are identical.
ShapiroWilk shapiro_wilk(std::vector<double> sample);

}  // namespace looprace::stats
