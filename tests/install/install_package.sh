#!/usr/bin/env bash
# cmake --install puts the command, the plugin, the runtime and the CMake package under a
# prefix; a separate CMake project then applies a profile with find_package(looprace) and
# looprace_apply_profile(), and its code equals the same factor written as a pragma; it links a
# program with the looprace::runtime target.
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/looprace-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
  echo "FAIL: $*" >&2
  exit 1
}

prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for file in bin/looprace lib/looprace.so lib/liblooprace_rt.a lib/cmake/looprace/looprace-config.cmake \
  lib/cmake/looprace/looprace-targets.cmake; do
  [ -e "$prefix/$file" ] || fail "not installed: $file"
done

# The loop's id and place, from the installed plugin's table.
cp "$here/project/saxpy.c" "$work/"
gcc -O2 -c "$work/saxpy.c" -o "$work/table.o" -fplugin="$prefix/lib/looprace.so" \
  -fplugin-arg-looprace-table="$work/table.jsonl"
read -r id place pos < <(python3 -c 'import json, sys
row = json.loads(open(sys.argv[1]).readline())
print(row["id"], "%s:%d:%d" % (row["file"], row["line"], row["column"]), "%d/%d" % (row["index"], row["loops"]))' "$work/table.jsonl")
printf 'looprace-profile 1\n%s %s saxpy %s 4\n' "$id" "$place" "$pos" >"$work/saxpy.profile"

# The installed command checks the profile and points at the installed plugin.
flags=$("$prefix/bin/looprace" apply --profile "$work/saxpy.profile" 2>/dev/null)
[[ $flags == *"-fplugin=$prefix/lib/looprace.so"* ]] || fail "apply printed '$flags'"

cmake -S "$here/project" -B "$work/user" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS=-O2 -DPROFILE="$work/saxpy.profile" >/dev/null
cmake --build "$work/user" >/dev/null
object=$(find "$work/user" -name 'saxpy.c.o')
"$work/user/uses_runtime" || fail "a program linked with looprace::runtime does not run"
[ -n "$object" ] || fail "the user project built no object"

code() { objdump -d -j .text "$1" | sed -n '/<saxpy>:/,$p'; }
gcc -O2 -c "$work/saxpy.c" -o "$work/pragma.o" -DLR_PRAGMA
gcc -O2 -c "$work/saxpy.c" -o "$work/plain.o"
[ "$(code "$object")" = "$(code "$work/pragma.o")" ] || fail "profile build != #pragma GCC unroll 4"
[ "$(code "$object")" != "$(code "$work/plain.o")" ] || fail "the profile changed nothing"

# A profile raced with -funroll-loops says so on its flags line; apply and the CMake helper add
# them, so that factor 0 there is GCC's unrolling: the code of a plain -O2 -funroll-loops build.
printf 'looprace-profile 1\nflags -funroll-loops\n%s %s saxpy %s 0\n' "$id" "$place" "$pos" \
  >"$work/unroll.profile"
flags=$("$prefix/bin/looprace" apply --profile "$work/unroll.profile" 2>/dev/null)
[[ $flags == "-funroll-loops -fplugin="* ]] || fail "apply of a flags line printed '$flags'"
cmake -S "$here/project" -B "$work/unroll" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS=-O2 -DPROFILE="$work/unroll.profile" >/dev/null
cmake --build "$work/unroll" >/dev/null
gcc -O2 -funroll-loops -c "$work/saxpy.c" -o "$work/unrolled.o"
[ "$(code "$(find "$work/unroll" -name 'saxpy.c.o')")" = "$(code "$work/unrolled.o")" ] ||
  fail "the CMake helper did not add the profile's -funroll-loops"
[ "$(code "$work/unrolled.o")" != "$(code "$work/plain.o")" ] || fail "-funroll-loops changed nothing"

# A GCC of another major version than the plugin's is refused at configure time, naming both.
if cmake -S "$here/project" -B "$work/other" -DCMAKE_PREFIX_PATH="$prefix" \
  -DPRETEND_C_COMPILER_VERSION=13.1.0 -DPROFILE="$work/saxpy.profile" >"$work/other.log" 2>&1; then
  fail "a project compiled by GCC 13 accepted the GCC 12 plugin"
fi
tr -s ' \n' ' ' <"$work/other.log" | grep -q "built for GCC 12; the C compiler is GNU 13.1.0" ||
  fail "the version check said: $(cat "$work/other.log")"
echo PASS
