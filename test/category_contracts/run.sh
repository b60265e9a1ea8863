#!/usr/bin/env bash
# Checks the compile- and link-time contracts that include/zt/tracing/category.h
# documents, by building small programs that break them. Each case first
# builds a control that differs only in the broken part, so a case can fail
# only for its own reason; the messages are matched on symbol and category
# names, not on one compiler's or linker's wording.
# Usage: run.sh [compiler [flags...]]
#   default: ${CXX:-c++} -std=c++17 -I<repository>/include
# Prints one line per case; exits nonzero if any failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
  cxx=$1
  shift
  flags=("$@")
else
  cxx=${CXX:-c++}
  flags=(-std=c++17 "-I$here/../../include")
fi
export LC_ALL=C  # Plain quotes in GCC's messages.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM  # Through the EXIT trap.
out=$work/out
failures=0

# Compiles or links with the given arguments, bounded in time; the
# compiler's output goes to $out. This directory is the include root of the
# two stand-in libraries' headers (<lib_one_categories.h>, ...).
build() {
  timeout 120 "$cxx" "${flags[@]}" "-I$here" "$@" >"$out" 2>&1
}
# Compiles source $1 into object $2 with extra flags; false (and the output
# in $out) if it does not compile.
object() {
  local src=$1 obj=$2
  shift 2
  build -c "$here/$src" -o "$work/$obj" "$@"
}
pass() { echo "ok      $1"; }
fail() {
  echo "FAILED  $1: $2"
  sed 's/^/    /' "$out"
  failures=$((failures + 1))
}

# Case a for one macro: $1 names it, $2 is an extra flag (or empty).
undeclared_case() {
  local case_a="a. an undeclared category is a compile error naming it ($1)"
  local extra=()
  [ -n "$2" ] && extra=("$2")
  if ! build -fsyntax-only -DDECLARE_THE_CATEGORY "${extra[@]}" "$here/undeclared_category.cc"; then
    fail "$case_a" "the control (category declared) does not compile"
  elif build -fsyntax-only "${extra[@]}" "$here/undeclared_category.cc"; then
    fail "$case_a" "compiles with \"never.declared\" undeclared"
  elif ! grep -q 'category_not_declared' "$out"; then
    fail "$case_a" "no mention of category_not_declared"
  # A diagnostic (file:line:col:), not an echoed source line, names the string.
  elif ! grep -Eq ':[0-9]+:[0-9]+:.*"never\.declared"' "$out"; then
    fail "$case_a" "no diagnostic names \"never.declared\""
  else
    pass "$case_a"
  fi
}
undeclared_case TRACE_EVENT ""
undeclared_case TRACE_EVENT_CATEGORY_ENABLED -DASK_ENABLED

case_b="b. one slot declared by two headers in one file is a compile error"
if ! build -fsyntax-only -DLIB_ONE_SLOT=3 -DLIB_TWO_SLOT=4 "$here/uses_both_libraries.cc"; then
  fail "$case_b" "the control (slots 3 and 4) does not compile"
elif build -fsyntax-only -DLIB_ONE_SLOT=3 -DLIB_TWO_SLOT=3 "$here/uses_both_libraries.cc"; then
  fail "$case_b" "compiles with both headers on slot 3"
elif ! grep -Eq 'redefinition of .*CategoryDeclarationSlot<3>' "$out"; then
  fail "$case_b" "no redefinition of CategoryDeclarationSlot<3>"
else
  pass "$case_b"
fi

# The symbol of slot N's definition, as linkers print it: demangled or not.
definition_symbol() {
  echo "SlotDefinition<$1>::kDefined|_ZN2zt8internal14SlotDefinitionILi$1EE8kDefinedE"
}

case_c="c. two definitions of one slot in a program fail to link"
if ! { object link_stub.cc stub.o && object lib_one.cc one3.o -DLIB_ONE_SLOT=3 &&
       object lib_two.cc two4.o -DLIB_TWO_SLOT=4 && object lib_two.cc two3.o -DLIB_TWO_SLOT=3; }; then
  fail "$case_c" "a source does not compile"
elif ! build "$work/stub.o" "$work/one3.o" "$work/two4.o" -o "$work/program"; then
  fail "$case_c" "the control (slots 3 and 4) does not link"
elif build "$work/stub.o" "$work/one3.o" "$work/two3.o" -o "$work/program"; then
  fail "$case_c" "links with slot 3 defined twice"
elif ! grep -Eq "$(definition_symbol 3)" "$out"; then
  fail "$case_c" "the link error does not name SlotDefinition<3>::kDefined"
else
  pass "$case_c"
fi

case_d="d. a slot declared and used but never defined fails to link"
if ! object uses_both_libraries.cc uses.o -DLIB_ONE_SLOT=3 -DLIB_TWO_SLOT=4; then
  fail "$case_d" "uses_both_libraries.cc does not compile"
elif ! build "$work/stub.o" "$work/one3.o" "$work/two4.o" "$work/uses.o" -o "$work/program"; then
  fail "$case_d" "the control (both slots defined) does not link"
elif build "$work/stub.o" "$work/one3.o" "$work/uses.o" -o "$work/program"; then
  fail "$case_d" "links without slot 4's definition"
elif ! grep -Eq "$(definition_symbol 4)" "$out"; then
  fail "$case_d" "the link error does not name SlotDefinition<4>::kDefined"
else
  pass "$case_d"
fi

case_e="e. a name two slots declare resolves to the lower slot"
if ! build -fsyntax-only "$here/shared_name.cc"; then
  fail "$case_e" "shared_name.cc does not compile (its static_asserts)"
else
  pass "$case_e"
fi

case_f="f. a use sees the slots declared above it, not below"
if ! build -fsyntax-only "$here/declared_later.cc"; then
  fail "$case_f" "declared_later.cc does not compile (its static_asserts)"
else
  pass "$case_f"
fi

case_h="h. TRACE_EVENT_CATEGORY_ENABLED is an expression wherever one may be"
if ! build -fsyntax-only "$here/enabled_anywhere.cc"; then
  fail "$case_h" "enabled_anywhere.cc does not compile"
else
  pass "$case_h"
fi

case_g="g. files seeing different slots keep their own ids at run time"
# Unoptimized, where a lookup left as code would be called, not folded; in
# both link orders, as the linker keeps the first of two weak definitions.
if ! { object link_stub.cc main.o -DCHECK_RUNTIME_IDS -O0 &&
       object id_seen_by_both.cc both.o -DLIB_ONE_SLOT=5 -DLIB_TWO_SLOT=2 -O0 &&
       object id_seen_by_one.cc one.o -DLIB_ONE_SLOT=5 -O0 &&
       object lib_one.cc one5.o -DLIB_ONE_SLOT=5 -O0 &&
       object lib_two.cc two2.o -DLIB_TWO_SLOT=2 -O0; }; then
  fail "$case_g" "a source does not compile"
elif ! build "$work/main.o" "$work/both.o" "$work/one.o" "$work/one5.o" "$work/two2.o" \
       -o "$work/ids_both_first" ||
     ! build "$work/main.o" "$work/one.o" "$work/both.o" "$work/one5.o" "$work/two2.o" \
       -o "$work/ids_one_first"; then
  fail "$case_g" "does not link"
elif ! timeout 60 "$work/ids_both_first" >"$out" 2>&1 ||
     ! timeout 60 "$work/ids_one_first" >>"$out" 2>&1; then
  fail "$case_g" "an id read at run time is another file's"
else
  pass "$case_g"
fi

exit $((failures > 0))
