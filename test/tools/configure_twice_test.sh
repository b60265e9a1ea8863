#!/usr/bin/env bash
# Every way the project's tools and README configure a build must work a
# second time on the same build folder: a user runs `tools/demo` twice, or
# `tools/demo --system` after it, and CMake then reads a cache instead of
# starting fresh (a package found only as a side effect of another one, on
# the first run, is not found the second time).
#
# 1. Statically: every CMake file that links an imported target of a
#    package (Threads::, ZLIB::, SQLite::, protobuf::) calls find_package()
#    for it itself, or a parent folder's CMakeLists.txt does.
# 2. Each option set below is configured twice into one fresh folder; both
#    runs must succeed. The sets are the ones tools/demo, tools/test,
#    tools/build_cost and README.md's install recipe pass.
# Usage: test/tools/configure_twice_test.sh [<source-dir>]
set -euo pipefail
src="$(cd "${1:-$(dirname "$0")/../..}" && pwd)"
work=$(mktemp -d "${TMPDIR:-/tmp}/zt-configure-twice.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0

# --- 1. find_package() beside each use --------------------------------------
package_of() {  # imported target prefix -> find_package name
  case "$1" in
    Threads) echo Threads ;; ZLIB) echo ZLIB ;; SQLite) echo SQLite3 ;;
    protobuf) echo Protobuf ;;
  esac
}
finds_in_ancestors() {  # cmake-file package -> 0 when it or a parent finds it
  local file=$1 pkg=$2 dir
  grep -q "find_package($pkg[ )]" "$file" && return 0
  dir=$(dirname "$file")
  while [ "$dir" != "$src" ] && [ "$dir" != / ]; do
    dir=$(dirname "$dir")
    if [ -f "$dir/CMakeLists.txt" ] && grep -q "find_package($pkg[ )]" "$dir/CMakeLists.txt"; then
      return 0
    fi
  done
  return 1
}
while IFS= read -r file; do
  for prefix in $(grep -oE '\b(Threads|ZLIB|SQLite|protobuf)::' "$src/$file" | sort -u | sed 's/:://'); do
    pkg=$(package_of "$prefix")
    if ! finds_in_ancestors "$src/$file" "$pkg"; then
      echo "FAIL: $file links $prefix:: targets but neither it nor a parent folder calls find_package($pkg)"
      failures=$((failures + 1))
    fi
  done
done < <(cd "$src" && git ls-files 'CMakeLists.txt' '*/CMakeLists.txt' 2>/dev/null |
           grep -v '^test/downstream/' || find . -name CMakeLists.txt -printf '%P\n')

# --- 2. each option set, twice ------------------------------------------------
configure_twice() {  # name cmake-args...
  local name=$1
  shift
  local dir="$work/$name" run
  for run in 1 2; do
    if ! cmake -S "$src" -B "$dir" -G Ninja "$@" >"$dir.$run.log" 2>&1; then
      echo "FAIL: $name: configure run $run failed:"
      tail -20 "$dir.$run.log" | sed 's/^/    /'
      failures=$((failures + 1))
      return
    fi
  done
  echo "ok: $name (configured twice)"
}
# tools/demo and README's install recipe.
configure_twice demo -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=OFF -DZT_BUILD_BENCHMARKS=OFF
# tools/build_cost.
configure_twice build_cost -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
  -DCMAKE_CXX_COMPILER_LAUNCHER="$src/tools/cpu_time_launcher" \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" -DZT_BUILD_TESTS=OFF \
  -DZT_BUILD_BENCHMARKS=OFF -DZT_BUILD_FUZZERS=OFF
# A plain configure with the defaults (tests, benchmarks and examples on).
configure_twice defaults
# tools/test: release, ASan/UBSan with fuzzers, TSan.
configure_twice ci_release -DCMAKE_BUILD_TYPE=Release -DZT_WERROR=ON -DCMAKE_CXX_COMPILER=g++
if command -v clang++ >/dev/null; then
  configure_twice ci_asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZT_WERROR=ON \
    -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS=-DZT_DCHECK_IS_ON=1 \
    -DZT_SANITIZE=address,undefined -DZT_BUILD_FUZZERS=ON -DZT_UNITY_BUILD=OFF \
    -DZT_BUILD_BENCHMARKS=OFF
  configure_twice ci_tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DZT_WERROR=ON \
    -DCMAKE_CXX_COMPILER=clang++ -DZT_SANITIZE=thread -DZT_UNITY_BUILD=OFF \
    -DZT_BUILD_BENCHMARKS=OFF
fi
# Switching options on a configured folder (demo's folder, then tests on).
configure_twice switch -DCMAKE_BUILD_TYPE=Release -DZT_BUILD_TESTS=OFF
if ! cmake -S "$src" -B "$work/switch" -DZT_BUILD_TESTS=ON >"$work/switch.3.log" 2>&1 ||
   ! cmake -S "$src" -B "$work/switch" -DZT_BUILD_TESTS=OFF >"$work/switch.4.log" 2>&1; then
  echo "FAIL: switch: turning tests on and off again on one folder failed:"
  tail -20 "$work"/switch.[34].log | sed 's/^/    /'
  failures=$((failures + 1))
else
  echo "ok: switch (tests on, then off again)"
fi

if [ "$failures" -ne 0 ]; then
  echo "configure_twice_test: $failures failure(s)"
  exit 1
fi
echo "configure_twice_test: every option set configures twice"
