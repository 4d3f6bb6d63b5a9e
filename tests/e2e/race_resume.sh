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

# Killed among its confirmation runs, a race resumes them too: the stored pairs count, so the
# decision rests on exactly --confirm pairs.
id=$(loop_id reduce)
args=(race --build "$build_cmd" --run 'sleep 0.01; $LOOPRACE_OUTDIR/kernel 100000 differ "${LOOPRACE_OUTDIR##*/}"'
  --loop "$id" --store confirm.db --profile c.profile --plan constant --constant-size 3
  --factors 0,4 --confirm 30 --seed 11)
"$looprace" "${args[@]}" >third.out 2>&1 &
pid=$!
confirmations() { sqlite3 "$work/confirm.db" "select count(*) from runs where kind='confirm'" 2>/dev/null || echo 0; }
for _ in $(seq 600); do
  [ "$(confirmations)" -ge 10 ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null || fail "the race ended before its confirmation runs: $(cat third.out)"
wait "$pid" 2>/dev/null || true
sleep 0.5
[ "$(sqlite3 confirm.db "select count(*) from decisions")" = 0 ] || fail "decided before the kill"
"$looprace" "${args[@]}" >fourth.out 2>&1 || fail "resume: $(cat fourth.out)"
[ "$(sqlite3 confirm.db "select json_extract(speedup, '$.baseline_n') || ' ' ||
  json_extract(speedup, '$.candidate_n') from decisions")" = "30 30" ] ||
  fail "the resumed confirmation does not rest on 30 pairs: $(sqlite3 confirm.db "select speedup from decisions")"
usable=$(sqlite3 confirm.db "select count(*) from runs r join observations o on o.run = r.id
  where r.kind = 'confirm' and r.ok = 1 and o.filtered_cycles is not null")
[ "$usable" -le 61 ] || fail "$usable confirmation observations: the stored ones were taken again"
echo PASS
