#!/usr/bin/env bash
# A hot inner loop whose entries last a few dozen cycles is raced through the loop around it:
# its variants instrument the enclosing loop, whose cycles are the observations (stored under
# that loop's id), the summary says so and the decision's plan names it; a rerun answers from
# the store; a loop named with --loop is timed the same way; --together times each loop itself.
source "$(dirname "$0")/lib.sh" "$1"
build="\$LOOPRACE_CC -O2 \"$here/programs/dot.c\" -o \"\$LOOPRACE_OUTDIR/dot\""
ids=$("$looprace" loops --build "$build" --json --workdir "$work/loops" | python3 -c '
import json, sys
rows = [json.loads(l) for l in sys.stdin if json.loads(l)["name"] == "product"]
print(min(rows, key=lambda r: r["depth"])["id"], max(rows, key=lambda r: r["depth"])["id"])')
read -r outer inner <<<"$ids"
race=("$looprace" race --build "$build" --run '$LOOPRACE_OUTDIR/dot' --hot 1 --min-share 0
  --factors 0,1,4 --max-samples 8 --confirm 4 --store store.db --profile dot.profile --seed 3)
"${race[@]}" >race.out
cat race.out
grep -q "timed through the loop around it, $outer" race.out ||
  fail "the inner loop $inner was not timed through $outer"
[ "$(sql "select distinct o.loop from runs r join observations o on o.run = r.id
  where r.kind = 'race' and r.target_loop = '$inner'")" = "$outer" ] ||
  fail "the race runs of $inner did not time $outer alone"
sql "select plan from decisions where loop = '$inner'" | grep -q " through $outer\$" ||
  fail "the decision's plan does not name $outer: $(sql "select plan from decisions")"
raced=$(sql "select count(*) from runs where kind = 'race'")
"${race[@]}" >again.out
grep -q "decided by an earlier run" again.out || fail "the rerun did not answer from the store: $(cat again.out)"
grep -q "timed through the loop around it" again.out || fail "the rerun does not say which loop timed it"
[ "$(sql "select count(*) from runs where kind = 'race'")" = "$raced" ] || fail "the rerun raced again"
"$looprace" race --build "$build" --run '$LOOPRACE_OUTDIR/dot' --loop "$inner" --factors 0,4 \
  --max-samples 4 --confirm 0 --store named.db --profile named.profile --seed 3 >named.out
grep -q "timed through the loop around it, $outer" named.out ||
  fail "the named loop $inner was not timed through $outer: $(cat named.out)"
"$looprace" race --build "$build" --run '$LOOPRACE_OUTDIR/dot' --hot 1 --min-share 0 \
  --factors 0,4 --max-samples 4 --confirm 0 --store together.db --profile together.profile \
  --together --seed 3 >together.out
! grep -q "timed through" together.out || fail "--together timed a loop through another"
echo PASS
