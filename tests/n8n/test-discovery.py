#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tool discovery against a real n8n 1.123 (docs/workflows.md), as TAP.

Usage: test-discovery.py [PROSPONSIVE_CTL]

Starts a private n8n with n8n-env.sh, creates and publishes ~265 workflows
through the public API (more than one page of 250 qualifies), then runs
`prosponsive-ctl discover` and checks that exactly the qualifying workflows
became tools, with the right names, descriptions and parameters; then that a
rejected key and a stopped n8n make discovery fail with a clear reason while
the stored tools stay. Without PROSPONSIVE_CTL the prosponsive-ctl checks
are skipped and only the n8n side runs (to check the harness itself).

Standard library only. Everything talks to 127.0.0.1.
"""

import concurrent.futures
import http.cookiejar
import json
import os
import queue
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
N8N_ENV = os.path.join(HERE, "n8n-env.sh")

BULK_TOOLS = 250           # with the special ones below, more than one page of 250
PARALLEL_REQUESTS = 8
CTL_TIMEOUT = 300          # seconds for one prosponsive-ctl run

# Never a proxy: everything here is loopback.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# --------------------------------------------------------------------- TAP

class Tap:
    def __init__(self):
        self.count = 0
        self.failed = 0
        self.secrets = []

    def redact(self, text):
        for secret in self.secrets:
            if secret:
                text = text.replace(secret, "<redacted>")
        return text

    def diag(self, text):
        for line in self.redact(str(text)).splitlines() or [""]:
            print("# " + line, flush=True)

    def ok(self, cond, desc, diag=None):
        self.count += 1
        if not cond:
            self.failed += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.count, desc), flush=True)
        if not cond and diag is not None:
            self.diag(diag)
        return cond

    def skip(self, desc, reason):
        self.count += 1
        print("ok %d - %s # SKIP %s" % (self.count, desc, reason), flush=True)

    def bail(self, reason):
        print("Bail out! " + self.redact(reason).replace("\n", " "), flush=True)

    def done(self):
        print("1..%d" % self.count, flush=True)


TAP = Tap()


def log(text):
    TAP.diag("[%s] %s" % (time.strftime("%H:%M:%S"), text))


# --------------------------------------------------------------------- n8n

class N8n:
    """A private n8n run by n8n-env.sh in program mode: it lives as long as
    our pipe to its standard input stays open."""

    def __init__(self, work_dir):
        self.work_dir = work_dir
        self.proc = None
        self.env = None
        self.cookies = None

    def start(self, timeout=900):
        env_file = os.path.join(self.work_dir, "n8n-env.json")
        self.proc = subprocess.Popen(
            ["bash", N8N_ENV, os.path.join(self.work_dir, "n8n"), env_file],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=sys.stderr,
            text=True, start_new_session=False)
        self.lines = queue.Queue()

        def reader():
            for line in self.proc.stdout:
                self.lines.put(line)
            self.lines.put(None)

        threading.Thread(target=reader, daemon=True).start()
        self._expect("READY ", timeout)
        with open(env_file) as f:
            self.env = json.load(f)
        TAP.secrets.append(self.env["apiKey"])
        TAP.secrets.append(self.env["ownerPassword"])
        return self.env

    def _expect(self, prefix, timeout):
        """The first line n8n-env.sh prints that starts with @prefix"""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError("n8n-env.sh did not say %r within %d s" % (prefix.strip(), timeout))
            if line is None:
                raise RuntimeError("n8n-env.sh exited with %s" % self.proc.wait())
            if line.startswith("START-FAILED"):
                raise RuntimeError("n8n did not start again (see its log)")
            if line.startswith(prefix):
                return line

    def restart(self, while_down=None, kill=False, timeout=300):
        """Stops n8n (with @kill, as a crash would), calls @while_down, and
        starts n8n again on the same port and data."""
        self.proc.stdin.write("kill\n" if kill else "stop\n")
        self.proc.stdin.flush()
        self._expect("STOPPED", timeout)
        if while_down is not None:
            while_down()
        self.proc.stdin.write("start\n")
        self.proc.stdin.flush()
        self.env["pid"] = int(self._expect("STARTED ", timeout).split()[1])

    @property
    def url(self):
        return self.env["url"]

    @property
    def api_key(self):
        return self.env["apiKey"]

    def stop(self):
        """Closes the pipe: n8n-env.sh stops n8n (TERM, then KILL) and exits."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGTERM)
                self.proc.wait(timeout=30)
        self.proc = None

    def pid_alive(self):
        try:
            os.kill(self.env["pid"], 0)
            return True
        except (OSError, TypeError, KeyError):
            return False

    # HTTP -----------------------------------------------------------------

    def request(self, method, path, body=None, headers=None, opener=None, timeout=60):
        data = json.dumps(body).encode() if body is not None else None
        all_headers = {"Accept": "application/json"}
        if data is not None:
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=all_headers)
        try:
            with (opener or OPENER).open(req, timeout=timeout) as resp:
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                return e.code, json.loads(raw)
            except ValueError:
                return e.code, raw.decode("utf-8", "replace")

    def api(self, method, path, body=None, expect=200, retries=0):
        for attempt in range(retries + 1):
            status, answer = self.request(method, "/api/v1" + path, body,
                                          {"X-N8N-API-KEY": self.api_key})
            if status == expect:
                return answer
            if status < 500 or attempt == retries:
                break
            time.sleep(0.5 * (attempt + 1))
        raise RuntimeError("%s /api/v1%s: %s %s" % (method, path, status, str(answer)[:500]))

    def rest(self, method, path, body=None):
        """The internal /rest API, with the owner's session cookie (bound to
        the browser-id header)."""
        if self.cookies is None:
            jar = http.cookiejar.CookieJar()
            self.cookies = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                                       urllib.request.HTTPCookieProcessor(jar))
            status, answer = self.request(
                "POST", "/rest/login",
                {"emailOrLdapLoginId": self.env["ownerEmail"], "password": self.env["ownerPassword"]},
                {"browser-id": self.env["browserId"]}, opener=self.cookies)
            if status != 200:
                raise RuntimeError("owner login failed: %s %s" % (status, answer))
        status, answer = self.request(method, "/rest" + path, body,
                                      {"browser-id": self.env["browserId"]}, opener=self.cookies)
        if status != 200:
            raise RuntimeError("%s /rest%s: %s %s" % (method, path, status, str(answer)[:500]))
        return answer


# --------------------------------------------------------------------- workflows

def node_id():
    return str(uuid.uuid4())


def webhook_node(path, method="POST", response_mode="lastNode", disabled=False, name="Webhook"):
    node = {
        "id": node_id(), "name": name, "type": "n8n-nodes-base.webhook", "typeVersion": 2.1,
        "position": [0, 0], "webhookId": node_id(),
        "parameters": {"httpMethod": method, "path": path, "responseMode": response_mode,
                       "options": {}},
    }
    if disabled:
        node["disabled"] = True
    return node


def code_node(js, name="Code", position=(220, 0)):
    return {
        "id": node_id(), "name": name, "type": "n8n-nodes-base.code", "typeVersion": 2,
        "position": list(position),
        "parameters": {"mode": "runOnceForAllItems", "language": "javaScript", "jsCode": js},
    }


def sticky_node(content):
    return {
        "id": node_id(), "name": "Sticky Note", "type": "n8n-nodes-base.stickyNote", "typeVersion": 1,
        "position": [-40, -220], "parameters": {"content": content, "height": 160, "width": 300},
    }


def schedule_node(name="Schedule Trigger"):
    return {
        "id": node_id(), "name": name, "type": "n8n-nodes-base.scheduleTrigger", "typeVersion": 1.2,
        "position": [0, 200],
        "parameters": {"rule": {"interval": [{"field": "hours", "hoursInterval": 24}]}},
    }


def chain(*names):
    return {a: {"main": [[{"node": b, "type": "main", "index": 0}]]} for a, b in zip(names, names[1:])}


def workflow(name, nodes, connections=None):
    # The public API takes exactly these four fields (n8n notes, pitfall 7).
    return {"name": name, "nodes": nodes, "connections": connections or {},
            "settings": {"executionOrder": "v1"}}


X_CODE = """const req = $input.first().json;
const body = req.body ?? {};
const x = body.x ?? 'd';
return [{ json: { x } }];
"""

JIRA_CODE = """// Search Jira: body.commented ?? 1 is a comment, not a parameter
const req = $input.first().json;
const body = req.body ?? {};
const query = body.query;
const maxResults = body.maxResults ?? 20;
const includeClosed = body.includeClosed || false;
const fields = body.fields ?? ["summary", "status"];
const project = body['project'] ?? 'PRS';
const pageSize = body?.pageSize ?? 50;
const options = body.options ?? {"expand": "names"};
const text = "body.inString ?? 2";
const again = body.maxResults ?? 99;
return [{ json: { query, maxResults, includeClosed, fields, project, pageSize, options, text, again } }];
"""

JIRA_PARAMS = [
    {"name": "query", "type": "string", "required": True},
    {"name": "maxResults", "type": "number", "required": False, "default": 20},
    {"name": "includeClosed", "type": "boolean", "required": False, "default": False},
    {"name": "fields", "type": "array", "required": False, "default": ["summary", "status"]},
    {"name": "project", "type": "string", "required": False, "default": "PRS"},
    {"name": "pageSize", "type": "number", "required": False, "default": 50},
    {"name": "options", "type": "object", "required": False, "default": {"expand": "names"}},
]

MANY_INPUTS_CODE = "const body = $input.first().json.body;\n" + "".join(
    "const v%d = body.p%d;\n" % (i, i) for i in range(300)) + "return [{ json: {} }];\n"

WORKFLOW_DESCRIPTION = "Looks up the current weather for a city. Input: {\"city\": string}."
STICKY_CONTENT = ("## Forecast tool\n\n"
                  "Returns the **forecast** for a `city`.\n"
                  "Uses [Open-Meteo](https://open-meteo.com) data.\n\n"
                  "A second paragraph that is not used.")
STICKY_DESCRIPTION = "Returns the forecast for a city. Uses Open-Meteo data."


class Scenario:
    """What gets created, and what discovery must make of it."""

    def __init__(self):
        self.specs = []            # dicts: key, body, activate, qualifies, name (tool name or None)
        self.ids = {}              # key -> workflow id
        self.created = {}          # key -> createdAt
        self.notes = []

    def add(self, key, body, activate=True, tool=None):
        self.specs.append({"key": key, "body": body, "activate": activate, "tool": tool})

    def build(self):
        for i in range(1, BULK_TOOLS + 1):
            name = "Bulk Tool %03d" % i
            path = "bulk-tool-%03d" % i
            mode = "onReceived" if i % 50 == 0 else "lastNode"
            if i % 5 == 0:
                body = workflow(name, [webhook_node(path, response_mode=mode), code_node(X_CODE)],
                                chain("Webhook", "Code"))
            else:
                body = workflow(name, [webhook_node(path, response_mode=mode)])
            self.add("bulk%03d" % i, body, tool="bulk_tool_%03d" % i)

        self.add("jira", workflow("Search Jira Issues (v2)",
                                  [webhook_node("search-jira"), code_node(JIRA_CODE)],
                                  chain("Webhook", "Code")),
                 tool="search_jira_issues_v2")
        # A description set on the workflow wins over its sticky note.
        self.add("described", workflow("Weather Lookup",
                                       [webhook_node("weather-lookup"), sticky_node("## Ignored\n\nNot this.")]),
                 tool="weather_lookup")
        self.add("sticky", workflow("Prosponsive: Forecast",
                                    [sticky_node(STICKY_CONTENT), webhook_node("forecast")]),
                 tool="prosponsive_forecast")

        # Not tools.
        self.add("inactive", workflow("Never Published Tool", [webhook_node("never-published")]),
                 activate=False)
        self.add("get", workflow("Get Webhook Tool", [webhook_node("get-webhook", method="GET")]))
        self.add("disabled", workflow("Disabled Webhook Tool",
                                      [webhook_node("disabled-webhook", disabled=True), schedule_node()]))
        self.add("adapter", workflow("Prosponsive: n8n Workflow Adapter", [webhook_node("prosponsive-adapter")]))
        self.add("schedule", workflow("Nightly Cleanup", [schedule_node()]))
        # Reads more parameters than a tool takes (256): published, but no tool
        self.add("many_inputs", workflow("Many Inputs",
                                         [webhook_node("many-inputs"), code_node(MANY_INPUTS_CODE)],
                                         chain("Webhook", "Code")))


def create_workflows(n8n, scenario):
    def create_one(spec):
        created = n8n.api("POST", "/workflows", spec["body"])
        wid = created["id"]
        activated = None
        if spec["activate"]:
            try:
                n8n.api("POST", "/workflows/%s/activate" % urllib.parse.quote(wid, safe=""), retries=3)
                activated = True
            except RuntimeError as e:
                activated = str(e)
        return spec["key"], wid, created.get("createdAt"), activated

    # The colliding pair first, one after the other, so that "Email - Move"
    # is older for sure; the rest in parallel.
    for key, name, path in (("collision_old", "Email - Move", "email-move-1"),
                            ("collision_new", "Email Move", "email-move-2")):
        spec = {"key": key, "body": workflow(name, [webhook_node(path)]), "activate": True, "tool": None}
        scenario.specs.append(spec)
        k, wid, created_at, activated = create_one(spec)
        if activated is not True:
            raise RuntimeError("activating %s failed: %s" % (name, activated))
        scenario.ids[k], scenario.created[k] = wid, created_at
        time.sleep(0.05)

    todo = [s for s in scenario.specs if s["key"] not in scenario.ids]
    with concurrent.futures.ThreadPoolExecutor(max_workers=PARALLEL_REQUESTS) as pool:
        for key, wid, created_at, activated in pool.map(create_one, todo):
            scenario.ids[key], scenario.created[key] = wid, created_at
            spec = next(s for s in scenario.specs if s["key"] == key)
            if activated is not None and activated is not True:
                if spec["tool"] is not None:
                    raise RuntimeError("activating %s failed: %s" % (spec["body"]["name"], activated))
                # A non-qualifying shape n8n refuses to publish: it stays inactive.
                spec["activate"] = False
                scenario.notes.append("n8n would not activate %r (kept inactive): %s"
                                      % (spec["body"]["name"], activated))

    # The description: the public API cannot write it in 1.123, the internal
    # PATCH can (n8n notes §1), given the current versionId.
    wid = scenario.ids["described"]
    current = n8n.api("GET", "/workflows/%s" % wid)
    patched = n8n.rest("PATCH", "/workflows/%s" % wid,
                       {"description": WORKFLOW_DESCRIPTION, "versionId": current["versionId"]})
    if patched["data"].get("description") != WORKFLOW_DESCRIPTION:
        raise RuntimeError("the description PATCH did not stick: %r" % patched["data"].get("description"))


def collision_names(scenario):
    def suffix(wid):
        return re.sub(r"[^a-z0-9]", "", wid.lower())[:6]

    pair = sorted(["collision_old", "collision_new"], key=lambda k: (scenario.created[k], scenario.ids[k]))
    older, newer = pair
    return {older: "email_move", newer: "email_move_" + suffix(scenario.ids[newer])}


# --------------------------------------------------------------------- prosponsive-ctl

class Ctl:
    def __init__(self, path, work_dir):
        self.path = path
        self.data_dir = os.path.join(work_dir, "data")
        self.env = dict(os.environ)
        self.env["PROSPONSIVE_SECRETS"] = "file"
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            self.env[var] = os.path.join(work_dir, "xdg", var.lower())
        self.outputs = []          # everything it printed, to check that no key leaks

    def run(self, *args, stdin=None):
        cmd = [self.path, "--data-dir", self.data_dir] + list(args)
        t0 = time.monotonic()
        proc = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=self.env,
                              timeout=CTL_TIMEOUT)
        took = time.monotonic() - t0
        self.outputs.append(proc.stdout + proc.stderr)
        log("prosponsive-ctl %s → exit %d in %.1f s" % (" ".join(args), proc.returncode, took))
        return proc

    def tools(self, command):
        proc = self.run(command, "--json")
        if proc.returncode != 0:
            return proc, None
        try:
            tools = json.loads(proc.stdout)
        except ValueError as e:
            return proc, "not JSON (%s): %s" % (e, proc.stdout[:300])
        if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
            return proc, "not an array of objects: %s" % proc.stdout[:300]
        return proc, tools


def describe_run(proc):
    return "exit %s\nstdout: %s\nstderr: %s" % (proc.returncode, proc.stdout[-1500:], proc.stderr[-1500:])


def check_param(got, want):
    problems = []
    for field in ("name", "type", "required"):
        if got.get(field) != want[field]:
            problems.append("%s: %r, want %r" % (field, got.get(field), want[field]))
    if "default" in want:
        if got.get("default") != want["default"]:
            problems.append("default: %r, want %r" % (got.get("default"), want["default"]))
    elif "default" in got:
        problems.append("unexpected default %r" % got["default"])
    return problems


def check_tools(scenario, tools, expected_names, title):
    by_name = {t.get("name"): t for t in tools}
    names = [t.get("name") for t in tools]
    qualifying = [s for s in scenario.specs if s["tool"] is not None]

    TAP.ok(len(names) == len(set(names)), "%s: tool names are unique" % title,
           "duplicates: %s" % sorted({n for n in names if names.count(n) > 1}))
    missing = sorted(set(expected_names) - set(names))
    extra = sorted(set(names) - set(expected_names))
    TAP.ok(not missing and not extra,
           "%s: exactly the %d qualifying workflows are tools" % (title, len(expected_names)),
           "missing: %s\nunexpected: %s" % (missing[:20], extra[:20]))
    TAP.ok(len(tools) > 250 and len(tools) == len(qualifying),
           "%s: %d tools, more than one page of 250" % (title, len(tools)),
           "got %d, want %d" % (len(tools), len(qualifying)))

    # Nothing from the workflows that must not qualify.
    wrong_ids = {scenario.ids[s["key"]] for s in scenario.specs if s["tool"] is None}
    leaked = [t.get("name") for t in tools if t.get("workflowId") in wrong_ids]
    TAP.ok(not leaked, "%s: inactive, GET, disabled-webhook, adapter and webhook-less workflows are not tools"
           % title, "leaked: %s" % leaked)

    # Ids and names line up.
    mismatched = []
    for spec in qualifying:
        tool = by_name.get(spec["tool"])
        if tool is not None and (tool.get("workflowId") != scenario.ids[spec["key"]]
                                 or tool.get("workflowName") != spec["body"]["name"]):
            mismatched.append((spec["tool"], tool.get("workflowId"), tool.get("workflowName")))
    TAP.ok(not mismatched, "%s: every tool carries its workflow's id and name" % title,
           "mismatched: %s" % mismatched[:10])

    # The name collision: the older workflow keeps the plain name.
    coll = collision_names(scenario)
    problems = []
    for key, name in coll.items():
        tool = by_name.get(name)
        if tool is None:
            problems.append("no tool %r" % name)
        elif tool.get("workflowId") != scenario.ids[key]:
            problems.append("%r belongs to %s, want %s" % (name, tool.get("workflowId"), scenario.ids[key]))
    TAP.ok(not problems, "%s: name collision: %s" % (title, ", ".join(
        "%s → %s" % (next(s["body"]["name"] for s in scenario.specs if s["key"] == k), n)
        for k, n in sorted(coll.items()))), "\n".join(problems))

    # Descriptions: workflow, sticky note, generated.
    def desc_check(name, text, source):
        tool = by_name.get(name) or {}
        return TAP.ok(tool.get("description") == text and tool.get("descriptionSource") == source,
                      "%s: %s has the %s description" % (title, name, source),
                      "got %r (%r), want %r (%r)" % (tool.get("description"), tool.get("descriptionSource"),
                                                   text, source))

    desc_check("weather_lookup", WORKFLOW_DESCRIPTION, "workflow")
    desc_check("prosponsive_forecast", STICKY_DESCRIPTION, "sticky-note")
    desc_check("bulk_tool_001", 'Runs the n8n workflow "Bulk Tool 001".', "generated")

    # Parameters of the Code-node workflow, in order of first occurrence.
    jira = by_name.get("search_jira_issues_v2") or {}
    params = jira.get("parameters")
    problems = []
    if not isinstance(params, list) or [p.get("name") for p in params] != [p["name"] for p in JIRA_PARAMS]:
        problems.append("parameters %s, want %s" % (
            [p.get("name") for p in params] if isinstance(params, list) else params,
            [p["name"] for p in JIRA_PARAMS]))
    else:
        for got, want in zip(params, JIRA_PARAMS):
            problems += ["%s %s" % (want["name"], p) for p in check_param(got, want)]
        if params[1].get("description") != "The max results":
            problems.append("maxResults description %r" % params[1].get("description"))
    schema = jira.get("inputSchema") or {}
    if schema.get("type") != "object" or schema.get("required") != ["query"] \
            or list((schema.get("properties") or {}).keys()) != [p["name"] for p in JIRA_PARAMS]:
        problems.append("inputSchema %s" % json.dumps(schema)[:400])
    elif (schema["properties"]["fields"].get("type") != "array"
          or schema["properties"]["maxResults"].get("default") != 20):
        problems.append("inputSchema properties %s" % json.dumps(schema["properties"])[:400])
    TAP.ok(not problems, "%s: search_jira_issues_v2 has the Code node's parameters and schema" % title,
           "\n".join(problems))

    x_tool = by_name.get("bulk_tool_005") or {}
    x_params = x_tool.get("parameters")
    TAP.ok(isinstance(x_params, list) and len(x_params) == 1
           and not check_param(x_params[0], {"name": "x", "type": "string", "required": False, "default": "d"}),
           "%s: bulk_tool_005 has the optional parameter x (default \"d\")" % title,
           "got %s" % json.dumps(x_params))
    plain = by_name.get("bulk_tool_001") or {}
    TAP.ok(plain.get("parameters") == [], "%s: a workflow without Code nodes has no parameters" % title,
           "got %s" % json.dumps(plain.get("parameters")))

    # The entry webhook.
    hooks = {n: (by_name.get(n) or {}).get("webhook") for n in ("bulk_tool_001", "bulk_tool_050")}
    TAP.ok(hooks["bulk_tool_001"] == {"path": "bulk-tool-001", "method": "POST", "responseMode": "lastNode"}
           and hooks["bulk_tool_050"] == {"path": "bulk-tool-050", "method": "POST",
                                          "responseMode": "onReceived"},
           "%s: tools carry the entry webhook's path, method and response mode" % title,
           "got %s" % json.dumps(hooks))


def check_many_inputs(ctl, scenario):
    """The workflow reading 300 parameters: its stored checklist says why it is no tool."""
    db = sqlite3.connect("file:%s?mode=ro" % os.path.join(ctl.data_dir, "prosponsive.db"), uri=True)
    try:
        checklists = [json.loads(row[0]) for row in
                      db.execute("SELECT checklist_json FROM workflow_checks ORDER BY position")]
    finally:
        db.close()
    mine = next((c for c in checklists if c.get("workflowId") == scenario.ids["many_inputs"]), {})
    checks = {c.get("id"): c for c in mine.get("checks", [])}
    params = checks.get("parameters", {})
    TAP.ok(mine.get("discoverable") is False and checks.get("webhook", {}).get("status") == "pass"
           and params.get("status") == "fail" and "more than 256 parameters" in params.get("message", ""),
           "a workflow reading 300 parameters is no tool, and its checklist says why",
           json.dumps(mine)[:800])


def ctl_scenario(ctl_path, n8n, scenario, work_dir):
    expected_names = set(collision_names(scenario).values())
    expected_names |= {s["tool"] for s in scenario.specs if s["tool"] is not None}
    for spec in scenario.specs:     # the collision pair now has names
        if spec["key"] in collision_names(scenario):
            spec["tool"] = collision_names(scenario)[spec["key"]]

    ctl = Ctl(ctl_path, work_dir)

    proc = ctl.run("n8n", "set", "--url", n8n.url, "--api-key-stdin", stdin=n8n.api_key + "\n")
    TAP.ok(proc.returncode == 0, "n8n set --url --api-key-stdin succeeds", describe_run(proc))

    t0 = time.monotonic()
    proc, tools = ctl.tools("discover")
    log("discover took %.1f s" % (time.monotonic() - t0))
    if not TAP.ok(proc.returncode == 0 and isinstance(tools, list), "discover --json succeeds",
                  describe_run(proc) if proc.returncode else tools):
        raise RuntimeError("discover failed; the remaining checks need its tools")
    check_tools(scenario, tools, expected_names, "discover")
    count = len(tools)
    check_many_inputs(ctl, scenario)

    proc, stored = ctl.tools("tools")
    TAP.ok(isinstance(stored, list) and sorted(t.get("name") for t in stored) == sorted(expected_names),
           "tools --json lists the discovered tools", describe_run(proc) if proc.returncode else stored)

    # A rejected key: discovery fails and says why; the tools stay.
    proc = ctl.run("n8n", "set", "--url", n8n.url, "--api-key-stdin", stdin="not-the-right-key\n")
    TAP.ok(proc.returncode == 0, "n8n set with a wrong key is accepted (it is only checked by n8n)",
           describe_run(proc))
    proc = ctl.run("discover", "--json")
    TAP.ok(proc.returncode != 0 and re.search(r"\bkey\b", proc.stderr, re.I) is not None,
           "discover with a wrong key fails and mentions the key", describe_run(proc))
    TAP.diag("stderr: " + proc.stderr.strip())
    proc, stored = ctl.tools("tools")
    TAP.ok(isinstance(stored, list) and len(stored) == count,
           "tools --json still lists the %d tools after the rejected key" % count,
           describe_run(proc) if proc.returncode else "got %s" % (len(stored) if isinstance(stored, list) else stored))

    # The right key again: discovery recovers.
    proc = ctl.run("n8n", "set", "--api-key-stdin", stdin=n8n.api_key + "\n")
    TAP.ok(proc.returncode == 0, "n8n set --api-key-stdin alone replaces the key", describe_run(proc))
    proc, tools = ctl.tools("discover")
    TAP.ok(isinstance(tools, list) and len(tools) == count,
           "discover succeeds again with the right key", describe_run(proc) if proc.returncode else tools)

    # n8n gone: discovery fails with a connection message; the tools stay.
    t0 = time.monotonic()
    n8n.stop()
    log("n8n stopped in %.1f s" % (time.monotonic() - t0))
    TAP.ok(not n8n.pid_alive(), "n8n is stopped")
    proc = ctl.run("discover", "--json")
    TAP.ok(proc.returncode != 0 and re.search(r"unreachable|connect", proc.stderr, re.I) is not None,
           "discover with n8n stopped fails with an unreachable/connect message", describe_run(proc))
    TAP.diag("stderr: " + proc.stderr.strip())
    proc, stored = ctl.tools("tools")
    TAP.ok(isinstance(stored, list) and len(stored) == count
           and sorted(t.get("name") for t in stored) == sorted(expected_names),
           "tools --json still lists the %d tools with n8n stopped" % count,
           describe_run(proc) if proc.returncode else "got %s" % (len(stored) if isinstance(stored, list) else stored))

    TAP.ok(not any(n8n.api_key in out for out in ctl.outputs),
           "the API key never appears in prosponsive-ctl's output")


# --------------------------------------------------------------------- main

def main():
    ctl_path = sys.argv[1] if len(sys.argv) > 1 and sys.argv[1] else None
    if ctl_path is not None and not (os.path.isfile(ctl_path) and os.access(ctl_path, os.X_OK)):
        TAP.ok(False, "prosponsive-ctl exists", "not an executable file: %s" % ctl_path)
        TAP.done()
        return 1

    # meson's timeout sends TERM: turn it into an exception so n8n is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    work_dir = tempfile.mkdtemp(prefix="prs-n8n-discovery-")
    n8n = N8n(work_dir)
    keep = False
    try:
        t0 = time.monotonic()
        n8n.start()
        TAP.ok(True, "n8n %s started on %s" % ("1.123", n8n.url))
        log("n8n up in %.1f s (REST mounted %.1f s after launch; includes install check)"
            % (time.monotonic() - t0, n8n.env["startupSeconds"]))

        scenario = Scenario()
        scenario.build()
        t0 = time.monotonic()
        create_workflows(n8n, scenario)
        for note in scenario.notes:
            TAP.diag(note)
        log("created %d workflows (%d published) in %.1f s with %d parallel requests"
            % (len(scenario.specs), sum(1 for s in scenario.specs if s["activate"]),
               time.monotonic() - t0, PARALLEL_REQUESTS))
        TAP.ok(True, "%d workflows created through the public API" % len(scenario.specs))

        # The n8n side on its own: the active list needs two pages of 250.
        page1 = n8n.api("GET", "/workflows?active=true&limit=250")
        cursor = page1.get("nextCursor")
        page2 = n8n.api("GET", "/workflows?active=true&limit=250&cursor=%s"
                        % urllib.parse.quote(cursor or "", safe="")) if cursor else {"data": []}
        active = {s["key"] for s in scenario.specs if s["activate"]}
        TAP.ok(len(page1["data"]) == 250 and cursor and page2.get("nextCursor") is None
               and len(page1["data"]) + len(page2["data"]) == len(active),
               "n8n lists %d active workflows on two pages of 250" % len(active),
               "page 1: %d, cursor %r, page 2: %d" % (len(page1["data"]), cursor, len(page2["data"])))
        listed = {w["id"] for w in page1["data"] + page2["data"]}
        TAP.ok(listed == {scenario.ids[k] for k in active},
               "n8n's active list is exactly the published workflows")
        described = n8n.api("GET", "/workflows/%s" % scenario.ids["described"])
        TAP.ok(described.get("description") == WORKFLOW_DESCRIPTION and described.get("active") is True,
               "the described workflow keeps its description and stays active",
               "got %r, active %r" % (described.get("description"), described.get("active")))

        if ctl_path is None:
            TAP.skip("discovery through prosponsive-ctl", "no prosponsive-ctl given")
        else:
            ctl_scenario(ctl_path, n8n, scenario, work_dir)
    except Exception as e:   # noqa: BLE001 — any failure is a TAP failure
        keep = True
        TAP.ok(False, "the scenario ran to the end", traceback.format_exc())
        TAP.bail(str(e))
    finally:
        n8n.stop()
        if TAP.failed or keep:
            TAP.diag("work folder kept: %s (n8n.log in n8n/)" % work_dir)
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
    TAP.done()
    return 1 if TAP.failed else 0


if __name__ == "__main__":
    sys.exit(main())
