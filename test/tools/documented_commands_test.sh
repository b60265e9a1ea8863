#!/usr/bin/env bash
# Runs every command README.md and each `--help` show, so that a renamed
# flag or command fails CI instead of a new user's first try:
#   * every `ztrace ...` and `ztraced ...` command line in README.md's sh
#     blocks (a command spanning lines, as a quoted SQL text does, is read
#     whole, as the shell reads it);
#   * every example line of `ztrace --help` and of each command's --help;
#   * `tools/demo` and each of its options, on the programs of this build.
# They run as written, in a scratch folder holding the files they name (a
# trace, a Templight trace, a config, a folder of traces), against a
# private ztraced (its sockets in the scratch folder). Each must exit 0.
# Usage: test/tools/documented_commands_test.sh <source-dir> <build-dir>
set -euo pipefail
src="$(cd "$1" && pwd)"
build="$(cd "$2" && pwd)"
ztrace_bin="$build/src/cmd/ztrace/ztrace"
ztraced_bin="$build/src/cmd/ztraced/ztraced"
for bin in "$ztrace_bin" "$ztraced_bin"; do
  [ -x "$bin" ] || { echo "FAIL: $bin is not built"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/zt-documented.XXXXXX")
daemon_pids=()
cleanup() {
  for pid in "${daemon_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
export PERFETTO_PRODUCER_SOCK_NAME="$work/producer.sock"
export PERFETTO_CONSUMER_SOCK_NAME="$work/consumer.sock"

# --- the commands ------------------------------------------------------------
commands=()
# Complete shell commands, one per logical line, from text on stdin: lines
# are joined until the shell can parse them (an open quote continues).
add_commands() {  # origin
  local origin=$1 line buffer=""
  while IFS= read -r line; do
    buffer+="${buffer:+$'\n'}$line"
    bash -n <<<"$buffer" 2>/dev/null || continue
    if [[ "$buffer" =~ ^[[:space:]]*(ztrace|ztraced)[[:space:]] ]]; then
      commands+=("$buffer")
      origins+=("$origin")
    fi
    buffer=""
  done
  [ -z "$buffer" ] || { echo "FAIL: $origin: an unterminated command: $buffer"; exit 1; }
}
origins=()
add_commands README.md < <(awk '/^```sh$/ {inside = 1; next} /^```/ {inside = 0} inside' \
                                "$src/README.md")
readme_count=${#commands[@]}
for sub in "" record query convert report stats export-db trigger; do
  # shellcheck disable=SC2086 # an empty $sub is no argument.
  help=$("$ztrace_bin" $sub --help)
  # "Example: ztrace ...", and the indented lines under "Examples:".
  add_commands "ztrace $sub --help" < <(awk '
    /^Example: ztrace / { sub(/^Example: /, ""); print; next }
    /^Examples?:[[:space:]]*$/ { examples = 1; next }
    examples && /^[[:space:]]+/ { sub(/^[[:space:]]+/, ""); print; next }
    { examples = 0 }' <<<"$help")
done
help_count=$(( ${#commands[@]} - readme_count ))
echo "documented commands: $readme_count from README.md, $help_count from --help"
# A guard against the extraction itself breaking silently.
if [ "$readme_count" -lt 10 ] || [ "$help_count" -lt 3 ]; then
  echo "FAIL: too few commands found; the extraction no longer matches README.md or --help"
  exit 1
fi

# --- the files they name -----------------------------------------------------
cd "$work"
trace="$src/test/data/perfetto_v14/inprocess_small.pftrace"
for name in app trace; do cp "$trace" "$name.pftrace"; done
mkdir traces
cp "$trace" traces/a.pftrace
cp "$trace" traces/b.pftrace
cp "$src/test/data/templight/tiny.memory.trace.pbf" main.cpp.trace.pbf
# A build's Templight traces, and a templight-tools blacklist.
mkdir -p build/a build/b
cp "$src/test/data/templight/tiny.memory.trace.pbf" build/a/x.cpp.trace.pbf
cp "$src/test/data/templight/kind23_clang16.trace.pbf" build/b/y.cpp.trace.pbf
printf 'identifier std::map<.*\n' >bl.txt
# A Chrome JSON trace, gzip-compressed: the fixture as our --to json writes it.
"$ztrace_bin" convert "$trace" trace.json --to json 2>/dev/null
gzip -c trace.json >trace.json.gz
# An upstream-style text config, short so that the test is quick.
sed 's/^duration_ms: .*/duration_ms: 500/' "$src/test/data/configs/track_event.pbtxt" \
  >config.pbtxt

# --- running them ------------------------------------------------------------
failures=0
# The programs the documented commands name, bounded in time; stdin is
# empty (`ztrace query TRACE` without SQL reads statements from it).
ztrace() { timeout 120 "$ztrace_bin" "$@" </dev/null; }
ztraced() {
  local out
  out=$(timeout 30 "$ztraced_bin" "$@" --log-file "$work/ztraced.log" </dev/null) || return
  # --background prints the daemon's pid: stopped at the end.
  [[ "$out" =~ ^[0-9]+$ ]] && daemon_pids+=("$out")
  echo "$out"
}
serve_check() {
  local args=${1%%#*}
  args=${args#ztrace }
  # shellcheck disable=SC2086  # The documented arguments, split as a shell does.
  timeout 120 "$ztrace_bin" $args --port 0 >"$work/serve.out" 2>"$work/serve.err" </dev/null &
  local pid=$! port="" waited=0
  while [ -z "$port" ] && [ $waited -lt 300 ] && kill -0 $pid 2>/dev/null; do
    port=$(sed -n 's|^Serving on http://127.0.0.1:\([0-9]*\)$|\1|p' "$work/serve.out")
    [ -n "$port" ] || { sleep 0.1; waited=$((waited + 1)); }
  done
  if [ -z "$port" ]; then
    echo "ztrace serve did not start within 30 s:"; cat "$work/serve.err"
    kill $pid 2>/dev/null; wait $pid; return 1
  fi
  local reply
  reply=$(exec 3<>"/dev/tcp/127.0.0.1/$port" &&
    printf 'GET /status HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3 &&
    timeout 10 cat <&3 | head -c 12)
  kill -TERM $pid
  wait $pid
  local status=$?
  cat "$work/serve.err"
  [ "$reply" = "HTTP/1.1 200" ] || { echo "/status answered: '$reply'"; return 1; }
  [ $status -eq 0 ] || { echo "exit $status after SIGTERM"; return 1; }
}

for i in "${!commands[@]}"; do
  cmd=${commands[$i]}
  if [[ "$cmd" =~ ^ztrace\ clone\ .*\ ([A-Za-z_][A-Za-z0-9_]*)\ *(#.*)?$ ]]; then
    # `ztrace clone ... NAME` snapshots a running session of that name: one
    # is started first (it ends by itself; the daemon is stopped at the end).
    printf 'buffers { size_kb: 1024 }\ndata_sources { config { name: "track_event" } }\n%s\n%s\n' \
      'duration_ms: 20000' "unique_session_name: \"${BASH_REMATCH[1]}\"" >clone_source.pbtxt
    ztrace record --background -c clone_source.pbtxt --txt -o clone_source.pftrace \
      >"$work/clone_source.log" 2>&1 || {
      echo "FAIL: [${origins[$i]}] could not start a session for: $cmd"
      sed 's/^/    /' "$work/clone_source.log" | tail -5
      failures=$((failures + 1))
    }
  fi
  if [[ "$cmd" =~ ^ztrace\ serve ]]; then
    # `ztrace serve` serves until it is stopped: it must come up (on a free
    # port: another program may hold the documented 9001), answer /status,
    # and stop on SIGTERM with exit 0.
    if serve_check "$cmd" >"$work/out.log" 2>&1; then
      echo "ok: [${origins[$i]}] $cmd"
    else
      echo "FAIL: [${origins[$i]}] $cmd"
      sed 's/^/    /' "$work/out.log" | tail -15
      failures=$((failures + 1))
    fi
    continue
  fi
  if eval "$cmd" >"$work/out.log" 2>&1; then
    echo "ok: [${origins[$i]}] $cmd"
  else
    status=$?
    echo "FAIL: [${origins[$i]}] exit $status: $cmd"
    sed 's/^/    /' "$work/out.log" | tail -15
    failures=$((failures + 1))
  fi
  if [[ "$cmd" =~ ^ztraced ]] && [ ${#daemon_pids[@]} -eq 0 ]; then
    echo "FAIL: [${origins[$i]}] '$cmd' started no daemon to record from"
    failures=$((failures + 1))
  fi
done

# --- tools/demo, each way README.md and its --help name ------------------------
for option in "" --system --custom-data-source --protozero; do
  if ZT_DEMO_BUILD_DIR="$build" timeout 300 "$src/tools/demo" $option >"$work/demo.log" 2>&1; then
    echo "ok: tools/demo $option"
  else
    echo "FAIL: tools/demo $option exited $?"
    sed 's/^/    /' "$work/demo.log" | tail -15
    failures=$((failures + 1))
  fi
done
for file in track_event_demo.pftrace system_demo.pftrace; do
  [ -s "$file" ] || { echo "FAIL: tools/demo wrote no $file"; failures=$((failures + 1)); }
done

if [ "$failures" -ne 0 ]; then
  echo "documented_commands_test: $failures failure(s)"
  exit 1
fi
echo "documented_commands_test: every documented command ran"
