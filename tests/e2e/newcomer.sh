#!/usr/bin/env bash
# A newcomer's first commands, started in the source directory: the natural build and run
# commands fail with the fix in the message, the fixed ones work, and the in-tree recipe (copy
# the sources into the variant's directory) works although looprace runs in the sources.
source "$(dirname "$0")/lib.sh" "$1"
mkdir src && cd src
cat >prog.c <<'C'
#include <stdio.h>
int main(void) {
  long s = 0;
  for (long i = 0; i < 20000000; i++) s += i * (i & 7);
  printf("%ld\n", s);
  return 0;
}
C
printf 'prog: prog.c\n\t$(CC) -O2 -o prog prog.c\n' >Makefile
fast=(--plan constant --constant-size 2 --confirm 0 --factors 0,2)
expect_error 'name the sources as "\$LOOPRACE_SRCDIR/prog.c"' \
  "$looprace" race --build '$LOOPRACE_CC -O2 prog.c -o prog' --run './prog' "${fast[@]}"
expect_error "name the program as \\\$LOOPRACE_OUTDIR/prog" \
  "$looprace" race --build '$LOOPRACE_CC -O2 "$LOOPRACE_SRCDIR/prog.c" -o prog' --run './prog' \
  "${fast[@]}"
"$looprace" race --build '$LOOPRACE_CC -O2 "$LOOPRACE_SRCDIR/prog.c" -o prog' \
  --run '$LOOPRACE_OUTDIR/prog' "${fast[@]}" >fixed.out 2>&1 || fail "the fixed commands: $(cat fixed.out)"
"$looprace" race --build '[ -f Makefile ] || cp -R "$LOOPRACE_SRCDIR/." . && make -s CC="$LOOPRACE_CC" prog' \
  --run '$LOOPRACE_OUTDIR/prog' "${fast[@]}" --store intree.db >intree.out 2>&1 ||
  fail "the in-tree recipe started in the sources: $(cat intree.out)"
[ ! -e .looprace/work ] || fail "variants were built inside the sources"
echo PASS
