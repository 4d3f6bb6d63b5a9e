#!/usr/bin/env bash
# A loop where all factors tie: the race stops on equivalence (not the cap) with a tied set of
# winners, and the byte-identical variants 4..16 are raced once.
source "$(dirname "$0")/lib.sh" "$1"
id=$(loop_id repeat)
"$looprace" race --build "$build_cmd" --run '$LOOPRACE_OUTDIR/kernel 7 tie' \
  --loop "$id" --store store.db --profile tie.profile --epsilon 0.5 --max-samples 20 --seed 5 >race.out
cat race.out
[ "$(sql "select count(*) from decisions where loop='$id'")" = 1 ] || fail "no decision"
[ "$(sql "select cap_hit from decisions where loop='$id'")" = 0 ] || fail "the cap was hit: no equivalence found"
groups=$(sql "select count(distinct grp) from variants where loop='$id' and grp >= 0")
[ "$groups" -lt 17 ] || fail "no byte-identical variants were grouped"
for f in $(seq 5 16); do
  [ "$(sql "select grp from variants where loop='$id' and factor=$f")" = "$(sql "select grp from variants where loop='$id' and factor=4")" ] ||
    fail "factor $f is not grouped with factor 4 (complete unrolling of 4 iterations)"
done
raced=$(sql "select count(distinct grp) from runs where kind='race' and target_loop='$id'")
[ "$raced" = "$groups" ] || fail "$raced groups raced, $groups groups built"
winners=$(sql "select winners from decisions where loop='$id'")
python3 -c 'import json,sys; sys.exit(0 if len(json.loads(sys.argv[1])) >= 2 else 1)' "$winners" ||
  fail "a tie should leave several winners: $winners"
# GCC's default is among the tied winners, so it stays: no code change without evidence.
python3 -c 'import json,sys; sys.exit(0 if 0 in json.loads(sys.argv[1]) else 1)' "$winners" ||
  fail "factor 0 is not among the tied winners: $winners"
[ "$(sql "select chosen from decisions where loop='$id'")" = 0 ] || fail "a tie including factor 0 chose another factor"
grep -Eq "^$id +[^ ]+ +[^ ]+ +[^ ]+ +0 " tie.profile || fail "the profile does not keep factor 0: $(cat tie.profile)"

# --keep-duplicates (the paper's brute force): the same byte-identical factors are raced apart,
# each on its own 3 observations; continuing that store's race without the flag is refused.
"$looprace" race --build "$build_cmd" --run '$LOOPRACE_OUTDIR/kernel 7 tie' --loop "$id" \
  --store apart.db --profile apart.profile --plan constant --constant-size 3 --confirm 0 \
  --keep-duplicates --seed 5 >apart.out
[ "$(sqlite3 apart.db "select count(distinct grp) from variants where loop='$id' and grp >= 0")" = 17 ] ||
  fail "--keep-duplicates still grouped factors: $(sqlite3 apart.db "select factor, grp from variants")"
[ "$(sqlite3 apart.db "select count(*) from (select grp from runs r join observations o on o.run = r.id
  and o.loop = '$id' where r.kind='race' and r.target_loop='$id' and o.filtered_cycles is not null
  group by grp having count(*) = 3)")" = 17 ] || fail "not 3 race runs for each of the 17 factors"
expect_error "factor [0-9]+ now builds like factor [0-9]+, .* --keep-duplicates" \
  "$looprace" race --build "$build_cmd" --run '$LOOPRACE_OUTDIR/kernel 7 tie' --loop "$id" \
  --store apart.db --profile apart.profile --plan constant --constant-size 4 --confirm 0 --seed 5
echo PASS
