"""Helpers shared by the plugin integration tests: compiling with and without the plugin,
comparing objects, reading loop tables and runtime records."""
import argparse
import concurrent.futures
import json
import pathlib
import subprocess
import sys
import tempfile


def arguments(description, extra=None):
    """Parses the common command line: --plugin, --runtime, --corpus, --work."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--plugin", required=True, type=pathlib.Path)
    parser.add_argument("--runtime", type=pathlib.Path)
    parser.add_argument("--corpus", required=True, type=pathlib.Path)
    parser.add_argument("--work", type=pathlib.Path)
    if extra:
        extra(parser)
    args = parser.parse_args()
    if args.work is None:
        args.work = pathlib.Path(tempfile.mkdtemp(prefix="looprace-plugin-test-"))
    args.work.mkdir(parents=True, exist_ok=True)
    return args


def compiler_for(source):
    return "g++" if str(source).endswith((".cc", ".cpp")) else "gcc"


def standard_flags(source):
    """Language flags of a corpus file: extern_inline.c is gnu89, like loop-2c."""
    return ["-std=gnu89"] if pathlib.Path(source).name == "extern_inline.c" else []


def plugin_flags(plugin, **keys):
    """-fplugin=... plus one -fplugin-arg-looprace-KEY=VALUE per keyword (None: key alone)."""
    flags = [f"-fplugin={plugin}"]
    for key, value in keys.items():
        flags.append(f"-fplugin-arg-looprace-{key}" + ("" if value is None else f"={value}"))
    return flags


def run(command, cwd=None, env=None, check=True):
    """Runs a command, capturing text output; raises with the output on failure when check."""
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"failed ({result.returncode}): {' '.join(map(str, command))}\n"
                           f"{result.stdout}{result.stderr}")
    return result


def compile_object(source, output, flags, corpus):
    """Compiles one source to an object file; returns the completed process."""
    command = [compiler_for(source), "-c", str(source), "-o", str(output), f"-I{corpus}"]
    return run(command + standard_flags(source) + flags)


def normalized_object(path):
    """The object's bytes without the .looprace.loops section (the table, not code)."""
    stripped = pathlib.Path(str(path) + ".cmp")
    run(["objcopy", "--remove-section=.looprace.loops", str(path), str(stripped)])
    return stripped.read_bytes()


def compare_builds(source, corpus, first, first_flags, second, second_flags):
    """Compiles source twice; returns None when the objects' code is the same, else where not."""
    compile_object(source, first, first_flags, corpus)
    compile_object(source, second, second_flags, corpus)
    if normalized_object(first) == normalized_object(second):
        return None
    return first_difference(first, second)


def first_difference(a, b):
    """A short objdump diff of two objects, for failure messages."""
    dumps = [run(["objdump", "-dr", str(p)]).stdout.splitlines()[2:] for p in (a, b)]
    for number, (x, y) in enumerate(zip(*dumps)):
        if x != y:
            return f"objdump line {number}: {x!r} != {y!r}"
    return "objdump identical; difference outside code"


def read_table(path):
    """The rows of a JSON Lines loop table."""
    text = pathlib.Path(path).read_text() if pathlib.Path(path).exists() else ""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def read_records(path):
    """Runtime 'loop' records (docs/formats.md section 6) as dicts of their key=value fields."""
    records = []
    text = pathlib.Path(path).read_text() if pathlib.Path(path).exists() else ""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] == "loop":
            records.append(dict(field.split("=", 1) for field in fields[3:]))
    return records


def corpus_sources(corpus):
    return sorted(p for p in pathlib.Path(corpus).iterdir() if p.suffix in (".c", ".cc"))


def parallel(function, items, jobs=2):
    """Maps function over items on `jobs` threads (the compilers are the work)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(function, items))


class Failures:
    """Collects failures so one run reports all of them, then exits non-zero if any."""

    def __init__(self):
        self.messages = []

    def check(self, condition, message):
        if not condition:
            self.messages.append(message)
        return condition

    def finish(self, summary):
        for message in self.messages:
            print("FAIL:", message)
        print(f"{summary}: {len(self.messages)} failure(s)")
        sys.exit(1 if self.messages else 0)
