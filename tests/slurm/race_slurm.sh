#!/usr/bin/env bash
# `looprace race --slurm` on a real Slurm cluster started on this machine (scripts/slurm-cluster:
# two slurmd nodes in their own network namespaces): a 4-loop race as a job array ends with the
# same decisions, store contents and profile lines as a local race of the same loops, its tasks
# on both nodes; a race with --controls times and names the same controls there; a task
# cancelled mid-race is resubmitted by the same command and resumes its store; a node that is
# down leaves its task queued, not lost. Exit 77 (skipped) only when Slurm cannot be installed
# here.
set -euo pipefail
looprace=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/looprace-slurm.XXXXXX")
cluster=$work/cluster
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
cleanup() {
  "$root/scripts/slurm-cluster" stop --dir "$cluster" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
status=0
env_line=$("$root/scripts/slurm-cluster" start --dir "$cluster") || status=$?
[ "$status" = 3 ] && { echo "SKIP: Slurm cannot be installed here"; exit 77; }
[ "$status" = 0 ] || fail "the cluster did not start"
eval "$env_line"
cd "$work" # shared by every node: the machine's own file system
export XDG_CACHE_HOME=$work/cache

build_cmd="\$LOOPRACE_CC -O2 -o \"\$LOOPRACE_OUTDIR/kernel\" $root/tests/e2e/programs/kernel.c"
run_cmd='$LOOPRACE_OUTDIR/kernel 7 both'
"$looprace" loops --build "$build_cmd" --json --workdir "$work/loops" >loops.jsonl
ids=$(python3 -c 'import json, sys; print(" ".join(json.loads(l)["id"] for l in sys.stdin))' <loops.jsonl)
# The id of the innermost loop of function $1.
loop_of() {
  python3 -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin]
print(next(r["id"] for r in rows if r["name"] == sys.argv[1] and r["features"].get("inner", 0) == 0))' "$1" <loops.jsonl
}
loop_args=()
for id in $ids; do loop_args+=(--loop "$id"); done
[ ${#loop_args[@]} = 8 ] || fail "kernel.c should have 4 loops: $ids"
common=(--build "$build_cmd" --run "$run_cmd" "${loop_args[@]}" --factors 0,1,2,4
  --max-samples 6 --confirm 0 --seed 3)
sql() { sqlite3 "$1" "$2"; }

# The same 4 loops, locally and on the cluster (one task per loop).
"$looprace" race "${common[@]}" --store local.db --profile local.profile >local.out 2>&1 ||
  { cat local.out; fail "the local race failed"; }
"$looprace" race "${common[@]}" --store slurm.db --profile slurm.profile --slurm \
  --sbatch-arg=--time=10 >slurm.out 2>slurm.err || { cat slurm.out slurm.err; fail "--slurm failed"; }
cat slurm.out
grep -q "slurm job [0-9]*: 4 loop(s): 4 decided" slurm.err || fail "no shard progress: $(tail -c 300 slurm.err)"
for db in local.db slurm.db; do
  [ "$(sql $db 'select count(distinct loop) from decisions')" = 4 ] || fail "$db: not 4 decisions"
done
[ "$(sql slurm.db 'select count(*) from runs where kind="race"')" -gt 0 ] || fail "no race runs merged"
columns() { grep -v '^#' "$1" | awk '{print $1, $2, $3, $4}' | sort; }
[ "$(columns local.profile)" = "$(columns slurm.profile)" ] ||
  fail "the profiles differ in their loops: $(columns local.profile) / $(columns slurm.profile)"
[ "$(sql local.db 'select loop, plan from decisions order by loop')" = \
  "$(sql slurm.db 'select loop, plan from decisions order by loop')" ] || fail "decisions differ in plan"
nodes=$(for db in slurm.db.shards/task-*.db; do sql "$db" "select value from meta where key='machine'"; done |
  cut -d'|' -f1 | sort -u | wc -l)
[ "$nodes" = 2 ] || fail "the tasks ran on $nodes node(s), not 2"
# The tasks and the final assembly took the baseline the command built to choose the loops:
# no task built one in its work directory, and each session says where its baseline came from.
for out in slurm.db.shards/task-*.out; do
  grep -q "baseline: reused " "$out" || fail "$out: the task did not reuse the baseline: $(grep baseline: "$out")"
done
# A task that decided its loops removed its builds.
[ -z "$(ls -d slurm.db.shards/work-* 2>/dev/null)" ] || fail "finished tasks left their builds: $(ls -d slurm.db.shards/work-*)"
origin() { sql "$1" "select json_extract(facts, '\$.baseline') from sessions order by id"; }
for db in slurm.db.shards/task-*.db; do
  origin "$db" | grep -q '^reused ' || fail "$db: the task did not reuse the baseline: $(origin "$db")"
done
if [ "$(origin slurm.db | head -1)" != built ] || ! origin slurm.db | tail -1 | grep -q '^reused '; then
  fail "slurm.db: the command should build the baseline once and the assembly reuse it: $(origin slurm.db)"
fi

# --controls reaches the tasks: burn()'s loop raced on the cluster with --controls auto is
# controlled by reduce()'s loop in every race run, and decided as the local race decides it.
burn=$(loop_of burn)
reduce=$(loop_of reduce)
controlled=(--build "$build_cmd" --run '$LOOPRACE_OUTDIR/kernel 200000 both' --loop "$burn"
  --controls auto --factors 0,2,4 --max-samples 6 --confirm 0 --program-check 0 --seed 3)
"$looprace" race "${controlled[@]}" --store ctl-local.db --profile ctl-local.profile >ctl-local.out 2>&1 ||
  { cat ctl-local.out; fail "the local race with --controls failed"; }
"$looprace" race "${controlled[@]}" --store ctl-slurm.db --profile ctl-slurm.profile --slurm \
  --sbatch-arg=--time=10 >ctl-slurm.out 2>ctl-slurm.err ||
  { cat ctl-slurm.out ctl-slurm.err; fail "--slurm with --controls failed"; }
for db in ctl-local.db ctl-slurm.db; do
  sql $db "select plan from decisions where loop = '$burn'" | grep -q " controlled by $reduce\$" ||
    fail "$db: the decision is not controlled by $reduce: $(sql $db 'select plan from decisions')"
  [ "$(sql $db "select count(*) from runs r where kind = 'race' and ok = 1 and not exists
    (select 1 from observations o where o.run = r.id and o.loop = '$reduce' and o.cycles > 0)")" = 0 ] ||
    fail "$db: a race run did not time the control $reduce"
done
[ "$(columns ctl-local.profile)" = "$(columns ctl-slurm.profile)" ] ||
  fail "the controlled profiles differ: $(columns ctl-local.profile) / $(columns ctl-slurm.profile)"

# A store a local race began (2 of the 4 loops): the sharded race submits only the other 2.
"$looprace" race --build "$build_cmd" --run "$run_cmd" "${loop_args[@]:0:4}" --factors 0,1,2,4 \
  --max-samples 6 --confirm 0 --seed 3 --store grow.db --profile grow.profile >grow.out 2>&1 ||
  { cat grow.out; fail "the local race of 2 loops failed"; }
"$looprace" race "${common[@]}" --store grow.db --profile grow.profile --slurm \
  --sbatch-arg=--time=10 >grow2.out 2>grow2.err || { cat grow2.out grow2.err; fail "--slurm on a begun store failed"; }
planned=$(python3 -c 'import json; print(sum(map(len, json.load(open("grow.db.shards/plan.json"))["tasks"])))')
[ "$planned" = 2 ] || fail "the sharded race planned $planned loops, not the 2 the store had not decided"
[ "$(sql grow.db 'select count(distinct loop) from decisions')" = 4 ] || fail "grow.db: not 4 decisions"
[ "$(grep -c '^[0-9a-f]\{16\} ' grow.profile)" = 4 ] || fail "grow.profile does not name the 4 loops"
earlier='decided by an earlier run of this command; nothing was run'
[ "$(grep -c "$earlier" grow2.out)" = 4 ] || fail "the assembly raced loops itself: $(cat grow2.out)"
# Decisions by another plan (a larger cap) are raced again, on the cluster, not by the assembly.
"$looprace" race --build "$build_cmd" --run "$run_cmd" "${loop_args[@]}" --factors 0,1,2,4 \
  --max-samples 7 --confirm 0 --seed 3 --store grow.db --profile grow.profile --slurm \
  --sbatch-arg=--time=10 >grow3.out 2>grow3.err || { cat grow3.out grow3.err; fail "--slurm with a new cap failed"; }
grep -q "4 loop(s): 4 decided" grow3.err || fail "the new plan's loops were not raced as tasks: $(tail -c 300 grow3.err)"
[ "$(grep -c "$earlier" grow3.out)" = 4 ] || fail "the assembly raced loops itself: $(cat grow3.out)"
[ "$(sql grow.db "select count(distinct loop) from decisions where plan like '%7%'")" = 4 ] ||
  fail "grow.db: not 4 decisions by the new plan: $(sql grow.db 'select loop, plan from decisions')"
# A rerun whose last job the controller has forgotten (purged after it ended) goes on.
python3 - grow.db.shards/plan.json <<'PY'
import json, sys
plan = json.load(open(sys.argv[1]))
plan["job"] = "987654"
json.dump(plan, open(sys.argv[1], "w"))
PY
"$looprace" race --build "$build_cmd" --run "$run_cmd" "${loop_args[@]}" --factors 0,1,2,4 \
  --max-samples 7 --confirm 0 --seed 3 --store grow.db --profile grow.profile --slurm \
  >grow4.out 2>grow4.err || { cat grow4.err; fail "a rerun after the job was purged failed"; }
[ "$(grep -c "$earlier" grow4.out)" = 4 ] || fail "the rerun raced again: $(cat grow4.out)"

# A task cancelled mid-race: the command fails naming it; the same command resubmits it alone.
# (the constant plan takes all its 1,500 runs per factor: the task is still racing when cancelled)
long=(--build "$build_cmd" --run "$run_cmd" "${loop_args[@]:0:4}" --factors 0,1,2,4 --plan constant
  --constant-size 1500 --max-samples 1500 --confirm 0 --seed 4 --store cancel.db
  --profile cancel.profile --slurm)
"$looprace" race "${long[@]}" >cancel.out 2>cancel.err &
pid=$!
raced() { sqlite3 cancel.db.shards/task-1.db 'select count(*) from runs where kind="race"' 2>/dev/null || echo 0; }
for _ in $(seq 240); do
  job=$(python3 -c 'import json; print(json.load(open("cancel.db.shards/plan.json"))["job"])' 2>/dev/null || true)
  [ -n "$job" ] && [ "$(raced)" -gt 20 ] && break
  sleep 0.5
done
[ "$(raced)" -gt 20 ] || fail "task 1 never started racing"
scancel "${job}_1"
if wait "$pid"; then fail "the race succeeded with a cancelled task"; fi
grep -q "ended with loops undecided" cancel.err || fail "the cancelled task is not named: $(tail -c 300 cancel.err)"
"$looprace" race "${long[@]}" >cancel2.out 2>cancel2.err || { cat cancel2.err cancel.db.shards/task-*.out; fail "the rerun failed"; }
[ "$(sql cancel.db 'select count(distinct loop) from decisions')" = 2 ] || fail "the rerun did not decide both loops"
job2=$(python3 -c 'import json; print(json.load(open("cancel.db.shards/plan.json"))["job"])')
[ "$job2" != "$job" ] || fail "the cancelled task was not resubmitted"
grep -q "2 loop(s): 1 decided" cancel2.err || fail "the finished task was run again: $(tail -c 300 cancel2.err)"
[ "$(sqlite3 cancel.db.shards/task-1.db 'select count(distinct session) from runs')" -ge 2 ] ||
  fail "the resubmitted task did not resume its store (one session of runs)"
origin cancel.db.shards/task-1.db | grep -qv '^reused ' &&
  fail "the resubmitted task built the baseline: $(origin cancel.db.shards/task-1.db)"

# A node that is down: its task waits in the queue, and runs once the node is back.
"$root/scripts/slurm-cluster" down lrnode1 --dir "$cluster" >/dev/null
"$root/scripts/slurm-cluster" down lrnode2 --dir "$cluster" >/dev/null
"$looprace" race "${common[@]:0:6}" --factors 0,1 --max-samples 4 --confirm 0 --store down.db \
  --profile down.profile --slurm >down.out 2>down.err &
pid=$!
for _ in $(seq 60); do grep -q "queued" down.err 2>/dev/null && break; sleep 1; done
grep -Eq "0 decided, 0 running, [1-9][0-9]* queued" down.err || fail "no task queued while the nodes were down"
"$root/scripts/slurm-cluster" up lrnode1 --dir "$cluster" >/dev/null
"$root/scripts/slurm-cluster" up lrnode2 --dir "$cluster" >/dev/null
wait "$pid" || { cat down.err; fail "the queued tasks did not finish once the nodes were back"; }
[ "$(sql down.db 'select count(distinct loop) from decisions')" -ge 1 ] || fail "nothing decided after the nodes came back"
echo PASS
