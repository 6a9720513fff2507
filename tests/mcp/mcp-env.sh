#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
#
# mcp-env.sh PROGRAM [ARGS…]: runs a test of the mcp suite with the real
# MCP peers installed (install-mcp-peers.sh, cached outside the repository)
# and their prefix in PRS_MCP_PEERS.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
if ! PRS_MCP_PEERS=$(bash "$here/install-mcp-peers.sh" | tail -n 1); then
  echo "Bail out! the MCP peers could not be installed from npm" >&2
  exit 1
fi
export PRS_MCP_PEERS
exec "$@"
