#!/usr/bin/env bash
# Racing on the user's own flags: a race of a -O3 -funroll-loops build says so (the summary and
# the report: factor 0 is what GCC does with them), its profile lines carry base=, and the
# plugin warns when that profile is applied to a build with other flags, not with the same.
source "$(dirname "$0")/lib.sh" "$1"
src=$here/programs/kernel.c
o3="\$LOOPRACE_CC -O3 -funroll-loops -o \"\$LOOPRACE_OUTDIR/kernel\" $src"
"$looprace" race --build "$o3" --run '$LOOPRACE_OUTDIR/kernel 7 tie' --hot 1 --min-share 0 \
  --plan constant --constant-size 2 --confirm 0 --factors 0,2 --store "$work/store.db" \
  --profile "$work/o3.profile" >race.out 2>&1 || fail "race: $(cat race.out)"
grep -q "base: -O3 -funroll-loops" race.out || fail "the summary does not name the base: $(cat race.out)"
grep -q " base=-O3%20-funroll-loops" "$work/o3.profile" || fail "no base= in $(cat "$work/o3.profile")"
"$looprace" report --store "$work/store.db" | grep -q "base: -O3 -funroll-loops" ||
  fail "the report does not name the base"
apply() { LC_ALL=C gcc "$@" -c "$src" -o "$work/k.o" -fplugin="$plugin" -fplugin-arg-looprace-profile="$work/o3.profile" 2>&1; }
plugin=$(dirname "$(dirname "$looprace")")/lib/looprace.so
same=$(apply -O3 -funroll-loops)
[ -z "$same" ] || fail "a build with the profile's own flags was warned: $same"
other=$(apply -O2)
[[ $other == *"raced on a build with '-O3 -funroll-loops'; this compilation uses '-O2'"* ]] ||
  fail "a -O2 build applying a -O3 profile was not warned: '$other'"
echo PASS
