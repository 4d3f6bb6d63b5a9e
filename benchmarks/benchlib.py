"""What the benchmark scripts share: the program manifests and the looprace command's outputs.

Import it from a script beside or below benchmarks/ with
    sys.path.insert(0, str(Path(__file__).resolve().parent))   # (or .parent.parent)
    import benchlib
"""
import json
import os
import signal
import subprocess
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
