#!/usr/bin/env python3
"""Crossing points of a `looprace replay --csv-out` file: per plan, the cheapest setting whose
failure rate is at most the target, by arithmetic means (failure_rate) and by geometric means
(failure_rate_geometric), and how many fewer samples per version that is than the constant plan
and JavaSTATS at the same criterion. Prints a Markdown table per criterion.

usage: crossings.py CSV [--target 0.01]
"""
import argparse
import csv


def setting(row):
    if row["plan"] == "constant":
        return f"n = {row['samples']}"
    if row["plan"] == "javastats":
        return f"alpha {row['javastats_alpha']}, theta {row['javastats_theta']}"
    return f"alpha_LT {row['alpha_lt']}, alpha_EQ {row['alpha_eq']}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("--target", type=float, default=0.01)
    args = parser.parse_args()
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    plans = list(dict.fromkeys(row["plan"] for row in rows))
    for column, title in (("failure_rate", "arithmetic means"),
                          ("failure_rate_geometric", "geometric means")):
        cheapest = {}
        for row in rows:
            if float(row[column]) <= args.target:
                best = cheapest.get(row["plan"])
                if best is None or float(row["mean_samples"]) < float(best["mean_samples"]):
                    cheapest[row["plan"]] = row
        print(f"\nFailure judged by {title}, target {100 * args.target:g} %:\n")
        print("| plan | cheapest setting | failure | samples / version | vs constant "
              "| vs JavaSTATS |")
        print("|---|---|---|---|---|---|")
        for plan in plans:
            row = cheapest.get(plan)
            if row is None:
                print(f"| {plan} | none reaches it | | | | |")
                continue
            samples = float(row["mean_samples"])
            versus = []
            for other in ("constant", "javastats"):
                reference = cheapest.get(other)
                versus.append("-" if reference is None or other == plan else
                              f"{100 * (samples / float(reference['mean_samples']) - 1):+.1f} %")
            print(f"| {plan} | {setting(row)} | {100 * float(row[column]):.2f} % | {samples:.1f} | "
                  f"{versus[0]} | {versus[1]} |")


if __name__ == "__main__":
    main()
