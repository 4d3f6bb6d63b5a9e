/* tests/e2e/race_through.sh: a matrix product whose inner dot product, entered 20,000 times a
 * run, lasts a few dozen cycles per entry: too short to time by itself. */
#include <stdio.h>
enum { N = 32, ROWS = 20000 };
static volatile unsigned sink;
static unsigned a[N], b[ROWS][N];
__attribute__((noipa)) unsigned product(void) {
  unsigned s = 0;
  for (unsigned i = 0; i < ROWS; i++) {
    unsigned acc = 0;
    for (unsigned k = 0; k < N; k++) acc += a[k] * b[i][k];
    s ^= acc + i;
  }
  return s;
}
int main(void) {
  for (unsigned i = 0; i < ROWS; i++)
    for (unsigned k = 0; k < N; k++) b[i][k] = i * 31u + k;
  for (unsigned k = 0; k < N; k++) a[k] = k * 7u + 1;
  unsigned s = 0;
  for (int r = 0; r < 20; r++) s += product();
  sink = s;
  printf("%u\n", s);
  return 0;
}
