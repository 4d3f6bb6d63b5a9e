// Loop timing (docs/formats.md section 4): on entry `t0 = rdtscp(&cpu0); lfence` (or, with
// EntryCpu::rdpid, `cpu0 = rdpid; lfence; t0 = rdtsc`), on every normal exit
// `t1 = rdtscp(&cpu1); lfence; __looprace_record(id, t0, t1, cpu0, cpu1)`.
#ifndef LOOPRACE_PLUGIN_INSTRUMENT_H
#define LOOPRACE_PLUGIN_INSTRUMENT_H

#include "gcc_headers.h"
#include "loop_identity.h"

namespace looprace {

// How the entry reads the processor id that `migrated` compares with the exit's. rdtscp reads
// it with the clock, which makes the entry's read cost about 15 % more than the physical floor
// `lfence; rdtsc`; rdpid reads it alone at no measurable cost, but only CPUs that have it (the
// driver asks for it when the machine that runs the variants does) can run the code.
enum class EntryCpu { rdtscp, rdpid };

// Finds the target builtins and declares the runtime hook; false (with a GCC error emitted)
// when the target lacks them. Call once per translation unit before instrument_loop.
bool prepare_instrumentation(EntryCpu entry_cpu);

// Instruments the given loops of fun and returns how many were instrumented (a loop without a
// single entry edge is skipped with a warning). Needs preheaders (LOOPS_NORMAL) and recorded
// exits; virtual operands are marked for renaming, so the pass must return
// TODO_update_ssa_only_virtuals.
int instrument_loops(function* fun, const std::vector<const LoopIdentity*>& loops);

// Keeps a gnu89 `extern inline` function inlinable despite the timing code: its body is never
// emitted out of line, so losing inlining would leave an undefined reference at link time.
void keep_extern_inline_inlinable(function* fun);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_INSTRUMENT_H
