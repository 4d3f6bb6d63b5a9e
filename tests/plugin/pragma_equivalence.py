#!/usr/bin/env python3
"""Factor F from the plugin (unroll=*:F) gives the same object code as `#pragma GCC unroll F`
on every loop, for F = 1..16, every corpus file, at -O2 and -O3."""
import itertools

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
cases = list(itertools.product(lib.corpus_sources(args.corpus), ["-O2", "-O3"], range(1, 17)))


def compare(case):
    source, level, factor = case
    stem = f"{source.stem}{level}-f{factor}"
    pragma = args.work / f"{stem}-pragma.o"
    plugin = args.work / f"{stem}-plugin.o"
    common = [level, f"-DLR_FACTOR={factor}"]
    difference = lib.compare_builds(source, args.corpus, pragma, common + ["-DLR_USE_PRAGMA"],
                                    plugin,
                                    common + lib.plugin_flags(args.plugin, unroll=f"*:{factor}"))
    return case, difference is None, difference


for (source, level, factor), same, difference in lib.parallel(compare, cases):
    failures.check(same, f"{source.name} {level} factor {factor}: plugin != pragma ({difference})")
# The test must be able to fail: the factor really changes the code of every file.
for source, level in itertools.product(lib.corpus_sources(args.corpus), ["-O2", "-O3"]):
    low, high = (lib.normalized_object(args.work / f"{source.stem}{level}-f{f}-plugin.o")
                 for f in (1, 8))
    failures.check(low != high, f"{source.name} {level}: factors 1 and 8 give the same code")
failures.finish(f"pragma equivalence, {len(cases)} builds")
