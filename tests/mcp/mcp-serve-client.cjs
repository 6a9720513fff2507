// SPDX-License-Identifier: GPL-3.0-or-later
// The official TypeScript SDK's client (@modelcontextprotocol/sdk, installed
// by install-mcp-peers.sh into PRS_MCP_PEERS) driving `prosponsive-ctl mcp
// serve` over stdio, for test-mcp-serve.py. Prints one JSON line on stdout:
//   list:                      {"protocolVersion", "serverName", "tools": [{name, description, inputSchema}]}
//   call NAME ARGUMENTS_JSON:  {"result", "progress": [{progress, total, message}],
//     "elapsedMs": how long callTool took, from the request to the result}
//   cancel NAME ARGUMENTS_JSON PROGRESS_COUNT: the call aborted (AbortSignal) after
//     that many progress notifications, then 3 s of listening:
//     {"aborted": "why callTool ended", "progress", "errors": [what the SDK heard after]}
// or {"error": "..."} when the SDK failed. The server's standard error goes
// to ours, so that the test can read which call it started.
// Usage: node mcp-serve-client.cjs CTL DATA_DIR PORT APPROVAL_TIMEOUT list|call [NAME ARGS]
'use strict';

const { createRequire } = require('module');
const path = require('path');

const peers = createRequire(path.join(process.env.PRS_MCP_PEERS, 'package.json'));
const { Client } = peers('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = peers('@modelcontextprotocol/sdk/client/stdio.js');

async function main () {
  const [ctl, dataDir, port, timeout, what, name, args] = process.argv.slice(2);
  const transport = new StdioClientTransport({
    command: ctl,
    args: ['--data-dir', dataDir, 'mcp', 'serve', '--port', port, '--approval-timeout', timeout],
    env: process.env,
    stderr: 'inherit',
  });
  const client = new Client({ name: 'prosponsive-test', version: '1.0.0' });
  await client.connect(transport);
  let out;
  if (what === 'list') {
    const listed = await client.listTools();
    out = {
      protocolVersion: transport._protocolVersion ?? null,
      serverName: client.getServerVersion()?.name,
      tools: listed.tools,
    };
  } else if (what === 'cancel') {
    const progress = [];
    const errors = [];
    const controller = new AbortController();
    const wanted = Number(process.argv[9]);
    // A result or progress for the cancelled request would land here
    client.onerror = (e) => errors.push(String(e && e.message ? e.message : e));
    let aborted = null;
    try {
      await client.callTool({ name, arguments: JSON.parse(args) }, undefined, {
        signal: controller.signal,
        onprogress: (p) => {
          progress.push(p);
          if (progress.length === wanted)
            controller.abort('the test no longer wants it');
        },
        timeout: 10 * 60 * 1000,
      });
      aborted = 'callTool returned a result';
    } catch (e) {
      aborted = String(e && e.message ? e.message : e);
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
    out = { aborted, progress, errors };
  } else {
    const progress = [];
    const started = performance.now();
    const result = await client.callTool({ name, arguments: JSON.parse(args) }, undefined, {
      onprogress: (p) => progress.push(p),
      // The SDK's own deadline is longer than any wait the test makes
      timeout: 10 * 60 * 1000,
    });
    out = { result, progress, elapsedMs: performance.now() - started };
  }
  process.stdout.write(JSON.stringify(out) + '\n');
  await client.close();
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ error: String(e && e.message ? e.message : e) }) + '\n');
  process.exit(1);
});
