/* The hot loop of the runtime's overhead benchmarks: a UTDSP-style FIR filter over one block. */
#ifndef LOOPRACE_FIR_KERNEL_H
#define LOOPRACE_FIR_KERNEL_H

#define FIR_TAPS 32

/* out[n] = sum over k of coefficients[k] * in[n + k], for n < length; `in` holds
 * length + FIR_TAPS - 1 samples. About 24 cycles per sample here (scalar -O2 code). */
void fir_filter_block(const float* coefficients, const float* in, float* out, int length);

#endif
