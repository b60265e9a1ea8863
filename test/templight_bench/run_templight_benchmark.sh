#!/usr/bin/env bash
# The Templight import benchmark (issue 13): makes a Templight trace with
# make_templight_trace (1 M instantiations by default, ~70 MB), then reads
# it with each name expansion method in a fresh process
# (templight_benchmark). Results go to docs/benchmarks.md with the machine.
#
#   test/templight_bench/run_templight_benchmark.sh [--instantiations N]
#       [--trace PATH] [--bin-dir DIR]
set -euo pipefail
count=1000000
trace=""
bin_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    --instantiations) count="$2"; shift 2 ;;
    --trace) trace="$2"; shift 2 ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    *) echo "run_templight_benchmark.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ -z "$bin_dir" ]; then
  cmake -S "$root" -B "$root/out/bench" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$root/out/bench" make_templight_trace templight_benchmark >/dev/null
  bin_dir="$root/out/bench/test/templight_bench"
fi
[ -n "$trace" ] || trace="/tmp/zt_templight_${count}.trace.pbf"
if [ ! -s "$trace" ]; then
  echo "== making a trace of $count instantiations: $trace"
  "$bin_dir/make_templight_trace" "$trace" "$count"
fi
for method in sequential batch; do
  echo "== reading it ($method)"
  "$bin_dir/templight_benchmark" "$trace" "$method"
done
