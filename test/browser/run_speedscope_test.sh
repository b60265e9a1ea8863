#!/usr/bin/env bash
# ctest's browser test: makes a JSON trace with the given command (its last
# argument is replaced by the output path), then checks in headless
# Chromium that speedscope imports the expected frames and profiles
# (speedscope_check.js). Exit 77 (ctest SKIP) when node, node_modules or
# Chromium are missing.
#   run_speedscope_test.sh --frames A,B --profiles X -- PRODUCER ARGS... OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check_args=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do check_args+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "usage: $0 CHECK-OPTIONS -- PRODUCER ARGS... OUT" >&2; exit 2; }
shift

if ! command -v node >/dev/null 2>&1; then
  echo "SKIP: no node (Debian package nodejs)"; exit 77
fi
if [ ! -d "$here/node_modules/speedscope" ] || [ ! -d "$here/node_modules/playwright-core" ]; then
  echo "SKIP: $here/node_modules missing (tools/install-deps runs npm ci there)"; exit 77
fi
if [ -z "${CHROMIUM:-}" ] && [ ! -x /usr/bin/chromium ] && [ ! -x /usr/bin/chromium-browser ]; then
  echo "SKIP: no Chromium (Debian package chromium; tools/install-deps installs it)"; exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
producer=("$@")
out="$tmp/trace.json"
producer[${#producer[@]}-1]=$out
echo "+ ${producer[*]}"
"${producer[@]}"
exec node "$here/speedscope_check.js" "$out" "${check_args[@]}"
