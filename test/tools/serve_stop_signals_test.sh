#!/usr/bin/env bash
# `ztrace serve` stops cleanly (exit 0, "stopped") on SIGTERM, also when the
# stop arrives twice at once, as `timeout` and systemd deliver it (to the
# process and to its group): before, the second signal could land after the
# first had armed "a second Ctrl-C ends the process at once", and the
# server died of it (exit 143).
# Usage: test/tools/serve_stop_signals_test.sh ZTRACE TRACE
set -euo pipefail
ztrace=$1 trace=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/zt-serve-signals.XXXXXX")
trap 'rm -rf "$work"' EXIT
for round in $(seq 30); do
  rm -f "$work/out" "$work/err"  # Not the last round's "Serving on".
  # Under `timeout`, as scripts run it: a SIGTERM to timeout reaches the
  # server twice (timeout signals it and then its whole process group).
  timeout 120 "$ztrace" serve "$trace" --port 0 >"$work/out" 2>"$work/err" </dev/null &
  pid=$!
  waited=0
  until grep -q '^Serving on ' "$work/out" 2>/dev/null; do
    if [ $waited -ge 300 ] || ! kill -0 $pid 2>/dev/null; then
      echo "FAIL: round $round: ztrace serve did not start within 30 s"; cat "$work/err"; exit 1
    fi
    sleep 0.1; waited=$((waited + 1))
  done
  kill -TERM $pid
  status=0
  wait $pid || status=$?
  if [ $status -ne 0 ] || ! grep -q 'ztrace serve: stopped' "$work/err"; then
    echo "FAIL: round $round: exit $status after a SIGTERM through timeout"; cat "$work/err"; exit 1
  fi
done
echo "ok: 30 rounds of a SIGTERM through timeout (two at once), each a clean stop"
