#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl rule add|list|remove (docs/runs.md "Approval rules"): a
rule naming a tool that no discovery found is kept (rules are set up before
the first discovery, an MCP server may be off) but standard error says, in
words, that no discovered tool has that name; a discovered n8n tool (seeded
as check-workflow derives it) and an MCP server's tool (kept by `mcp test`
from tests/mcp/hostile-server.py) get no warning. TAP."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from ctltap import Tap

ctl = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
mcp_server = os.path.join(here, "..", "mcp", "hostile-server.py")
tap = Tap()
WORKFLOW = {"id": "wf1", "name": "Email Move To Folder", "active": True,
            "nodes": [{"name": "Webhook", "type": "n8n-nodes-base.webhook", "webhookId": "abc",
                       "parameters": {"httpMethod": "POST", "path": "move"}}]}


def run(data, *args):
    return subprocess.run([ctl, "--data-dir", data, *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PROSPONSIVE_SECRETS="file", LANGUAGE="", LC_ALL="C.UTF-8"))


def seed_n8n_tool(data, work):
    """The tools table as discovery leaves it, with the tool check-workflow derives."""
    path = os.path.join(work, "workflow.json")
    with open(path, "w") as f:
        json.dump(WORKFLOW, f)
    tool = json.loads(run(data, "check-workflow", "--json", path).stdout)["tool"]
    db = sqlite3.connect(os.path.join(data, "prosponsive.db"))
    db.execute("INSERT INTO tools (name, workflow_id, webhook_path, webhook_method, response_mode, webhook_id,"
               " webhook_node_name, created_at, tool_json, schema_json, discovered_at)"
               " VALUES (?, ?, ?, 'POST', ?, 'abc', 'Webhook', '2026-01-01T00:00:00Z', ?, ?, ?)",
               (tool["name"], tool["workflowId"], tool["webhook"]["path"], tool["webhook"]["responseMode"],
                json.dumps(tool), json.dumps(tool["inputSchema"]), int(time.time())))
    db.commit()
    db.close()
    return tool["name"]


def main():
    work = tempfile.mkdtemp(prefix="prs-ctl-rules-")
    data = os.path.join(work, "data")
    try:
        # Before any discovery: kept, with a warning that names the tool
        r = run(data, "rule", "add", "--tool", "email_mvoe_to_folder", "--action", "approve")
        tap.ok(r.returncode == 0 and r.stdout.startswith("Rule 1: approve calls of tool email_mvoe_to_folder"),
               "rule add with an unknown tool exits 0 and adds the rule", r.stdout + r.stderr)
        tap.ok("No discovered tool is named “email_mvoe_to_folder”" in r.stderr
               and "prosponsive-ctl tools" in r.stderr and "No discovered tool" not in r.stdout,
               "standard error says no discovered tool has that name, and how to list them", r.stderr)
        listed = json.loads(run(data, "rule", "list", "--json").stdout)
        tap.ok([x["tool"] for x in listed] == ["email_mvoe_to_folder"], "the rule was kept", listed)

        r = run(data, "rule", "add", "--agent", "prosponsive", "--action", "deny")
        tap.ok(r.returncode == 0 and r.stderr == "", "a rule without --tool warns of nothing", r.stderr)

        name = seed_n8n_tool(data, work)
        r = run(data, "rule", "add", "--tool", name, "--action", "approve")
        tap.ok(r.returncode == 0 and r.stderr == "", "a discovered n8n tool gets no warning", r.stderr)
        r = run(data, "rule", "add", "--tool", name.upper(), "--action", "approve")
        tap.ok(r.returncode == 0 and "No discovered tool is named “%s”" % name.upper() in r.stderr,
               "tool names match exactly, as rules do (another case is warned of)", r.stderr)

        r = run(data, "mcp", "add", "--name", "files", "--command", sys.executable, "--arg", mcp_server)
        tested = run(data, "mcp", "test", "files")
        tap.ok(r.returncode == 0 and tested.returncode == 0 and "echo" in tested.stdout,
               "mcp test keeps the tools of an MCP server", r.stderr + tested.stdout + tested.stderr)
        r = run(data, "rule", "add", "--tool", "files__echo", "--action", "approve")
        tap.ok(r.returncode == 0 and r.stderr == "", "an MCP server's tool, as models see it, gets no warning",
               r.stderr)
        r = run(data, "rule", "add", "--tool", "echo", "--action", "approve")
        tap.ok(r.returncode == 0 and "No discovered tool is named “echo”" in r.stderr,
               "an MCP tool's own name without its server's is warned of", r.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return tap.finish()


sys.exit(main())
