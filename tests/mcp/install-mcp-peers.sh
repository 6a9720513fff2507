#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Installs the real MCP peers the mcp suite talks to, from the npm registry,
# into a cache folder outside the repository (like tests/n8n/install-n8n.sh):
# the reference server @modelcontextprotocol/server-everything and the
# official TypeScript SDK @modelcontextprotocol/sdk (which the hostile test
# servers are not built on: they speak the wire format by hand on purpose).
# Versions are pinned, so every run talks to the same peers. Prints the
# prefix (the folder that holds node_modules) on its last line.
set -euo pipefail

EVERYTHING_VER=${MCP_EVERYTHING_VERSION:-2026.8.31}
SDK_VER=${MCP_SDK_VERSION:-1.32.2}
CACHE=${PROSPONSIVE_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/prosponsive-tests}
DEST="$CACHE/mcp-$EVERYTHING_VER-sdk-$SDK_VER"
ENTRY="$DEST/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

if [ -f "$DEST/.complete" ] && [ -f "$ENTRY" ]; then
  echo "$DEST"
  exit 0
fi

command -v node >/dev/null || { echo "install-mcp-peers: Node.js is required" >&2; exit 1; }
command -v npm >/dev/null || { echo "install-mcp-peers: npm is required" >&2; exit 1; }

mkdir -p "$DEST"
exec 9>"$CACHE/.mcp-$EVERYTHING_VER-sdk-$SDK_VER.lock"
flock 9
if [ -f "$DEST/.complete" ]; then echo "$DEST"; exit 0; fi

cd "$DEST"
cat > package.json <<JSON
{
  "name": "prosponsive-mcp-test-peers",
  "private": true,
  "dependencies": {
    "@modelcontextprotocol/server-everything": "$EVERYTHING_VER",
    "@modelcontextprotocol/sdk": "$SDK_VER"
  }
}
JSON
t0=$(date +%s)
npm install --no-audit --no-fund --ignore-scripts --loglevel=error >&2
t1=$(date +%s)
node "$ENTRY" --help >/dev/null 2>&1 || true
test -f "$ENTRY" || { echo "install-mcp-peers: server-everything has no $ENTRY" >&2; exit 1; }
echo "install-mcp-peers: npm install $((t1 - t0)) s" >&2
touch "$DEST/.complete"
echo "$DEST"
