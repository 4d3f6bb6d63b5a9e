"""What the benchmark scripts share: the program manifests, the looprace command's outputs (stores
are read through `looprace export`, never their tables), the crossing points of replay grids
and Markdown tables.

Import it from a script beside or below benchmarks/ with
    sys.path.insert(0, str(Path(__file__).resolve().parent))   # (or .parent.parent)
    import benchlib
"""
import csv
import hashlib
import io
import mmap
import json
import os
import re
import resource
import shutil
import shlex
import signal
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
LOOPRACE = ROOT / "build" / "bin" / "looprace"
MANIFESTS = [ROOT / "benchmarks/programs/programs.tsv", ROOT / "benchmarks/kernels/kernels.tsv"]
# The bundled example, as scripts/demo races it.
DEMO = {
    "build": f"make -s -C '{ROOT}/examples/demo' CC=\"$LOOPRACE_CC\" OUT=\"$LOOPRACE_OUTDIR\"",
    "run": "$LOOPRACE_OUTDIR/demo",
}


def manifest_rows():
    """name -> {build, run, check_run} from the manifests, in manifest order."""
    rows = {}
    for manifest in MANIFESTS:
        for line in manifest.read_text().splitlines():
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            name, build, run = fields[0], fields[1], fields[2]
            # programs.tsv has a check_run (larger input) before the description; kernels not.
            check_run = fields[3] if len(fields) == 5 else run
            rows[name] = {"build": build, "run": run, "check_run": check_run}
    return rows


def manifest_row(name):
    """One program's row (or the bundled demo's); exits naming the manifests when it is not
    there."""
    rows = dict(manifest_rows(), demo=dict(DEMO, check_run=DEMO["run"]))
    if name not in rows:
        raise SystemExit(f"no program '{name}' in {', '.join(str(m) for m in MANIFESTS)} "
                         f"(or demo)")
    return rows[name]


def report_json(looprace, store):
    """`looprace report --json` of a store: context and one row per decided loop."""
    out = subprocess.run([str(looprace), "report", "--store", str(store), "--json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def export(looprace, store, fmt, *args):
    """The text `looprace export --format FMT` writes of a store."""
    return subprocess.run([str(looprace), "export", "--store", str(store), "--format", fmt,
                           *map(str, args)], check=True, capture_output=True, text=True).stdout


def export_json(looprace, store):
    """`looprace export --format json`: the context (machine, every session, run counts and the
    first and last run's time) and one row per raced loop."""
    return json.loads(export(looprace, store, "json"))


def started_export_json(looprace, store):
    """export_json() of a store, or None while it holds no race: a recorder that has just
    started has written no program yet, and `looprace export` refuses the store."""
    done = subprocess.run([str(looprace), "export", "--store", str(store), "--format", "json"],
                          capture_output=True, text=True)
    if done.returncode != 0 and "holds no race yet" in done.stderr:
        return None
    done.check_returncode()
    return json.loads(done.stdout)


def optional(convert, text):
    """convert(text), or None for an empty CSV cell."""
    return convert(text) if text else None


def export_runs(looprace, store):
    """`looprace export --format runs`: every run of each loop's own race, typed, by loop."""
    rows = csv.DictReader(io.StringIO(export(looprace, store, "runs")))
    return [{"loop": r["loop"], "run": int(r["run"]), "round": int(r["round"]),
             "version": int(r["version"]), "ok": r["ok"] == "1",
             "cycles": optional(int, r["cycles"]), "filtered": optional(float, r["filtered"]),
             "entries": int(r["entries"]), "disturbed": int(r["disturbed"])} for r in rows]


def markdown_table(headers, rows):
    """The lines of a Markdown table: a header row, its rule and one line per row of cells."""
    def line(cells):
        return "| " + " | ".join(map(str, cells)) + " |"
    return [line(headers), "|---" * len(headers) + "|"] + [line(r) for r in rows]


def command_env(outdir, flags=None):
    """What the manifests' commands expect; with `flags`, LOOPRACE_CC is gcc with them after the
    build's own (benchmarks/payoff/cc), so that e.g. -O3 overrides the build's -O2."""
    env = dict(os.environ, LOOPRACE_SRCDIR=str(ROOT), LOOPRACE_OUTDIR=str(outdir))
    if flags is not None:
        env.update(LOOPRACE_CC=str(ROOT / "benchmarks/payoff/cc"), PAYOFF_FLAGS=flags)
    return env


def looprace_build_with_flags(build, flags):
    """`build` for looprace to run, compiling with its $LOOPRACE_CC and `flags` appended after
    the build's own (benchmarks/payoff/cc), so that e.g. -O3 overrides the build's -O2, as a
    user building with those flags would race."""
    if not flags:
        return build
    return (f'PAYOFF_COMPILER="$LOOPRACE_CC" PAYOFF_FLAGS={shlex.quote(flags)} '
            f'LOOPRACE_CC={shlex.quote(str(ROOT / "benchmarks/payoff/cc"))}; '
            f'export PAYOFF_COMPILER PAYOFF_FLAGS; {build}')


def build_into(row, outdir, flags, who):
    """Builds a manifest row afresh in `outdir` with `flags` appended; exits naming `who` and
    the build's output when it fails."""
    shutil.rmtree(outdir, ignore_errors=True)
    outdir.mkdir(parents=True)
    done = subprocess.run(["sh", "-c", row["build"]], env=command_env(outdir, flags), cwd=outdir,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{who}: build in {outdir} failed:\n{done.stdout}{done.stderr}")


def cpu_seconds_of(command, env, who):
    """CPU seconds of one run of `command` (its output discarded); exits when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(["sh", "-c", command], env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{who}: '{command}' exited {done.returncode}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def runtime_records(text, kind):
    """The fields (name -> text) of each record of `kind` ("loop" or "end") in the runtime's
    records of a run (docs/formats.md, section 6), in the order written."""
    out = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[2] == kind:
            out.append(dict(f.split("=", 1) for f in fields[3:]))
    return out


def loop_cycles(records, loop=None):
    """Cycles of loop `loop` (every instrumented loop when None) in one run's runtime records
    (docs/formats.md, section 6), summed over the run's processes."""
    return sum(int(r["cycles"]) for r in runtime_records(Path(records).read_text(), "loop")
               if loop is None or r["id"] == loop)


def buckets(run):
    """A record's octave histogram as (octave, entries, cycles), shortest first."""
    return [tuple(int(x) for x in b.split(":")) for b in run["hist"].split(",")]


def octave_of_entry(hist, rank, from_longest):
    """The octave of the entry with `rank` entries before it (from the shortest or longest)."""
    seen = 0
    for octave, count, _ in (reversed(hist) if from_longest else hist):
        seen += count
        if seen > rank:
            return octave
    return 0


def kept_mean_times_entries(run, hist, cap):
    """The mean of the entries below octave `cap`, times all the run's entries."""
    kept = [(count, cycles) for octave, count, cycles in hist if octave < cap]
    return sum(c for _, c in kept) * run["entries"] / sum(k for k, _ in kept)


def filtered_cycles(run, least=5, median_first=True, reference=True):
    """A loop's cycles in one run (a dict of its record's entries and hist) with the entries
    a disturbance lengthened taken out, by the rule the parameters name (benchmarks/entry-rules;
    the defaults are driver/stats/entry_filter.cc's); None: not filtered."""
    hist, n = buckets(run), run["entries"]
    allowance = max(least, int(0.01 * n))
    cap = octave_of_entry(hist, (n - 1) // 2, False) + 2
    above = sum(count for octave, count, _ in hist if octave >= cap)
    if not median_first or above > allowance:
        if not reference:
            return None
        cap = octave_of_entry(hist, allowance, True) + 2
    return kept_mean_times_entries(run, hist, cap)


def linked_files(directory):
    """The executables and shared objects under `directory` (what looprace drops before a run:
    ELF files that are not object files)."""
    files = []
    for path in directory.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.suffix != ".o":
            with open(path, "rb") as f:
                header = f.read(18)
            if header[:4] == b"\x7fELF" and int.from_bytes(header[16:18], "little") in (2, 3):
                files.append(path)
    return files


def code_digest(directory):
    """A digest of the code and data the linked ELF files under `directory` load (allocated
    PROGBITS sections: text, read-only and initialized data), by relative name: equal digests are
    the same program whatever their notes, symbols or looprace's loop tables say."""
    digest = hashlib.sha256()
    for path in sorted(linked_files(directory)):
        data = path.read_bytes()
        shoff = int.from_bytes(data[0x28:0x30], "little")
        size, count = (int.from_bytes(data[o:o + 2], "little") for o in (0x3a, 0x3c))
        digest.update(str(path.relative_to(directory)).encode() + b"\0")
        for i in range(count):
            header = data[shoff + i * size:shoff + (i + 1) * size]
            kind, flags = int.from_bytes(header[4:8], "little"), int.from_bytes(header[8:16],
                                                                                "little")
            offset, length = (int.from_bytes(header[o:o + 8], "little") for o in (0x18, 0x20))
            if kind == 1 and flags & 2:  # SHT_PROGBITS, SHF_ALLOC
                digest.update(data[offset:offset + length])
    return digest.hexdigest()[:16]


def reload_pages(files, rng):
    """Drops the cached pages of `files` and reads them back elsewhere, as every run of looprace
    does: the next run finds them cached (reading them is not its cost) but in newly allocated
    physical pages (benchmarks/page-placement measures why). The kernel hands out the pages it
    freed last first, so a random number of pages (`rng`) is taken in between."""
    dropped = []
    for path in files:
        fd = os.open(path, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        dropped.append(fd)
    pages = rng.randrange(1, 1024)
    taken = mmap.mmap(-1, pages * mmap.PAGESIZE)
    for page in range(pages):
        taken[page * mmap.PAGESIZE] = 1
    for fd in dropped:
        while os.read(fd, 1 << 16):
            pass
        os.close(fd)
    taken.close()


@contextmanager
def other_work(command):
    """`command` run over and over in the shell, on any CPU, while the block runs (e.g. a
    rebuild of a project: the varying load of a developer's machine); killed with its children
    after."""
    worker = None
    if command:
        worker = subprocess.Popen(["sh", "-c", f"while :; do {command}; done"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
    try:
        yield
    finally:
        if worker:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()


@contextmanager
def busy_neighbour(enabled, cpu=0):
    """A process spinning on CPU `cpu` while the block runs: a machine with other work."""
    spinner = None
    if enabled:
        spinner = subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"])
    try:
        yield
    finally:
        if spinner:
            spinner.kill()
            spinner.wait()


PLAN_DESCRIPTION = re.compile(r"^([a-z-]+)\(([^)]*)\)(?: on (\w+))?$")


def replay_args_of(plan):
    """`looprace replay` arguments that replay the plan a decision names (Plan::describe(), with
    " on filtered" when it decided on filtered observations), e.g.
    "blocked-race(alpha_lt=0.05,alpha_eq=0.05,eps=0.005,cap=200,control=familywise) on filtered"."""
    m = PLAN_DESCRIPTION.match(plan)
    if not m:
        raise ValueError(f"not a plan description: {plan!r}")
    name, params, observation = m.groups()
    values = dict(p.split("=", 1) for p in params.split(",") if "=" in p)
    option = {"alpha_lt": "--alpha-lt", "alpha_eq": "--alpha-eq", "eps": "--epsilon",
              "cap": "--max-samples", "control": "--error-control", "test": "--test",
              "n": "--sizes"}
    args = ["--plans", name]
    for key, value in values.items():
        if key in option:
            args += [option[key], value]
    if observation:
        args += ["--observation", observation]
    return args


def replay_json(looprace, source, *args, repetitions=200, threads=2):
    """The rows of `looprace replay SOURCE... --json` (source: [CSV] or ["--store", DB])."""
    done = subprocess.run(["nice", "-n", "10", str(looprace), "replay", *map(str, source),
                           "--json", "--repetitions", str(repetitions), "--seed", "1",
                           "--threads", str(threads), *map(str, args)],
                          check=True, capture_output=True, text=True)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def cheapest_setting(grid, plan, target, failure="failure_rate"):
    """The row of a `looprace replay --csv-out` grid where `plan` takes the fewest samples per
    version failing at most `target` of the time (column `failure`), or None when none does."""
    fitting = [r for r in grid if r["plan"] == plan and float(r[failure]) <= target + 1e-12]
    return min(fitting, key=lambda r: float(r["mean_samples"]), default=None)


def crossing_points(grid, target, failure="failure_rate"):
    """Per plan of a replay grid, in its order: (plan, its cheapest setting at <= target failure
    or None, its samples per version over those of the cheapest constant setting and of the
    cheapest JavaSTATS setting: None where that setting is missing or the plan's own)."""
    cheapest = {plan: cheapest_setting(grid, plan, target, failure)
                for plan in dict.fromkeys(r["plan"] for r in grid)}
    references = [cheapest.get("constant"), cheapest.get("javastats")]

    def ratio(best, reference):
        if best is None or reference is None or reference is best:
            return None
        return float(best["mean_samples"]) / float(reference["mean_samples"])
    return [(plan, best, [ratio(best, r) for r in references]) for plan, best in cheapest.items()]


def setting_text(row):
    """The setting of a replay grid row, as a table cell."""
    if row["plan"] == "constant":
        return f"n = {row['samples']}"
    if row["plan"] == "javastats":
        return f"alpha {row['javastats_alpha']}, theta {row['javastats_theta']}"
    if row["alpha_lt"]:
        return f"alpha_LT {row['alpha_lt']}, alpha_EQ {row['alpha_eq']}"
    return "defaults"


def smallest_constant(looprace, source, race_args, constant_args=(), repetitions=200):
    """(the race's replay row, the smallest constant sample size failing no more often than it,
    or None): the brute force a race is compared with, sized on the same recorded data."""
    race = replay_json(looprace, source, *race_args, repetitions=repetitions)[0]
    constants = replay_json(looprace, source, "--plans", "constant", *constant_args,
                            repetitions=repetitions)
    fitting = sorted(r["samples"] for r in constants if r["failure_rate"] <= race["failure_rate"])
    return race, (fitting[0] if fitting else None)
