#!/bin/sh
# Regenerates benchmarks/results/replay-synthetic.{csv,txt} and the Figure 5/6 SVGs: replays
# every plan over its parameter grid on the synthetic loops of make_synthetic.py (fixed seeds).
# Usage: benchmarks/replay/run_synthetic.sh [path/to/looprace]   (default build/bin/looprace)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
looprace=${1:-$root/build/bin/looprace}
results=$root/benchmarks/results
data=$(mktemp /tmp/looprace-synthetic.XXXXXX.csv)
trap 'rm -f "$data"' EXIT

python3 "$here/make_synthetic.py" --rounds 1000 --loops-per-family 5 --seed 20260521 > "$data"
"$looprace" replay "$data" --repetitions 50 --seed 1 --threads 2 \
  --csv-out "$results/replay-synthetic.csv" --svg "$results/replay-synthetic" \
  > "$results/replay-synthetic.txt"
tail -n 8 "$results/replay-synthetic.txt"
