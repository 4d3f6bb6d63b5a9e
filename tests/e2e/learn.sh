#!/usr/bin/env bash
# Heuristic training end to end: `looprace train` on the committed dataset and on a store of a
# real race, the plugin applying the model (verify records say which loops it set; the program
# computes the same), `looprace evaluate` (text, JSON, HTML), and bad input.
source "$(dirname "$0")/lib.sh" "$1"
root=$(cd "$here/../.." && pwd)
plugin=$(dirname "$looprace")/../lib/looprace.so
dataset=$root/benchmarks/data/unroll-training.jsonl

# Train on the dataset; the model file is the documented format.
"$looprace" train "$dataset" -o unroll.model >train.out
cat train.out
grep -q "from 47 loop(s) of 15 program(s)" train.out || fail "train did not say what it learned from"
# Version 2 when it prefers another factor than GCC's (docs/formats.md 5b), else version 1.
case "$(head -1 unroll.model)" in
  "looprace-model 1" | "looprace-model 2") ;;
  *) fail "not a model file: $(head -1 unroll.model)" ;;
esac
grep -q "^features blocks stmts .* factor unrolled_stmts trip_remainder trip_per_copy$" unroll.model ||
  fail "the model's inputs: $(grep ^features unroll.model)"

# The plugin applies it to the loops nothing named; the demo prints the same checksum.
gcc -O2 -o plain "$root/examples/demo/demo.c"
gcc -O2 -fplugin="$plugin" -fplugin-arg-looprace-model="$PWD/unroll.model" \
  -fplugin-arg-looprace-verify="$PWD/verify.jsonl" -o modelled "$root/examples/demo/demo.c"
grep -q '"by":"model"' verify.jsonl || fail "no verify record says the model set a loop"
grep '"by":"model"' verify.jsonl | grep -vq '"requested":0,' ||
  fail "the model changed no loop of the demo: the check below would prove nothing"
[ "$(./plain)" = "$(./modelled)" ] || fail "the model changed what the demo prints"

# evaluate: the table, every policy in JSON, a well-formed HTML page with its plots.
"$looprace" evaluate "$dataset" --json evaluate.json --html evaluate.html >evaluate.out 2>evaluate.err
cat evaluate.out
grep -Eq "^model \(left-out program\) +[0-9.-]+ %" evaluate.out || fail "no model line in the table"
grep -q "training without program 15/15" evaluate.err || fail "no progress while training"
python3 - <<'PY' || fail "evaluate.json is not what it should be"
import json
e = json.load(open("evaluate.json"))
names = [p["name"] for p in e["policies"]]
assert e["loops"] == 47 and e["programs"] == 15, e
assert names[0] == "model (left-out program)" and "-funroll-loops" in names, names
assert all(len(p["choices"]) == 47 for p in e["policies"])
oracle = e["policies"][-1]
assert oracle["share_of_oracle"] == 1 and oracle["tied_accuracy"] == 1
PY
xmllint --noout evaluate.html || fail "evaluate.html is not well-formed"
[ "$(grep -c "<svg" evaluate.html)" -ge 2 ] || fail "evaluate.html lacks its plots"

# From a store: a small race of one loop, then the same model from the store and from its
# export (one program: evaluate refuses, naming why).
id=$(loop_id repeat)
"$looprace" race --build "$build_cmd" --run '$LOOPRACE_OUTDIR/kernel 7 tie' --loop "$id" \
  --store store.db --profile race.profile --max-samples 6 --confirm 0 --seed 3 >race.out
"$looprace" train store.db -o from-store.model >/dev/null
"$looprace" export --store store.db --format jsonl --observation filtered -o store.jsonl
"$looprace" train store.jsonl -o from-export.model >/dev/null
cmp from-store.model from-export.model || fail "the store and its export trained different models"
expect_error "at least two programs" "$looprace" evaluate store.db

# Bad input names the file (and line).
expect_error "missing.jsonl" "$looprace" train missing.jsonl
head -3 "$dataset" >bad.jsonl
echo '{"id": 3, "winners": [1]' >>bad.jsonl
expect_error "bad.jsonl:4: not a looprace export row" "$looprace" train bad.jsonl
printf '{"id":"00000000000000aa","factors":[],"winners":null}\n' >undecided.jsonl
expect_error "no decided loop" "$looprace" train undecided.jsonl
expect_error "cannot write" "$looprace" train "$dataset" -o /nonexistent/dir/m.model
echo "PASS"
