/* tests/e2e/hotness.sh: a nest whose inner loop is entered millions of times beside a loop
 * taking most of a plain run. */
#include <stdio.h>
static volatile unsigned sink;
__attribute__((noipa)) unsigned nest(unsigned n) {
  unsigned s = 0;
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < 3; j++) s += (i ^ j) * 2654435761u;
  return s;
}
__attribute__((noipa)) unsigned sibling(unsigned n) {
  unsigned s = 1;
  for (unsigned i = 0; i < n; i++) s = s * 1103515245u + (s >> 7) + i;
  return s;
}
int main(void) {
  sink = nest(3000000);
  sink = sibling(9000000);
  printf("done\n");
  return 0;
}
