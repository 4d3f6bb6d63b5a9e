#!/usr/bin/env python3
"""The issue's payoff targets, read from benchmarks/results/payoff-base-<name>.json (CPU time,
each verdict its own interval's): is the raced profile never significantly slower than the base
and the base with -funroll-loops, faster than both on at least half of the real programs and of
the whole suite, and is its weighted overall gain over the best uniform setting above 0?

Each verdict is read twice: from every comparison's own 95 % interval, and from Bonferroni's
intervals, which hold at 95 % over the whole family of the raced profile's comparisons (with 30
comparisons of equal programs, one or more 95 % intervals exclude 1 in about half of all
series). And both by each analysis the series has: the Speedup-Test's Welch on the two samples
of runs, and (series from session 27 on) the rounds as blocks, the 20 % trimmed mean of each
round's log ratio of the two configurations' runs. A comparison of two builds that load the
same code and data is "same code", whatever was measured: the profile changed nothing there.

usage: benchmarks/payoff/targets.py NAME...   e.g. O2-try-unroll-loops O3-try-unroll-loops
Prints one markdown table per name.
"""
import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"
REAL = ("gsm-toast", "gsm-untoast", "cjpeg", "djpeg")


def same_code(entry, uniform):
    code = entry.get("code", {})
    return "raced" in code and code["raced"] == code.get(uniform)


def verdict(entry, uniform, reading):
    if same_code(entry, uniform):
        return "same code"
    return entry[reading]["cpu"][f"raced vs {uniform}"]["ratio_verdict"]


# The analyses a series may have, by the key of its comparisons in the JSON.
ANALYSES = {"compare": "Speedup-Test (Welch on the two samples)",
            "compare_paired": "rounds as blocks (trimmed mean of the rounds' ratios)"}


def cell(result):
    low, high = result["speedup_ci"]
    return f"{result.get('speedup', result['geometric_speedup']):.3f} [{low:.3f}, {high:.3f}]"


def best_uniform_gain(sets, label):
    for name, summary in sets.items():
        if name.startswith("cpu raced vs best uniform") and name.endswith(f"({label})"):
            return name.split("= ")[1].split(" (")[0], summary["overall_gain"]
    return None, None


def reading_lines(data, reading, title):
    """The four per-program targets under one reading of the verdicts."""
    base, programs = data["base"], data["programs"]
    uniforms = (base, "unroll-loops")
    slower = {u: [p for p, e in programs.items() if verdict(e, u, reading) == "slower"]
              for u in uniforms}
    both = [p for p, e in programs.items()
            if all(verdict(e, u, reading) == "faster" for u in uniforms)]
    real = [p for p in programs if p in REAL]
    real_both = [p for p in both if p in REAL]
    lines = [f"{title}:"]
    for u in uniforms:
        lines.append(f"- never significantly slower than {u}: "
                     + ("met" if not slower[u] else f"not met: slower on {', '.join(slower[u])}"))
    lines.append(f"- faster than both on at least half of the real programs: "
                 f"{'met' if 2 * len(real_both) >= len(real) else 'not met'} "
                 f"({len(real_both)} of {len(real)}: {', '.join(real_both) or 'none'})")
    lines.append(f"- ... and of the whole suite: "
                 f"{'met' if 2 * len(both) >= len(programs) else 'not met'} "
                 f"({len(both)} of {len(programs)}: {', '.join(both) or 'none'})")
    return lines


def analysis_lines(data, analysis):
    """The per-program table and the targets under one analysis of the comparisons."""
    base, family = data["base"], data.get("familywise")
    familywise = analysis + "_familywise"
    rows = []
    for program, entry in data["programs"].items():
        cells = []
        for uniform in (base, "unroll-loops"):
            for reading in (analysis, familywise):
                if reading in entry:
                    cells.append(f"{cell(entry[reading]['cpu'][f'raced vs {uniform}'])} "
                                 f"{verdict(entry, uniform, reading)}")
        rows.append(f"| {program} | " + " | ".join(cells) + " |")
    headers = [f"raced vs {base} (CPU, 95 %)"]
    if family:
        headers.append(f"Bonferroni {100 * family['confidence']:.2f} %")
    headers.append("raced vs unroll-loops (95 %)")
    if family:
        headers.append("Bonferroni")
    lines = [f"{ANALYSES[analysis]}:", "", "| program | " + " | ".join(headers) + " |",
             "|---" * (len(headers) + 1) + "|", *rows, ""]
    lines += reading_lines(data, analysis, "Each comparison's own 95 % interval")
    if family:
        lines += reading_lines(data, familywise,
                               f"Bonferroni over the family of {family['comparisons']} "
                               f"comparisons (95 % for all at once)")
    return lines + [""]


def targets(name):
    data = json.loads((RESULTS / f"payoff-base-{name}.json").read_text())
    first = next(iter(data["programs"].values()))
    lines = [f"### {name}", ""]
    for analysis in ANALYSES:
        if analysis in first:
            lines += analysis_lines(data, analysis)
    uniform, gain = best_uniform_gain(data["sets"], f"all: {len(data['programs'])}")
    if gain is not None:
        lines.append(f"- weighted overall gain over the best uniform setting ({uniform}) > 0: "
                     f"{'met' if gain > 0 else 'not met'} ({100 * gain:.2f} %)")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print("\n".join(targets(name) for name in sys.argv[1:]))
