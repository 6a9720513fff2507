#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Tool calls against a real n8n 1.123 (docs/workflows.md), as TAP.

Usage: test-tool-calls.py PRS_CALL_TOOL

Starts a private n8n with n8n-env.sh, creates and publishes one workflow per
answer that docs/workflows.md distinguishes, and calls each through prs-call-tool (a
test helper that runs prs_tool_call_run_async on the workflow as discovery
reads it, and prints the outcome as JSON): JSON (lastNode), an array
(allEntries), {error, success:false}, a failure before Respond to Webhook
(an empty 200), "Workflow was started" followed by a callback to
agentic-loop-result (played by prs-call-tool's own callback server, on its
own thread, into a PrsCallbackRegistry), an unpublished workflow (404), a
slow one (timeout, exactly one execution), a Webhook node without webhookId
whose name has a space (n8n's URL form), and Header Auth.

PRS_TEST_N8N_ENV=env.json reuses an n8n already started with n8n-env.sh
(for working on this test); otherwise a private one is started and stopped.

Standard library only. Everything talks to 127.0.0.1.
"""

import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))

# The harness (TAP, the n8n process, workflow JSON helpers) is shared with
# the discovery test.
_spec = importlib.util.spec_from_file_location("n8n_discovery", os.path.join(HERE, "test-discovery.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

TAP = harness.TAP
log = harness.log
node_id = harness.node_id
webhook_node = harness.webhook_node
code_node = harness.code_node
chain = harness.chain
workflow = harness.workflow

# Webhook paths are unique per run, so that a reused n8n (PRS_TEST_N8N_ENV)
# accepts them again.
RUN = uuid.uuid4().hex[:6]

# A Webhook node without webhookId, named with spaces and characters that
# encodeURIComponent keeps: n8n's URL form for it.
SPACED_NODE = "Tool Webhook (v2)"

AUTH_HEADER = "X-Prosponsive-Hook"
AUTH_VALUE = "hook-" + uuid.uuid4().hex
TAP.secrets.append(AUTH_VALUE)

EMPTY_ANSWER = "the workflow returned nothing (did it fail before its Respond to Webhook node?)"
NOT_REGISTERED = "webhook not registered (is the workflow still published?)"

ECHO_CODE = """const req = $input.first().json;
const body = req.body ?? {};
return [{ json: { tool: 'echo', x: body.x, px: (body.parameters ?? {}).x,
                  envelope: body.prosponsive ?? null, webhookUrl: req.webhookUrl } }];
"""

ARRAY_CODE = """const n = $input.first().json.body.n ?? 3;
return Array.from({ length: n }, (_, i) => ({ json: { i, square: i * i } }));
"""

FAIL_CODE = """const city = $input.first().json.body.city;
return [{ json: { error: `no such city: ${city}`, success: false } }];
"""

THROW_CODE = """throw new Error('the lookup service is down');
"""


def respond_node(name="Respond to Webhook", position=(440, 0)):
    return {
        "id": node_id(), "name": name, "type": "n8n-nodes-base.respondToWebhook", "typeVersion": 1.1,
        "position": list(position), "parameters": {"respondWith": "firstIncomingItem", "options": {}},
    }


def wait_node(seconds, name="Wait"):
    return {
        "id": node_id(), "name": name, "type": "n8n-nodes-base.wait", "typeVersion": 1.1,
        "position": [220, 0], "webhookId": node_id(),
        "parameters": {"resume": "timeInterval", "amount": seconds, "unit": "seconds"},
    }


def callback_node(name="Post Result"):
    body = ("={{ JSON.stringify({ toolCallId: $json.body.prosponsive.toolCallId, success: true, "
            "result: { answer: 42, x: $json.body.x, conversationId: $json.body.prosponsive.conversationId } }) }}")
    return {
        "id": node_id(), "name": name, "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2,
        "position": [220, 0],
        "parameters": {"method": "POST", "url": "={{ $json.body.prosponsive.callbackUrl }}",
                       "sendBody": True, "contentType": "json", "specifyBody": "json",
                       "jsonBody": body, "options": {}},
    }


def without_webhook_id(node):
    node = dict(node)
    node.pop("webhookId", None)
    return node


class Driver:
    def __init__(self, path, n8n, work_dir):
        self.path = path
        self.n8n = n8n
        self.work_dir = work_dir

    def call(self, wf_id, args=None, extra=(), env=None, timeout=120):
        wf = self.n8n.api("GET", "/workflows/%s" % urllib.parse.quote(wf_id, safe=""))
        wf_file = os.path.join(self.work_dir, "wf-%s.json" % wf_id)
        with open(wf_file, "w") as f:
            json.dump(wf, f)
        argv = [self.path, "--n8n", self.n8n.url, "--workflow", wf_file]
        if args is not None:
            argv += ["--args", json.dumps(args)]
        argv += list(extra)
        run_env = dict(os.environ)
        run_env.update(env or {})
        t0 = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, env=run_env, timeout=timeout)
        elapsed = time.monotonic() - t0
        if proc.returncode != 0:
            raise RuntimeError("prs-call-tool exited with %d: %s" % (proc.returncode, proc.stderr[-2000:]))
        out = json.loads(proc.stdout)
        out["_elapsed"] = elapsed
        out["_stderr"] = proc.stderr
        return out


def create(n8n, body, activate=True):
    wid = n8n.api("POST", "/workflows", body)["id"]
    if activate:
        n8n.api("POST", "/workflows/%s/activate" % urllib.parse.quote(wid, safe=""), retries=3)
    return wid


def executions(n8n, wid):
    answer = n8n.api("GET", "/executions?workflowId=%s&limit=50" % urllib.parse.quote(wid, safe=""))
    return answer.get("data", [])


def scenario(driver, n8n):
    ids = {}

    # Header Auth needs a credential; the public API creates it.
    cred = n8n.api("POST", "/credentials", {"name": "Prosponsive hook auth", "type": "httpHeaderAuth",
                                            "data": {"name": AUTH_HEADER, "value": AUTH_VALUE}})
    auth_hook = webhook_node("auth-tool-" + RUN)
    auth_hook["parameters"]["authentication"] = "headerAuth"
    auth_hook["credentials"] = {"httpHeaderAuth": {"id": cred["id"], "name": cred["name"]}}

    slow_hook = webhook_node("slow-tool-" + RUN)
    array_hook = webhook_node("array-tool-" + RUN)
    array_hook["parameters"]["responseData"] = "allEntries"

    specs = {
        "json": workflow("Echo Tool", [webhook_node("echo-tool-" + RUN), code_node(ECHO_CODE)],
                         chain("Webhook", "Code")),
        "array": workflow("Squares Tool", [array_hook, code_node(ARRAY_CODE)], chain("Webhook", "Code")),
        "error": workflow("Weather Tool", [webhook_node("weather-tool-" + RUN), code_node(FAIL_CODE)],
                          chain("Webhook", "Code")),
        "broken": workflow("Broken Tool", [webhook_node("broken-tool-" + RUN, response_mode="responseNode"),
                                           code_node(THROW_CODE), respond_node()],
                           chain("Webhook", "Code", "Respond to Webhook")),
        "async": workflow("Async Tool", [webhook_node("async-tool-" + RUN, response_mode="onReceived"),
                                         callback_node()],
                          chain("Webhook", "Post Result")),
        "slow": workflow("Slow Tool", [slow_hook, wait_node(5)], chain("Webhook", "Wait")),
        "spaced": workflow("Spaced Tool", [without_webhook_id(webhook_node("spaced-tool-" + RUN, name=SPACED_NODE)),
                                           code_node(ECHO_CODE)], chain(SPACED_NODE, "Code")),
        "auth": workflow("Auth Tool", [auth_hook, code_node(ECHO_CODE)], chain("Webhook", "Code")),
    }
    for key, body in specs.items():
        ids[key] = create(n8n, body)
    ids["unpublished"] = create(n8n, workflow("Unpublished Tool", [webhook_node("unpublished-tool-" + RUN)]),
                                activate=False)
    TAP.ok(True, "%d workflows created (%d published)" % (len(ids), len(ids) - 1))

    # JSON (lastNode, firstEntryJson) and the envelope as the workflow sees it.
    out = driver.call(ids["json"], {"x": "hello", "n": 2}, ["--tool-call-id", "call-json-1"])
    call = out["call"]
    result = call["result"] or {}
    envelope = result.get("envelope") or {}
    TAP.ok(call["status"] == "succeeded" and result.get("tool") == "echo", "JSON answer → success", out)
    TAP.ok(result.get("x") == "hello" and result.get("px") == "hello",
           "the workflow reads the argument as body.x and as body.parameters.x", result)
    TAP.ok(envelope.get("toolCallId") == "call-json-1" and envelope.get("toolName") == "echo_tool"
           and envelope.get("workflowId") == ids["json"]
           and envelope.get("conversationId") == "n8n-suite-conversation"
           and envelope.get("agentId") == "prosponsive" and envelope.get("execution") == "n8n-suite-execution"
           and "callbackUrl" in envelope,
           "body.prosponsive carries toolName, toolCallId, workflowId, conversationId, agentId, "
           "callbackUrl, execution", envelope)
    secret = envelope.get("callbackSecret")
    TAP.ok(isinstance(secret, str) and len(secret) == 43 and secret not in json.dumps(out["call"]["url"]),
           "body.prosponsive carries the call's callbackSecret (256 random bits)", envelope)
    TAP.ok(out["tool"]["url"] == n8n.url + "/webhook/echo-tool-" + RUN and call["attempts"] == 1,
           "a node with a webhookId is called at /webhook/{path}", out["tool"])
    TAP.ok(json.loads(call["forModel"]) == result, "the model receives the JSON text", call["forModel"][:300])

    # An array (allEntries).
    out = driver.call(ids["array"], {"n": 4})
    TAP.ok(out["call"]["status"] == "succeeded"
           and out["call"]["result"] == [{"i": i, "square": i * i} for i in range(4)],
           "array answer (allEntries) → success with every item", out["call"])

    # {error, success:false}.
    out = driver.call(ids["error"], {"city": "Atlantis"})
    TAP.ok(out["call"]["status"] == "failed" and out["call"]["error"] == "no such city: Atlantis"
           and not out["call"]["rediscover"],
           "{error, success:false} → failed with the workflow's message", out["call"])

    # A failure before Respond to Webhook: n8n answers 200 with nothing.
    out = driver.call(ids["broken"], {"x": 1})
    TAP.ok(out["call"]["status"] == "failed" and out["call"]["httpStatus"] == 200
           and out["call"]["error"] == EMPTY_ANSWER,
           "a failure before Respond to Webhook (empty 200) → failed", out["call"])

    # "Workflow was started", then the workflow posts to agentic-loop-result.
    out = driver.call(ids["async"], {"x": "later"}, ["--callback-server", "--callback-timeout", "60",
                                                     "--tool-call-id", "call-async-1"])
    TAP.ok(out["call"]["status"] == "waiting-callback" and out["call"]["httpStatus"] == 200,
           "Respond Immediately → \"Workflow was started\" → waiting for the callback", out["call"])
    callback = out["callback"] or {}
    TAP.ok(callback.get("status") == "succeeded"
           and callback.get("result") == {"answer": 42, "x": "later", "conversationId": "n8n-suite-conversation"}
           and out["callbackDeliveries"] == 1,
           "the workflow posted its result to callbackUrl with the toolCallId; the waiter got it", out)

    # Not published: 404 and rediscover.
    out = driver.call(ids["unpublished"], {"x": 1})
    TAP.ok(out["call"]["status"] == "failed" and out["call"]["httpStatus"] == 404
           and out["call"]["error"] == NOT_REGISTERED and out["call"]["rediscover"] is True
           and out["call"]["attempts"] == 1,
           "an unpublished workflow → 404 → failed, rediscover", out["call"])

    # Slow: a 5 s Wait, a 2 s timeout, no retry, exactly one execution.
    out = driver.call(ids["slow"], {"x": 1}, ["--timeout", "2"])
    TAP.ok(out["call"]["status"] == "failed"
           and out["call"]["error"] == "timed out after 2 s; the workflow may still have run"
           and out["call"]["attempts"] == 1 and out["_elapsed"] < 4.5,
           "a slow workflow → timed out after 2 s, not retried (%.1f s)" % out["_elapsed"], out["call"])
    deadline = time.monotonic() + 30
    runs = []
    while time.monotonic() < deadline:
        runs = executions(n8n, ids["slow"])
        if runs and all(r.get("finished") or r.get("stoppedAt") for r in runs):
            break
        time.sleep(1)
    time.sleep(2)
    runs = executions(n8n, ids["slow"])
    TAP.ok(len(runs) == 1, "exactly one execution of the slow workflow was started",
           [(r.get("id"), r.get("status")) for r in runs])

    # No webhookId, a node name with a space: n8n's own URL form. n8n stores
    # encodeURIComponent(name.toLowerCase()) and decodes the request path
    # once, so the name must be encoded twice.
    out = driver.call(ids["spaced"], {"x": "spaced"})
    prefix = "%s/webhook/%s/" % (n8n.url, ids["spaced"])
    expected = prefix + "tool%2520webhook%2520%28v2%29/spaced-tool-" + RUN
    TAP.ok(out["tool"]["url"] == expected,
           "URL without webhookId: /webhook/{workflowId}/{node name encoded twice}/{path}", out["tool"]["url"])
    TAP.ok(out["call"]["status"] == "succeeded" and (out["call"]["result"] or {}).get("x") == "spaced",
           "n8n serves the tool at that URL", out["call"])
    for label, segment in (("encoded once", "tool%20webhook%20(v2)"),
                           ("encoded twice with the parentheses escaped first", "tool%2520webhook%2520%2528v2%2529")):
        status, _ = n8n.request("POST", (prefix + segment + "/spaced-tool-" + RUN)[len(n8n.url):], {"x": 1})
        TAP.ok(status == 404, "n8n 1.123 does not serve the node name %s (%s)" % (label, status))

    # Header Auth: the right header passes, a wrong one is n8n's 403.
    out = driver.call(ids["auth"], {"x": "secret"}, ["--auth-name", AUTH_HEADER],
                      env={"PRS_WEBHOOK_AUTH_VALUE": AUTH_VALUE})
    TAP.ok(out["call"]["status"] == "succeeded" and (out["call"]["result"] or {}).get("x") == "secret",
           "Header Auth: the configured header is sent", out["call"])
    TAP.ok(AUTH_VALUE not in out["_stderr"] and AUTH_VALUE not in json.dumps(out["call"]),
           "the Header Auth value appears in no output")
    out = driver.call(ids["auth"], {"x": "secret"}, ["--auth-name", AUTH_HEADER],
                      env={"PRS_WEBHOOK_AUTH_VALUE": "wrong"})
    TAP.ok(out["call"]["status"] == "failed" and out["call"]["httpStatus"] == 403
           and "Authorization data is wrong" in (out["call"]["error"] or ""),
           "Header Auth: a wrong value → failed with n8n's message", out["call"])


class ReusedN8n(harness.N8n):
    def __init__(self, env_file):
        super().__init__(os.path.dirname(env_file))
        with open(env_file) as f:
            self.env = json.load(f)
        TAP.secrets.append(self.env["apiKey"])

    def start(self, timeout=900):
        return self.env

    def stop(self):
        pass


def main():
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        TAP.ok(False, "prs-call-tool exists", "usage: test-tool-calls.py PRS_CALL_TOOL")
        TAP.done()
        return 1

    # meson's timeout sends TERM: turn it into an exception so n8n is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    work_dir = tempfile.mkdtemp(prefix="prs-n8n-tool-calls-")
    reuse = os.environ.get("PRS_TEST_N8N_ENV")
    n8n = ReusedN8n(reuse) if reuse else harness.N8n(work_dir)
    keep = False
    try:
        t0 = time.monotonic()
        n8n.start()
        TAP.ok(True, "n8n started on %s" % n8n.url)
        log("n8n up in %.1f s" % (time.monotonic() - t0))
        scenario(Driver(sys.argv[1], n8n, work_dir), n8n)
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
