#!/usr/bin/env bash
# `--hot` offers the loops GCC's RTL unroller sees, after inlining, in C++ as in C: a template
# loop over operator[], a range-for and a loop calling an inlined helper (each calls something
# before inlining, nothing after) are candidates; a loop that still calls a function and a loop
# that inlining made an outer loop are left out, and `looprace loops` says why.
source "$(dirname "$0")/lib.sh" "$1"
build="\$LOOPRACE_CC -O2 -x c++ $here/programs/cxx_loops.cc -o \"\$LOOPRACE_OUTDIR/cxx\" -lstdc++"
"$looprace" loops --build "$build" --run '$LOOPRACE_OUTDIR/cxx' --json >loops.jsonl
python3 - loops.jsonl <<'PY' || fail "selection: $(cat loops.jsonl)"
import json, sys
rows = {r["line"]: r for r in map(json.loads, open(sys.argv[1])) if r["file"].endswith("cxx_loops.cc")}
for line in (10, 19, 28):  # template + operator[], range-for, inlined helper
    r = rows[line]
    assert r["features"]["calls"] > 0, r       # calls before inlining...
    assert r["features"]["calls_after_inlining"] == 0, r   # ...none after
    assert r["hot_candidate"], r
    # What the RTL unroller saw, for learning: its body and GCC's own factor.
    assert r["features"]["rtl_insns"] > 0 and r["features"]["gcc_factor"] >= 0, r
    assert r["features"]["base"] == "-O2", r
assert not rows[29]["hot_candidate"] and rows[29]["left_out"] == "calls 1 function(s) after inlining", rows[29]
assert not rows[25]["hot_candidate"] and "holds other loops" in rows[25]["left_out"], rows[25]
PY
# The race takes its loops from the candidates: the hottest of them, never the called or outer one.
"$looprace" race --build "$build" --run '$LOOPRACE_OUTDIR/cxx' --hot 3 --min-share 0 \
  --plan constant --constant-size 2 --confirm 0 --factors 0,2 --store "$work/store.db" \
  --profile "$work/p.profile" >race.log 2>&1 || fail "race: $(cat race.log)"
raced=$(sql "select l.line from decisions d join loops l on l.id = d.loop order by l.line" | tr '\n' ' ')
[ "$raced" = "10 19 28 " ] || fail "raced the loops on lines '$raced', not 10 19 28"
# --coverage takes candidates until they hold that part of the candidates' time; --budget caps
# each loop's observations by its share; both said up front.
"$looprace" race --build "$build" --run '$LOOPRACE_OUTDIR/cxx' --coverage 0.99 --min-share 0 \
  --budget 3s --confirm 0 --factors 0,2 --store "$work/budget.db" --profile "$work/b.profile" \
  >budget.log 2>&1 || fail "race with a budget: $(cat budget.log)"
grep -Eq "^racing [0-9]+ hot loop\(s\) holding .* 3.0 s of --budget caps them at" budget.log ||
  fail "no cost up front: $(cat budget.log)"
caps=$(sqlite3 "$work/budget.db" "select plan from decisions" | grep -o 'cap=[0-9]*' | sort -u | wc -l)
[ "$caps" -ge 2 ] || fail "every loop got the same cap: $(sqlite3 "$work/budget.db" "select plan from decisions")"
echo PASS
