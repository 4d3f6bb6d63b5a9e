#!/usr/bin/env bash
# kill -9 of the driver mid-race loses nothing committed; the same command resumes, replays the
# stored observations and finishes the race. The constant plan needs exactly 40 runs per factor
# whatever the timings (a race could decide in 15 runs on a quiet machine), and each run sleeps
# a little, so the kill always lands mid-race.
source "$(dirname "$0")/lib.sh" "$1"
id=$(loop_id repeat)
args=(race --build "$build_cmd" --run 'sleep 0.01; $LOOPRACE_OUTDIR/kernel 7 tie' --loop "$id"
  --store store.db --profile p.profile --plan constant --constant-size 40 --confirm 0 --seed 11)
race_and_kill 20 "${args[@]}"
before=$(sql "select count(*) from runs where kind='race'")
last=$(sql "select max(id) from runs where kind='race'")
observations=$(sql "select count(*) from observations o join runs r on r.id=o.run where r.kind='race'")

"$looprace" "${args[@]}" >second.out
cat second.out
grep -Eq "resumed: [0-9]+ observations from the store" second.out || fail "the second run did not resume"
[ "$(sql "select count(*) from runs where kind='race' and id <= $last")" = "$before" ] || fail "stored runs were lost"
[ "$(sql "select count(*) from observations o join runs r on r.id=o.run where r.kind='race' and r.id <= $last")" = "$observations" ] ||
  fail "stored observations were lost"
[ "$(sql "select count(*) from decisions where loop='$id'")" = 1 ] || fail "the resumed race did not decide"
# Replay means every group got exactly the plan's runs, counting those from before the kill.
# (Runs visibly disturbed were taken again and carry no filtered observation: not counted.)
[ "$(sql "select min(c) || ' ' || max(c) from (select count(*) c from runs r join observations o
  on o.run = r.id and o.loop = '$id' where r.kind='race' and o.filtered_cycles is not null
  group by r.grp)")" = "40 40" ] ||
  fail "not 40 race runs per factor: the stored ones were not replayed"
echo PASS
