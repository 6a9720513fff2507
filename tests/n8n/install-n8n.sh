#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Installs a real n8n 1.123.x from the npm registry into a cache folder
# outside the repository, so the n8n test suite runs against the real thing
# and later runs reuse it. Prints the prefix (the folder that holds
# node_modules/n8n) on its last line.
#
# Offline-safe recipe (see shared/reference/n8n-install.sh):
#  - xlsx is overridden to the registry release (the declared tarball URL is
#    not reachable);
#  - install scripts are skipped (isolated-vm needs Node >= 22), then the one
#    native module n8n needs, sqlite3, is compiled from source.
set -euo pipefail

VER=${N8N_VERSION:-1.123.81}
CACHE=${PROSPONSIVE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prosponsive-tests}
DEST="$CACHE/n8n-$VER"

if [ -f "$DEST/.complete" ] && [ -x "$DEST/node_modules/n8n/bin/n8n" ]; then
  echo "$DEST"
  exit 0
fi

command -v node >/dev/null || { echo "install-n8n: Node.js >= 20.19 is required" >&2; exit 1; }
command -v npm >/dev/null || { echo "install-n8n: npm is required" >&2; exit 1; }

mkdir -p "$DEST"
exec 9>"$CACHE/.n8n-$VER.lock"
flock 9
if [ -f "$DEST/.complete" ]; then echo "$DEST"; exit 0; fi

cd "$DEST"
cat > package.json <<JSON
{
  "name": "prosponsive-n8n-test-install",
  "private": true,
  "dependencies": { "n8n": "$VER" },
  "overrides": { "xlsx": "0.18.5" }
}
JSON
t0=$(date +%s)
npm install --no-audit --no-fund --ignore-scripts --loglevel=error >&2
t1=$(date +%s)
npm rebuild sqlite3 --foreground-scripts >&2
t2=$(date +%s)
node -e "require('$DEST/node_modules/sqlite3')" >&2
echo "install-n8n: npm install $((t1 - t0)) s, sqlite3 build $((t2 - t1)) s" >&2
touch "$DEST/.complete"
echo "$DEST"
