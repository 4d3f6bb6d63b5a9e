#!/usr/bin/env bash
# A variant that "miscompiles" (the run command changes the output of factor 2) is disqualified
# and reported; the race still decides among the others.
source "$(dirname "$0")/lib.sh" "$1"
id=$(loop_id reduce)
run='out=$("$LOOPRACE_OUTDIR/kernel" 100000 differ "${LOOPRACE_OUTDIR##*/}"); case ${LOOPRACE_OUTDIR##*/} in f2 | f2-l*) out="$out (miscompiled)" ;; esac; echo "$out"'
"$looprace" race --build "$build_cmd" --run "$run" --loop "$id" --factors 0,1,2,4,8 \
  --store store.db --profile p.profile --max-samples 8 --seed 7 >race.out
cat race.out
grep -q "factor 2 disqualified: output-differs" race.out || fail "the summary does not report factor 2"
python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if "output-differs" in d.get("2","") else 1)' \
  "$(sql "select disqualified from decisions where loop='$id'")" || fail "factor 2 not disqualified in the store"
[ "$(sql "select count(*) from runs where target_loop='$id' and grp=2 and ok=0")" -ge 1 ] || fail "no failed run of factor 2 stored"
[ "$(sql "select chosen from decisions where loop='$id'")" != 2 ] || fail "the miscompiled factor was chosen"
echo PASS
