// The program the race tests build: one hot loop whose trip count GCC does not know.
#pragma once

namespace looprace::testing {

// Each unroll factor makes its own code (runtime unrolling rounds factors down to a power of
// two, so the code groups are 0-1, 2-3, 4-7, 8-15 and 16).
inline constexpr const char* kOneLoopProgram = R"(#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += (i * 0.5) * ((n - 1 - i) * 0.25);
  printf("%.1f\n", sum);
  return 0;
}
)";

}  // namespace looprace::testing
