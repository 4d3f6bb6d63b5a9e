"""The cost of racing per decided loop against brute force.

Race cost, measured: compile time (the race's `building` phases, from its progress log) and run
time (wall time of every run the race made for the loop, from `looprace export` of its store).
Brute force, derived: every raced code group x n runs + the same builds, where n is the smallest
constant sample size whose failure rate is no higher than the race's, both replayed (`looprace
replay`) on the recorded dataset of the same loop (benchmarks/record-dataset), and the run time
per run is the mean wall time of the loop's race runs in the same store.
"""
import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import benchlib  # noqa: E402

# "loop 2/3 <id> <location>  <phase>  elapsed M:SS  eta ..." (H:MM:SS past an hour)
PROGRESS = re.compile(
    r"^loop \d+/\d+ ([0-9a-f]{16}) \S+\s+(\S[^\t]*?)\s+elapsed (\d+):(\d+)(?::(\d+))?")


def seconds_of(match):
    parts = [int(p) for p in match.group(3, 4, 5) if p is not None]
    total = 0
    for p in parts:
        total = total * 60 + p
    return total


def phase_seconds(log_path):
    """(loop id, phase) -> seconds, from the progress lines of race.log (one line per phase
    change; a phase lasts until the next line of the same session; sessions restart at 0)."""
    durations = {}
    previous = None
    for line in Path(log_path).read_text(errors="replace").splitlines():
        m = PROGRESS.match(line.strip())
        if not m:
            continue
        now = seconds_of(m)
        if previous and now >= previous[2]:
            key = (previous[0], previous[1])
            durations[key] = durations.get(key, 0) + now - previous[2]
        previous = (m.group(1), m.group(2).strip(), now)
    return durations


def exported_loops(looprace, db_path):
    """loop id -> its row of `looprace export --format jsonl` (decision, factors, runs)."""
    out = benchlib.export(looprace, db_path, "jsonl")
    rows = (json.loads(line) for line in out.splitlines() if line.strip())
    return {row["id"]: row for row in rows}


def run_tally(row, kind):
    """(runs, wall seconds) of one kind of the loop's own runs."""
    t = row.get("runs", {}).get(kind, {})
    return t.get("count", 0), t.get("wall_seconds", 0.0)


def decision_sets(row):
    """(chosen factor, winners as text) of an exported loop."""
    return row["chosen"], " ".join(map(str, row["winners"] or []))


def recorded_loop_csv(looprace, recorded_db, workdir):
    """loop id -> (path of a replay CSV holding only that loop's recorded observations, rounds),
    for the loops recorded with more than one distinct code."""
    done = subprocess.run([looprace, "export", "--store", str(recorded_db), "--format",
                           "observations"], capture_output=True, text=True)
    if done.returncode != 0:  # e.g. a recording that never finished a loop
        print(f"payoff: {recorded_db}: not used: {done.stderr.strip()}", file=sys.stderr)
        return {}
    text = done.stdout
    rows = {}
    for row in csv.DictReader(io.StringIO(text)):
        rows.setdefault(row["loop"], []).append(row)
    paths = {}
    for loop, loop_rows in rows.items():
        path = Path(workdir) / f"recorded-{loop}.csv"
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["loop", "version", "cycles"])
            w.writeheader()
            w.writerows(loop_rows)
        versions = len({r["version"] for r in loop_rows})
        if versions > 1:  # a single code leaves nothing to choose, nor to replay
            paths[loop] = (path, len(loop_rows) // versions)
    return paths


def brute_force_size(looprace, loop_csv, recorded_rounds, plan):
    """(race failure, race mean samples, smallest constant n with failure <= race's or None)
    for the plan the decision names, replayed on the loop's recorded observations."""
    try:
        race_args = benchlib.replay_args_of(plan)
    except ValueError:
        return None
    cap = race_args.index("--max-samples") + 1 if "--max-samples" in race_args else None
    if cap:  # the recording bounds the cap
        race_args[cap] = str(min(int(race_args[cap]), recorded_rounds))
    race, n = benchlib.smallest_constant(looprace, [loop_csv], race_args,
                                         ["--max-samples", str(recorded_rounds)])
    return race["failure_rate"], race["mean_samples"], n


def cost_rows(looprace, program, pdir, recorded_db, workdir):
    phases = phase_seconds(pdir / "race.log")
    exported = exported_loops(looprace, pdir / "race.db")
    recorded = recorded_loop_csv(looprace, recorded_db, workdir) if recorded_db else {}
    rows = []
    for loop, decision in exported.items():
        if decision["chosen"] is None:  # not decided yet
            continue
        plan, chosen = decision["plan"], decision["chosen"]
        groups = len({f["code_group"] for f in decision["factors"] if f["code_group"] >= 0})
        build_s = sum(s for (l, phase), s in phases.items() if l == loop and phase == "building")
        race_runs, race_wall = run_tally(decision, "race")
        other = [run_tally(decision, k) for k in decision.get("runs", {}) if k != "race"]
        other_runs, other_wall = sum(c for c, _ in other), sum(w for _, w in other)
        row = {"program": program, "loop": loop, "plan": plan, "groups": groups,
               "chosen": chosen, "build_s": build_s, "race_runs": race_runs,
               "race_run_s": round(race_wall, 3), "other_runs": other_runs,
               "other_run_s": round(other_wall, 3),
               "mean_run_s": round(race_wall / race_runs, 6) if race_runs else None}
        if loop in recorded:
            path, rounds = recorded[loop]
            sized = brute_force_size(looprace, path, rounds, plan)
            if sized:
                row.update({"recorded_rounds": rounds, "replay_race_failure": sized[0],
                            "replay_race_mean_samples": round(sized[1], 1),
                            "brute_force_n": sized[2]})
                if sized[2] is not None and race_runs:
                    brute = groups * sized[2] * race_wall / race_runs
                    row["brute_force_run_s"] = round(brute, 3)
                    row["ratio_total"] = round(
                        (build_s + race_wall + other_wall) / (build_s + brute), 3)
        rows.append(row)
    return rows
