#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The whole test suite, from a clean clone on Debian 12: installs what is
# missing (Debian packages; a real n8n from npm, cached outside the
# repository; the MCP peers from npm likewise), builds, and runs every meson
# suite (unit, api, ui, n8n, email, data, docs, reliability, mcp)
# under a virtual X server. Extra arguments go to `meson test` (for
# example --suite unit).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${PROSPONSIVE_BUILD_DIR:-_build}

bash build-aux/install-deps.sh

# The n8n suite needs a real n8n; installing it takes minutes once, then
# seconds (the cache lives in ~/.cache/prosponsive-tests).
echo "run-tests: n8n at $(bash tests/n8n/install-n8n.sh)"
# The mcp suite talks to the reference MCP server and SDK from npm (seconds
# once cached in the same folder).
echo "run-tests: MCP peers at $(bash tests/mcp/install-mcp-peers.sh)"

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" --buildtype=debugoptimized
fi
ninja -C "$build"

status=0
xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
  meson test -C "$build" --print-errorlogs --num-processes 2 "$@" || status=$?

# The whole run (no suite named) also runs the unit and api suites under
# ASan+UBSan and each libFuzzer target for 60 s, in their own build folders.
# PROSPONSIVE_QUICK=1 skips them on a developer's machine.
extra_status=0
if [ $# -eq 0 ] && [ "${PROSPONSIVE_QUICK:-0}" != 1 ]; then
  echo "run-tests: unit and api suites under AddressSanitizer and UBSan"
  PROSPONSIVE_ASAN_BUILD_DIR="$top/${build}-asan" bash tests/sanitize.sh || extra_status=1
  echo "run-tests: fuzzing each target for 60 s"
  PROSPONSIVE_FUZZ_BUILD_DIR="$top/${build}-fuzz" bash tests/fuzz/run.sh 60 || extra_status=1
fi

# One plain closing line that any CI reader understands.
python3 - "$build/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
with open(sys.argv[1]) as log:
    for line in log:
        result = json.loads(line).get("result")
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
if [ $extra_status -ne 0 ]; then
  echo "run-tests: the sanitizer or fuzzing run failed (see above)"
  [ $status -ne 0 ] || status=1
fi
exit $status
