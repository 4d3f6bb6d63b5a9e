/* The instrumentation ABI of looprace (docs/formats.md section 4), implemented by
 * liblooprace_rt.a. Instrumented code calls __looprace_record on every normal loop exit; with
 * LOOPRACE_OUT=PATH in the environment the runtime appends one record per loop per process to
 * PATH at exit (section 6). Without LOOPRACE_OUT the program behaves as if not instrumented. */
#ifndef LOOPRACE_RT_H
#define LOOPRACE_RT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One finished activation of loop `loop_id`: t0 and cpu0 from the serialized TSC read on entry,
 * t1 and cpu1 from the one on exit (see looprace_tsc.h). Lock-free and allocation-free except
 * on a thread's first call. */
void __looprace_record(uint64_t loop_id, uint64_t t0, uint64_t t1, uint32_t cpu0, uint32_t cpu1)
    __attribute__((nothrow, leaf));

#ifdef __cplusplus
}
#endif

#endif
