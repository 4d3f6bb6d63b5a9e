#!/usr/bin/env python3
"""Synthetic loop datasets for `looprace replay`, shaped like Raced Profiles Figures 7-10.

Writes CSV `loop,version,cycles` to stdout: for every loop, `--rounds` rounds in recorded
order, each round one observation of each of the 17 versions (unroll factors 0..16), as an
interleaved live race records them. Fixed seed: the same arguments give the same file.

Families (5 loops each, parameters varied per loop):
  single-winner   low variability, one factor clearly best              (Figure 7)
  two-winners     low variability, two factors within 0.1%, rest worse (Figure 8)
  many-winners    high variability, half the factors within 0.3%        (Figure 9)
  exhaustion      factors 0.2-0.8% apart under 3-5% noise               (Figure 10)
  long-tail       log-normal with rare 1.5-3x outliers
  bimodal         every run lands in one of two modes 6-10% apart
  drift           a slow shared random walk of the machine speed plus per-round load
  all-equal       17 identical distributions
"""
import argparse
import math
import random

FAMILIES = ["single-winner", "two-winners", "many-winners", "exhaustion", "long-tail",
            "bimodal", "drift", "all-equal"]
VERSIONS = 17


def factors(family, rng):
    """True mean multiplier of each version (1.0 = the best)."""
    if family == "all-equal":
        return [1.0] * VERSIONS
    if family == "single-winner":
        best = rng.randrange(VERSIONS)
        return [1.0 if v == best else 1.03 + 0.25 * rng.random() for v in range(VERSIONS)]
    if family == "two-winners":
        a, b = rng.sample(range(VERSIONS), 2)
        return [1.0 if v == a else 1.001 if v == b else 1.05 + 0.2 * rng.random()
                for v in range(VERSIONS)]
    if family == "many-winners":
        close = set(rng.sample(range(VERSIONS), 8))
        return [1.0 + 0.003 * rng.random() if v in close else 1.01 + 0.05 * rng.random()
                for v in range(VERSIONS)]
    if family == "exhaustion":
        return [1.0 + 0.002 * rng.randrange(5) + 0.01 * (rng.random() < 0.3)
                for _ in range(VERSIONS)]
    # long-tail, bimodal, drift: a few clearly worse factors, several near the best.
    return [1.0 + (0.1 + 0.3 * rng.random() if rng.random() < 0.3 else 0.01 * rng.random())
            for _ in range(VERSIONS)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--loops-per-family", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20260521)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print("loop,version,cycles")
    for family in FAMILIES:
        for index in range(args.loops_per_family):
            base = rng.uniform(2e4, 2e6)
            means = factors(family, rng)
            sigma = {"single-winner": 0.003, "two-winners": 0.003, "many-winners": 0.05,
                     "exhaustion": rng.uniform(0.03, 0.05)}.get(family, rng.uniform(0.01, 0.03))
            round_sigma = rng.uniform(0.0, 0.02)  # load shared by the versions of one round
            drift_step = 0.004 if family == "drift" else 0.0
            speed = 0.0
            rows = []
            for _ in range(args.rounds):
                speed += drift_step * rng.gauss(0, 1)
                shared = speed + round_sigma * rng.gauss(0, 1)
                for v in range(VERSIONS):
                    x = base * means[v] * math.exp(shared + sigma * rng.gauss(0, 1))
                    if family == "long-tail" and rng.random() < 0.04:
                        x *= rng.uniform(1.5, 3.0)
                    if family == "bimodal" and rng.random() < 0.4:
                        x *= 1.06 + 0.04 * index / max(1, args.loops_per_family - 1)
                    rows.append(f"{family}-{index},{v},{x:.0f}")
            print("\n".join(rows))


if __name__ == "__main__":
    main()
