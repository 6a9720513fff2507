#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# tests/fuzz/run.sh [SECONDS] [--parallel]: builds the libFuzzer targets with clang,
# ASan and UBSan in their own build folder (_build-fuzz) and runs each for
# SECONDS (default 60: CI's short form; 3600 for the full run). A crash
# leaves its input in _build-fuzz/fuzz-artifacts/ and fails the script.
# The corpus grows in _build-fuzz/fuzz-corpus/<target>/ (seeds in
# tests/fuzz/corpus/<target>/ are never modified). --parallel runs all the
# targets at once (the full run on a machine with cores to spare: eight hours
# become one).
set -euo pipefail

seconds=60
parallel=0
for arg in "$@"; do
  case "$arg" in
    --parallel) parallel=1 ;;
    *) seconds=$arg ;;
  esac
done
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${PROSPONSIVE_FUZZ_BUILD_DIR:-$top/_build-fuzz}
targets=(api-request layout param-scan discovery agent-file mcp-message mcp-serve provider-stream)

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: clang is missing (apt install clang)" >&2
  exit 1
fi

# werror off in this build only: clang warns where gcc (the build that
# enforces -Werror) does not, e.g. -Wunused-variable on g_autoptr lockers
if [ ! -f "$build/build.ninja" ]; then
  CC=clang meson setup "$build" "$top" -Dfuzzing=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dwerror=false --buildtype=debugoptimized >/dev/null
fi
# quiet on success; the compiler's words on failure
if ! out=$(ninja -C "$build" $(printf 'tests/fuzz/fuzz-%s ' "${targets[@]}") 2>&1); then
  printf '%s\n' "$out" | grep -E -A3 'error|FAILED' | head -40 >&2
  echo "fuzz: the fuzz targets did not build" >&2
  exit 1
fi

# handle_sigtrap: G_DEBUG's fatal criticals stop with SIGTRAP, which
# libFuzzer does not catch itself; through ASan the input is kept as a crash
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:handle_sigtrap=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export G_DEBUG=fatal-criticals
mkdir -p "$build/fuzz-artifacts"
fuzz_one() {
  local t=$1
  local corpus="$build/fuzz-corpus/$t"
  mkdir -p "$corpus"
  "$build/tests/fuzz/fuzz-$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -artifact_prefix="$build/fuzz-artifacts/$t-" \
    "$corpus" "$top/tests/fuzz/corpus/$t" >"$build/fuzz-artifacts/$t.log" 2>&1
}

report() {
  local t=$1 rc=$2
  local log="$build/fuzz-artifacts/$t.log"
  if [ "$rc" -eq 0 ]; then
    echo "fuzz $t: $(grep -Eo '#[0-9]+ +DONE.*' "$log" | tail -1 || tail -1 "$log") — no crash in ${seconds} s"
  else
    echo "fuzz $t: FAILED (see $log)"
    tail -30 "$log" | sed 's/^/  /'
  fi
}

status=0
if [ "$parallel" -eq 1 ]; then
  declare -A pids
  for t in "${targets[@]}"; do
    fuzz_one "$t" &
    pids[$t]=$!
  done
  for t in "${targets[@]}"; do
    rc=0
    wait "${pids[$t]}" || rc=$?
    report "$t" "$rc"
    [ "$rc" -eq 0 ] || status=1
  done
else
  for t in "${targets[@]}"; do
    rc=0
    fuzz_one "$t" || rc=$?
    report "$t" "$rc"
    [ "$rc" -eq 0 ] || status=1
  done
fi
exit $status
