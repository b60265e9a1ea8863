#!/usr/bin/env bash
# ctest's browser test of `ztrace report`: writes the report of TRACE and
# checks it in headless Chromium (report_check.js), keeping screenshots in
# SHOTS. Exit 77 (ctest SKIP) when node, node_modules or Chromium are missing.
#   run_report_test.sh ZTRACE TRACE SHOTS CHECK-OPTIONS...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 3 ] || { echo "usage: $0 ZTRACE TRACE SHOTS CHECK-OPTIONS..." >&2; exit 2; }
ztrace=$1 trace=$2 shots=$3
shift 3
if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: no node (Debian package nodejs)"; exit 77
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  echo "SKIP: $here/node_modules missing (tools/install-deps runs npm ci there)"; exit 77
fi
if [ -z "${CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-browser ]; then
  echo "SKIP: no Chromium (Debian package chromium; tools/install-deps installs it)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/$(basename "$trace").html"
echo "+ $ztrace report $trace -o $out"
"$ztrace" report "$trace" -o "$out"
exec node "$here/report_check.js" "$out" --screenshots "$shots" "$@"
