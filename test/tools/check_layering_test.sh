#!/usr/bin/env bash
# tools/check_layering must catch each of its rules: run it on a scratch git
# repository holding one violation per rule, then on the same tree fixed.
set -euo pipefail
script="$(cd "$(dirname "$0")/../.." && pwd)/tools/check_layering"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
git init -q .
mkdir -p tools include/zt/tracing/internal include/zt/protozero src/protozero \
         src/tracing/service src/base include/zt/base src/ipc src/processor
cp "$script" tools/check_layering

guarded() {  # path guard body...
  local path=$1 guard=$2
  shift 2
  { echo "#ifndef $guard"; echo "#define $guard"; printf '%s\n' "$@"; echo "#endif"; } >"$path"
}
guarded include/zt/tracing/tracing.h ZT_TRACING_TRACING_H_ \
  '#include "src/base/x.h"' '#include "zt/ext/tracing/core/tracing_service.h"'
guarded include/zt/tracing/internal/data_source_internal.h \
  ZT_TRACING_INTERNAL_DATA_SOURCE_INTERNAL_H_ '#include "zt/ext/tracing/core/trace_writer.h"'
guarded include/zt/protozero/message.h ZT_PROTOZERO_MESSAGE_H_ '#include "zt/base/task_runner.h"'
guarded src/base/x.h WRONG_GUARD_H_ '#include <vector>'
guarded include/zt/base/logging.h ZT_BASE_LOGGING_H_ '#include "zt/base/compiler.h"' \
  '#include "zt/base/task_runner.h"'
guarded include/zt/base/compiler.h ZT_BASE_COMPILER_H_ '#include <cstdint>'
echo '#include "src/tracing/sdk/tracing_muxer_impl.h"' >src/tracing/service/a.cc
echo '#include "local.h"' >src/protozero/b.cc
echo '#include "zt/ext/tracing/core/trace_writer.h"' >src/ipc/c.cc
echo '#include "test/support/helper.h"' >src/base/d.cc
echo '#include "zt/tracing/tracing.h"' >src/processor/f.cc
mkdir -p test/support
echo '#include "test/support/helper.h"' >test/support/e.cc
git add -A

out=$(tools/check_layering 2>&1) && { echo "FAIL: violations passed:"; echo "$out"; exit 1; }
for rule in 1 2 3 4 5 6 7 8 9; do
  grep -q "(rule $rule)" <<<"$out" || { echo "FAIL: rule $rule not reported:"; echo "$out"; exit 1; }
done
grep -q 'src/base/d.cc:1: only tests include test support' <<<"$out" ||
  { echo "FAIL: a test include outside test/ was not reported:"; echo "$out"; exit 1; }
if grep -q "test/support/e.cc" <<<"$out"; then
  echo "FAIL: a test's own test include was reported:"; echo "$out"; exit 1
fi
# The documented exception is not reported.
if grep -q "data_source_internal.h" <<<"$out"; then
  echo "FAIL: the documented ext/ use was reported:"; echo "$out"; exit 1
fi

# Fixed, the same tree passes.
guarded include/zt/tracing/tracing.h ZT_TRACING_TRACING_H_ '#include <vector>'
guarded include/zt/protozero/message.h ZT_PROTOZERO_MESSAGE_H_ '#include <cstdint>' \
  '#include "zt/base/logging.h"'
guarded include/zt/base/logging.h ZT_BASE_LOGGING_H_ '#include "zt/base/compiler.h"'
guarded src/base/x.h ZT_SRC_BASE_X_H_ '#include <vector>'
echo '#include "src/tracing/service/a.h"' >src/tracing/service/a.cc
echo '#include "src/protozero/b.h"' >src/protozero/b.cc
echo '#include "src/ipc/frame.h"' >src/ipc/c.cc
echo '#include "src/base/x.h"' >src/base/d.cc
printf '%s\n' '#include "zt/base/logging.h"' '#include "zt/protozero/proto_decoder.h"' >src/processor/f.cc
git add -A
tools/check_layering >/dev/null || { echo "FAIL: a clean tree was refused"; tools/check_layering; exit 1; }
echo "check_layering: every rule caught, clean tree accepted"
