#!/usr/bin/env bash
# Naming kSystemBackend without linking the system backend's library is a
# build error that names the library (zt/tracing/tracing.h), not a program
# that builds and then records nothing:
#   1. the control, test/system_backend_link/uses_system_backend.cc linked
#      with zerotrace::tracing_system, builds and runs;
#   2. the same source linked with zerotrace::tracing alone fails to link,
#      and the error names zt_kSystemBackend_needs_zerotrace_tracing_system.
# (A program that does not name kSystemBackend links with zerotrace::tracing
# alone: every example does.)
# Usage: run.sh <zerotrace-build-dir>   (targets built there, excluded from all)
set -uo pipefail

if [ $# -ne 1 ] || [ ! -f "$1/CMakeCache.txt" ]; then
  echo "usage: run.sh <zerotrace-build-dir>" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
failures=0
fail() {
  echo "FAILED  $1: $2"
  tail -n 30 "$out" | sed 's/^/    /'
  failures=$((failures + 1))
}

case_1="1. naming kSystemBackend and linking zerotrace::tracing_system builds and runs"
if ! timeout 600 cmake --build "$build_dir" --target system_backend_link_control >"$out" 2>&1; then
  fail "$case_1" "the control does not build"
elif ! "$build_dir/test/system_backend_link_control" >"$out" 2>&1; then
  fail "$case_1" "the control does not run"
elif ! grep -q 'backends 0x2, system' "$out"; then
  fail "$case_1" "kSystemBackend did not convert to the system backend's bit"
else
  echo "ok      $case_1"
fi

case_2="2. naming kSystemBackend with zerotrace::tracing alone fails to link, naming the library"
rm -f "$build_dir/test/system_backend_link_without_library"
if timeout 600 cmake --build "$build_dir" --target system_backend_link_without_library >"$out" 2>&1; then
  fail "$case_2" "it links"
elif ! grep -q 'zt_kSystemBackend_needs_zerotrace_tracing_system' "$out"; then
  fail "$case_2" "the error does not name zt_kSystemBackend_needs_zerotrace_tracing_system"
else
  echo "ok      $case_2"
fi

exit $((failures > 0))
