#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What `prosponsive-ctl agent import` and `check-workflow` read, and what it
may cost, as TAP.

Usage: test-ctl-limits.py PROSPONSIVE_CTL

Files past the documented limits (agent files: 1 MiB, 1,000 allowed tools,
256 parameters per tool; workflows: 16 MiB, 256 parameters per tool) are
refused or reported in words, and files at the limits are read within a
CPU-time or address-space limit that the old quadratic or tree-building
code exceeded (not wall-clock timings).
"""

import json
import os
import resource
import subprocess
import sys
import tempfile

from ctltap import Tap

AGENT_MAX_BYTES = 1024 * 1024
AGENT_MAX_TOOLS = 1000
TOOL_MAX_PARAMS = 256
WORKFLOW_MAX_BYTES = 16 * 1024 * 1024

CPU_SECONDS = 10
ADDRESS_SPACE = 768 * 1024 * 1024
# ASan reserves terabytes of address space: no limit can apply there
SANITIZED = bool(os.environ.get("PROSPONSIVE_SANITIZED"))


def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def ctl(binary, data_dir, *args):
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C.UTF-8")
    return subprocess.run([binary, "--data-dir", data_dir] + list(args), capture_output=True,
                          text=True, env=env, timeout=300, preexec_fn=limits)


def agent_file(path, tools, prompt="Answer briefly.", guidance=None):
    with open(path, "w") as f:
        f.write("---\nid: big\nname: Big\nallowedTools:\n")
        for name in tools:
            f.write("  - %s\n" % name)
        if guidance is not None:
            f.write("toolParameterGuidance:\n")
            for tool, params in guidance.items():
                f.write("  %s:\n" % tool)
                for p in params:
                    f.write("    %s:\n      source: ask\n" % p)
        f.write("---\n%s\n" % prompt)


def workflow_file(path, n_params):
    code = "\n".join('const v%d = body.p%d ?? {"a":[1,2]};' % (i, i) for i in range(n_params))
    workflow = {"id": "w1", "name": "Generated", "active": True, "connections": {}, "nodes": [
        {"name": "Webhook", "type": "n8n-nodes-base.webhook", "webhookId": "x",
         "parameters": {"httpMethod": "POST", "path": "gen", "responseMode": "lastNode"}},
        {"name": "Code", "type": "n8n-nodes-base.code", "parameters": {"jsCode": code}}]}
    with open(path, "w") as f:
        json.dump(workflow, f)
    return os.path.getsize(path)


def killed(r):
    return r.returncode < 0 or r.returncode in (133, 134, 137, 152)


def test_agents(tap, binary, tmp):
    data = os.path.join(tmp, "agents")
    path = os.path.join(tmp, "agent.md")

    # 200,000 allowed tools: the old dedup compared each with all before
    # it (65 s); now the file is refused by its size before any parsing
    agent_file(path, ("tool_%d" % i for i in range(200000)))
    r = ctl(binary, data, "agent", "import", path)
    tap.ok(r.returncode == 2 and not killed(r) and "larger than 1.0" in r.stderr and "MiB" in r.stderr,
           "200,000 allowed tools (%d bytes): refused by size within %d s of CPU"
           % (os.path.getsize(path), CPU_SECONDS), "exit %d: %s" % (r.returncode, r.stderr))

    # Under the size limit, too many tools are named in words
    agent_file(path, ("t%d" % i for i in range(AGENT_MAX_TOOLS + 1)))
    r = ctl(binary, data, "agent", "import", path)
    tap.ok(r.returncode == 2 and "lists 1001 tools" in r.stderr and "at most 1000" in r.stderr
           and "Line 5" in r.stderr, "1,001 allowed tools: refused, the line and the limit named",
           "exit %d: %s" % (r.returncode, r.stderr))

    # At the limit, with repeats: kept once each, in order
    names = ["t%d" % (i % 600) for i in range(AGENT_MAX_TOOLS)]
    agent_file(path, names)
    r = ctl(binary, data, "agent", "import", path)
    ok = r.returncode == 0
    if ok:
        listed = ctl(binary, data, "agent", "list", "--json")
        agents = {a["id"]: a for a in json.loads(listed.stdout)}
        ok = agents.get("big", {}).get("allowedTools") == ["t%d" % i for i in range(600)]
    tap.ok(ok, "1,000 allowed tools with repeats: imported, each kept once in order",
           "exit %d: %s" % (r.returncode, r.stderr))

    # Guidance: at most 256 parameters of one tool
    agent_file(path, ["t0"], guidance={"t0": ["p%d" % i for i in range(TOOL_MAX_PARAMS + 1)]})
    r = ctl(binary, data, "agent", "import", "--replace", path)
    tap.ok(r.returncode == 2 and "257 parameters" in r.stderr and "at most 256" in r.stderr,
           "guidance for 257 parameters of one tool: refused", "exit %d: %s" % (r.returncode, r.stderr))

    # A prompt that makes the file 1 MiB + 1 byte
    agent_file(path, ["t0"], prompt="")
    pad = AGENT_MAX_BYTES + 1 - os.path.getsize(path)
    agent_file(path, ["t0"], prompt="x" * pad)
    r = ctl(binary, data, "agent", "import", "--replace", path)
    tap.ok(os.path.getsize(path) == AGENT_MAX_BYTES + 1 and r.returncode == 2 and "1.0" in r.stderr,
           "an agent file of 1 MiB + 1 byte: refused", "exit %d: %s" % (r.returncode, r.stderr))


def test_workflows(tap, binary, tmp):
    data = os.path.join(tmp, "workflows")
    path = os.path.join(tmp, "workflow.json")

    # Just under 16 MiB, 350,000 parameters: the old scanner kept every one
    # (1.5 GB); now the first 256, and the checklist says why it is no tool
    size = workflow_file(path, 350000)
    r = ctl(binary, data, "check-workflow", "--json", path)
    ok = r.returncode == 1 and not killed(r)
    if ok:
        out = json.loads(r.stdout)
        checks = {c["id"]: c for c in out["checks"]}
        ok = (out["discoverable"] is False and checks["parameters"]["status"] == "fail"
              and "more than 256 parameters" in checks["parameters"]["message"]
              and len(out["tool"]["parameters"]) == TOOL_MAX_PARAMS)
    tap.ok(size < WORKFLOW_MAX_BYTES and ok,
           "a Code node reading 350,000 parameters (%.1f MiB): not discoverable, in words, within %d MiB%s"
           % (size / 1048576.0, ADDRESS_SPACE >> 20, " (no memory limit under ASan)" if SANITIZED else ""),
           "exit %d: %s" % (r.returncode, r.stderr[-500:]))

    r = ctl(binary, data, "check-workflow", path)
    tap.ok(r.returncode == 1 and "more than 256 parameters" in r.stdout,
           "the text checklist says so too", r.stdout[-500:])

    size = workflow_file(path, 360000)
    r = ctl(binary, data, "check-workflow", path)
    tap.ok(size > WORKFLOW_MAX_BYTES and r.returncode == 2 and "larger than 16.0" in r.stderr,
           "a workflow over 16 MiB: exit 2 with the limit named", "exit %d: %s" % (r.returncode, r.stderr))

    size = workflow_file(path, TOOL_MAX_PARAMS)
    r = ctl(binary, data, "check-workflow", "--json", path)
    ok = r.returncode == 0
    if ok:
        out = json.loads(r.stdout)
        ok = out["discoverable"] is True and len(out["tool"]["parameters"]) == TOOL_MAX_PARAMS
    tap.ok(ok, "exactly 256 parameters: a tool", "exit %d: %s" % (r.returncode, r.stderr))


def main():
    if len(sys.argv) != 2:
        print("Bail out! usage: test-ctl-limits.py PROSPONSIVE_CTL")
        return 1
    tap = Tap()
    with tempfile.TemporaryDirectory() as tmp:
        test_agents(tap, sys.argv[1], tmp)
        test_workflows(tap, sys.argv[1], tmp)
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
