#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl mcp add|list|test|remove against the real server-everything
(stdio and Streamable HTTP) and hostile servers: the secrets go to the
secrets store (here the 0600 fallback file: PROSPONSIVE_SECRETS=file), never
to SQLite or the output; a name taken by an n8n tool is visibly changed;
failures are clear sentences. TAP."""
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

ctl = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
everything = os.path.join(os.environ["PRS_MCP_PEERS"], "node_modules", "@modelcontextprotocol",
                          "server-everything", "dist", "index.js")
hostile = os.path.join(here, "hostile-server.py")
results = []


def check(ok, what):
    results.append((bool(ok), what))


def run(*args, stdin=None):
    return subprocess.run([ctl, "--data-dir", data, "mcp", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, PROSPONSIVE_SECRETS="file"))


def secrets():
    path = os.path.join(data, "secrets.json")
    return open(path).read() if os.path.exists(path) else ""


def stored_bytes():
    out = b""
    for name in ("prosponsive.db", "prosponsive.db-wal"):
        path = os.path.join(data, name)
        if os.path.exists(path):
            out += open(path, "rb").read()
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


data = tempfile.mkdtemp(prefix="prs-ctl-mcp-")
http_server = None
try:
    # ---- add ----
    r = run("add", "--name", "everything", "--command", "node", "--env", "LOG_LEVEL=debug", "--", everything, "stdio")
    check(r.returncode == 0 and "Added the MCP server “everything”" in r.stdout, "add a stdio server (arguments after --)")
    r = run("add", "--name", "keyed", "--command", "node", "--arg", everything, "--arg", "stdio", "--env-stdin",
            stdin="API_TOKEN=env-s3cret-value\n")
    check(r.returncode == 0, "add a stdio server with a secret environment variable (--env-stdin)")
    port = free_port()
    r = run("add", "--name", "remote", "--url", f"http://127.0.0.1:{port}/mcp", "--header-stdin", "--shared",
            stdin="Authorization: Bearer header-s3cret-value\nX-Extra: two\n")
    check(r.returncode == 0, "add a Streamable HTTP server with headers (--header-stdin)")
    for what, out in (("outputs", r.stdout + r.stderr), ("the SQLite files", stored_bytes().decode("latin-1"))):
        check("header-s3cret-value" not in out and "env-s3cret-value" not in out, f"no secret value in {what}")
    check("header-s3cret-value" in secrets() and "env-s3cret-value" in secrets(), "the values are among the secrets")

    check(run("add", "--command", "node").returncode == 2, "add without --name is a usage error")
    check(run("add", "--name", "x", "--url", "http://127.0.0.1:1/", "--arg", "a").returncode == 2,
          "--arg with --url is a usage error")
    r = run("add", "--name", "x", "--command", "node", "--env", "BAD NAME=1")
    check(r.returncode == 2 and "environment variable" in r.stderr, "an invalid --env is refused with a reason")
    r = run("add", "--name", "x", "--url", "file:///etc/passwd")
    check(r.returncode == 2 and "http://" in r.stderr, "a non-HTTP address is refused")
    r = run("add", "--name", "everything", "--command", "node")
    check(r.returncode == 2 and "exists already" in r.stderr, "a name in use is refused")

    # ---- list ----
    r = run("list")
    check(r.returncode == 0 and "everything — stdio: node" in r.stdout and "shared with MCP clients" in r.stdout,
          "list shows each server, its transport and sharing")
    listed = {s["name"]: s for s in json.loads(run("list", "--json").stdout)}
    check(listed["keyed"]["secretEnv"] == ["API_TOKEN"] and listed["remote"]["headers"] == ["Authorization", "X-Extra"],
          "list --json names the secrets without their values")
    check(listed["everything"]["args"] == [everything, "stdio"] and listed["everything"]["env"] == ["LOG_LEVEL=debug"],
          "list --json has the arguments and the plain environment")

    # ---- test ----
    # MCP names hold "__", which n8n's never do; should an n8n tool still
    # have one (planted here), the MCP tool is the one renamed, visibly
    db = sqlite3.connect(os.path.join(data, "prosponsive.db"))
    n8n_tool = {"name": "everything__echo", "description": "An n8n workflow.", "workflowId": "wf1",
                "workflowName": "Everything Echo", "descriptionSource": "workflow",
                "webhook": {"path": "echo", "method": "POST", "responseMode": "responseNode"},
                "parameters": []}
    db.execute("INSERT INTO tools (name, workflow_id, tool_json, schema_json, discovered_at)"
               " VALUES ('everything__echo', 'wf1', ?, '{}', 1)", (json.dumps(n8n_tool),))
    db.commit()
    db.close()
    r = run("test", "everything")
    check(r.returncode == 0 and "MCP revision 2025-06-18" in r.stdout and "mcp-servers/everything" in r.stdout,
          "test connects and names the server and revision")
    check("everything__get-sum — Returns the sum of two numbers" in r.stdout and "a (number, required)" in r.stdout,
          "test prints the tools with their descriptions and parameters")
    check("renamed: “everything__echo” is the name of an n8n tool" in r.stdout,
          "a name taken by an n8n tool is changed, and says so")
    t = json.loads(run("test", "everything", "--json").stdout)
    names = [tool["exposedName"] for tool in t["tools"]]
    echo = [tool for tool in t["tools"] if tool["name"] == "echo"][0]
    check(len(names) >= 10 and len(set(names)) == len(names) and "everything__echo" not in names,
          "test --json: unique names, none an n8n tool's")
    check(echo["exposedName"].startswith("everything__echo_") and echo["inputSchema"]["type"] == "object",
          "test --json: the renamed tool and its schema")
    check(run("test", "everything", "--json").stdout == run("test", "everything", "--json").stdout,
          "the names are the same on every start")

    # What test listed is kept: `tools` lists the MCP tools with their server
    r = subprocess.run([ctl, "--data-dir", data, "tools"], capture_output=True, text=True, timeout=60)
    sums = [line for line in r.stdout.splitlines() if line.startswith("everything__get-sum — Returns the sum")]
    check(r.returncode == 0 and "everything__echo — An n8n workflow." in r.stdout and
          len(sums) == 1 and sums[0].endswith(" (MCP server “everything”)"),
          "tools lists the n8n tools and the MCP tools with their server")
    listed_tools = json.loads(subprocess.run([ctl, "--data-dir", data, "tools", "--json"], capture_output=True,
                                             text=True, timeout=60).stdout)
    get_sum = [tool for tool in listed_tools if tool["name"] == "everything__get-sum"]
    check(len(get_sum) == 1 and get_sum[0]["mcpServer"] == "everything" and get_sum[0]["mcpTool"] == "get-sum" and
          [p["name"] for p in get_sum[0]["parameters"]] == ["a", "b"] and
          get_sum[0]["inputSchema"]["required"] == ["a", "b"],
          "tools --json: the server, its own name for the tool, its parameters and schema")
    r = subprocess.run([ctl, "--data-dir", data, "rule", "add", "--tool", "everything__get-sum", "--action",
                        "approve"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 0 and "everything__get-sum" in r.stdout, "rule add --tool takes an MCP tool's name")

    # Streamable HTTP: the real server, with the headers from the keyring
    env = dict(os.environ, PORT=str(port))
    http_server = subprocess.Popen(["node", everything, "streamableHttp"], env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
    for line in http_server.stdout:
        if "listening on port" in line:
            break
    r = run("test", "remote")
    check(r.returncode == 0 and "everything__echo" not in r.stdout and "remote__echo — Echoes back" in r.stdout,
          "test over Streamable HTTP")

    # Failures in words
    run("add", "--name", "missing", "--command", "prosponsive-no-such-server")
    r = run("test", "missing")
    check(r.returncode == 1 and "“prosponsive-no-such-server” was not found" in r.stderr,
          "a command that is not installed is named")
    run("add", "--name", "dies", "--command", "python3", "--", hostile, "--mode", "exit-at-start")
    r = run("test", "dies")
    check(r.returncode == 1 and "exited with code 1" in r.stderr and "cannot open the database" in r.stderr,
          "a server that exits: its code and its last words")
    run("add", "--name", "sneaky", "--command", "python3", "--", hostile, "--mode", "injection")
    r = run("test", "sneaky")
    check(r.returncode == 0 and "\x1b" not in r.stdout and "\x07" not in r.stdout and "\u009b" not in r.stdout,
          "control characters in descriptions and names never reach the terminal")
    run("add", "--name", "odd", "--command", "python3", "--", hostile, "--mode", "odd-info")
    r = run("test", "odd")
    check(r.returncode == 0 and "\x1b" not in r.stdout and "\x07" not in r.stdout and "CRITICAL" not in r.stderr
          and "server & <b>co</b> ? (MCP revision" in r.stdout,
          "a server's name with escapes and a version that is not text: neither reaches the terminal")
    r = run("test", "nobody")
    check(r.returncode == 1, "test of an unknown server fails")

    # ---- remove ----
    r = run("remove", "remote")
    check(r.returncode == 0 and "header-s3cret-value" not in secrets(), "remove takes the secrets with it")
    check(run("remove", "remote").returncode == 1, "removing it again fails")
    check("remote" not in [s["name"] for s in json.loads(run("list", "--json").stdout)], "it is gone from the list")
finally:
    if http_server is not None:
        http_server.kill()
        http_server.wait()
    shutil.rmtree(data, ignore_errors=True)

print(f"1..{len(results)}")
for n, (ok, what) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
sys.exit(0 if all(ok for ok, _ in results) else 1)
