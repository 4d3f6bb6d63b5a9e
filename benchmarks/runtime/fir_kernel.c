/* Built plain, instrumented by the looprace plugin (the block loop, selected by its id), or
 * with -DLOOPRACE_HAND_INSTRUMENTED, which wraps the block loop in exactly the sequence the
 * plugin emits (docs/formats.md section 4). */
#include "fir_kernel.h"

#ifdef LOOPRACE_HAND_INSTRUMENTED
#include "looprace_rt.h"
#include "looprace_tsc.h"
#define FIR_LOOP_ID UINT64_C(0xf17f17f17f17f170)
#endif

void fir_filter_block(const float* coefficients, const float* in, float* out, int length) {
#ifdef LOOPRACE_HAND_INSTRUMENTED
  uint32_t cpu0, cpu1;
  uint64_t t0 = looprace_tsc_read(&cpu0);
#endif
  for (int n = 0; n < length; ++n) {
    float sum = 0.0f;
    for (int k = 0; k < FIR_TAPS; ++k) sum += coefficients[k] * in[n + k];
    out[n] = sum;
  }
#ifdef LOOPRACE_HAND_INSTRUMENTED
  uint64_t t1 = looprace_tsc_read(&cpu1);
  __looprace_record(FIR_LOOP_ID, t0, t1, cpu0, cpu1);
#endif
}
