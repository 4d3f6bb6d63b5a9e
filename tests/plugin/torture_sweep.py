#!/usr/bin/env python3
"""gcc.c-torture/execute sweep (GCC 12.2 sources, package gcc-12-source): every program that
builds and passes without the plugin must still pass with every loop timed (instrument=*) and
forced to a factor (unroll=*:F, F cycling through 1..16), linked with the real runtime; and
loading the plugin with no selection must leave its object byte-identical. Prints counts;
fails on any ICE, build failure, wrong output or code change."""
import glob
import hashlib
import os
import pathlib
import subprocess
import tarfile
import tempfile
import time

import plugin_testlib as lib

EXECUTE = "gcc/testsuite/gcc.c-torture/execute/"


def extra(parser):
    parser.add_argument("--cache", required=True, type=pathlib.Path,
                        help="where the execute/ programs are extracted once")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N programs")


args = lib.arguments(__doc__, extra)


def torture_programs():
    """Extracts gcc.c-torture/execute from the gcc-12-source tarball into the cache once."""
    target = args.cache / "gcc.c-torture-execute"
    if not (target / ".complete").exists():
        tarballs = glob.glob("/usr/src/gcc-12/gcc-12*.tar.*")
        if not tarballs:
            raise SystemExit("no /usr/src/gcc-12/gcc-12*.tar.*: apt-get install gcc-12-source "
                             "(scripts/setup does)")
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tarballs[0]) as tar:
            for member in tar:
                name = member.name.split("/", 1)[-1]
                if (member.isfile() and name.startswith(EXECUTE) and name.endswith(".c") and
                        "/" not in name[len(EXECUTE):]):
                    (target / os.path.basename(name)).write_bytes(tar.extractfile(member).read())
        (target / ".complete").touch()
    return sorted(target.glob("*.c"))


def factor_for(path):
    """A fixed factor per program, cycling through 1..16."""
    return 1 + int(hashlib.sha1(path.name.encode()).hexdigest(), 16) % 16


def attempt(command, cwd, timeout=60):
    try:
        return subprocess.run(command, cwd=cwd, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


def sweep_one(path):
    """Returns (program, outcome, detail)."""
    with tempfile.TemporaryDirectory(dir=args.work) as tmp:
        cwd = pathlib.Path(tmp)
        common = ["-O2", "-w", "-fno-diagnostics-color"]
        base = attempt(["gcc", *common, "-c", str(path), "-o", "base.o"], cwd)
        if not base or base.returncode:
            return path.name, "skipped", "baseline does not compile"
        linked = attempt(["gcc", "base.o", "-o", "base", "-lm"], cwd)
        if not linked or linked.returncode:
            return path.name, "skipped", "baseline does not link"
        expected = attempt(["./base"], cwd, timeout=20)
        if not expected or expected.returncode:
            return path.name, "skipped", "baseline fails"
        # A few programs print addresses (return-addr.c): then only the exit status must match.
        again = attempt(["./base"], cwd, timeout=20)
        deterministic = again is not None and again.stdout == expected.stdout

        loaded = attempt(["gcc", *common, f"-fplugin={args.plugin}", "-c", str(path), "-o",
                          "loaded.o"], cwd)
        if not loaded or loaded.returncode:
            return path.name, diagnose(loaded), "plugin loaded: " + tail(loaded)
        if lib.normalized_object(cwd / "base.o") != lib.normalized_object(cwd / "loaded.o"):
            return path.name, "code-changed", "plugin loaded with no selection changed the object"

        factor = factor_for(path)
        keys = {"instrument": "*", "unroll": f"*:{factor}", "table": cwd / "table.jsonl"}
        built = attempt(["gcc", *common, *lib.plugin_flags(args.plugin, **keys), str(path), "-o",
                         "variant", f"-Wl,--whole-archive,{args.runtime},--no-whole-archive",
                         "-lm"], cwd)
        if not built or built.returncode:
            return path.name, diagnose(built), f"factor {factor}: " + tail(built)
        env = dict(os.environ, LOOPRACE_OUT=str(cwd / "records"))
        try:
            got = subprocess.run(["./variant"], cwd=cwd, capture_output=True, timeout=20, env=env)
        except subprocess.TimeoutExpired:
            return path.name, "wrong-code", f"factor {factor}: timeout"
        if got.returncode != expected.returncode or (deterministic and
                                                     got.stdout != expected.stdout):
            return path.name, "wrong-code", f"factor {factor}: exit {got.returncode}"
        loops = len(lib.read_table(cwd / "table.jsonl"))
        timed = len({r["id"] for r in lib.read_records(cwd / "records")})
        return path.name, "ok", f"factor {factor}, {loops} loops, {timed} timed"


def diagnose(result):
    if result is None:
        return "compile-timeout"
    text = result.stderr.decode(errors="replace")
    if "internal compiler error" in text or "Segmentation fault" in text:
        return "ice"
    return "build-failed"


def tail(result):
    if result is None:
        return "timeout"
    return result.stderr.decode(errors="replace").strip().splitlines()[-1:][0][:300] \
        if result.stderr.strip() else f"exit {result.returncode}"


programs = torture_programs()
if args.limit:
    programs = programs[:args.limit]
start = time.monotonic()
results = lib.parallel(sweep_one, programs, jobs=args.jobs)
elapsed = time.monotonic() - start

failures = lib.Failures()
counts = {}
loops = timed = 0
for name, outcome, detail in results:
    counts[outcome] = counts.get(outcome, 0) + 1
    if outcome == "skipped":
        print(f"skipped {name}: {detail}")
    elif outcome == "ok":
        loops += int(detail.split(", ")[1].split()[0])
        timed += int(detail.split(", ")[2].split()[0])
    else:
        failures.check(False, f"{outcome} {name}: {detail}")
print(f"programs {len(programs)}; " + "; ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
      f"; loops tabled in passing programs {loops}, loops timed (ids with records) {timed}; "
      f"{elapsed:.0f} s on {args.jobs} jobs")
failures.finish("torture sweep")
