#!/usr/bin/env python3
"""Is reading the payoff's rounds as blocks honest? On a series' times (benchmarks/results/
payoff-base-<name>-times.csv), per program and comparison: Welch's interval on the two samples
of log CPU times, the interval of the 20 % trimmed mean of the rounds' log ratios (what
`looprace compare --test paired-trimmed` computes), the lag-1 autocorrelation of those ratios,
and a moving-block bootstrap of the trimmed mean (blocks of 20 rounds), which would be wider if
neighbouring rounds' ratios were correlated. Builds with the same code should hold 1.

usage: benchmarks/payoff/round-pairing.py NAME [NAME...]   e.g. O3-try-unroll-loops-session-26
"""
import csv
import json
import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

RESULTS = Path(__file__).resolve().parent.parent / "results"
TRIM, BLOCK, RESAMPLES = 0.2, 20, 2000


def trimmed_interval(d, confidence=0.95):
    """Tukey-McLaughlin: trimmed mean with the winsorized standard error."""
    d = np.sort(d)
    n, g = len(d), int(math.floor(TRIM * len(d)))
    winsorized = np.clip(d, d[g], d[n - g - 1])
    se = winsorized.std(ddof=1) / ((1 - 2 * TRIM) * math.sqrt(n))
    q = stats.t.ppf(1 - (1 - confidence) / 2, n - 2 * g - 1)
    m = d[g:n - g].mean()
    return m, m - q * se, m + q * se


def welch_interval(a, b, confidence=0.95):
    la, lb = np.log(a), np.log(b)
    va, vb = la.var(ddof=1) / len(la), lb.var(ddof=1) / len(lb)
    df = (va + vb) ** 2 / (va ** 2 / (len(la) - 1) + vb ** 2 / (len(lb) - 1))
    q = stats.t.ppf(1 - (1 - confidence) / 2, df)
    d = la.mean() - lb.mean()
    return d, d - q * math.sqrt(va + vb), d + q * math.sqrt(va + vb)


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
            w, p = welch_interval(x, y), trimmed_interval(d)
            lo, hi = block_bootstrap(d)
            lag1 = np.corrcoef(d[:-1], d[1:])[0, 1]
            e = [math.exp(v) for v in (*w, *p, lo, hi)]
            yield (f"| {program} | {b} vs {a} | {len(keys)} | "
                   f"{e[0]:.4f} [{e[1]:.4f}, {e[2]:.4f}] | "
                   f"{e[3]:.4f} [{e[4]:.4f}, {e[5]:.4f}] | [{e[6]:.4f}, {e[7]:.4f}] | {lag1:.2f} | "
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
