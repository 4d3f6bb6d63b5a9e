#!/usr/bin/env python3
"""verify= only watches: with one loop's factor requested (so the unroller and the verify passes
run), adding verify= leaves every object byte-identical, at -O2 and -O3, for each loop of the
corpus in turn. A factor on one loop while its neighbours keep GCC's heuristic is the case that
once left dataflow stale for the functions compiled after it."""
import itertools

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
LEVELS = ["-O2", "-O3"]


def loops_of(source):
    table = args.work / f"{source.stem}-table.jsonl"
    table.unlink(missing_ok=True)
    lib.compile_object(source, args.work / f"{source.stem}-table.o",
                       ["-O2"] + lib.plugin_flags(args.plugin, table=table), args.corpus)
    return [row["id"] for row in lib.read_table(table)]


cases = [(source, level, loop_id)
         for source in lib.corpus_sources(args.corpus)
         for level, loop_id in itertools.product(LEVELS, loops_of(source))]


def compare(case):
    source, level, loop_id = case
    stem = f"{source.stem}{level}-{loop_id}"
    watched, unwatched = args.work / f"{stem}-verify.o", args.work / f"{stem}.o"
    unroll = f"{loop_id}:4"
    difference = lib.compare_builds(
        source, args.corpus, unwatched, [level] + lib.plugin_flags(args.plugin, unroll=unroll),
        watched, [level] + lib.plugin_flags(args.plugin, unroll=unroll,
                                            verify=args.work / f"{stem}.jsonl"))
    return case, difference is None, difference


for (source, level, loop_id), same, difference in lib.parallel(compare, cases):
    failures.check(same, f"{source.name} {level} unroll {loop_id}:4: verify= changed the code "
                   f"({difference})")
failures.finish(f"verify neutrality, {len(cases)} pairs")
