#!/usr/bin/env python3
"""How much of -funroll-loops' gain is unrolling? -funroll-loops also turns on -fweb and
-frename-registers, which change every function whatever the unroll factors. Builds kernels at
BASE, BASE -fweb -frename-registers and BASE -funroll-loops, times them interleaved in a random
order per round (CPU time: user + sys of each run) and prints each against BASE: the ratio of
geometric means with its 95 % interval.

usage: benchmarks/payoff/side_flags.py [--base=-O3] [--rounds 60] [kernel ...]
  (default kernels: color viterbi; built from benchmarks/kernels/<name>.c into a temp dir)
"""
import argparse
import math
import random
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import benchlib  # noqa: E402

KERNELS = Path(__file__).resolve().parent.parent / "kernels"
CONFIGS = {"base": [], "web": ["-fweb", "-frename-registers"], "unroll": ["-funroll-loops"]}


def cpu_seconds(program):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([program], stdout=subprocess.DEVNULL, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def ratio(base, other):
    """Ratio of geometric means base/other with a Welch 95 % interval on the logs."""
    a, b = [math.log(x) for x in base], [math.log(x) for x in other]
    d = statistics.mean(a) - statistics.mean(b)
    se = math.sqrt(statistics.variance(a) / len(a) + statistics.variance(b) / len(b))
    return math.exp(d), math.exp(d - 1.98 * se), math.exp(d + 1.98 * se)


def ratio_table(base, kernels, times):
    """Per kernel, BASE against BASE -fweb -frename-registers and against BASE -funroll-loops."""
    rows = [[k, *("{:.3f} [{:.3f}, {:.3f}]".format(*ratio(times[k, "base"], times[k, n]))
                  for n in ("web", "unroll"))] for k in kernels]
    return benchlib.markdown_table(
        ["kernel", f"{base} -fweb -frename-registers", f"{base} -funroll-loops"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="-O3")
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("kernels", nargs="*", default=["color", "viterbi"])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        programs = {}
        for k in args.kernels:
            for name, flags in CONFIGS.items():
                out = Path(tmp) / f"{k}-{name}"
                subprocess.run(["gcc", *args.base.split(), *flags, "-ffp-contract=off", "-o",
                                str(out), str(KERNELS / f"{k}.c"), "-lm"], check=True)
                programs[k, name] = str(out)
        times = {key: [] for key in programs}
        order = random.Random(1)
        for _ in range(args.rounds):
            for k in args.kernels:
                names = list(CONFIGS)
                order.shuffle(names)
                for name in names:
                    times[k, name].append(cpu_seconds(programs[k, name]))
    print("\n".join(ratio_table(args.base, args.kernels, times)))


if __name__ == "__main__":
    main()
