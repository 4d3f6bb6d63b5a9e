# Shared by the end-to-end scripts: bash lib.sh is sourced with $1 = the looprace executable.
set -euo pipefail
looprace=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/looprace-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
# Races without --workdir build under $XDG_CACHE_HOME (default: ~/.cache): keep them in $work.
export XDG_CACHE_HOME="$work/cache"

# Builds tests/e2e/programs/kernel.c into the variant's directory.
build_cmd="\$LOOPRACE_CC -O2 -o \"\$LOOPRACE_OUTDIR/kernel\" $here/programs/kernel.c"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The id of the innermost loop of function $1.
loop_id() {
  "$looprace" loops --build "$build_cmd" --json --workdir "$work/loops" |
    python3 -c 'import json, sys
rows = [json.loads(l) for l in sys.stdin]
print(next(r["id"] for r in rows if r["name"] == sys.argv[1] and r["features"].get("inner", 0) == 0))' "$1"
}

sql() { sqlite3 "$work/store.db" "$1"; }

# Fails unless the command fails with a message matching the extended regex $1.
expect_error() {
  local pattern=$1
  shift
  if "$@" >"$work/err.out" 2>&1; then
    cat "$work/err.out" >&2
    fail "succeeded but should have failed: $*"
  fi
  grep -Eq -e "$pattern" "$work/err.out" || {
    cat "$work/err.out" >&2
    fail "the error message does not match /$pattern/"
  }
}

# Starts `looprace "$@"` in the background (output in first.out), waits until the store holds
# $1 race runs, then kill -9s it mid-race; fails if the race finished first, or if fewer than
# $1 race runs were stored or a decision was taken before the kill.
race_and_kill() {
  local runs=$1
  shift
  "$looprace" "$@" >"$work/first.out" 2>&1 &
  local pid=$! n
  for _ in $(seq 600); do
    n=$( (sql "select count(*) from runs where kind='race'" 2>/dev/null) || echo 0)
    [ "${n:-0}" -ge "$runs" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  kill -9 "$pid" 2>/dev/null || fail "the race finished before it could be killed: $(cat "$work/first.out")"
  wait "$pid" 2>/dev/null || true
  sleep 0.5 # the run in flight (its own process group) finishes on its own
  n=$(sql "select count(*) from runs where kind='race'")
  [ "$n" -ge "$runs" ] || fail "only $n race runs stored before the kill"
  [ "$(sql "select count(*) from decisions")" = 0 ] || fail "decided before the kill"
}
