#!/usr/bin/env python3
"""Crossing points of a `looprace replay --csv-out` file: per plan, the cheapest setting whose
failure rate is at most the target, by arithmetic means (failure_rate) and by geometric means
(failure_rate_geometric), and how many fewer samples per version that is than the constant plan
and JavaSTATS at the same criterion. Prints a Markdown table per criterion.

usage: crossings.py CSV [--target 0.01]
"""
import argparse
import csv
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import benchlib  # noqa: E402


def versus(ratio):
    """A change in samples against a reference setting, '-' without one."""
    return "-" if ratio is None else f"{100 * (ratio - 1):+.1f} %"


def crossing_table(grid, target, failure):
    """Per plan its cheapest setting at <= target failure (column `failure` of the grid)."""
    rows = []
    for plan, best, ratios in benchlib.crossing_points(grid, target, failure):
        if best is None:
            rows.append([plan, "none reaches it", "", "", "", ""])
            continue
        rows.append([plan, benchlib.setting_text(best), f"{100 * float(best[failure]):.2f} %",
                     f"{float(best['mean_samples']):.1f}", *map(versus, ratios)])
    return benchlib.markdown_table(["plan", "cheapest setting", "failure", "samples / version",
                                    "vs constant", "vs JavaSTATS"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--target", type=float, default=0.01)
    args = parser.parse_args()
    with open(args.csv) as f:
        grid = list(csv.DictReader(f))
    for failure, title in (("failure_rate", "arithmetic means"),
                           ("failure_rate_geometric", "geometric means")):
        table = crossing_table(grid, args.target, failure)
        print(f"\nFailure judged by {title}, target {100 * args.target:g} %:\n")
        print("\n".join(table))


if __name__ == "__main__":
    main()
