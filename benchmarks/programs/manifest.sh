# shellcheck shell=bash
# Sourced by prepare and check: reading programs.tsv and running its commands the way looprace
# does (build in $LOOPRACE_OUTDIR, run from $LOOPRACE_SRCDIR), with a compiler of our choice.
programs_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
programs_root=$(cd "$programs_dir/../.." && pwd)
programs_manifest=$programs_dir/programs.tsv
export LOOPRACE_SRCDIR=$programs_root
export LOOPRACE_PROGRAMS_CACHE=${LOOPRACE_PROGRAMS_CACHE:-$programs_root/build/cache/programs}

# manifest_names: the program names, one a line.
manifest_names() { grep -v '^#' "$programs_manifest" | cut -f1; }

# manifest_field NAME COLUMN (1 name, 2 build, 3 run, 4 check_run, 5 description)
manifest_field() {
  local value
  value=$(awk -F'\t' -v name="$1" -v column="$2" '$1 == name { print $column }' "$programs_manifest")
  [ -n "$value" ] || { echo "programs.tsv: no column $2 for '$1'" >&2; return 1; }
  printf '%s\n' "$value"
}

# manifest_build NAME OUTDIR CC: runs NAME's build command in OUTDIR with $LOOPRACE_CC=CC;
# the build's output goes to OUTDIR.log, shown only on failure.
manifest_build() {
  local name=$1 outdir=$2 cc=$3 command
  command=$(manifest_field "$name" 2) || return 1
  mkdir -p "$outdir"
  if ! (cd "$outdir" && LOOPRACE_OUTDIR=$outdir LOOPRACE_CC=$cc LOOPRACE_CFLAGS='' LOOPRACE_LDFLAGS='' \
    sh -c "$command") >"$outdir.log" 2>&1; then
    echo "programs.tsv: building $name with CC='$cc' failed in $outdir:" >&2
    tail -20 "$outdir.log" >&2
    return 1
  fi
}

# manifest_run NAME OUTDIR COLUMN: runs NAME's run (3) or check_run (4) command for the build in
# OUTDIR from the source root; its stdout goes to our stdout.
manifest_run() {
  local command
  command=$(manifest_field "$1" "$3") || return 1
  (cd "$programs_root" && LOOPRACE_OUTDIR=$2 sh -c "$command")
}
