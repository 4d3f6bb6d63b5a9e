#!/usr/bin/env python3
"""Compile-time overhead of the looprace plugin on a real program (libgsm 1.0.22's 26 C files,
fetched by scripts/fetch-programs): plain `gcc -O2 -c` against the same with the plugin writing
the loop table (table=, trip counts included) and applying a profile that names every loop.
The two are interleaved (ABBA order) in one run; prints per-round times and the ratios of the
compilers' CPU time (user+sys, the figure that matters on a shared machine) and of wall time.

  benchmarks/plugin/compile_overhead.py --plugin build/lib/looprace.so [--rounds 10]
"""
import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]

parser = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--plugin", required=True, type=pathlib.Path)
parser.add_argument("--rounds", type=int, default=10)
parser.add_argument("--cache", type=pathlib.Path,
                    default=pathlib.Path(os.environ.get("LOOPRACE_PROGRAMS_CACHE",
                                                        ROOT / "build/cache/programs")))
args = parser.parse_args()

subprocess.run([ROOT / "scripts/fetch-programs", str(args.cache)], check=True)
gsm = args.cache / "gsm-1.0-pl22"
sources = sorted((gsm / "src").glob("*.c"))
# libgsm's own flags (its Makefile): -ansi -pedantic, SASR, NeedFunctionPrototypes.
flags = ["-O2", "-ansi", "-pedantic", "-w", "-DSASR", "-DNeedFunctionPrototypes=1",
         f"-I{gsm}/inc"]
work = pathlib.Path(tempfile.mkdtemp(prefix="looprace-compile-overhead-"))


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compile_all(extra):
    """Compiles every file, one compiler at a time; returns (CPU, wall) seconds."""
    start, start_cpu = time.perf_counter(), children_cpu()
    for source in sources:
        subprocess.run(["gcc", *flags, *extra, "-c", str(source), "-o", str(work / "x.o")],
                       check=True)
    return children_cpu() - start_cpu, time.perf_counter() - start


# The profile names every loop of the program (factor 0: GCC's heuristic, so both arms compile
# the same code and the difference is the plugin's own work).
table = work / "table.jsonl"
compile_all([f"-fplugin={args.plugin}", f"-fplugin-arg-looprace-table={table}"])
rows = [json.loads(line) for line in table.read_text().splitlines()]
profile = work / "gsm.profile"
profile.write_text("looprace-profile 1\n" + "".join(
    f"{r['id']} {r['file']}:{r['line']}:{r['column']} {r['function']} {r['index']}/{r['loops']} 0\n"
    for r in rows))
plugin_flags = [f"-fplugin={args.plugin}", f"-fplugin-arg-looprace-table={work / 't.jsonl'}",
                f"-fplugin-arg-looprace-profile={profile}"]

compile_all([])  # warm-up: page cache, dynamic loader
compile_all(plugin_flags)
plain, plugin = [], []
for round_number in range(args.rounds):
    order = [("plain", []), ("plugin", plugin_flags)]
    if round_number % 2:
        order.reverse()
    for name, extra in order:
        (plain if name == "plain" else plugin).append(compile_all(extra))
    (work / "t.jsonl").unlink()


def ratio_summary(label, index):
    a = [t[index] for t in plain]
    b = [t[index] for t in plugin]
    ratios = [y / x for x, y in zip(a, b)]
    print(f"{label}: total ratio {sum(b) / sum(a):.4f}; median per-round ratio "
          f"{statistics.median(ratios):.4f}; min {min(ratios):.4f} max {max(ratios):.4f}")


print(f"program: libgsm 1.0.22, {len(sources)} files, {len(rows)} loops; gcc {' '.join(flags)}")
print(f"plugin arm: {' '.join(plugin_flags)}")
print("round plain_cpu_s plugin_cpu_s plain_wall_s plugin_wall_s")
for number, (a, b) in enumerate(zip(plain, plugin)):
    print(f"{number} {a[0]:.3f} {b[0]:.3f} {a[1]:.3f} {b[1]:.3f}")
ratio_summary("cpu", 0)
ratio_summary("wall", 1)
sys.exit(0)
