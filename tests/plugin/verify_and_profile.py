#!/usr/bin/env python3
"""verify= reports what GCC really applied (agreeing with -fopt-info), a profile applies the
same factors as unroll=, unroll= overrides the profile, and a profile keeps applying after
lines are added above its loops (re-matched with a warning naming the profile line)."""
import json
import re

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
source = args.corpus / "kernels.c"
work = args.work


def table_rows(path, flags):
    table = work / (path.stem + ".jsonl")
    table.unlink(missing_ok=True)
    lib.compile_object(path, work / "table.o", flags + lib.plugin_flags(args.plugin, table=table),
                       args.corpus)
    return lib.read_table(table)


rows = table_rows(source, ["-O2"])
by_text = {}
for row in rows:
    by_text.setdefault((row["name"], row["depth"]), row)


def loop(name, depth=1):
    return by_text[(name, depth)]


# --- verify: (loop, requested, expected applied, expected how)
EXPECTED = [
    (loop("fir", 1), 4, 1, "not-innermost"),
    (loop("iir"), 4, 4, ""),
    (loop("histogram_of"), 3, 2, "runtime-pow2"),
    (loop("histogram_of"), 8, 8, ""),
    (loop("histogram_of"), 1, 1, ""),
    (loop("matmul", 1), 1, 1, ""),
]
for row, requested, applied, how in EXPECTED:
    verify = work / "verify.jsonl"
    verify.unlink(missing_ok=True)
    result = lib.compile_object(source, work / "v.o", ["-O2", "-fopt-info-loop-optimized"] +
                                lib.plugin_flags(args.plugin, unroll=f"{row['id']}:{requested}",
                                                 verify=verify), args.corpus)
    records = [json.loads(line) for line in verify.read_text().splitlines()]
    label = f"{row['name']} line {row['line']} factor {requested}"
    if not failures.check(len(records) == 1, f"{label}: {len(records)} verify records"):
        continue
    record = records[0]
    failures.check((record["id"], record["requested"], record["applied"], record["how"]) ==
                   (row["id"], requested, applied, how), f"{label}: verify says {record}")
    # The record agrees with GCC's own report for the loop's location.
    message = re.search(rf":{row['line']}:{row['column']}: optimized: loop unrolled (\d+) times",
                        result.stderr)
    reported = int(message.group(1)) + 1 if message else 1
    failures.check(reported == record["applied"],
                   f"{label}: -fopt-info says {reported} copies, verify {record['applied']}")


def check_complete_tree(path, row, label):
    """With factor 16, the 16-iteration loop `row` of `path` is verified as complete-tree."""
    verify = work / f"verify-{path.stem}-{row['id']}.jsonl"
    verify.unlink(missing_ok=True)
    lib.compile_object(path, work / "v.o", ["-O2"] + lib.plugin_flags(
        args.plugin, unroll=f"{row['id']}:16", verify=verify), args.corpus)
    record = json.loads(verify.read_text())
    failures.check((record["applied"], record["how"]) == (0, "complete-tree"),
                   f"{label} with factor 16: {record}")


# A loop fully unrolled at GIMPLE: main's 16-iteration printf loop with factor 16.
last = max((r for r in rows if r["name"] == "main"), key=lambda r: r["line"])
check_complete_tree(source, last, "16-iteration loop")

# The same in a function inlined into its only caller and then dropped: the loop vanished in
# the caller, so it is complete-tree too (not "not-found", as if it had never been compiled).
inlined = work / "inlined.c"
inlined.write_text("""static int sum16(const int *a) {
  int s = 0;
  for (int i = 0; i < 16; i++) s += a[i] * (i + 1);
  return s;
}
int total(const int *a, int n) {
  int t = 0;
  for (int j = 0; j + 16 <= n; j += 16) t += sum16(a + j);
  return t;
}
""")
inner = next(r for r in table_rows(inlined, ["-O2"]) if r["function"] == "sum16")
check_complete_tree(inlined, inner, "inlined 16-iteration loop")


# Every corpus loop with factor 4: the records agree with GCC's own "loop unrolled N times".
for path in lib.corpus_sources(args.corpus):
    table, verify = work / f"{path.stem}-all.jsonl", work / f"{path.stem}-all-verify.jsonl"
    table.unlink(missing_ok=True)
    verify.unlink(missing_ok=True)
    result = lib.compile_object(path, work / "all.o", ["-O2", "-fopt-info-loop-optimized"] +
                                lib.plugin_flags(args.plugin, table=table, verify=verify,
                                                 unroll="*:4"), args.corpus)
    all_rows = lib.read_table(table)
    places = {(r["line"], r["column"]): r["id"] for r in all_rows}
    line_of = {r["id"]: r["line"] for r in all_rows}
    records = {r["id"]: r for r in map(json.loads, verify.read_text().splitlines())}
    failures.check(set(records) == set(line_of), f"{path.name}: not one record per loop")
    unrolled_lines = set()
    for line, column, times in re.findall(r":(\d+):(\d+): optimized: loop unrolled (\d+) times",
                                          result.stderr):
        unrolled_lines.add(int(line))
        loop_id = places.get((int(line), int(column)))
        if loop_id in records:
            failures.check(int(times) + 1 in records[loop_id]["copies"],
                           f"{path.name}:{line}:{column}: GCC unrolled to {int(times) + 1} "
                           f"copies, verify says {records[loop_id]}")
    for loop_id, record in records.items():
        if record["applied"] >= 2:
            failures.check(line_of[loop_id] in unrolled_lines,
                           f"{path.name}: verify says {record} but GCC reports no unrolling")


# --- profiles
def profile_text(entries):
    lines = ["looprace-profile 1", "# id location function pos factor evidence"]
    for row, factor in entries:
        lines.append(f"{row['id']} {row['file']}:{row['line']}:{row['column']} {row['function']} "
                     f"{row['index']}/{row['loops']} {factor} samples=10,10")
    return "\n".join(lines) + "\n"


def build(path, name, **keys):
    result = lib.compile_object(path, work / name, ["-O2"] + lib.plugin_flags(args.plugin, **keys),
                                args.corpus)
    return lib.normalized_object(work / name), result.stderr


choice = [(loop("iir"), 4), (loop("histogram_of"), 2), (loop("matmul", 3), 8)]
profile = work / "kernels.profile"
profile.write_text(profile_text(choice))
by_profile, warnings = build(source, "p.o", profile=profile)
by_arguments, _ = build(source, "a.o", unroll=",".join(f"{r['id']}:{f}" for r, f in choice))
plain, _ = build(source, "n.o")
failures.check(by_profile == by_arguments, "profile and unroll= give different code")
failures.check(by_profile != plain, "the profile changed nothing")
failures.check(not warnings, f"exact profile warns: {warnings}")

override = ",".join(f"{r['id']}:1" for r, _ in choice)
overridden, _ = build(source, "o.o", profile=profile, unroll=override)
only_arguments, _ = build(source, "oa.o", unroll=override)
failures.check(overridden == only_arguments, "unroll= does not override the profile")

# Lines added above the loops: ids go stale, the profile still applies, with warnings.
shifted = work / "kernels.c"
shifted.write_text("/* an unrelated edit\n   of three lines\n */\n" + source.read_text())
new_rows = table_rows(shifted, ["-O2"])
new_by = {(r["name"], r["depth"]): r for r in reversed(new_rows)}
renamed = [(new_by[(r["name"], r["depth"])], f) for r, f in choice]
failures.check(all(n["id"] != r["id"] for (n, _), (r, _) in zip(renamed, choice)),
               "shifting lines did not change the ids; the test proves nothing")
stale, warnings = build(shifted, "s.o", profile=profile)
fresh, _ = build(shifted, "f.o", unroll=",".join(f"{r['id']}:{f}" for r, f in renamed))
failures.check(stale == fresh, "a stale profile is not re-applied to the moved loops")
for number, (row, _) in enumerate(choice, start=3):
    failures.check(f"kernels.profile:{number}: loop id {row['id']}" in warnings and
                   "re-matched" in warnings, f"no re-match warning for profile line {number}:\n"
                   f"{warnings}")
# A stale id with no loop left in its function to take it: warned about, never silent.
iir = loop("iir")
orphan = dict(iir, id="ffffffffffffffff", line=iir["line"] + 40, index=1, loops=2)
profile.write_text(profile_text([(iir, 4), (orphan, 8)]))
_, warnings = build(source, "orphan.o", profile=profile)
failures.check("kernels.profile:4: loop id ffffffffffffffff" in warnings and
               "its factor is not applied" in warnings, f"orphan entry not warned:\n{warnings}")
failures.finish("verify and profile")
