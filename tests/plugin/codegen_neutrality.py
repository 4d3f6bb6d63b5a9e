#!/usr/bin/env python3
"""Loading the plugin while selecting nothing gives byte-identical objects (apart from the
.looprace.loops table section) to not loading it, at -O0/-O1/-O2/-O3, with -g and with
-funroll-loops, whether no argument is given, selectors match nothing, or verify= or table=
(trip counts included) is asked."""
import itertools

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
# -gno-record-gcc-switches: DW_AT_producer would record the -fplugin option itself.
LEVELS = [["-O0"], ["-O1"], ["-O2"], ["-O3"], ["-O2", "-g", "-gno-record-gcc-switches"],
          ["-O2", "-funroll-loops"]]
SELECTING_NOTHING = {
    "bare": {},
    "unmatched": {"unroll": "0123456789abcdef:4,nosuch.c:1:1:8", "instrument": "nosuch.c:2:3"},
    "verify": {"verify": "{work}/verify.jsonl"},
    "table": {"table": "{work}/table.jsonl"},
}
cases = list(itertools.product(lib.corpus_sources(args.corpus), range(len(LEVELS)),
                               SELECTING_NOTHING))


def compare(case):
    source, level, mode = case
    stem = f"{source.stem}-{level}-{mode}"
    plain, loaded = args.work / f"{stem}-plain.o", args.work / f"{stem}-loaded.o"
    keys = {k: v.format(work=args.work) for k, v in SELECTING_NOTHING[mode].items()}
    difference = lib.compare_builds(source, args.corpus, plain, LEVELS[level], loaded,
                                    LEVELS[level] + lib.plugin_flags(args.plugin, **keys))
    return case, difference is None, difference


for (source, level, mode), same, difference in lib.parallel(compare, cases):
    failures.check(same, f"{source.name} {' '.join(LEVELS[level])} {mode}: code changed "
                   f"({difference})")
failures.finish(f"codegen neutrality, {len(cases)} pairs")
