#!/usr/bin/env python3
"""layout-seed=S pads every function by its own seeded amount before its entry label: the same
seed gives the same code, other seeds move functions by different amounts, a function with its
own patchable_function_entry keeps it, and the program computes the same."""
import re

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
work = args.work
source = work / "layout.c"
# Adjacent literals: a C line ends only where a literal ends in \n.
source.write_text(
    "#include <stdio.h>\n"
    "static int square(int x) { return x * x; }\n"
    "__attribute__((noinline)) int sum_squares(int n) { int s = 0; for (int i = 0; i < n; i++) "
    "s += square(i); return s; }\n"
    "__attribute__((noinline)) int plus_one(int n) { return sum_squares(n) + 1; }\n"
    "__attribute__((noinline)) int twice(int n) { return plus_one(n) * 2; }\n"
    "__attribute__((noinline)) int thrice(int n) { return twice(n) * 3; }\n"
    "__attribute__((noinline, patchable_function_entry(3, 1))) int patched(int n) "
    "{ return thrice(n) - 1; }\n"
    "int main(void) { printf(\"%d\\n\", patched(10)); return 0; }\n")
FUNCTIONS = ["sum_squares", "plus_one", "twice", "thrice", "patched", "main"]


def assembly(seed, name):
    out = work / f"{name}.s"
    flags = [] if seed is None else lib.plugin_flags(args.plugin, **{"layout-seed": seed})
    lib.run(["gcc", "-O2", "-S", str(source), "-o", str(out)] + flags)
    return out.read_text()


def padding(text):
    """Nops between each function's patch-area label and its entry label."""
    pads = {}
    for name in FUNCTIONS:
        match = re.search(r"\n\.LPFE\d+:\n((?:\tnop\n)*)\t\.type\t" + name + r", @function\n", text)
        pads[name] = 0 if match is None else match.group(1).count("nop")
    return pads


plain = padding(assembly(None, "plain"))
failures.check(all(v == 0 for k, v in plain.items() if k != "patched"),
               f"without a seed no function is padded: {plain}")
seeds = {s: padding(assembly(s, f"seed{s}")) for s in range(1, 9)}
failures.check(assembly(3, "again") == assembly(3, "seed3"), "the same seed gives different code")
for seed, pads in seeds.items():
    failures.check(all(0 <= v <= 63 for v in pads.values()),
                   f"seed {seed}: padding out of 0..63: {pads}")
    failures.check(pads["patched"] == 1,
                   f"seed {seed}: patchable_function_entry(3, 1) not kept "
                   f"(1 nop before entry): {pads}")
for name in FUNCTIONS:
    if name == "patched":
        continue
    values = {pads[name] for pads in seeds.values()}
    failures.check(len(values) >= 3, f"{name}: 8 seeds gave only paddings {sorted(values)}")
# Per function, not one shift for the whole program: some seed pads two functions differently.
failures.check(any(len({pads[n] for n in FUNCTIONS if n != "patched"}) > 1
                   for pads in seeds.values()),
               f"every seed pads all functions alike: {seeds}")

outputs = set()
for seed in (None, 1, 2, 5):
    exe = work / f"layout-{seed}"
    flags = [] if seed is None else lib.plugin_flags(args.plugin, **{"layout-seed": seed})
    lib.run(["gcc", "-O2", str(source), "-o", str(exe)] + flags)
    outputs.add(lib.run([str(exe)]).stdout)
failures.check(outputs == {"1715\n"}, f"padding changed what the program computes: {outputs}")

for bad in ("-1", "x", "12abc", ""):
    result = lib.run(["gcc", "-O2", "-c", str(source), "-o", str(work / "bad.o")] +
                     [f"-fplugin={args.plugin}", f"-fplugin-arg-looprace-layout-seed={bad}"],
                     check=False)
    expected = "needs a value" if bad == "" else "expected a decimal number"
    failures.check(result.returncode != 0 and expected in result.stderr
                   and "internal compiler error" not in result.stderr,
                   f"layout-seed={bad!r}: {result.stderr.strip()}")

failures.finish("layout padding")
