#!/usr/bin/env bash
# The baseline record of a sharded race, without a cluster: a race that records its baseline
# (--save-baseline), a second race that reuses it (builds no baseline of its own and says so),
# and races after the record was corrupted or the build command changed, which build their
# own, say why the record was not reusable, and decide the same loops.
source "$(dirname "$0")/lib.sh" "$1"
run='$LOOPRACE_OUTDIR/kernel 20000 both'
common=(--run "$run" --hot 2 --min-share 0 --factors 0,1,2,4 --max-samples 6 --confirm 0 --seed 3)
# Races with its own store, profile and work directory, all named $1; the rest are options.
race() {
  local name=$1
  shift
  "$looprace" race "${common[@]}" --store "$name.db" --profile "$name.profile" \
    --workdir "$work/$name.work" "$@" >"$name.out" 2>"$name.err" ||
    fail "race $name failed: $(cat "$name.out" "$name.err")"
}
# The loops a race decided: its profile's loop ids, and its store's, sorted.
decided() {
  grep -E '^[0-9a-f]{16} ' "$1.profile" | awk '{print $1}' | sort | tr '\n' ' '
  echo "/ $(sqlite3 "$1.db" "select loop from decisions order by loop" | tr '\n' ' ')"
}
# Where the race's baseline came from, as its session stored it.
origin() { sqlite3 "$1.db" "select json_extract(facts, '\$.baseline') from sessions"; }

race saved --build "$build_cmd" --save-baseline "$work/record/baseline.json"
[ -f record/baseline.json ] || fail "no record written"
[ "$(origin saved)" = built ] || fail "the recording race: baseline $(origin saved)"
[ "$(sqlite3 saved.db "select count(*) from decisions")" = 2 ] || fail "not 2 loops decided: $(cat saved.out)"
expected=$(decided saved)

race reused --build "$build_cmd" --reuse-baseline "$work/record/baseline.json"
grep -q "^baseline: reused $work/record/baseline.json$" reused.err ||
  fail "the record was not reused: $(grep baseline: reused.err)"
[ ! -e reused.work/baseline ] || fail "the reusing race built a baseline of its own"
case $(origin reused) in "reused $work/record/baseline.json") ;; *) fail "stored origin: $(origin reused)" ;; esac
[ "$(decided reused)" = "$expected" ] || fail "the reusing race decided $(decided reused), not $expected"

# A record that is not JSON: the race builds its own baseline and says why.
cp record/baseline.json good.json
echo '{"format": 2, "key": ' >record/baseline.json
race corrupted --build "$build_cmd" --reuse-baseline "$work/record/baseline.json"
grep -q "^baseline: built: the recorded one was not reusable: $work/record/baseline.json is not valid JSON" corrupted.err ||
  fail "no word of the corrupted record: $(grep baseline: corrupted.err)"
[ -d corrupted.work/baseline ] || fail "the race did not build its own baseline"
case $(origin corrupted) in "built: the recorded one was not reusable: "*) ;; *) fail "stored origin: $(origin corrupted)" ;; esac
[ "$(decided corrupted)" = "$expected" ] || fail "after the corrupted record: $(decided corrupted), not $expected"

# A good record of another build command is not this race's.
cp good.json record/baseline.json
race other --build "$build_cmd -DOTHER" --reuse-baseline "$work/record/baseline.json"
grep -q "^baseline: built: the recorded one was not reusable: the build command differs" other.err ||
  fail "no word of the other build command: $(grep baseline: other.err)"
[ -d other.work/baseline ] || fail "the race did not build its own baseline"
[ "$(decided other)" = "$expected" ] || fail "with another build command: $(decided other), not $expected"
# Every race printed its summary the same way: a line naming each decided loop, and a whole
# program check that could run the base build (a reused one lies outside the work directory).
for name in saved reused corrupted other; do
  for id in $(sqlite3 saved.db "select loop from decisions"); do
    grep -q "^loop [0-9]/2  $id " "$name.out" || fail "$name: no summary line of loop $id: $(cat "$name.out")"
  done
  if grep -q "^whole program.*failed" "$name.out"; then
    fail "$name: the whole-program check failed: $(grep "^whole program" "$name.out")"
  fi
done
echo PASS
