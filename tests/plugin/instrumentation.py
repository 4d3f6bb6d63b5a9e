#!/usr/bin/env python3
"""instrument=* keeps every corpus program's output (with and without factors, -O0..-O3),
links (gnu89 extern inline included), reports inlined and cloned copies under one id with
exact entry counts, and leaves each loop's own unrolling and vectorization as they were; the
same with the entry reading the processor id by rdpid (entry-cpu=rdpid) where the CPU has it."""
import itertools
import os
import re

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
LEVELS = ["-O0", "-O2", "-O3"]
FACTORS = [None, 1, 4, 7]
# The factor whose variants also take the rdpid entry (the driver's choice on CPUs that have it).
RDPID_FACTOR = 4
with open("/proc/cpuinfo") as cpuinfo:
    HAS_RDPID = any(line.startswith("flags") and " rdpid" in line for line in cpuinfo)
if not HAS_RDPID:
    print("skipped: entry-cpu=rdpid (this CPU has no rdpid)")


def link_flags():
    return [f"-Wl,--whole-archive,{args.runtime},--no-whole-archive"]


def build(source, name, flags):
    exe = args.work / name
    command = [lib.compiler_for(source), str(source), f"-I{args.corpus}", "-o", str(exe)]
    result = lib.run(command + lib.standard_flags(source) + flags, check=False)
    return exe if result.returncode == 0 else result


def run(exe, records=None):
    env = dict(os.environ)
    if records:
        records.unlink(missing_ok=True)
        env["LOOPRACE_OUT"] = str(records)
    return lib.run([str(exe)], env=env, check=False)


def baseline_output(case):
    """The output of the program built without the plugin; None when that build fails."""
    source, level = case
    baseline = build(source, f"{source.stem}{level}-base", [level])
    return run(baseline) if isinstance(baseline, os.PathLike) else None


def check_variant(case):
    source, level, factor = case
    expected = expected_outputs[(source, level)]
    if expected is None:
        return [f"skipped: {source.name} {level} fails to build without the plugin"]
    stem = f"{source.stem}{level}-f{factor}"
    table, records = args.work / f"{stem}.jsonl", args.work / f"{stem}.records"
    table.unlink(missing_ok=True)
    keys = {"table": table, "instrument": "*"}
    if factor is not None:
        keys["unroll"] = f"*:{factor}"
    if factor == RDPID_FACTOR and HAS_RDPID:
        keys["entry-cpu"] = "rdpid"
    exe = build(source, stem, [level] + lib.plugin_flags(args.plugin, **keys) + link_flags())
    if not isinstance(exe, os.PathLike):
        return [f"FAIL {stem}: instrumented build failed:\n{exe.stderr[-2000:]}"]
    got = run(exe, records)
    problems = []
    if (got.returncode, got.stdout) != (expected.returncode, expected.stdout):
        problems.append(f"FAIL {stem}: output changed:\n{got.stdout}\nexpected:\n{expected.stdout}")
    rows = lib.read_table(table)
    by_id = {}
    for record in lib.read_records(records):
        by_id[record["id"]] = by_id.get(record["id"], 0) + int(record["entries"])
    for row in rows:
        if row["id"] not in by_id:
            problems.append(f"FAIL {stem}: loop {row['id']} ({row['name']} line {row['line']}) "
                            "never reported")
    unknown = set(by_id) - {row["id"] for row in rows}
    if unknown:
        problems.append(f"FAIL {stem}: records for ids not in the table: {sorted(unknown)}")
    problems += check_entry_counts(stem, rows, by_id)
    return problems


# Loops whose dynamic entry count the corpus fixes: (file, function name, depth) -> entries.
# checksum and weighted_sum are inlined into main twice: both copies report under one id.
EXPECTED_ENTRIES = {
    ("shapes.c", "checksum", 1): 2,
    ("shapes.c", "early_exit", 1): 2,
    ("shapes.c", "while_loop", 1): 2,
    ("shapes.c", "nested", 2): 13,
    ("extern_inline.c", "weighted_sum", 1): 2,
    ("kernels.c", "fir", 2): 512 - 8,
}


def check_entry_counts(stem, rows, by_id):
    problems = []
    for row in rows:
        key = (os.path.basename(row["file"]), row["name"], row["depth"])
        if key in EXPECTED_ENTRIES and by_id.get(row["id"]) != EXPECTED_ENTRIES[key]:
            problems.append(f"FAIL {stem}: {key} entered {by_id.get(row['id'])} times, "
                            f"expected {EXPECTED_ENTRIES[key]}")
    return problems


def optimizations(source, flags):
    """The -fopt-info-loop/vec 'optimized' lines of loops in noinline functions."""
    result = lib.run([lib.compiler_for(source), "-c", str(source), f"-I{args.corpus}", "-o",
                      os.devnull, "-fopt-info-loop-optimized", "-fopt-info-vec-optimized"] +
                     lib.standard_flags(source) + flags)
    lines = set()
    for line in result.stderr.splitlines():
        match = re.match(r"(.*?):(\d+):(\d+): optimized: (.*)", line)
        if match:
            lines.add((int(match.group(2)), match.group(4)))
    return lines


baselines = list(itertools.product(lib.corpus_sources(args.corpus), LEVELS))
expected_outputs = dict(zip(baselines, lib.parallel(baseline_output, baselines)))
cases = list(itertools.product(lib.corpus_sources(args.corpus), LEVELS, FACTORS))
for problems in lib.parallel(check_variant, cases):
    for problem in problems:
        if problem.startswith("skipped"):
            print(problem)
        else:
            failures.check(False, problem)

# The loop's own optimizations: timing one loop (as the driver does) must leave the unroll and
# vectorize messages at that loop's line as they were. kernels.c keeps its functions out of
# line. Only outermost loops are checked: timing an inner loop puts its exit probe inside the
# enclosing loop's body, which stops outer-loop vectorization (of kernels.c's fir and matmul),
# and with it how the inner loop is compiled. That cost is inherent to per-entry timing.
kernels = args.corpus / "kernels.c"
kernel_table = args.work / "kernels-own.jsonl"
kernel_table.unlink(missing_ok=True)
lib.compile_object(kernels, args.work / "kernels-own.o",
                   ["-O2"] + lib.plugin_flags(args.plugin, table=kernel_table), args.corpus)
outermost = [row for row in lib.read_table(kernel_table) if row["depth"] == 1]
own_cases = list(itertools.product(outermost, ["-O2", "-O3"], [None, 4]))


def own_optimizations(case):
    row, level, factor = case
    keys = {} if factor is None else {"unroll": f"{row['id']}:{factor}"}
    plain = optimizations(kernels, [level] + lib.plugin_flags(args.plugin, **keys))
    timed = optimizations(kernels,
                          [level] + lib.plugin_flags(args.plugin, instrument=row["id"], **keys))
    own = {line for line in plain ^ timed if line[0] == row["line"]}
    return case, own


for (row, level, factor), changed in lib.parallel(own_optimizations, own_cases):
    failures.check(not changed, f"kernels.c line {row['line']} {level} factor {factor}: "
                   f"timing it changed its own optimizations: {sorted(changed)}")
failures.finish(f"instrumentation, {len(cases)} variants")
