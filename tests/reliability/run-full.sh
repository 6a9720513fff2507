#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# tests/reliability/run-full.sh: the reliability suite's full forms, on
# demand (CI runs the short ones: `meson test --suite reliability` and the
# api suite's 20-kill durability test):
#   - durability: 200 SIGKILLs while a client posts inbound messages;
#   - the store shared with prosponsive-ctl: 200 SIGKILLs while API writes
#     and ctl verbs run side by side;
#   - a scheduled prompt: 200 SIGKILLs around its due times;
#   - disk full and prompt injection (as in CI);
#   - fuzzing: each libFuzzer target for FUZZ_SECONDS (default 3600); with
#     FUZZ_PARALLEL=1 all targets at once.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${PROSPONSIVE_BUILD_DIR:-$top/_build}
export G_DEBUG=gc-friendly,fatal-warnings GSETTINGS_BACKEND=memory \
  GSETTINGS_SCHEMA_DIR="$build/data" PROSPONSIVE_SECRETS=file LC_ALL=C.UTF-8

[ -f "$build/build.ninja" ] || meson setup "$build" "$top" --buildtype=debugoptimized >/dev/null
ninja -C "$build"
app=(--prosponsive "$build/src/app/prosponsive" --ctl "$build/src/app/prosponsive-ctl")

status=0
(cd "$top/tests/api" && python3 test-api-durability.py --full "${app[@]}") || status=1
(cd "$top/tests/reliability" && python3 test-store-sharing.py --full "${app[@]}") || status=1
(cd "$top/tests/reliability" && python3 test-schedule-kill.py --full "${app[@]}") || status=1
(cd "$top/tests/reliability" && python3 test-disk-full.py "${app[@]}") || status=1
(cd "$top/tests/reliability" && python3 test-injection.py "${app[@]}") || status=1
"$top/tests/fuzz/run.sh" "${FUZZ_SECONDS:-3600}" ${FUZZ_PARALLEL:+--parallel} || status=1
exit $status
