#!/usr/bin/env python3
"""model= sets, in the plugin's early pass (where profiles and `#pragma GCC unroll` set factors,
before inlining), the factor of every loop that nothing else names, from the loop's table
features and the factor inputs: every such loop, outer ones too, gets one verify record (its
table id, "by":"model") agreeing with -fopt-info-loop, and the code is that of unroll= with the
same factor; the model reads the features the table reports (trip counts too: they are computed
whenever a model is given); loops named by unroll= or a profile line (factor 0 included) or by
`#pragma GCC unroll` are left alone; programs print the same whatever the model picks; a model
that keeps GCC's choice, or whose ranges exclude every loop, leaves every object byte-identical;
a version-2 model's preferred factor is kept within its margin; a malformed model is a GCC
error naming the file and line, never an ICE; under -flto the model
given at compile time sets the factors (the plugin given at link time applies them) and the
compile step's verify records say so."""
import collections
import json
import os
import re

import plugin_testlib as lib

args = lib.arguments(__doc__)
failures = lib.Failures()
work = args.work.resolve()  # verify= and model= paths must survive LTO's own directories
sources = lib.corpus_sources(args.corpus)
UNROLLED = re.compile(r"^(.*):(\d+):(\d+): optimized: loop unrolled (\d+) times$", re.M)
# Why a loop gets fewer copies than requested, as verify records say it (docs/formats.md 3b).
REFUSALS = {"too-big", "too-few-iterations", "runtime-pow2", "cold", "not-innermost"}


def write(name, text):
    path = work / name
    path.write_text(text)
    return path


def picking(factor, keep=0.01, extra_header=""):
    """A model predicting `factor` fastest for every loop by 0.25 (0.3 against GCC's choice)."""
    factors = " ".join(map(str, sorted({0, 1, 2, 4, 8, factor})))
    return ("looprace-model 1\n# every loop: factor %d\nfeatures stmts factor\n"
            "factors %s\nkeep-default-within %s\nbase 0\n%stree\n"
            "split 0 1 %s 1 2 1\nleaf 1 0.1\nsplit 2 1 %s 3 4 3\nleaf 3 -0.2\nleaf 4 0.05\n" %
            (factor, factors, keep, extra_header, factor - 0.5, factor + 0.5))


# The model of the feature's description, verbatim: 4 copies everywhere.
FOUR = write("four.model", picking(4))
assert "split 0 1 3.5 1 2 1\nleaf 1 0.1\nsplit 2 1 4.5 3 4 3\n" in FOUR.read_text()
MODELS = {factor: write(f"pick{factor}.model", picking(factor)) for factor in (1, 8)}
MODELS[4] = FOUR
# 4 copies for a body of fewer than 10 statements, else 2 (`factor` first, two trees, a base).
SIZED = write("sized.model", """looprace-model 1
features factor stmts
factors 0 2 4
keep-default-within 0
base 1.5
tree
split 0 1 10 1 2 1
split 1 0 3 3 4 3
split 2 0 1 5 6 5
leaf 3 0.1
leaf 4 -0.3
leaf 5 0.1
split 6 0 3 7 8 7
leaf 7 -0.3
leaf 8 0.2
tree
leaf 0 0.25
""")
# The factor inputs, one tree each, from the table's stmts and trip count (computed without
# table=): fewer than 8 trips per copy (or an unknown count) costs factors 4 and 8 1, a body of
# 40 statements or more once unrolled 0.3, a trip count the copies do not divide 0.05; the most
# copies are preferred. The model names stmts and niter too, as it must (a model naming a factor
# input without its source is malformed: case e).
FACTOR_INPUTS = """looprace-model 1
features factor unrolled_stmts trip_per_copy trip_remainder%s
factors 2 4 8
base 0
tree
split 0 2 8 1 2 1
split 1 0 3 3 4 3
leaf 2 0
leaf 3 0
leaf 4 1
tree
split 0 1 40 1 2 2
leaf 1 0
leaf 2 0.3
tree
split 0 3 0.5 1 2 1
leaf 1 0
leaf 2 0.05
tree
split 0 0 3 1 2 1
leaf 1 0.02
split 2 0 6 3 4 3
leaf 3 0.01
leaf 4 0
"""
INPUTS = {"full": write("inputs.model", FACTOR_INPUTS % " stmts niter")}


def inputs_choice(features):
    """The factor the INPUTS models pick for a loop with these table features (docs/formats.md
    5b: the factor inputs)."""
    niter, stmts = features["niter"], features["stmts"]

    def cost(factor):
        trip_per_copy = (niter + 1) // factor if niter >= 0 else -1
        remainder = (niter + 1) % factor if niter >= 0 else -1
        return ((1 if trip_per_copy < 8 and factor > 2 else 0) +
                (0.3 if stmts * factor >= 40 else 0) + (0.05 if remainder >= 0.5 else 0) +
                {2: 0.02, 4: 0.01, 8: 0}[factor])
    return min((2, 4, 8), key=cost)


# Models under which GCC's own choice (factor 0) always stays.
KEEPING = {
    "single-leaf": write("leaf.model", "looprace-model 1\nfeatures factor\nfactors 0 2 4 8\n"
                                       "base 0\ntree\nleaf 0 0.5\n"),
    "within": write("within.model", picking(8, keep=100)),
    # The model of 4 everywhere, for loops of 100000 statements or more, which there are not.
    "range": write("range.model", picking(4, extra_header="range stmts 100000 200000\n")),
}


def unrolled(stderr, source):
    """GCC's -fopt-info-loop 'loop unrolled N times' for source: (line, column, copies) counts."""
    return collections.Counter((int(line), int(column), int(times) + 1)
                               for file, line, column, times in UNROLLED.findall(stderr)
                               if os.path.basename(file) == source.name)


def read_records(path):
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def compile_verified(source, name, flags, **keys):
    """Compiles source to NAME.o with the plugin, verify= NAME.jsonl and -fopt-info-loop; returns
    (verify records, unrolled messages, object)."""
    verify, obj = work / f"{name}.jsonl", work / f"{name}.o"
    verify.unlink(missing_ok=True)
    result = lib.compile_object(source, obj, flags + ["-fopt-info-loop-optimized"] +
                                lib.plugin_flags(args.plugin, verify=verify, **keys), args.corpus)
    return read_records(verify), unrolled(result.stderr, source), obj


def table_rows(source, flags=("-O2",)):
    table = work / f"{source.stem}-table.jsonl"
    table.unlink(missing_ok=True)
    lib.compile_object(source, work / f"{source.stem}-table.o",
                       list(flags) + lib.plugin_flags(args.plugin, table=table), args.corpus)
    return lib.read_table(table)


def profile_text(entries):
    lines = ["looprace-profile 1", "# id location function pos factor evidence"]
    for row, factor in entries:
        lines.append(f"{row['id']} {row['file']}:{row['line']}:{row['column']} {row['function']} "
                     f"{row['index']}/{row['loops']} {factor} samples=10,10")
    return "\n".join(lines) + "\n"


def check_model_records(label, records, messages, rows):
    """Every loop of the table (rows) has exactly one record, the model's, with a factor of 2 or
    more requested: applied as requested, refused for a documented reason, or unrolled away
    before RTL. Joined to the table by id, the copies the records claim are, line by line, what
    GCC reports, and GCC unrolled nothing on a line no record claims it for."""
    line_of = {row["id"]: row["line"] for row in rows}
    failures.check(sorted(r["id"] for r in records) == sorted(line_of),
                   f"{label}: record ids {sorted(r['id'] for r in records)}, expected one per "
                   f"loop of the table: {sorted(line_of)}")
    for record in records:
        requested, applied, how = record["requested"], record["applied"], record["how"]
        failures.check(record.get("by") == "model" and "location" not in record,
                       f"{label}: not a model record (by=model, no location): {record}")
        failures.check(requested >= 2 and (
            (applied == requested and how == "" and min(record["copies"]) == applied) or
            (1 <= applied < requested and how in REFUSALS and min(record["copies"]) == applied) or
            (applied == 0 and how == "complete-tree" and not record["copies"])),
            f"{label}: neither applied nor a documented refusal: {record}")
    claimed = {(line_of[r["id"]], copies) for r in records if r["id"] in line_of
               for copies in r["copies"] if copies >= 2}
    reported = {(line, copies) for line, _, copies in messages}
    failures.check(claimed == reported, f"{label}: verify records claim (line, copies) "
                   f"{sorted(claimed)}, -fopt-info-loop reports {sorted(reported)}")


def without_by(records):
    return [{key: value for key, value in r.items() if key != "by"} for r in records]


# --- a. A model choosing 4: every loop gets 4 copies, as unroll=*:4 gives them.
rows_of = {source: table_rows(source) for source in sources}
for source in sources:
    for level in ("-O2", "-O3"):
        label = f"{source.name} {level} model 4"
        records, messages, obj = compile_verified(source, f"four-{source.stem}{level}", [level],
                                                  model=FOUR)
        check_model_records(label, records, messages, rows_of[source])
        failures.check(all(r["requested"] == 4 for r in records), f"{label}: requested not 4")
        failures.check(any(copies == 4 for _, _, copies in messages),
                       f"{label}: GCC unrolled no loop 4 times")
        # The model's factors are set where unroll= sets its own, so -O3's complete unrolling
        # at GIMPLE reads them too: same code, same records (but for "by").
        unroll_records, unroll_messages, by_unroll = compile_verified(
            source, f"star4-{source.stem}{level}", [level], unroll="*:4")
        failures.check(lib.normalized_object(obj) == lib.normalized_object(by_unroll),
                       f"{label}: code differs from unroll=*:4 "
                       f"({lib.first_difference(obj, by_unroll)})")
        failures.check(without_by(records) == unroll_records and messages == unroll_messages,
                       f"{label}: verify records or -fopt-info differ from unroll=*:4's:\n"
                       f"{records}\n{unroll_records}")

# A version-2 model preferring 4 within a margin no prediction clears (its trees favour 8):
# every loop gets 4 copies, the code of unroll=*:4.
PREFER4 = write("prefer4.model", picking(8, keep=100, extra_header="prefer 4\n").replace(
    "looprace-model 1", "looprace-model 2", 1))
for source in sources:
    label = f"{source.name} -O2 version-2 model preferring 4"
    records, messages, obj = compile_verified(source, f"prefer4-{source.stem}", ["-O2"],
                                              model=PREFER4)
    check_model_records(label, records, messages, rows_of[source])
    failures.check(all(r["requested"] == 4 for r in records), f"{label}: requested not 4")
    _, _, by_unroll = compile_verified(source, f"star4-{source.stem}-O2", ["-O2"], unroll="*:4")
    failures.check(lib.normalized_object(obj) == lib.normalized_object(by_unroll),
                   f"{label}: code differs from unroll=*:4")

# The model reads the features of the table: 4 copies below 10 statements, else 2.
chosen = collections.Counter()
for source in sources:
    label = f"{source.name} -O2 sized model"
    records, messages, _ = compile_verified(source, f"sized-{source.stem}", ["-O2"], model=SIZED)
    check_model_records(label, records, messages, rows_of[source])
    stmts = {row["id"]: row["features"]["stmts"] for row in rows_of[source]}
    for record in records:
        chosen[record["requested"]] += 1
        if record["id"] in stmts:
            failures.check(record["requested"] == (4 if stmts[record["id"]] < 10 else 2),
                           f"{label}: loop {record['id']} of {stmts[record['id']]} statements,"
                           f" factor {record['requested']}")
failures.check(chosen[2] and chosen[4], f"sized model: factors chosen {dict(chosen)}: the "
               "corpus no longer has loops on both sides of the threshold")

# The factor inputs read the table's stmts and trip count (computed without table=), whether or
# not the features line names them too.
chosen = collections.Counter()
for source in sources:
    features = {row["id"]: row["features"] for row in rows_of[source]}
    for variant, model in INPUTS.items():
        label = f"{source.name} -O2 factor inputs model ({variant})"
        records, messages, _ = compile_verified(source, f"inputs-{variant}-{source.stem}", ["-O2"],
                                                model=model)
        check_model_records(label, records, messages, rows_of[source])
        wrong = []
        for record in records:
            if record["id"] not in features:
                continue
            mine = features[record["id"]]
            expected = inputs_choice(mine)
            if variant == "full":
                chosen[(mine["niter"] >= 0, expected)] += 1
            if record["requested"] != expected:
                wrong.append(f"{record['id']} (stmts {mine['stmts']}, niter {mine['niter']}): "
                             f"{record['requested']}, not {expected}")
        failures.check(not wrong, f"{label}: factors other than the model's: {wrong}")
failures.check(len({factor for _, factor in chosen}) == 3 and
               {(False, 2), (True, 4)} <= set(chosen),
               f"factor inputs model: (constant count, factor) chosen {dict(chosen)}: the corpus "
               "no longer tells every input apart")

# --- b. Loops something else names are left alone.
named_source = write("named.c", """/* One innermost loop per function, each named another way (or
   not at all). None is vectorized, so each keeps its location down to the RTL unroller. */
#define HASH(name) __attribute__((noinline)) unsigned name(const unsigned *a, int n)
HASH(by_unroll_zero) {
  unsigned s = 1;
  for (int i = 0; i < n; i++) s = s * 31 + a[i];
  return s;
}
HASH(by_unroll_one) {
  unsigned s = 3;
  for (int i = 0; i < n; i++) s = s * 37 + a[i];
  return s;
}
HASH(by_profile_two) {
  unsigned s = 5;
  for (int i = 0; i < n; i++) s = s * 41 + a[i];
  return s;
}
HASH(by_profile_zero) {
  unsigned s = 7;
  for (int i = 0; i < n; i++) s = s * 43 + a[i];
  return s;
}
HASH(by_pragma) {
  unsigned s = 11;
#pragma GCC unroll 2
  for (int i = 0; i < n; i++) s = s * 47 + a[i];
  return s;
}
HASH(unnamed) {
  unsigned s = 13;
  for (int i = 0; i < n; i++) s = s * 53 + a[i];
  return s;
}
""")
named_rows = {row["function"]: row for row in table_rows(named_source)}
named = {"by_unroll_zero": 0, "by_unroll_one": 1, "by_profile_two": 2, "by_profile_zero": 0}
profile = write("named.profile", profile_text([(named_rows[f], named[f])
                                               for f in ("by_profile_two", "by_profile_zero")]))
records, messages, _ = compile_verified(
    named_source, "named", ["-O2"], model=FOUR, profile=profile,
    unroll=f"{named_rows['by_unroll_zero']['id']}:0,{named_rows['by_unroll_one']['id']}:1")
by_id = collections.defaultdict(list)
for record in records:
    by_id[record["id"]].append(record)
for function, factor in named.items():
    mine = by_id[named_rows[function]["id"]]
    failures.check([(r.get("by"), r["requested"], r["applied"]) for r in mine] ==
                   [(None, factor, max(factor, 1))],
                   f"named.c {function} named with factor {factor}: records {mine}")
model_records = [r for r in records if r.get("by") == "model"]
unnamed, pragma = named_rows["unnamed"], named_rows["by_pragma"]
failures.check([(r["id"], r["requested"], r["applied"]) for r in model_records] ==
               [(unnamed["id"], 4, 4)],
               f"named.c: the model should set exactly the unnamed loop: {model_records}")
failures.check(not by_id[pragma["id"]],
               f"named.c: a record for the loop under #pragma GCC unroll: {by_id[pragma['id']]}")
expected = collections.Counter({(unnamed["line"], unnamed["column"], 4): 1,
                                (pragma["line"], pragma["column"], 2): 1,
                                (named_rows["by_profile_two"]["line"],
                                 named_rows["by_profile_two"]["column"], 2): 1})
failures.check(messages == expected, f"named.c: -fopt-info-loop reports "
               f"{sorted(messages.items())}, expected {sorted(expected.items())}")


# Every loop of a corpus file named (by unroll=, a profile, the pragma): the model sets nothing,
# and the code is that of the same names without it.
def every_loop_named(case):
    source, level, how = case
    stem = f"all-{how}-{source.stem}{level}"
    flags, keys = [level], {}
    if how.startswith("unroll"):
        keys["unroll"] = f"all:{how[-1]}"
    elif how == "profile0":
        keys["profile"] = write(f"{stem}.profile",
                                profile_text([(row, 0) for row in rows_of[source]]))
    else:
        flags += ["-DLR_USE_PRAGMA", "-DLR_FACTOR=2"]
    records, _, with_model = compile_verified(source, stem + "-model", flags, model=FOUR, **keys)
    _, _, without = compile_verified(source, stem, flags, **keys)
    same = lib.normalized_object(with_model) == lib.normalized_object(without)
    return case, [r for r in records if r.get("by") == "model"], same, \
        None if same else lib.first_difference(without, with_model)


NAMINGS = ["unroll0", "unroll1", "profile0", "pragma2"]
cases = [(s, level, how) for s in sources for level in ("-O2", "-O3") for how in NAMINGS]
for (source, level, how), model_records, same, difference in lib.parallel(every_loop_named,
                                                                          cases):
    label = f"{source.name} {level} every loop named ({how})"
    failures.check(not model_records, f"{label}: the model set "
                   f"{[(r['id'], r['requested']) for r in model_records]}")
    failures.check(same, f"{label}: the model changed the code ({difference})")

# Two loops at one place (two instantiations of a template): naming one leaves the other to
# the model, under its own id.
templates = args.corpus / "templates.cc"
dots = sorted((r for r in rows_of[templates] if r["function"].startswith("_Z3dot")),
              key=lambda r: r["function"])
failures.check(len(dots) == 2 and (dots[0]["line"], dots[0]["column"]) ==
               (dots[1]["line"], dots[1]["column"]),
               f"templates.cc: expected two dot<> loops at one place: {dots}")
for named_dot, other in (dots, dots[::-1]) if len(dots) == 2 else ():
    records, _, _ = compile_verified(templates, f"dot-{named_dot['id']}", ["-O2"], model=FOUR,
                                     unroll=f"{named_dot['id']}:0")
    at_place = [(r["id"], r.get("by"), r["requested"]) for r in records
                if r["id"] in (named_dot["id"], other["id"])]
    expected = [(named_dot["id"], None, 0), (other["id"], "model", 4)]
    failures.check(sorted(at_place) == sorted(expected),
                   f"templates.cc: {named_dot['function']} named 0, the records of the two "
                   f"dot<> loops are {at_place}, expected {expected}")


# --- c. What the model picks never changes what a program computes.
def text_section(exe):
    section = exe.with_suffix(".text")
    lib.run(["objcopy", "-O", "binary", "--only-section=.text", str(exe), str(section)])
    return section.read_bytes()


def build_and_run(case):
    source, level, factor = case
    exe = work / f"run-{source.stem}-{'_'.join(level)}-{factor}"
    keys = {} if factor is None else {"model": MODELS[factor]}
    lib.run([lib.compiler_for(source), str(source), "-o", str(exe), f"-I{args.corpus}"] +
            lib.standard_flags(source) + level + lib.plugin_flags(args.plugin, **keys))
    result = lib.run([str(exe)], check=False)
    return case, (result.returncode, result.stdout), text_section(exe)


RUN_LEVELS = [["-O2"], ["-O3", "-funroll-loops"]]
cases = [(s, level, factor) for s in sources for level in RUN_LEVELS for factor in
         (None, 1, 4, 8)]
runs = {(s, tuple(level), factor): (output, text)
        for (s, level, factor), output, text in lib.parallel(build_and_run, cases)}
for source in sources:
    for level in map(tuple, RUN_LEVELS):
        plain_output, plain_text = runs[(source, level, None)]
        failures.check(plain_output[0] == 0 and plain_output[1],
                       f"{source.name} {' '.join(level)}: the program failed: {plain_output}")
        for factor in (1, 4, 8):
            output, text = runs[(source, level, factor)]
            label = f"{source.name} {' '.join(level)} model {factor}"
            failures.check(output == plain_output,
                           f"{label}: exit status and output {output}, without it {plain_output}")
            if factor != 1 or "-funroll-loops" in level:  # else GCC unrolls nothing either
                failures.check(text != plain_text, f"{label}: same code as without the model")

# --- d. A model keeping GCC's choice: byte-identical objects (computing trip counts for the
# model reads the loops and changes nothing), a record requesting 0 for every loop.
NEUTRAL_LEVELS = [["-O2"], ["-O3"], ["-O2", "-g", "-gno-record-gcc-switches"],
                  ["-O2", "-funroll-loops"]]
first_innermost = {s: next(r["id"] for r in rows_of[s] if r["features"]["inner"] == 0)
                   for s in sources}


def keeps(case):
    source, level, model, mode = case
    stem = f"keep-{source.stem}-{level}-{model}-{mode}"
    keys = {}
    if mode in ("verify", "named"):
        keys["verify"] = work / f"{stem}-plain.jsonl"
    if mode == "named":
        keys["unroll"] = f"{first_innermost[source]}:4"
    plain, modelled = work / f"{stem}-plain.o", work / f"{stem}-model.o"
    verify = work / f"{stem}-model.jsonl"
    verify.unlink(missing_ok=True)
    model_keys = dict(keys, model=KEEPING[model])
    if "verify" in keys:
        model_keys["verify"] = verify
    difference = lib.compare_builds(source, args.corpus, plain, NEUTRAL_LEVELS[level] +
                                    lib.plugin_flags(args.plugin, **keys), modelled,
                                    NEUTRAL_LEVELS[level] +
                                    lib.plugin_flags(args.plugin, **model_keys))
    return case, difference, read_records(verify)


cases = [(s, level, model, mode) for s in sources for level in range(len(NEUTRAL_LEVELS))
         for model in KEEPING for mode in ("bare", "verify", "named")]
for (source, level, model, mode), difference, records in lib.parallel(keeps, cases):
    label = f"{source.name} {' '.join(NEUTRAL_LEVELS[level])} {model} model ({mode})"
    failures.check(difference is None, f"{label}: code changed ({difference})")
    by_model = [r for r in records if r.get("by") == "model"]
    failures.check(all(r["requested"] == 0 for r in by_model), f"{label}: model records "
                   f"requesting a factor: {[r for r in by_model if r['requested']]}")
    if mode == "bare":
        continue
    # The model decided every loop but the one unroll= names, and only those.
    expected = {r["id"] for r in rows_of[source]} - \
        ({first_innermost[source]} if mode == "named" else set())
    failures.check(sorted(r["id"] for r in by_model) == sorted(expected),
                   f"{label}: model records for {sorted(r['id'] for r in by_model)}, expected "
                   f"one for each of {sorted(expected)}")
    others = [(r["id"], r["requested"]) for r in records if r.get("by") != "model"]
    failures.check(others == ([(first_innermost[source], 4)] if mode == "named" else []),
                   f"{label}: records not by the model: {others}")

# --- e. Malformed models.
HEAD = "looprace-model 1\n# a comment\nfeatures stmts factor\nfactors 0 4\nbase 0\n"
RANGE_OF = "range of '%s', which is not a loop feature of the features line"
missing = work / "absent.model"
CASES = [
    ("wrong magic", write("magic.model", "looprace-profile 1\n" + HEAD[17:] + "tree\nleaf 0 0\n"),
     ":1: not a looprace model"),
    ("wrong magic after a comment", write("magic2.model", "# c\nlooprace-modle 1\n"),
     ":2: not a looprace model"),
    ("bad version", write("version.model", HEAD.replace("model 1", "model 3")),
     ":1: unsupported model version"),
    ("unknown feature", write("feature.model", HEAD.replace("stmts", "stmts bogus") +
                              "tree\nleaf 0 0\n"), ":3: unknown feature 'bogus'"),
    ("an RTL feature", write("rtl.model", HEAD.replace("stmts", "stmts rtl_insns") +
                             "tree\nleaf 0 0\n"), ":3: unknown feature 'rtl_insns'"),
    ("the RTL factor input", write("unrolled.model", HEAD.replace("stmts", "unrolled_insns") +
                                   "tree\nleaf 0 0\n"), ":3: unknown feature 'unrolled_insns'"),
    ("a factor input without its source", write("bare.model", FACTOR_INPUTS % ""),
     ":2: 'unrolled_stmts' is computed from 'stmts'"),
    ("no factor feature", write("nofactor.model", HEAD.replace(" factor\n", "\n")),
     ":3: the features line must name 'factor'"),
    ("bad factor", write("factor.model", HEAD.replace("0 4", "0 17")), ":4: bad factor '17'"),
    ("range of an unknown name", write("range-unknown.model",
                                       HEAD + "range bogus 0 1\ntree\nleaf 0 0\n"),
     ":6: " + RANGE_OF % "bogus"),
    ("range of a feature not on the features line", write(
        "range-absent.model", HEAD + "range calls 0 0\ntree\nleaf 0 0\n"),
     ":6: " + RANGE_OF % "calls"),
    ("range of a factor input", write("range-factor.model",
                                      HEAD + "range factor 0 4\ntree\nleaf 0 0\n"),
     ":6: " + RANGE_OF % "factor"),
    ("range before the features line", write(
        "range-early.model", HEAD.replace("# a comment", "range stmts 0 10") + "tree\nleaf 0 0\n"),
     ":2: " + RANGE_OF % "stmts"),
    ("range LO > HI", write("range-order.model", HEAD + "range stmts 10 3\ntree\nleaf 0 0\n"),
     ":6: expected 'range NAME LO HI' with LO <= HI"),
    ("range without HI", write("range-short.model", HEAD + "range stmts 3\ntree\nleaf 0 0\n"),
     ":6: expected 'range NAME LO HI' with LO <= HI"),
    ("bad child id", write("child.model", HEAD + "tree\nsplit 0 1 3.5 0 2 1\nleaf 1 0\n"),
     ":7: bad child ids"),
    ("bad feature index", write("index.model", HEAD + "tree\nsplit 0 2 3.5 1 2 1\n"),
     ":7: bad feature index '2'"),
    ("truncated tree", write("truncated.model", HEAD + "tree\nsplit 0 1 3.5 1 2 1\nleaf 1 0\n"),
     ":8: a split points past the tree's last node 1"),
    ("truncated tree, another follows", write(
        "truncated2.model", HEAD + "tree\nsplit 0 1 3.5 1 2 1\nleaf 1 0\ntree\nleaf 0 0\n"),
     ":9: a split points past the tree's last node 1"),
    ("truncated line", write("cut.model", HEAD + "tree\nsplit 0 1 3.5 1 2"),
     ":7: expected 'split ID FEATURE THRESHOLD YES NO MISSING'"),
    ("empty tree", write("emptytree.model", HEAD + "tree\ntree\nleaf 0 0\n"), ":7: empty tree"),
    ("no tree", write("notree.model", HEAD), ":5: no tree"),
    ("header after a tree", write("late.model", HEAD + "tree\nleaf 0 0\nbase 1\n"),
     ":8: 'base' after the first tree"),
    ("range after a tree", write("late-range.model", HEAD + "tree\nleaf 0 0\nrange stmts 0 1\n"),
     ":8: 'range' after the first tree"),
    ("bad leaf value", write("badleaf.model", HEAD + "tree\nleaf 0 nan\n"), ":7: bad leaf value"),
    ("empty file", write("empty.model", ""), ":1: empty model"),
    ("too large", "/dev/zero", "model '/dev/zero' is larger than 64 MiB: not a looprace model"),
    ("missing file", missing,
     f"cannot read model '{missing}': No such file or directory"),
    ("directory", work, f"cannot read model '{work}'"),
]
for description, path, expected in CASES:
    if expected.startswith(":"):
        expected = f"{path}{expected}"
    result = lib.run(["gcc", "-O2", "-c", str(args.corpus / "kernels.c"), f"-I{args.corpus}",
                      "-o", str(work / "bad.o")] + lib.plugin_flags(args.plugin, model=path),
                     check=False)
    text = result.stderr.replace("\u2018", "'").replace("\u2019", "'")
    label = f"malformed model, {description}"
    failures.check(result.returncode == 1, f"{label}: exit status {result.returncode}")
    failures.check("error: looprace: '-fplugin-arg-looprace-model': " + expected in text,
                   f"{label}: diagnostic lacks {expected!r}:\n{text}")
    failures.check("internal compiler error" not in text, f"{label}: ICE\n{text}")

# --- f. Under -flto the model given at compile time sets the factors; the plugin given at link
# time applies them, as it does a profile's.
kernels = args.corpus / "kernels.c"


def lto_build(name, compile_keys):
    """An LTO executable of kernels.c, the plugin at link time with no argument; returns (its
    .text, link -fopt-info, its output)."""
    obj, exe = work / f"{name}.o", work / name
    lib.compile_object(kernels, obj, ["-O2", "-flto"] +
                       lib.plugin_flags(args.plugin, **compile_keys), args.corpus)
    result = lib.run(["gcc", "-O2", "-flto", "-fopt-info-loop-optimized", str(obj), "-o",
                      str(exe)] + lib.plugin_flags(args.plugin))
    return text_section(exe), unrolled(result.stderr, kernels), lib.run([str(exe)]).stdout


compile_verify = work / "lto-compile.jsonl"
compile_verify.unlink(missing_ok=True)
modelled, messages, output = lto_build("lto-model", {"model": FOUR, "verify": compile_verify})
unroll_text, unroll_messages, _ = lto_build("lto-unroll4", {"unroll": "*:4"})
plain_text, plain_messages, plain_output = lto_build("lto-plain", {})
failures.check(modelled == unroll_text and messages == unroll_messages,
               f"-flto: model 4 at compile time != unroll=*:4 (-fopt-info {sorted(messages)}, "
               f"{sorted(unroll_messages)})")
failures.check(modelled != plain_text and any(c == 4 for _, _, c in messages) and
               not plain_messages, "-flto: the model at compile time changed nothing")
failures.check(output == plain_output, "-flto: the model changed the program's output")
# The compile step decided every loop (GCC's RTL runs at link time: applied is not known).
records = read_records(compile_verify)
failures.check(sorted(r["id"] for r in records) == sorted(r["id"] for r in rows_of[kernels]) and
               all(r.get("by") == "model" and r["requested"] == 4 for r in records),
               f"-flto compile step: verify records {records}, expected one by the model "
               "requesting 4 for each loop of the table")
failures.finish("model application")
