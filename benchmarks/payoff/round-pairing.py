#!/usr/bin/env python3
"""Is reading the payoff's rounds as blocks honest? On a series (benchmarks/results/
payoff-base-<name>.json and -times.csv), per program and comparison of CPU times: the
Speedup-Test's Welch interval and the interval of the rounds' trimmed log ratios, both as
`looprace compare` computed them for the series' tables (`compare`, `compare_paired`); then,
from the rounds themselves, the lag-1 autocorrelation of their log ratios and a moving-block
bootstrap of the 20 % trimmed mean (blocks of 20 rounds), which would be wider if neighbouring
rounds' ratios were correlated. Builds with the same code should hold 1.

usage: benchmarks/payoff/round-pairing.py NAME [NAME...]   e.g. O3-try-unroll-loops-session-26
"""
import csv
import json
import sys
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent.parent / "results"
TRIM, BLOCK, RESAMPLES = 0.2, 20, 2000


def block_bootstrap(d, seed=1):
    rng = np.random.default_rng(seed)
    n = len(d)
    means = []
    for _ in range(RESAMPLES):
        starts = rng.integers(0, n - BLOCK, n // BLOCK)
        sample = np.sort(np.concatenate([d[s:s + BLOCK] for s in starts]))
        g = int(TRIM * len(sample))
        means.append(sample[g:len(sample) - g].mean())
    return np.percentile(means, [2.5, 97.5])


def interval(result):
    """A `looprace compare --json` result as "estimate [low, high]"."""
    low, high = result["speedup_ci"]
    return f"{result['speedup']:.4f} [{low:.4f}, {high:.4f}]"


def rounds_of(times_csv):
    """program -> round -> config -> CPU seconds (timed rounds only)."""
    out = {}
    with open(times_csv) as f:
        for r in csv.DictReader(f):
            if int(r["round"]) > 0:
                out.setdefault(r["program"], {}).setdefault(int(r["round"]), {})[
                    r["config"]] = float(r["cpu_seconds"])
    return out


def same_code(series, program, a, b):
    code = series["programs"][program].get("code", {})
    return a in code and code.get(a) == code.get(b)


def rows(name):
    series = json.loads((RESULTS / f"payoff-base-{name}.json").read_text())
    base = series["base"]
    for program, rounds in rounds_of(RESULTS / f"payoff-base-{name}-times.csv").items():
        for a, b in ((base, "unroll-loops"), (base, "raced"), ("unroll-loops", "raced")):
            keys = sorted(k for k, v in rounds.items() if a in v and b in v)
            x = np.array([rounds[k][a] for k in keys])
            y = np.array([rounds[k][b] for k in keys])
            d = np.log(x / y)
            welch = series["programs"][program]["compare"]["cpu"][f"{b} vs {a}"]
            paired = series["programs"][program]["compare_paired"]["cpu"][f"{b} vs {a}"]
            lo, hi = np.exp(block_bootstrap(d))
            lag1 = np.corrcoef(d[:-1], d[1:])[0, 1]
            yield (f"| {program} | {b} vs {a} | {len(keys)} | {interval(welch)} | "
                   f"{interval(paired)} | [{lo:.4f}, {hi:.4f}] | {lag1:.2f} | "
                   f"{'yes' if same_code(series, program, a, b) else ''} |")


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"### {name}\n")
        print("| program | comparison | rounds | Welch (95 %) | rounds' trimmed ratio (95 %) | "
              "block bootstrap | lag-1 | same code |")
        print("|---|---|---|---|---|---|---|---|")
        for row in rows(name):
            print(row)
        print()
