#!/usr/bin/env bash
# A real Slurm cluster from scripts/slurm-cluster, in a private directory: a job array spreads
# over both nodes (each task prints the node it ran on), scancel ends a running job, and a job
# that needs a node marked down waits (pending, not lost) and runs once the node is up again.
# The cluster is always stopped on the way out. Needs root. Exits 77 (skipped) only when
# slurm-wlm cannot be installed on this machine; one cluster per machine at a time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cluster=$here/../../scripts/slurm-cluster
work=$(mktemp -d "${TMPDIR:-/tmp}/looprace-slurm-smoke.XXXXXX")
state=$work/cluster

cleanup() {
  "$cluster" stop --dir "$state" >"$work/stop.log" 2>&1 || {
    echo "cleanup: slurm-cluster stop failed:" >&2
    cat "$work/stop.log" >&2
  }
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
  echo "FAIL: $*" >&2
  squeue -o '%i %T %r %N' >&2 2>/dev/null || true
  sinfo -N -o '%N %T %E' >&2 2>/dev/null || true
  for log in "$state"/log/*.log; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -n 10 "$log" >&2; }
  done
  exit 1
}

# The state of job $1 (its first task's for an array): RUNNING, COMPLETED, CANCELLED, ...
job_state() { scontrol show job "$1" -o 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }

# Waits up to $2 seconds until no task of job $1 is pending, running or completing.
wait_done() {
  local deadline=$((SECONDS + $2))
  while [ -n "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; do
    [ $SECONDS -lt $deadline ] || fail "job $1 not done after $2 s"
    sleep 0.25
  done
}

# --- start ---
set +e
exports=$("$cluster" start --dir "$state" 2>"$work/start.log")
status=$?
set -e
if [ $status -eq 3 ]; then
  echo "SKIP: slurm-wlm cannot be installed here: $(tail -n 1 "$work/start.log")"
  exit 77
fi
[ $status -eq 0 ] || fail "slurm-cluster start exited $status: $(cat "$work/start.log")"
eval "$exports"
[ "${SLURM_CONF:-}" = "$state/slurm.conf" ] || fail "start printed '$exports', not SLURM_CONF"
cat "$work/start.log"
mapfile -t nodes < <(sinfo -h -N -o '%N %T' | sort -u | awk '$2 == "idle" {print $1}')
[ ${#nodes[@]} -ge 1 ] || fail "no idle node after start"
echo "nodes up: ${nodes[*]}"

# --- a job array lands on distinct nodes ---
array=$(sbatch --parsable --array=0-3 -o "$work/array-%a.out" \
  --wrap 'echo "$SLURM_ARRAY_TASK_ID $SLURMD_NODENAME $(hostname)"; sleep 2')
wait_done "$array" 60
declare -A used=()
for task in 0 1 2 3; do
  [ -s "$work/array-$task.out" ] || fail "array task $task wrote nothing"
  read -r id node host <"$work/array-$task.out"
  [ "$id" = "$task" ] || fail "array task $task printed task id '$id'"
  [ "$(job_state "${array}_$task")" = COMPLETED ] || fail "array task $task is $(job_state "${array}_$task")"
  echo "array task $task ran on node $node (hostname $host)"
  used[$node]=1
done
if [ ${#nodes[@]} -ge 2 ] && [ ${#used[@]} -lt 2 ]; then
  fail "all array tasks ran on ${!used[*]}, though ${#nodes[@]} nodes are up"
fi
echo "ok: the array ran on ${#used[@]} distinct nodes: ${!used[*]}"

# --- scancel ends a running job ---
# The shell may outlive the signalled sleep by a moment, so "finished" is printed only if the
# sleep ended normally.
job=$(sbatch --parsable -o "$work/cancel.out" --wrap 'echo started; sleep 307 && echo finished')
deadline=$((SECONDS + 30))
until [ "$(job_state "$job")" = RUNNING ] && grep -q started "$work/cancel.out" 2>/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "job $job not running after 30 s: $(job_state "$job")"
  sleep 0.25
done
scancel "$job"
wait_done "$job" 20
[ "$(job_state "$job")" = CANCELLED ] || fail "cancelled job $job is $(job_state "$job")"
! grep -q finished "$work/cancel.out" || fail "cancelled job $job ran to its end"
deadline=$((SECONDS + 10))
while pgrep -f '^sleep 307$' >/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "the cancelled job's sleep still runs"
  sleep 0.25
done
echo "ok: scancel ended running job $job"

# --- a node marked down: a job that needs it waits, then runs once it is up ---
target=${nodes[-1]}
"$cluster" down "$target" --dir "$state"
[ "$(sinfo -h -N -n "$target" -o %T | head -n 1)" = down ] || fail "$target is not down"
job=$(sbatch --parsable -w "$target" -o "$work/down.out" --wrap 'echo "$SLURMD_NODENAME"')
sleep 3 # several scheduling passes
[ "$(job_state "$job")" = PENDING ] || fail "job $job for down node $target is $(job_state "$job")"
reason=$(squeue -h -j "$job" -o %r)
echo "job $job waits for down node $target: $reason"
if [ ${#nodes[@]} -ge 2 ]; then # the other nodes keep working meanwhile
  other=$(sbatch --parsable -o "$work/other.out" --wrap 'echo "$SLURMD_NODENAME"')
  wait_done "$other" 30
  [ "$(job_state "$other")" = COMPLETED ] || fail "job $other is $(job_state "$other") while $target is down"
  [ "$(cat "$work/other.out")" != "$target" ] || fail "job $other ran on down node $target"
fi
[ "$(job_state "$job")" = PENDING ] || fail "job $job for down node $target is $(job_state "$job")"
"$cluster" up "$target" --dir "$state"
wait_done "$job" 30
[ "$(job_state "$job")" = COMPLETED ] || fail "job $job is $(job_state "$job") after $target came up"
[ "$(cat "$work/down.out")" = "$target" ] || fail "job $job ran on '$(cat "$work/down.out")', not $target"
echo "ok: job $job waited while $target was down and ran on it once up"

echo "PASS: slurm cluster smoke"
