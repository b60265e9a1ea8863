#!/usr/bin/env bash
# Uses zerotrace from outside its tree, the ways a team would:
#   1. installs the build into a temporary prefix;
#   2. test/downstream: find_package() + zt_protozero_library() /
#      zt_cppgen_library() on the project's own .proto files;
#   3. test/downstream/sdk: the SDK example (a copy of
#      examples/custom_data_source.cc) with find_package() and
#      zerotrace::tracing, run, its trace checked;
#   4. the same example compiled with `pkg-config --cflags --libs zerotrace`;
#   5. test/downstream/embedded: zerotrace pulled in with FetchContent
#      (add_subdirectory) and the example built from it (skipped in
#      sanitizer builds, which would only repeat it slower).
# Steps 2-4 may use only installed files: a reference to the source or
# build tree fails the test.
#
# Usage: test/downstream/run.sh <zerotrace-build-dir> [<work-dir>]
#   <work-dir> (default: a fresh temporary directory, removed afterwards)
#   receives prefix/ and build/.
# The downstream build uses the same compiler and sanitizer flags as the
# zerotrace build (a sanitized static library needs a sanitized link).
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,21p' "$0" >&2
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
  rm -rf "$work/prefix" "$work/build" "$work/sdk" "$work/system" "$work/processor" "$work/pc" \
    "$work/embedded" "$work/example"
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

# Configures and builds a downstream project against the installed tree,
# then fails if any include path or tool points back into the zerotrace
# source or build tree: it must use installed files only.
build_against_install() {  # name source-dir [cmake args...]
  local name=$1 src=$2
  shift 2
  cmake -S "$src" -B "$work/$name" -G Ninja \
    -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_BUILD_TYPE="${build_type:-RelWithDebInfo}" \
    -DCMAKE_CXX_FLAGS="$extra_flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$extra_flags" "$@" >"$work/$name-configure.log" 2>&1 || {
    cat "$work/$name-configure.log"; exit 1; }
  cmake --build "$work/$name"
  local leaks=(-e "$src_root/include" -e "$src_root/src/" -e "$src_root/protos"
               -e "$build_dir/src/" -e "$build_dir/protos/")
  if grep -q "${leaks[@]}" "$work/$name/compile_commands.json" "$work/$name/build.ninja"; then
    echo "run.sh: the $name build refers to the zerotrace tree:" >&2
    grep -n "${leaks[@]}" "$work/$name/compile_commands.json" "$work/$name/build.ninja" | head >&2
    exit 1
  fi
}

echo "=== configure + build downstream"
build_against_install build "$here"

echo "=== run"
"$work/build/downstream_app"

# The example, copied out of the tree so that nothing next to it can be
# found by a relative include.
mkdir -p "$work/example"
cp "$src_root/examples/custom_data_source.cc" "$work/example/"
example="$work/example/custom_data_source.cc"

check_example_run() {  # binary -> runs it in a fresh folder, checks the trace
  local bin=$1 dir
  dir=$(mktemp -d "$work/run.XXXXXX")
  (cd "$dir" && "$bin") >"$dir/out.txt" 2>&1 || { cat "$dir/out.txt"; return 1; }
  grep -q "100000 data source packets in 4 sequences" "$dir/out.txt" &&
    grep -q "losses: 0 marked in the trace" "$dir/out.txt" &&
    [ -s "$dir/custom_data_source.pftrace" ] || {
    echo "run.sh: $bin did not record the expected trace:" >&2
    cat "$dir/out.txt" >&2
    return 1
  }
  echo "    $(grep packets "$dir/out.txt")"
}

echo "=== SDK example with find_package(zerotrace) + zerotrace::tracing"
build_against_install sdk "$here/sdk" -DZT_EXAMPLE_SOURCE="$example"
check_example_run "$work/sdk/custom_data_source"

echo "=== SDK example with pkg-config"
pc_flags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs zerotrace)
case "$pc_flags" in
  *"$src_root/"[ips]*|*"$build_dir/"[ps]*) echo "run.sh: zerotrace.pc points into the tree: $pc_flags" >&2; exit 1 ;;
esac
mkdir -p "$work/pc"
# shellcheck disable=SC2086 # flag lists on purpose.
"$cxx" -O2 $extra_flags "$example" $pc_flags -o "$work/pc/custom_data_source"
check_example_run "$work/pc/custom_data_source"

echo "=== system backend with find_package + zerotrace::tracing_system"
build_against_install system "$here/system"
"$work/system/system_app"

echo "=== system backend with pkg-config zerotrace-system"
pc_flags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs zerotrace-system)
# shellcheck disable=SC2086 # flag lists on purpose.
"$cxx" -O2 $extra_flags "$here/system/main.cc" $pc_flags -o "$work/pc/system_app"
"$work/pc/system_app"

# A tool reading a trace through the public processor API: the v14
# fixture's slices, and a clear refusal of a file that is not a trace.
check_processor_tool() {  # binary
  local bin=$1 out
  out=$("$bin" "$src_root/test/data/perfetto_v14/inprocess_small.pftrace") || {
    echo "run.sh: $bin failed on the v14 fixture: $out" >&2; return 1; }
  [ "$out" = "$expected_slices" ] || {
    echo "run.sh: $bin printed '$out', expected '$expected_slices'" >&2; return 1; }
  printf 'SQLite format 3\0not really\n' >"$work/not_a_trace.db"
  if out=$("$bin" "$work/not_a_trace.db" 2>&1); then
    echo "run.sh: $bin accepted an SQLite file as a trace: $out" >&2; return 1
  fi
  case "$out" in
    *"is an SQLite database"*) ;;
    *) echo "run.sh: $bin's refusal does not say what the file is: $out" >&2; return 1 ;;
  esac
  echo "    $out"
}
# What the build's own ztrace reads in the fixture.
expected_counts=$("$build_dir/src/cmd/ztrace/ztrace" query --csv \
  "$src_root/test/data/perfetto_v14/inprocess_small.pftrace" \
  "SELECT COUNT(*), COUNT(DISTINCT name) FROM slice" | tail -1)
expected_slices="${expected_counts%,*} slices, ${expected_counts#*,} names"

echo "=== processor with find_package(zerotrace COMPONENTS processor) + zerotrace::processor"
build_against_install processor "$here/processor"
check_processor_tool "$work/processor/slice_count"

echo "=== processor with pkg-config zerotrace-processor"
pc_flags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs zerotrace-processor)
# shellcheck disable=SC2086 # flag lists on purpose.
"$cxx" -O2 $extra_flags "$here/processor/main.cc" $pc_flags -o "$work/pc/slice_count"
check_processor_tool "$work/pc/slice_count"

if [ -z "$sanitize" ]; then
  echo "=== zerotrace embedded with FetchContent (add_subdirectory)"
  cmake -S "$here/embedded" -B "$work/embedded" -G Ninja \
    -DZT_SOURCE_DIR="$src_root" -DZT_EXAMPLE_SOURCE="$example" \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
    >"$work/embedded-configure.log" 2>&1 || { cat "$work/embedded-configure.log"; exit 1; }
  # The example and what it links (the SDK, the plugin, the protos), as a
  # project that embeds zerotrace builds it: not the processor and tools.
  cmake --build "$work/embedded" --target app -j "$(nproc 2>/dev/null || echo 2)" \
    >"$work/embedded-build.log" 2>&1 || {
    tail -40 "$work/embedded-build.log"; exit 1; }
  check_example_run "$work/embedded/app"
fi
echo "=== downstream: all passed"
