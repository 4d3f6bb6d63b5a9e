/* tests/e2e/race_through.sh: a matrix product whose inner dot product, entered 20,000 times a
 * run, lasts a few dozen cycles per entry: too short to time by itself. The rows repeat every
 * STORED so that the setup touches few pages: a first touch of each page of a 2.5 MB matrix
 * made setup the hottest nest where page faults are slow. */
#include <stdio.h>
enum { N = 32, ROWS = 20000, STORED = 64 };
static volatile unsigned sink;
static unsigned a[N], b[STORED][N];
__attribute__((noipa)) unsigned product(void) {
  unsigned s = 0;
  for (unsigned i = 0; i < ROWS; i++) {
    unsigned acc = 0;
    for (unsigned k = 0; k < N; k++) acc += a[k] * b[i % STORED][k];
    s ^= acc + i;
  }
  return s;
}
int main(void) {
  for (unsigned i = 0; i < STORED; i++)
    for (unsigned k = 0; k < N; k++) b[i][k] = i * 31u + k;
  for (unsigned k = 0; k < N; k++) a[k] = k * 7u + 1;
  unsigned s = 0;
  for (int r = 0; r < 20; r++) s += product();
  sink = s;
  printf("%u\n", s);
  return 0;
}
