/* The loop the installed package's profile unrolls; LR_PRAGMA builds the same factor by hand. */
void saxpy(float a, const float* x, float* y, int n) {
#ifdef LR_PRAGMA
#pragma GCC unroll 4
#endif
  for (int i = 0; i < n; i++) y[i] += a * x[i];
}
