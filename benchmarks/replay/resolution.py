#!/usr/bin/env python3
"""How finely can recorded observations rank the versions of a loop? The replay's failure
criterion (Raced Profiles section 5) calls a choice wrong when the chosen version's mean over all
recorded observations is more than theta = 0.5 % above the best one's. On a noisy machine those
means are themselves estimates: this measures their resolution on the dataset itself.

1. Split half: for each loop, REPS times, split every version's observations at random into two
   halves; choose by the first half (mean, or median) and judge by the second half's means.
   The rate at which half the data misjudges the other half bounds what any sampling plan can
   reach with fewer observations than that.
2. Estimators: choose by n observations per version (n = 5 .. 200, drawn at random) with the
   mean, geometric mean, median, lower quartile, 10th percentile or minimum, judged by the
   means of all observations (the replay's criterion): does a robust statistic of a few runs
   pick the version with the lowest mean better than the mean does?

usage: benchmarks/replay/resolution.py DATASET.csv[.gz] [--size N] [--reps N] [--seed S]
                                      [--theta T]
Prints markdown.
"""
import argparse
import csv
import gzip
import math
import random
import statistics as st
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import benchlib  # noqa: E402


def read(path, size):
    opener = gzip.open if path.endswith(".gz") else open
    loops = defaultdict(lambda: defaultdict(list))
    with opener(path, "rt") as f:
        for row in csv.DictReader(f):
            loops[row["loop"]][row["version"]].append(float(row["cycles"]))
    # Complete loops with a choice to make: as `benchmarks/replay-dataset` replays them.
    return {loop: dict(versions) for loop, versions in loops.items()
            if len(versions) > 1 and {len(v) for v in versions.values()} == {size}}


def quantile(values, p):
    ordered = sorted(values)
    return ordered[int(p * (len(ordered) - 1))]


ESTIMATORS = {
    "mean": st.mean,
    "geometric mean": st.geometric_mean,
    "median": st.median,
    "lower quartile": lambda v: quantile(v, 0.25),
    "10th percentile": lambda v: quantile(v, 0.10),
    "minimum": min,
}


def acceptable(means, theta):
    best = min(means.values())
    return {version for version, mean in means.items() if mean <= best * (1 + theta)}


def split_half_wrong(versions, reps, theta, rng):
    """Of `reps` random splits of every version's observations into halves, how often the first
    half's means, and its medians, choose a version the second half's means reject."""
    wrong = defaultdict(int)
    for _ in range(reps):
        first, second = {}, {}
        for version, values in versions.items():
            shuffled = values[:]
            rng.shuffle(shuffled)
            half = len(shuffled) // 2
            first[version], second[version] = shuffled[:half], shuffled[half:]
        ok = acceptable({v: st.mean(x) for v, x in second.items()}, theta)
        for name in ("mean", "median"):
            pick = min(first, key=lambda v: ESTIMATORS[name](first[v]))
            wrong[name] += pick not in ok
    return wrong


def split_half_table(loops, reps, theta, rng):
    """Per loop its spread and how often split halves misjudge each other, then the total."""
    rows, totals = [], defaultdict(int)
    for loop, versions in sorted(loops.items()):
        wrong = split_half_wrong(versions, reps, theta, rng)
        totals["mean"] += wrong["mean"]
        totals["median"] += wrong["median"]
        totals["trials"] += reps
        log_sd = st.median(st.pstdev([math.log(x) for x in values]) for values in versions.values())
        within = len(acceptable({v: st.mean(x) for v, x in versions.items()}, theta))
        n = len(next(iter(versions.values())))
        rows.append([loop, len(versions), n, f"{log_sd:.3f}", within,
                     *(f"{100 * wrong[name] / reps:.0f} %" for name in ("mean", "median"))])
    rows.append(["**all**", "", "", "", "",
                 *(f"**{100 * totals[name] / totals['trials']:.1f} %**"
                   for name in ("mean", "median"))])
    return benchlib.markdown_table(
        ["loop", "versions", "observations per version", "log sd (median over versions)",
         "versions within theta of the best (all data)", "wrong by mean", "wrong by median"], rows)


def estimator_failures(loops, n, reps, theta, rng):
    """Per estimator, the failure rate in % of choosing by n random observations per version."""
    failures = defaultdict(int)
    trials = 0
    for loop, versions in loops.items():
        ok = acceptable({v: st.mean(x) for v, x in versions.items()}, theta)
        for _ in range(reps):
            draw = {v: rng.sample(x, min(n, len(x))) for v, x in versions.items()}
            trials += 1
            for name, estimate in ESTIMATORS.items():
                failures[name] += min(draw, key=lambda v: estimate(draw[v])) not in ok
    return {name: 100 * failures[name] / trials for name in ESTIMATORS}


def estimator_table(loops, reps, theta, rng):
    """Per number of observations, every estimator's failure rate."""
    rows = []
    for n in (5, 10, 20, 50, 100, 200):
        rates = estimator_failures(loops, n, reps, theta, rng)
        rows.append([n, *(f"{rates[name]:.1f} %" for name in ESTIMATORS)])
    return benchlib.markdown_table(["n", *ESTIMATORS], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--size", type=int, default=1000,
                        help="observations per version of a complete loop")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--theta", type=float, default=0.005)
    args = parser.parse_args()
    loops = read(args.dataset, args.size)
    rng = random.Random(args.seed)

    print(f"# Resolution of the recorded means ({len(loops)} loops, "
          f"theta = {100 * args.theta:g} %)")
    print()
    print(f"Generated by `benchmarks/replay/resolution.py {args.dataset} --reps {args.reps} "
          f"--seed {args.seed}`.")
    print()
    print("## 1. Split half: half of the observations judged by the other half")
    print()
    print("\n".join(split_half_table(loops, args.reps, args.theta, rng)))
    print()
    print("## 2. Choosing by n observations per version with other statistics")
    print()
    print("Failure rate (chosen version's mean over all observations more than theta above the "
          f"best one's), {args.reps} draws per loop:")
    print()
    print("\n".join(estimator_table(loops, args.reps, args.theta, rng)))


if __name__ == "__main__":
    main()
