#!/usr/bin/env python3
"""Which version is "best" when a loop's runs have heavy tails? `looprace replay` calls a choice
wrong when the chosen version's mean over all recorded observations is more than theta above
the best one's. A test of trimmed means aims at the typical run instead, so it is judged here
under four truths: the mean, the geometric mean, the median and the 20 % trimmed mean of all
recorded observations.

1. Failure per truth: the chosen rates of `looprace replay --per-loop FILE` (one file per plan)
   weighed by whether the chosen version's truth is more than theta above the best's.
2. Tails (--tails): whether a version's tail is its own. Per version, the excess of the mean
   over the trimmed mean in the odd and in the even recorded rounds, correlated over the
   versions of each loop. Near 0: the tails are other work, the same for every version, and
   the means rank the versions by chance; near 1: the versions differ in their tails, which
   users pay too.

usage: benchmarks/replay/truths.py DATASET.csv[.gz] PER_LOOP.csv ... [--theta T] [--tails]
Prints markdown.
"""
import argparse
import csv
import gzip
import math
import statistics as st
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import benchlib  # noqa: E402


def read(path):
    opener = gzip.open if path.endswith(".gz") else open
    loops = defaultdict(lambda: defaultdict(list))
    with opener(path, "rt") as f:
        for row in csv.DictReader(f):
            loops[row["loop"]][row["version"]].append(float(row["cycles"]))
    return loops


def trimmed_mean(values, trim=0.2):
    ordered = sorted(values)
    cut = int(trim * len(ordered))
    return st.mean(ordered[cut:len(ordered) - cut])


TRUTHS = {
    "mean": st.mean,
    "geometric mean": st.geometric_mean,
    "median": st.median,
    "20 % trimmed mean": trimmed_mean,
}


def failure_rates(loops, per_loop_csv, theta):
    chosen = defaultdict(dict)
    samples = {}
    with open(per_loop_csv) as f:
        for row in csv.DictReader(f):
            chosen[row["loop"]][row["version"]] = float(row["chosen_rate"])
            samples[row["loop"]] = float(row["loop_mean_samples"])
            plan = row["plan"]
    rates = []
    for truth in TRUTHS.values():
        failures = []
        for loop, rate in chosen.items():
            value = {v: truth(loops[loop][v]) for v in rate}
            best = min(value.values())
            failures.append(sum(r for v, r in rate.items() if value[v] > best * (1 + theta)))
        rates.append(f"{100 * st.mean(failures):.1f} %")
    return [plan, f"{st.mean(samples.values()):.1f}"] + rates


def correlation(a, b):
    ma, mb = st.mean(a), st.mean(b)
    sa = math.sqrt(sum((x - ma) ** 2 for x in a))
    sb = math.sqrt(sum((y - mb) ** 2 for y in b))
    if not sa or not sb:
        return float("nan")
    return sum((x - ma) * (y - mb) for x, y in zip(a, b)) / (sa * sb)


def tail_rows(loops):
    rows = []
    for loop, versions in loops.items():
        if len(versions) < 4:  # too few versions to correlate
            continue
        odd, even = [], []
        for values in versions.values():
            odd.append(st.mean(values[0::2]) / trimmed_mean(values[0::2]) - 1)
            even.append(st.mean(values[1::2]) / trimmed_mean(values[1::2]) - 1)
        rows.append((loop, len(versions), st.mean(odd + even), correlation(odd, even)))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("per_loop", nargs="+")
    parser.add_argument("--theta", type=float, default=0.005)
    parser.add_argument("--tails", action="store_true")
    args = parser.parse_args()
    loops = read(args.dataset)
    print("\n".join(benchlib.markdown_table(
        ["plan", "runs per version"] + [f"failure by {t}" for t in TRUTHS],
        [failure_rates(loops, f, args.theta) for f in args.per_loop])))
    if not args.tails:
        return
    rows = tail_rows(loops)
    print()
    print("\n".join(benchlib.markdown_table(
        ["loop", "versions", "mean over trimmed mean", "odd/even correlation"],
        [[loop, n, f"{100 * excess:+.2f} %", f"{r:+.2f}"] for loop, n, excess, r in rows])))
    tailed = [r for _, _, excess, r in rows if excess > 0.005]
    if tailed:
        print(f"\n{len(tailed)} loops whose tails add more than 0.5 %: median odd/even "
              f"correlation {st.median(tailed):+.2f}")


if __name__ == "__main__":
    main()
