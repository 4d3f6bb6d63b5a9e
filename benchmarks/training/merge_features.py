"""Merges `looprace loops --json` features into the dataset's loop rows (see ./features)."""
import json
import sys
from pathlib import Path


def loops_of(path):
    """The loops of one `looprace loops --json` output, by id."""
    if not path.exists():
        return {}
    return {row["id"]: row for row in map(json.loads, path.read_text().splitlines()) if row}


def unroll_loops_factor(copies, niter):
    """The factor that stands for what -funroll-loops did: its copies, or, for a loop it
    unrolled completely before RTL (0 copies) whose trip count is constant at -O2, one copy per
    iteration (at most 16), the closest factor."""
    if copies == 0 and niter >= 0:
        return min(niter + 1, 16)
    return copies


def main(work, dataset):
    rows = [json.loads(line) for line in Path(dataset).read_text().splitlines() if line]
    missing = 0
    for row in rows:
        plain = loops_of(Path(work) / f"{row['program']}.loops.jsonl").get(row["id"])
        unrolled = loops_of(Path(work) / f"{row['program']}.unroll-loops.jsonl").get(row["id"])
        if not plain:
            missing += 1
            continue
        features = row["features"]
        for name, value in plain["features"].items():
            if name.startswith("rtl_") or name in ("gcc_factor", "calls_after_inlining",
                                                   "innermost_after_inlining"):
                features[name] = value
        if unrolled and "gcc_factor" in unrolled["features"]:
            features["gcc_factor_unroll_loops"] = unroll_loops_factor(
                unrolled["features"]["gcc_factor"], features.get("rtl_niter", -1))
    Path(dataset).write_text("".join(json.dumps(row, sort_keys=True) + "\n" for row in rows))
    print(f"merge_features: {len(rows) - missing} of {len(rows)} loops got features",
          file=sys.stderr)
    return 0 if missing == 0 else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
