#!/usr/bin/env bash
# The trace processor's ingest benchmark (issue 12): makes a track-event
# trace with zerotrace's SDK (make_sdk_trace), then imports it in a fresh
# process (processor_ingest_benchmark) and prints time, MB/s, events/s and
# peak RSS. Results go to docs/benchmarks.md with the machine.
#
#   test/processor_ingest/run_ingest_benchmark.sh [--size-mb N] [--trace PATH]
#       [--bin-dir DIR] [--keep]
# Defaults: 1024 MB, /tmp/zt_ingest_<N>mb.pftrace (reused if present and
# big enough), binaries from out/bench/test (configured by this script).
set -euo pipefail
size_mb=1024
trace=""
bin_dir=""
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    --size-mb) size_mb="$2"; shift 2 ;;
    --trace) trace="$2"; shift 2 ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "run_ingest_benchmark.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
root="$(cd "$(dirname "$0")/../.." && pwd)"
if [ -z "$bin_dir" ]; then
  cmake -S "$root" -B "$root/out/bench" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$root/out/bench" make_sdk_trace processor_ingest_benchmark >/dev/null
  bin_dir="$root/out/bench/test/processor_ingest"
fi
[ -n "$trace" ] || trace="/tmp/zt_ingest_${size_mb}mb.pftrace"
want=$((size_mb * 1024 * 1024))
have=$(stat -c %s "$trace" 2>/dev/null || echo 0)
if [ "$have" -lt "$want" ]; then
  echo "== making a ${size_mb} MB trace with the SDK: $trace"
  "$bin_dir/make_sdk_trace" "$trace" "$size_mb" 4
fi
echo "== importing it"
"$bin_dir/processor_ingest_benchmark" "$trace"
