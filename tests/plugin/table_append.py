#!/usr/bin/env python3
"""The loop table survives concurrent compilers appending to one file (make -j), and a linked
executable carries, in .looprace.loops, exactly the rows of the units linked into it."""
import concurrent.futures
import json

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
work = args.work
sources = [s for s in lib.corpus_sources(args.corpus) if s.suffix == ".c"]

# Reference: each unit's rows, written alone.
alone = {}
for source in sources:
    table = work / f"{source.stem}-alone.jsonl"
    table.unlink(missing_ok=True)
    lib.compile_object(source, work / f"{source.stem}.o",
                       ["-O2"] + lib.plugin_flags(args.plugin, table=table), args.corpus)
    alone[source] = table.read_text()

# 24 compilers at once appending to one table.
shared = work / "shared.jsonl"
shared.unlink(missing_ok=True)
jobs = [sources[i % len(sources)] for i in range(24)]
with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
    list(pool.map(lambda item: lib.compile_object(
        item[1], work / f"concurrent-{item[0]}.o",
        ["-O2"] + lib.plugin_flags(args.plugin, table=shared), args.corpus), enumerate(jobs)))
lines = shared.read_text().splitlines()
expected = sorted(line for source in jobs for line in alone[source].splitlines())
failures.check(sorted(lines) == expected, "concurrent appends lost, split or mixed lines")
failures.check(all(json.loads(line)["v"] == 1 for line in lines), "invalid JSON line")

# Two units in one executable: the section is the concatenation of their tables.
linked = [(args.corpus / "kernels.c", []), (args.corpus / "shapes.c", ["-Dmain=shapes_main"])]
units, tables = [], []
for source, defines in linked:
    table, unit = work / f"{source.stem}-unit.jsonl", work / f"{source.stem}-unit.o"
    table.unlink(missing_ok=True)
    lib.compile_object(source, unit, ["-O2"] + defines + lib.plugin_flags(args.plugin, table=table),
                       args.corpus)
    units.append(str(unit))
    tables.append(table.read_text())
executable = work / "two-units"
lib.run(["gcc", *units, "-o", str(executable)])
section = work / "two-units.section"
lib.run(["objcopy", "--dump-section", f".looprace.loops={section}", str(executable)])
failures.check(section.read_text() == "".join(tables) and all(tables),
               "the linked file's .looprace.loops is not the units' tables concatenated")
failures.finish("table append")
