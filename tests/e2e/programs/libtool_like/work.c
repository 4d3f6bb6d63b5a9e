/* The loop raced by tests/e2e/libtool.sh: in a source file built the way libtool builds. */
long work(long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += i * (i & 7);
  return s;
}
