#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# tests/sanitize.sh [meson test args]: the unit and api suites under
# AddressSanitizer + UndefinedBehaviorSanitizer, in their own build folder:
#   meson setup _build-asan -Db_sanitize=address,undefined -Db_lundef=false
# (meson's built-in option; nothing else to configure). build-aux/run-tests.sh
# runs it after the main suites.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${PROSPONSIVE_ASAN_BUILD_DIR:-$top/_build-asan}

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$top" -Db_sanitize=address,undefined -Db_lundef=false \
    --buildtype=debugoptimized >/dev/null
fi
ninja -C "$build"

# GLib's own one-time allocations are reported as leaks: leaks are off,
# every other error aborts. The suites' own environment still applies.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
# Tests that measure RSS skip those checks under ASan (its quarantine keeps freed memory).
export PROSPONSIVE_SANITIZED=1
meson test -C "$build" --print-errorlogs --num-processes 2 --suite unit --suite api \
  --timeout-multiplier 3 "$@"
