/* End-to-end test program for `looprace race`: two loops with known behaviour.
 *   kernel N differ VARIANT  runs the loop in reduce() N times, or 4N times unless VARIANT is
 *                            "f4" (or "f4-l<seed>", a layout): the run command passes the variant
 *                            directory's name, so factor 4 is the fastest whatever the machine.
 *   kernel N tie             runs the loop in repeat(), whose 4 iterations each call burn(): its
 *                            time does not depend on how it is unrolled, so all factors tie.
 *   kernel N both            runs both loops (reduce() N times), for races of both together.
 * The output depends on neither the variant nor the factor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned data[1024];
static volatile unsigned long sink;

/* Trip count known only at run time: every unroll factor gives different code. */
__attribute__((noipa)) static unsigned long reduce(long n) {
  unsigned long acc = 0;
  for (long i = 0; i < n; i++) acc += data[i & 1023] * (unsigned long)(i | 1);
  return acc;
}

__attribute__((noipa)) static unsigned long burn(unsigned long x) {
  for (int k = 0; k < 20000; k++) x = x * 6364136223846793005UL + 1442695040888963407UL;
  return x;
}

/* Four iterations: factors 4..16 all unroll it completely into the same code. */
__attribute__((noipa)) static unsigned long repeat(unsigned long x) {
  for (int i = 0; i < 4; i++) x = burn(x + (unsigned long)i);
  return x;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: kernel N differ|tie|both [VARIANT]\n");
    return 2;
  }
  long n = atol(argv[1]);
  for (int i = 0; i < 1024; i++) data[i] = (unsigned)i * 2654435761u;
  if (strcmp(argv[2], "differ") == 0) {
    int fast = argc > 3 && (strcmp(argv[3], "f4") == 0 || strncmp(argv[3], "f4-l", 4) == 0);
    sink = reduce(fast ? n : 4 * n);
  } else if (strcmp(argv[2], "both") == 0) {
    sink = reduce(n) + repeat((unsigned long)n);
  } else {
    sink = repeat((unsigned long)n);
  }
  printf("kernel %s done\n", argv[2]);
  return 0;
}
