#!/usr/bin/env bash
# Nothing waits forever: every build and run has a time limit, named with its option when it is
# hit, and a looprace killed outright (kill -9) leaves none of its children behind.
source "$(dirname "$0")/lib.sh" "$1"
run='$LOOPRACE_OUTDIR/kernel 1000 differ'
expect_error "timed out after .*raise the limit with --build-timeout SECONDS" \
  "$looprace" race --build 'sleep 1000' --run "$run" --build-timeout 1 --store a.db
expect_error "timed out after .*raise the limit with --timeout SECONDS" \
  "$looprace" race --build "$build_cmd" --run 'echo started; sleep 1000' --timeout 1 --store b.db

# The hung run's shell starts a process of its own: killing looprace must take that one too.
marker=$((1000000 + RANDOM))
"$looprace" race --build "$build_cmd" --run "sleep $marker; true" --timeout 600 --store c.db \
  >c.out 2>&1 &
racer=$!
for _ in $(seq 1 100); do
  pgrep -f "^sleep $marker\$" >/dev/null && break
  sleep 0.1
done
pgrep -f "^sleep $marker\$" >/dev/null || fail "the hung run never started: $(cat c.out)"
kill -9 "$racer"
wait "$racer" 2>/dev/null || true
for _ in $(seq 1 50); do
  pgrep -f "^sleep $marker\$" >/dev/null || break
  sleep 0.1
done
if pgrep -f "^sleep $marker\$" >/dev/null; then
  pkill -f "^sleep $marker\$"
  fail "the run's processes outlived a looprace killed with -9"
fi
echo PASS
