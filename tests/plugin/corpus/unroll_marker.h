/* LR_UNROLL marks every loop of the corpus. Built with -DLR_USE_PRAGMA -DLR_FACTOR=F it becomes
   `#pragma GCC unroll F` on the same line, so the pragma build and the plugin build
   (-fplugin-arg-looprace-unroll=*:F) have the same line numbers and must give the same code. */
#ifndef LR_UNROLL_MARKER_H
#define LR_UNROLL_MARKER_H
#define LR_PRAGMA(text) _Pragma(#text)
#define LR_PRAGMA_UNROLL(factor) LR_PRAGMA(GCC unroll factor)
#ifdef LR_USE_PRAGMA
#define LR_UNROLL LR_PRAGMA_UNROLL(LR_FACTOR)
#else
#define LR_UNROLL
#endif
#endif
