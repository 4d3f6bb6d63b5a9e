#!/usr/bin/env bash
# --observation filtered: the race decides on filtered observations, stored beside the raw sums;
# report, export and replay read either kind; a store of schema 1 is migrated when opened.
source "$(dirname "$0")/lib.sh" "$1"
id=$(loop_id reduce)
"$looprace" race --build "$build_cmd" \
  --run '$LOOPRACE_OUTDIR/kernel 100000 differ "${LOOPRACE_OUTDIR##*/}"' \
  --loop "$id" --store store.db --profile kernel.profile --max-samples 12 --seed 3 \
  --observation filtered >race.out
cat race.out
[ "$(sql "select chosen from decisions where loop='$id'")" = 4 ] || fail "factor 4 not chosen"
sql "select plan from decisions where loop='$id'" | grep -q " on filtered$" ||
  fail "the decision does not say it rests on filtered observations"
# One entry per run: nothing to filter inside the run, so an undisturbed run's filtered value is
# its raw sum; a run the host stole time from has none (and was taken again).
[ "$(sql "select count(*) from observations where loop='$id' and filtered_cycles is not null
  and filtered_cycles != cycles")" = 0 ] || fail "a single-entry run was filtered"
[ "$(sql "select count(*) from observations where loop='$id' and filtered_cycles is not null")" -gt 20 ] ||
  fail "too few filtered observations stored"
[ "$(sql "select count(*) from runs where nivcsw < 0 or steal_ticks < 0")" = 0 ] || fail "bad machine counters"

"$looprace" report --store store.db --observation filtered >report.out
grep -q "chosen factor 4\|factor 4" report.out || fail "the report on filtered observations lost the decision"
"$looprace" export --store store.db --format observations --observation filtered >filtered.csv
"$looprace" export --store store.db --format observations >raw.csv
# The race's own observations, not its confirmation runs (a kind of their own).
race_filtered=$(sql "select count(*) from runs r join observations o on o.run = r.id and o.loop = '$id'
  where r.kind = 'race' and o.filtered_cycles is not null")
[ "$(($(wc -l <filtered.csv) - 1))" = "$race_filtered" ] ||
  fail "exported $(($(wc -l <filtered.csv) - 1)) filtered observations, the race took $race_filtered"
[ "$(sql "select count(*) from runs where kind = 'confirm' and target_loop = '$id'")" -ge 60 ] ||
  fail "the confirmation runs are not stored as their own kind"
"$looprace" replay --store store.db --observation filtered --plans constant --sizes 2 \
  --repetitions 2 >/dev/null || fail "replay of filtered observations failed"
expect_error "observation kind 'sum' is neither raw nor filtered" \
  "$looprace" report --store store.db --observation sum

# A store written before the filtered observation existed (schema 1) opens, is migrated, and
# reports the same decision; a store of a later schema is refused by name.
cp store.db old.db
sqlite3 old.db "alter table observations drop column filtered_cycles;
  alter table observations drop column disturbed; alter table runs drop column nivcsw;
  alter table runs drop column steal_ticks; alter table runs drop column off_cpu_ns;
  alter table programs drop column code; drop index runs_by_batch;
  alter table runs drop column batch; alter table runs drop column slot;
  alter table runs drop column cpu_seconds; alter table runs drop column observed; update meta set value='1' where key='schema'"
"$looprace" report --store old.db --json >old.json
[ "$(sqlite3 old.db "select value from meta where key='schema'")" = 7 ] || fail "not migrated to schema 7"
[ "$(sqlite3 old.db "select count(*) from observations where filtered_cycles is not null")" = 0 ] ||
  fail "a migrated store invented filtered observations"
[ "$(sqlite3 old.db "select count(*) from runs where cpu_seconds != 0")" = 0 ] ||
  fail "a migrated store invented CPU times"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["loops"][0]["chosen"] == 4 else 1)' old.json ||
  fail "the migrated store reports another decision"
# Schema 3 kept confirmation runs as race runs after the plan's last round: schema 4 relabels
# exactly those. A store of then had no runner-up runs (confirm runs of a third group).
cp store.db three.db
sqlite3 three.db "delete from observations where run in (select id from runs where kind = 'confirm'
    and grp not in (0, 4));
  delete from runs where kind = 'confirm' and grp not in (0, 4);
  update runs set kind = 'race' where kind = 'confirm'; drop index runs_by_batch;
  alter table runs drop column batch; alter table runs drop column slot;
  alter table runs drop column cpu_seconds; alter table runs drop column observed; update meta set value = '3' where key = 'schema'"
"$looprace" report --store three.db >/dev/null
[ "$(sqlite3 three.db "select count(*) from runs where kind = 'confirm'")" = "$(sql "select count(*) from runs where kind = 'confirm' and grp in (0, 4)")" ] ||
  fail "schema 4 did not relabel the confirmation runs of a schema 3 store"
sqlite3 old.db "update meta set value='9' where key='schema'"
expect_error "old.db: schema version 9 \(this looprace reads 1 to 7\)" "$looprace" report --store old.db
echo PASS
