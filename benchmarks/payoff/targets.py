#!/usr/bin/env python3
"""The issue's payoff targets, read from benchmarks/results/payoff-base-<name>.json (CPU time,
each verdict its own interval's): is the raced profile never significantly slower than the base
and the base with -funroll-loops, faster than both on at least half of the real programs and of
the whole suite, and is its weighted overall gain over the best uniform setting above 0?

usage: benchmarks/payoff/targets.py NAME...   e.g. O2-try-unroll-loops O3-try-unroll-loops
Prints one markdown table per name.
"""
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"
REAL = ("gsm-toast", "gsm-untoast", "cjpeg", "djpeg")


def cell(result):
    low, high = result["speedup_ci"]
    return f"{result['geometric_speedup']:.3f} [{low:.3f}, {high:.3f}]", result["ratio_verdict"]


def best_uniform_gain(sets, label):
    for name, summary in sets.items():
        if name.startswith("cpu raced vs best uniform") and name.endswith(f"({label})"):
            return name.split("= ")[1].split(" (")[0], summary["overall_gain"]
    return None, None


def targets(name):
    data = json.loads((RESULTS / f"payoff-base-{name}.json").read_text())
    base = data["base"]
    rows, slower, both = [], {base: [], "unroll-loops": []}, []
    for program, entry in data["programs"].items():
        cpu = entry["compare"]["cpu"]
        against = {u: cell(cpu[f"raced vs {u}"]) for u in (base, "unroll-loops")}
        for uniform, (_, verdict) in against.items():
            if verdict == "slower":
                slower[uniform].append(program)
        if all(v == "faster" for _, v in against.values()):
            both.append(program)
        rows.append(f"| {program} | " + " | ".join(f"{t} {v}" for t, v in against.values()) + " |")
    real = [p for p in data["programs"] if p in REAL]
    lines = [f"### {name}", "", f"| program | raced vs {base} (CPU) | raced vs unroll-loops |",
             "|---|---|---|", *rows, ""]
    lines.append(f"- never significantly slower than {base}: "
                 + ("met" if not slower[base] else f"not met: slower on {', '.join(slower[base])}"))
    lines.append("- never significantly slower than unroll-loops: "
                 + ("met" if not slower["unroll-loops"]
                    else f"not met: slower on {', '.join(slower['unroll-loops'])}"))
    real_both = [p for p in both if p in REAL]
    lines.append(f"- faster than both on at least half of the real programs: "
                 f"{'met' if 2 * len(real_both) >= len(real) else 'not met'} "
                 f"({len(real_both)} of {len(real)}: {', '.join(real_both) or 'none'})")
    lines.append(f"- ... and of the whole suite: "
                 f"{'met' if 2 * len(both) >= len(data['programs']) else 'not met'} "
                 f"({len(both)} of {len(data['programs'])}: {', '.join(both)})")
    uniform, gain = best_uniform_gain(data["sets"], f"all: {len(data['programs'])}")
    if gain is not None:
        lines.append(f"- weighted overall gain over the best uniform setting ({uniform}) > 0: "
                     f"{'met' if gain > 0 else 'not met'} ({100 * gain:.2f} %)")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print("\n".join(targets(name) for name in sys.argv[1:]))
