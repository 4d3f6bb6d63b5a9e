#!/usr/bin/env bash
# Incremental variant builds of a libtool-style project (make's target is work.lo, not the
# objects): every variant recompiles the loop's source, and a build that make never
# recompiles (a stamp file) is built again from scratch, said so, instead of racing the
# baseline's code under every factor.
source "$(dirname "$0")/lib.sh" "$1"
cp -R "$here/programs/libtool_like" src
cd src
fast=(--plan constant --constant-size 2 --confirm 0 --factors 0,1,4 --loop work.c:4:22)
"$looprace" race --build '[ -f Makefile ] || cp -R "$LOOPRACE_SRCDIR/." . && make -s CC="$LOOPRACE_CC" prog' \
  --run '$LOOPRACE_OUTDIR/prog' "${fast[@]}" --store lo.db >lo.out 2>&1 || fail "libtool-style race: $(cat lo.out)"
grep -q "did not recompile" lo.out && fail "the .lo target was not invalidated: $(cat lo.out)"
[ "$(sqlite3 lo.db "select count(*) from decisions")" = 1 ] || fail "no decision: $(cat lo.out)"
[ "$(sqlite3 lo.db "select count(distinct grp) from variants where built = 1")" -ge 2 ] ||
  fail "every factor built the same code: $(cat lo.out)"

"$looprace" race --build '[ -f Makefile ] || cp -R "$LOOPRACE_SRCDIR/." . && make -s CC="$LOOPRACE_CC" stamped' \
  --run '$LOOPRACE_OUTDIR/stamped' "${fast[@]}" --store stamp.db >stamp.out 2>&1 || fail "stamped race: $(cat stamp.out)"
grep -q "did not recompile the loop's source .* built again from scratch" stamp.out ||
  fail "the stamped build was not rebuilt from scratch, or not said: $(cat stamp.out)"
[ "$(sqlite3 stamp.db "select count(distinct grp) from variants where built = 1")" -ge 2 ] ||
  fail "every factor built the same code: $(cat stamp.out)"
echo PASS
