#!/usr/bin/env bash
# --together races two loops in the same runs: each loop's variants are built and warmed up
# alone (a variant that changes the output is disqualified there, by its own loop and factor,
# and kept out of the joint builds), then every joint round runs each slot build once and
# observes both loops. With the constant plan every raced version gets exactly its runs, from
# fewer program runs than racing the loops one after the other; a kill -9 mid-race loses
# nothing and the same command resumes.
source "$(dirname "$0")/lib.sh" "$1"
reduce=$(loop_id reduce)
repeat=$(loop_id repeat)
n=12
# The run command "miscompiles" factor 2 of reduce (its own build only: <workdir>/<id>/f2).
run="sleep 0.01; out=\$(\"\$LOOPRACE_OUTDIR/kernel\" 20000 both); case \"\$LOOPRACE_OUTDIR\" in */$reduce/f2) out=\"\$out (miscompiled)\" ;; esac; echo \"\$out\""
args=(race --build "$build_cmd" --run "$run" --loop "$reduce" --loop "$repeat" --together
  --factors 0,1,2,4,8 --plan constant --constant-size "$n" --confirm 0 --seed 5
  --store store.db --profile p.profile)
race_and_kill 10 "${args[@]}"
before=$(sql "select count(*) from runs where kind='race'")

"$looprace" "${args[@]}" >race.out
cat race.out
grep -Eq "resumed: [0-9]+ observations from the store" race.out || fail "the second run did not resume"
for id in "$reduce" "$repeat"; do
  [ "$(sql "select count(*) from decisions where loop='$id'")" = 1 ] || fail "loop $id not decided"
  grep -q "^$id " p.profile || fail "loop $id not in the profile"
done
grep -q "factor 2 disqualified: output-differs" race.out || fail "reduce's factor 2 not disqualified"
batch=$(sql "select distinct batch from runs where kind='race'")
case $batch in joint:*) ;; *) fail "race runs are not joint runs: $batch" ;; esac
[ "$(sql "select count(*) from runs where batch is not null and (target_loop != '' or grp != -1 or slot is null)")" = 0 ] ||
  fail "a joint run names a loop or a code group, or has no slot"
# A store of schema 4 kept a joint run's batch in target_loop and its slot in grp: schema 5
# moves them to their own columns, and the store reports the same decisions.
"$looprace" report --store store.db --json >new.json
cp store.db four.db
sqlite3 four.db "update runs set target_loop = batch, grp = slot where batch is not null;
  drop index runs_by_batch; alter table runs drop column batch; alter table runs drop column slot;
  alter table runs drop column cpu_seconds; alter table runs drop column observed; update meta set value = '4' where key = 'schema'"
"$looprace" report --store four.db --json >four.json
[ "$(sqlite3 four.db "select count(*) from runs where batch = '$batch' and target_loop = '' and grp = -1")" = \
  "$(sql "select count(*) from runs where batch = '$batch'")" ] || fail "schema 5 did not move the joint runs' batch and slot"
# Only the hotness shares may differ: a schema-4 store has no CPU time of its plain runs.
python3 -c 'import json,sys; a,b=([{k: v for k, v in l.items() if k != "hotness_share"} for l in json.load(open(f))["loops"]] for f in sys.argv[1:]); sys.exit(0 if a == b else 1)' new.json four.json ||
  fail "the migrated store reports otherwise"
slots=$(sql "select count(distinct slot) from joint_slots")
[ "$(sql "select count(*) from joint_slots where loop='$reduce' and factor=2")" = 0 ] ||
  fail "the disqualified factor is in a joint build"
# Every version of both loops got exactly n plan observations (the constant plan), counting
# those replayed from before the kill.
python3 - "$n" "$(sql "select samples from decisions where loop='$reduce'")" \
  "$(sql "select samples from decisions where loop='$repeat'")" <<'PY' || fail "plan observations per version are not $n"
import json, sys
n = int(sys.argv[1])
for samples in sys.argv[2:]:
    counts = {f: c for f, c in json.loads(samples).items() if c}
    assert counts and set(counts.values()) == {n}, counts
PY
# One run observes both loops: every joint run has an observation of each.
[ "$(sql "select count(*) from runs r where r.batch='$batch' and r.ok=1 and
  (select count(*) from observations o where o.run=r.id and o.loop in ('$reduce','$repeat')) != 2")" = 0 ] ||
  fail "a joint run lacks an observation of one of the loops"
# Fewer program runs than one race after the other (n per version and loop).
alone=$(python3 -c 'import json,sys; print(sum(len([c for c in json.loads(s).values() if c]) for s in sys.argv[2:]) * int(sys.argv[1]))' \
  "$n" "$(sql "select samples from decisions where loop='$reduce'")" "$(sql "select samples from decisions where loop='$repeat'")")
joint=$(sql "select count(*) from runs where kind='race'")
[ "$joint" -lt "$alone" ] || fail "$joint joint runs, not fewer than $alone alone"
[ "$joint" -le $(( (n + 1) * slots )) ] || fail "$joint joint runs for $slots slots of $n rounds"
# The report and the export see the joint observations.
"$looprace" export --store store.db --format observations | grep -q "^$repeat," || fail "export misses the joint observations"
echo "PASS ($joint joint runs for $slots slots, $alone alone; $before before the kill)"
