#!/usr/bin/env python3
"""Loop ids, positions and structural features do not depend on -O level, -g, or on the
factors and instrumentation chosen for loops: the table is the same in every build."""
import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
STRUCTURE = ("blocks", "stmts", "loads", "stores", "calls", "branches", "exits", "inner")
BUILDS = {
    "O2": ["-O2"],
    "O0": ["-O0"],
    "O3-g": ["-O3", "-g"],
    "O1": ["-O1"],
    "O3-unroll-all-8-instrument-all": ["-O3"],
    "O2-unroll-some": ["-O2"],
}


def identity(row):
    """What must not change: the id and everything it is made of, and the cheap features."""
    keys = ("id", "file", "line", "column", "function", "ordinal", "index", "loops", "depth")
    return tuple(row[k] for k in keys) + tuple(row["features"][k] for k in STRUCTURE)


def table_of(source, build):
    table = args.work / f"{source.stem}-{build}.jsonl"
    table.unlink(missing_ok=True)
    keys = {"table": table}
    if build == "O3-unroll-all-8-instrument-all":
        keys.update(unroll="*:8", instrument="*")
    if build == "O2-unroll-some":
        base = lib.read_table(args.work / f"{source.stem}-O2.jsonl")
        keys["unroll"] = ",".join(f"{row['id']}:{3 + i % 5}" for i, row in enumerate(base[::2]))
        keys["instrument"] = ",".join(row["id"] for row in base[1::2]) or "*"
    flags = BUILDS[build] + lib.plugin_flags(args.plugin, **keys)
    lib.compile_object(source, args.work / f"{source.stem}-{build}.o", flags, args.corpus)
    return sorted(identity(row) for row in lib.read_table(table))


for source in lib.corpus_sources(args.corpus):
    reference = table_of(source, "O2")
    failures.check(len(reference) > 0, f"{source.name}: no loops in the table")
    failures.check(len({row[0] for row in reference}) == len(reference),
                   f"{source.name}: duplicate ids")
    for build in list(BUILDS)[1:]:
        if build == "O0" and source.name == "extern_inline.c":
            continue  # at -O0 GCC drops a gnu89 extern inline body unseen: nothing to compare
        table = table_of(source, build)
        failures.check(table == reference, f"{source.name}: table of {build} differs from -O2: "
                       f"{sorted(set(table) ^ set(reference))[:3]}")
# Trip counts (computed without touching the CFG): fir's 8-tap loop runs its latch 8 times
# before header copying; iir's count is the unknown `samples`.
rows = {(r["name"], r["depth"]): r["features"] for r in
        lib.read_table(args.work / "kernels-O2.jsonl")}
failures.check(rows[("fir", 2)]["niter"] == 8 and rows[("fir", 2)]["max_niter"] == 8,
               f"fir inner loop trip counts: {rows[('fir', 2)]}")
failures.check(rows[("iir", 1)]["niter"] == -1, f"iir trip count: {rows[('iir', 1)]}")
failures.finish("identity stability")
