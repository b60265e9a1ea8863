#!/usr/bin/env bash
# Installs zerotrace from an existing build directory into a temporary
# prefix, then configures, builds and runs test/downstream against it, the
# way an outside project would use zerotrace.
#
# Usage: test/downstream/run.sh <zerotrace-build-dir> [<work-dir>]
#   <work-dir> (default: a fresh temporary directory, removed afterwards)
#   receives prefix/ and build/.
# The downstream build uses the same compiler and sanitizer flags as the
# zerotrace build (a sanitized static library needs a sanitized link).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,11p' "$0" >&2
  exit 2
fi

here="$(cd "$(dirname "$0")" && pwd)"
src_root="$(cd "$here/../.." && pwd)"
build_dir="$(cd "$1" && pwd)"
cache="$build_dir/CMakeCache.txt"
if [ ! -f "$cache" ]; then
  echo "run.sh: $build_dir is not a CMake build directory" >&2
  exit 2
fi

if [ $# -eq 2 ]; then
  work="$2"
  mkdir -p "$work"
  work="$(cd "$work" && pwd)"
  rm -rf "$work/prefix" "$work/build"
else
  work="$(mktemp -d "${TMPDIR:-/tmp}/zt-downstream.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
fi

cache_value() {  # name -> value from the zerotrace build's cache, or empty
  sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -1
}
cxx="$(cache_value CMAKE_CXX_COMPILER)"
sanitize="$(cache_value ZT_SANITIZE)"
build_type="$(cache_value CMAKE_BUILD_TYPE)"
extra_flags=""
if [ -n "$sanitize" ]; then
  extra_flags="-fsanitize=$sanitize -fno-omit-frame-pointer"
fi

echo "=== install $build_dir -> $work/prefix"
cmake --install "$build_dir" --prefix "$work/prefix" >"$work/install.log" || {
  cat "$work/install.log"; exit 1; }

echo "=== configure + build downstream"
cmake -S "$here" -B "$work/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE="${build_type:-RelWithDebInfo}" \
  -DCMAKE_CXX_FLAGS="$extra_flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" >"$work/configure.log" 2>&1 || {
  cat "$work/configure.log"; exit 1; }
cmake --build "$work/build"

# The downstream build must use only installed files: no include path or
# tool may point back into the zerotrace source or build tree.
leaks=(-e "$src_root/include" -e "$build_dir/src/")
if grep -q "${leaks[@]}" \
     "$work/build/compile_commands.json" "$work/build/build.ninja"; then
  echo "run.sh: the downstream build refers to the zerotrace tree:" >&2
  grep -n "${leaks[@]}" \
    "$work/build/compile_commands.json" "$work/build/build.ninja" | head >&2
  exit 1
fi

echo "=== run"
"$work/build/downstream_app"
