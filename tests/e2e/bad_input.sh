#!/usr/bin/env bash
# Bad input gives a clear message and a non-zero exit, and loses nothing already stored; stores
# merge without duplicates.
source "$(dirname "$0")/lib.sh" "$1"
run='$LOOPRACE_OUTDIR/kernel 1000 differ x'

expect_error 'exit status 2' \
  "$looprace" race --build 'echo compiling; echo "kernel.c:1: error: no such thing" >&2; exit 2' --run "$run" --store store.db
grep -q "kernel.c:1: error: no such thing" err.out || fail "the build's output tail is not shown"

expect_error 'run command fails for the baseline' \
  "$looprace" race --build "$build_cmd" --run 'echo broken >&2; exit 3' --store store.db

expect_error 'no such loop.*did you mean' \
  "$looprace" race --build "$build_cmd" --run "$run" --loop kernel.c:9999:3 --store store.db
grep -q "kernel.c" err.out || fail "no near match listed"

# Joint builds have no layout randomization yet: refused before anything is built.
expect_error 'excludes' \
  "$looprace" race --build "$build_cmd" --run "$run" --hot 2 --together --layouts 2 --store store.db

# Controls: a loop that is not in the program, none beside others, and a plan that cannot
# take them, each refused naming the option.
expect_error '--controls kernel.c:9999:3: no such loop' \
  "$looprace" race --build "$build_cmd" --run "$run" --hot 1 --controls kernel.c:9999:3 --store ctl.db
expect_error 'none takes no other word' \
  "$looprace" race --build "$build_cmd" --run "$run" --controls none,auto --store ctl.db
expect_error '--controls: --test yuen' \
  "$looprace" race --build "$build_cmd" --run "$run" --controls auto --plan race --test yuen --store ctl.db

# Every loop is colder than the asked share of the program's cycles.
expect_error 'lower --min-share' \
  "$looprace" race --build "$build_cmd" --run "$run" --hot 1 --min-share 0.9999 --store cold.db

# A small successful race, then errors that must leave it intact.
id=$(loop_id reduce)
"$looprace" race --build "$build_cmd" --run "$run" --loop "$id" --factors 0,2 --max-samples 3 \
  --store store.db --profile p.profile >/dev/null
runs=$(sql "select count(*) from runs")
profile=$(cat p.profile)

expect_error 'another program' \
  "$looprace" race --build "$build_cmd" --run "$run --other" --loop "$id" --store store.db --profile p.profile
sqlite3 store.db "update meta set value='elsewhere | other cpu | gcc' where key='machine'"
expect_error 'another machine' \
  "$looprace" race --build "$build_cmd" --run "$run" --loop "$id" --store store.db --profile p.profile
[ "$(sql "select count(*) from runs")" = "$runs" ] || fail "a refused store was changed"

printf 'looprace-profile 1\n0123 kernel.c:1:1 main 0/1 4\n' >bad.profile
expect_error 'bad.profile:2: bad loop id' "$looprace" apply --profile bad.profile
expect_error 'bad.profile:2:' \
  "$looprace" race --build "$build_cmd" --run "$run" --loop "$id" --store other.db --profile bad.profile
[ "$(cat bad.profile)" = "$(printf 'looprace-profile 1\n0123 kernel.c:1:1 main 0/1 4')" ] || fail "the bad profile was overwritten"
[ "$(cat p.profile)" = "$profile" ] || fail "the good profile changed"

# Nonsense on the command line is refused by name, never taken for a default.
expect_error "unknown subcommand 'tune' \(subcommands: version, loops, race" "$looprace" tune
expect_error "unknown subcommand 'tune'" "$looprace" tune --help
expect_error "--jobs: Value 0 not in range 1" "$looprace" race --build "$build_cmd" --run "$run" -j 0
expect_error "--hot: Value 0 not in range 1" "$looprace" race --build "$build_cmd" --run "$run" --hot 0
expect_error "--timeout: a time limit must be more than 0 seconds" \
  "$looprace" race --build "$build_cmd" --run "$run" --timeout 0
expect_error "--timeout: 'soon' is not a number" \
  "$looprace" race --build "$build_cmd" --run "$run" --timeout soon
expect_error "--try-flags: '-O3' is not an -f or -m option or --param" \
  "$looprace" race --build "$build_cmd" --run "$run" --try-flags=-O3
expect_error "--try-flags decides on one machine" \
  "$looprace" race --build "$build_cmd" --run "$run" --try-flags -funroll-loops --slurm
expect_error "--indifference program race on one machine" \
  "$looprace" race --build "$build_cmd" --run "$run" --indifference program --slurm
expect_error "--indifference: 'whole' is not one of loop, program" \
  "$looprace" race --build "$build_cmd" --run "$run" --indifference whole
printf 'looprace-profile 1\nflags -funroll-loops O2\n' >flags.profile
expect_error "flags.profile:2: flag 'O2' on the flags line is not an option" \
  "$looprace" apply --profile flags.profile

# A store with 4 KB of garbage over one of its pages is refused, by race and report alike.
cp store.db damaged.db
dd if=/dev/urandom of=damaged.db bs=4096 seek=2 count=1 conv=notrunc 2>/dev/null
expect_error "damaged.db is damaged .*restore it from a copy" \
  "$looprace" race --build "$build_cmd" --run "$run" --loop "$id" --store damaged.db --profile d.profile
expect_error "damaged.db is damaged" "$looprace" report --store damaged.db

# Merging copies every run once, however often it is repeated.
"$looprace" merge all.db store.db >/dev/null
"$looprace" merge all.db store.db >/dev/null
[ "$(sqlite3 all.db "select count(*) from runs")" = "$runs" ] || fail "merge lost or duplicated runs"
[ "$(sqlite3 all.db "select count(*) from decisions")" = 1 ] || fail "merge lost the decision"
echo PASS
