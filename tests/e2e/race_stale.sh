#!/usr/bin/env bash
# A store never answers for code it did not race: editing a loop's body (same line and column,
# same commands) and racing again with the same store races the loop again, says why, and
# keeps the earlier observations; racing unchanged code again reuses the decision.
source "$(dirname "$0")/lib.sh" "$1"
cp "$here/programs/kernel.c" edited.c
build_edited="\$LOOPRACE_CC -O2 -o \"\$LOOPRACE_OUTDIR/kernel\" $work/edited.c"
race() {
  "$looprace" race --build "$build_edited" --run '$LOOPRACE_OUTDIR/kernel 20000 differ' \
    --loop edited.c:19:22 --store store.db --profile p.profile \
    --plan constant --constant-size 3 --confirm 0 --seed 2 2>&1
}
race >first.out || fail "first race: $(cat first.out)"
runs_first=$(sql "select count(*) from runs where kind='race'")
race >again.out || fail "second race: $(cat again.out)"
grep -q "nothing was run" again.out || fail "unchanged code was raced again: $(cat again.out)"
[ "$(sql "select count(*) from runs where kind='race'")" = "$runs_first" ] || fail "unchanged code added runs"

# The same loop (line 19, column 22) with another body.
sed -i 's/acc += data\[i & 1023\] \* (unsigned long)(i | 1);/acc += data[i \& 1023] ^ (unsigned long)i;/' edited.c
grep -q 'data\[i & 1023\] ^ (unsigned long)i' edited.c || fail "the edit did not apply"
race >edited.out || fail "race of the edited code: $(cat edited.out)"
grep -q "not the code the store .* raced before" edited.out || fail "no word of the changed code: $(cat edited.out)"
grep -q "nothing was run" edited.out && fail "the edited loop reused the old decision: $(cat edited.out)"
[ "$(sql "select count(*) from programs")" = 2 ] || fail "the edited code is not a program of its own"
[ "$(sql "select count(*) from runs where kind='race'")" -gt "$runs_first" ] || fail "the edited loop was not raced"
[ "$(sql "select count(*) from runs r join programs p on p.id = r.program where r.kind='race'
  and p.id = (select min(id) from programs)")" = "$runs_first" ] || fail "the earlier observations were not kept"
echo PASS
