#!/bin/bash
# python/zerotrace/trace_processor_pb2.py is protoc's output for
# protos/zt/trace_processor/trace_processor.proto: it must match what this
# machine's protoc makes of the .proto now (regenerate: the command below,
# then copy).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
protoc -I "$root/protos" --python_out="$out" "$root/protos/zt/trace_processor/trace_processor.proto"
if ! cmp -s "$out/zt/trace_processor/trace_processor_pb2.py" "$root/python/zerotrace/trace_processor_pb2.py"; then
  echo "python/zerotrace/trace_processor_pb2.py is stale: regenerate it with" >&2
  echo "  protoc -I protos --python_out=/tmp/pb protos/zt/trace_processor/trace_processor.proto" >&2
  echo "  cp /tmp/pb/zt/trace_processor/trace_processor_pb2.py python/zerotrace/" >&2
  exit 1
fi
echo "trace_processor_pb2.py matches the .proto"
