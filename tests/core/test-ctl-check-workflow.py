#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl check-workflow (docs/ctl.md, docs/workflows.md): the
checklist and the tool an exported workflow would become, offline, as text
and with --json; exit 0 when the workflow is a tool, 1 when it is not, 2 for
a file that cannot be read or is no workflow, and for wrong usage. TAP.

Usage: test-ctl-check-workflow.py PROSPONSIVE_CTL"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ctl = sys.argv[1]
results = []


def check(ok, what, detail=None):
    results.append((bool(ok), what, detail))


def run(*args):
    return subprocess.run([ctl, "--data-dir", data, "check-workflow", *args],
                          capture_output=True, text=True, timeout=60)


def write(name, obj):
    path = os.path.join(data, name)
    with open(path, "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))
    return path


def workflow(active=True, method="POST", code=None):
    nodes = [{"name": "Webhook", "type": "n8n-nodes-base.webhook", "typeVersion": 2.1, "position": [0, 0],
              "webhookId": "00000000-0000-4000-8000-000000000001",
              "parameters": {"httpMethod": method, "path": "city-weather", "responseMode": "lastNode"}},
             {"name": "Sticky Note", "type": "n8n-nodes-base.stickyNote", "typeVersion": 1,
              "position": [0, -200], "parameters": {"content": "Looks up the weather for a city."}}]
    if code is not None:
        nodes.append({"name": "Code", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [220, 0],
                      "parameters": {"jsCode": code}})
    return {"name": "City Weather", "active": active, "nodes": nodes, "connections": {}}


data = tempfile.mkdtemp(prefix="prs-ctl-check-workflow-")
try:
    good = write("good.json", workflow(code="const city = $json.body.city;\nconst days = $json.body.days ?? 3;"))
    r = run(good)
    check(r.returncode == 0 and "Tool: city_weather" in r.stdout and "Prosponsive discovers this workflow" in r.stdout,
          "a published POST webhook: the checklist, the tool, exit 0", (r.returncode, r.stdout, r.stderr))

    r = run("--json", good)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        out = {}
    checks = {c.get("id"): c.get("status") for c in out.get("checks", [])}
    params = {p.get("name"): p for p in (out.get("tool") or {}).get("parameters", [])}
    check(r.returncode == 0 and out.get("discoverable") is True and out["tool"].get("name") == "city_weather"
          and checks.get("published") == "pass" and checks.get("webhook") == "pass"
          and set(params) == {"city", "days"},
          "--json: discoverable, the tool with its parameters, every check by id; exit 0", (r.returncode, r.stdout))

    inactive = write("inactive.json", workflow(active=False))
    r = run(inactive)
    check(r.returncode == 1 and "✘" in r.stdout and "published" in r.stdout,
          "an unpublished workflow: the failing check shown, exit 1", (r.returncode, r.stdout))
    r = run("--json", inactive)
    out = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
    checks = {c.get("id"): c.get("status") for c in out.get("checks", [])}
    check(r.returncode == 1 and out.get("discoverable") is False and checks.get("published") == "fail",
          "--json of it: discoverable false, published fail, exit 1", (r.returncode, r.stdout))

    get = write("get.json", workflow(method="GET"))
    r = run("--json", get)
    out = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
    checks = {c.get("id"): c.get("status") for c in out.get("checks", [])}
    check(r.returncode == 1 and checks.get("webhook") == "fail", "a GET webhook: webhook fails, exit 1",
          (r.returncode, r.stdout))

    r = run(os.path.join(data, "missing.json"))
    check(r.returncode == 2 and "missing.json" in r.stderr and r.stdout == "",
          "a file that does not exist: exit 2, named on stderr", (r.returncode, r.stderr))
    r = run(write("broken.json", "{\"name\": \"half"))
    check(r.returncode == 2 and "is not an n8n workflow" in r.stderr, "broken JSON: exit 2 in words",
          (r.returncode, r.stderr))
    r = run(write("array.json", [1, 2, 3]))
    check(r.returncode == 2 and "is not an n8n workflow" in r.stderr, "JSON that is no workflow: exit 2",
          (r.returncode, r.stderr))
    r = run()
    check(r.returncode == 2 and "exactly one file" in r.stderr, "no file: a usage error, exit 2",
          (r.returncode, r.stderr))
    r = run(good, inactive)
    check(r.returncode == 2, "two files: a usage error, exit 2", (r.returncode, r.stderr))
    r = run("--no-such-option", good)
    check(r.returncode == 2, "an unknown option: exit 2", (r.returncode, r.stderr))
finally:
    shutil.rmtree(data, ignore_errors=True)

print("1..%d" % len(results))
for i, (ok, what, detail) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
    if not ok and detail is not None:
        print("# " + repr(detail)[:1500].replace("\n", "\n# "))
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
