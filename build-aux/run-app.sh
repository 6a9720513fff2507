#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Installs what is missing on Debian 12, builds, and starts Prosponsive from
# the build folder (its GSettings schema and resources included). Arguments
# go to the program, e.g. --headless or --data-dir DIR.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${PROSPONSIVE_BUILD_DIR:-_build}

bash build-aux/install-deps.sh
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" --buildtype=debugoptimized
fi
ninja -C "$build"
exec meson devenv -C "$build" -w "$top" "$top/$build/src/app/prosponsive" "$@"
