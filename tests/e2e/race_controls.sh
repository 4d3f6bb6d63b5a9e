#!/usr/bin/env bash
# A race with --controls auto times, in every race run, a loop no factor changes beside the
# raced one (reduce()'s, defined before burn() and calling nothing), stores which loop each run
# observed, names the control in its decision's plan, and exports each run's control: the
# exported observations and the store replay alike. A rerun answers from the store.
source "$(dirname "$0")/lib.sh" "$1"
burn=$(loop_id burn)
reduce=$(loop_id reduce)
race=("$looprace" race --build "$build_cmd" --run '$LOOPRACE_OUTDIR/kernel 200000 both'
  --loop "$burn" --controls auto --factors 0,2,4 --max-samples 6 --confirm 0 --program-check 0
  --store store.db --profile p.profile --seed 3)
"${race[@]}" >race.out
cat race.out
grep -q "(--controls): $reduce " race.out || fail "the race did not take $reduce as its control"
runs=$(sql "select count(*) from runs where kind = 'race' and target_loop = '$burn'")
[ "$runs" -ge 6 ] || fail "only $runs race runs"
[ "$(sql "select count(*) from runs where kind = 'race' and target_loop = '$burn' and observed = '$burn'")" = "$runs" ] ||
  fail "a race run does not say it observed $burn"
[ "$(sql "select count(*) from runs r where kind = 'race' and target_loop = '$burn' and ok = 1 and not exists
  (select 1 from observations o where o.run = r.id and o.loop = '$reduce' and o.cycles > 0)")" = 0 ] ||
  fail "a race run did not time the control $reduce"
sql "select plan from decisions where loop = '$burn'" | grep -q " controlled by $reduce\$" ||
  fail "the decision's plan does not name the control: $(sql "select plan from decisions")"

"$looprace" export --store store.db --format observations --observation filtered -o obs.csv
[ "$(head -1 obs.csv)" = "loop,version,cycles,control" ] || fail "no control column: $(head -1 obs.csv)"
"$looprace" export --store store.db --format runs | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["ok"] == "1"]
sys.exit(0 if rows and all(float(r["control"]) > 0 for r in rows) else 1)' ||
  fail "a race run has no control in the runs export"
replay=(--observation filtered --plans race --repetitions 20 --seed 1 --json)
"$looprace" replay obs.csv "${replay[@]}" >from-csv.json
"$looprace" replay --store store.db "${replay[@]}" >from-store.json
cmp -s from-csv.json from-store.json || fail "the exported observations replay otherwise than the store"

"${race[@]}" >again.out
grep -q "decided by an earlier run" again.out || fail "the rerun did not answer from the store: $(cat again.out)"
[ "$(sql "select count(*) from runs where kind = 'race' and target_loop = '$burn'")" = "$runs" ] ||
  fail "the rerun raced again"
echo PASS
