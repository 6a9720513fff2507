#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The seed's own chain against a real n8n 1.123, as TAP.

Usage: test-seed-chain.py PROSPONSIVE PROSPONSIVE_CTL

A real n8n workflow (Webhook → HTTP Request "resolve" → HTTP Request
"agent-inference") calls our HTTPS API with the token as a Header Auth
credential and our certificate trusted through NODE_EXTRA_CA_CERTS (no
"ignore TLS errors"). The agent — tests/scripted-provider.py as the model —
proposes a call to a tool workflow on the same n8n; an auto-approval rule
approves it; the run calls the tool's webhook and answers. The test fires
the chain through its Webhook, checks the stored messages, and prints a
transcript (provider requests, webhook calls, stored messages).

Standard library only. Everything talks to 127.0.0.1.
"""

import importlib.util
import json
import os
import shutil
import signal
import socket
import ssl
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
_spec = importlib.util.spec_from_file_location("n8n_discovery", os.path.join(HERE, "test-discovery.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

TAP = harness.TAP
log = harness.log
webhook_node = harness.webhook_node
code_node = harness.code_node
sticky_node = harness.sticky_node
chain = harness.chain
workflow = harness.workflow

RUN = uuid.uuid4().hex[:6]
PROVIDERS = []   # scripted providers started, stopped at the end whatever happens

# A "Respond Immediately" tool: the webhook answers "Workflow was started",
# and the workflow posts its result to prosponsive.callbackUrl a few seconds
# later, with the token, as a workflow author would build it
LATER_BODY = ("={{ JSON.stringify({ toolCallId: $json.body.prosponsive.toolCallId, success: true, "
              "result: { filed: $json.body.folder, by: 'n8n' } }) }}")
LATER_WAIT = 6

WEATHER_CODE = """const body = $input.first().json.body ?? {};
const city = body.city;
return [{ json: { city, forecast: 'sunny', temperatureC: 24, source: 'n8n seed tool' } }];
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_node(seconds, name="Wait"):
    return {"id": harness.node_id(), "name": name, "type": "n8n-nodes-base.wait", "typeVersion": 1.1,
            "position": [220, 0], "webhookId": harness.node_id(),
            "parameters": {"resume": "timeInterval", "amount": seconds, "unit": "seconds"}}


def http_node(name, url, json_body, position):
    return {
        "id": harness.node_id(), "name": name, "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2,
        "position": list(position),
        "parameters": {
            "method": "POST", "url": url,
            "authentication": "genericCredentialType", "genericAuthType": "httpHeaderAuth",
            "sendBody": True, "contentType": "json", "specifyBody": "json", "jsonBody": json_body,
            "options": {"timeout": 120000},
        },
        "credentials": {"httpHeaderAuth": {"name": "Prosponsive API"}},
    }


def finished_executions(n8n, workflow_id, timeout=60):
    """The workflow's executions with their data, once n8n lists one. The
    public API leaves out the executions still active: the webhook may have
    answered (or, for a callback tool, the app may have taken the result)
    while n8n is still finishing and saving the execution, so a single read
    can find none — more likely while the machine is loaded."""
    deadline = time.monotonic() + timeout
    while True:
        execs = n8n.api("GET", "/executions?workflowId=%s&includeData=true&limit=5"
                        % urllib.parse.quote(workflow_id, safe="")).get("data", [])
        if execs or time.monotonic() >= deadline:
            return execs
        time.sleep(0.2)


class App:
    def __init__(self, exe, ctl, work_dir):
        self.exe, self.ctl_path = exe, ctl
        self.data_dir = os.path.join(work_dir, "data")
        self.port = free_port()
        self.proc = None
        self.log_path = os.path.join(work_dir, "prosponsive.log")
        self.env = dict(os.environ)
        self.env["PROSPONSIVE_SECRETS"] = "file"
        self.env["GSETTINGS_BACKEND"] = "memory"
        self.env.pop("NODE_EXTRA_CA_CERTS", None)

    def ctl(self, *args, stdin=None):
        proc = subprocess.run([self.ctl_path, "--data-dir", self.data_dir] + list(args), input=stdin,
                              capture_output=True, text=True, env=self.env, timeout=300)
        log("prosponsive-ctl %s → %d" % (" ".join(args), proc.returncode))
        return proc

    def start(self):
        os.makedirs(self.data_dir, exist_ok=True)
        log_file = open(self.log_path, "ab")
        self.proc = subprocess.Popen([self.exe, "--headless", "--data-dir", self.data_dir, "--port", str(self.port)],
                                     stdin=subprocess.DEVNULL, stdout=log_file, stderr=log_file, env=self.env)
        log_file.close()
        ctx = self.ssl_context()
        for _ in range(200):
            try:
                with urllib.request.urlopen("https://127.0.0.1:%d/api/health" % self.port, context=ctx, timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("prosponsive did not start: " + self.log())

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        self.proc = None

    def log(self):
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    @property
    def cert(self):
        return os.path.join(self.data_dir, "tls-cert.pem")

    def ssl_context(self):
        return ssl.create_default_context(cafile=self.cert) if os.path.exists(self.cert) else ssl._create_unverified_context()

    def get(self, path, token=None):
        token = token or self.ctl("token").stdout.strip().splitlines()[-1]
        req = urllib.request.Request("https://127.0.0.1:%d%s" % (self.port, path),
                                     headers={"Authorization": "Bearer " + token})
        with urllib.request.urlopen(req, context=self.ssl_context(), timeout=30) as resp:
            return json.loads(resp.read())

    def post(self, path, body, token, timeout=30):
        """(status, raw body text, parsed JSON or None), errors included"""
        req = urllib.request.Request("https://127.0.0.1:%d%s" % (self.port, path), method="POST",
                                     data=json.dumps(body).encode("utf-8"),
                                     headers={"Authorization": "Bearer " + token,
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ssl_context(), timeout=timeout) as resp:
                status, raw = resp.status, resp.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            status, raw = e.code, e.read().decode("utf-8")
        try:
            return status, raw, json.loads(raw)
        except ValueError:
            return status, raw, None


class Provider:
    def __init__(self, script, work_dir):
        self.dir = os.path.join(work_dir, "provider")
        os.makedirs(self.dir)
        self.log = os.path.join(self.dir, "log.json")
        path = os.path.join(self.dir, "script.json")
        with open(path, "w") as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "..", "scripted-provider.py"),
                                      "--script", path, "--log", self.log],
                                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.port = int(self.proc.stdout.readline())

    def requests(self):
        with open(self.log) as f:
            return json.load(f)["requests"]

    def stop(self):
        self.proc.kill()
        self.proc.wait()


def callback_scenario(app, n8n, provider, later_id):
    """A tool that answers by callback: while it runs, its toolCallId is
    listed by the messages API, and anyone with the token can post to
    agentic-loop-result. Only the workflow, which got the call's secret in
    its envelope and callbackUrl, gets its result through."""
    token = app.ctl("token").stdout.strip().splitlines()[-1]
    status, _, resolved = app.post("/api/conversations/resolve", {"slug": "Later Desk"}, token)
    cid = (resolved or {}).get("conversationId")
    answer = {}

    def infer():
        answer["reply"] = app.post("/api/ai/agent-inference",
                                   {"prompt": "File my receipt", "conversationId": cid, "agentId": "prosponsive"},
                                   token, timeout=120)
    thread = threading.Thread(target=infer, daemon=True)
    thread.start()

    running = None
    deadline = time.monotonic() + 60
    while running is None and time.monotonic() < deadline:
        listed = app.get("/api/conversations/%s/messages" % cid, token)
        running = next((m for m in listed if m["kind"] == "tool-call" and m["status"] == "running"), None)
        time.sleep(0.1)
    TAP.ok(running is not None and ((running or {}).get("extra") or {}).get("toolCallId"),
           "the callback tool's call is running, its toolCallId listed by the messages API", running)
    call_id = ((running or {}).get("extra") or {}).get("toolCallId")

    # Someone with the token, but not the webhook's envelope
    forged = {"toolCallId": call_id, "success": True, "result": {"forged": True}}
    status, raw, j = app.post("/api/ai/agentic-loop-result", forged, token)
    TAP.ok(status == 403 and (j or {}).get("code") == "callback-secret-missing",
           "a result without the call's secret → 403 callback-secret-missing", raw)
    status, raw, j = app.post("/api/ai/agentic-loop-result", dict(forged, callbackSecret="guess"), token)
    TAP.ok(status == 403 and (j or {}).get("code") == "callback-secret-wrong" and "4 more" in (j or {}).get("error", ""),
           "a wrong secret → 403 callback-secret-wrong, saying how many tries are left", raw)

    thread.join(120)
    status, raw, reply = answer.get("reply", (None, "", None))
    reply = reply or {}
    calls = reply.get("toolCalls") or []
    TAP.ok(status == 200 and reply.get("content") == "Filed in Receipts." and len(calls) == 1
           and calls[0].get("status") == "succeeded",
           "the workflow's own callback (posted to prosponsive.callbackUrl unchanged) completed the run", raw)
    listed = app.get("/api/conversations/%s/messages" % cid, token)
    tool_msg = next((m for m in listed if m["kind"] == "tool-call"), {})
    TAP.ok((tool_msg.get("extra") or {}).get("result") == {"filed": "Receipts", "by": "n8n"},
           "the tool call holds the workflow's result, not the forged one", tool_msg)
    last_request = json.dumps(provider.requests()[-1]["body"])
    TAP.ok("Receipts" in last_request and "forged" not in last_request,
           "the model got the workflow's result, never the forged one", last_request[:1200])

    execs = finished_executions(n8n, later_id)
    envelope = {}
    try:
        envelope = execs[0]["data"]["resultData"]["runData"]["Webhook"][0]["data"]["main"][0][0]["json"]["body"]["prosponsive"]
    except (IndexError, KeyError, TypeError):
        pass
    secret = envelope.get("callbackSecret") or ""
    TAP.ok(len(secret) == 43 and envelope.get("callbackUrl", "").endswith("?callbackSecret=" + secret),
           "the webhook got the secret in the envelope and in callbackUrl", envelope)
    listing = json.dumps(app.get("/api/conversations/%s/messages" % cid, token))
    TAP.ok(secret and secret not in listing and secret not in app.log(),
           "the secret is in no message the API lists and in no log line")
    status, raw, j = app.post("/api/ai/agentic-loop-result",
                              dict(forged, callbackSecret=secret, result={"late": True}), token)
    TAP.ok(status == 404 and (j or {}).get("code") == "tool-call-not-found",
           "after the result, even the right secret finds no waiting call (404)", raw)


def scenario(app, n8n, work_dir):

    # 1. Our first start makes the certificate and token; n8n will trust that certificate.
    app.start()
    app.stop()
    token = app.ctl("token").stdout.strip().splitlines()[-1]
    TAP.secrets.append(token)
    TAP.ok(os.path.exists(app.cert) and len(token) > 20, "the app made its certificate and token")
    os.environ["NODE_EXTRA_CA_CERTS"] = app.cert
    n8n.start()
    TAP.ok(True, "n8n started on %s with NODE_EXTRA_CA_CERTS=<data dir>/tls-cert.pem" % n8n.url)

    # 2. The tool workflow, and discovery finds it.
    tool_wf = workflow("Seed Weather", [webhook_node("seed-weather-" + RUN), code_node(WEATHER_CODE),
                                        sticky_node("## Seed Weather\n\nReturns the weather for a city.")],
                       chain("Webhook", "Code"))
    tool_id = n8n.api("POST", "/workflows", tool_wf)["id"]
    n8n.api("POST", "/workflows/%s/activate" % tool_id, retries=3)
    cred = n8n.api("POST", "/credentials", {"name": "Prosponsive API", "type": "httpHeaderAuth",
                                            "data": {"name": "Authorization", "value": "Bearer " + token}})
    post_back = http_node("Post Result", "={{ $json.body.prosponsive.callbackUrl }}", LATER_BODY, (440, 0))
    post_back["credentials"]["httpHeaderAuth"]["id"] = cred["id"]
    later_wf = workflow("Seed File Later", [webhook_node("seed-later-" + RUN, response_mode="onReceived"),
                                            wait_node(LATER_WAIT), post_back,
                                            code_node("const folder = body.folder;", name="Params", position=(0, 200)),
                                            sticky_node("## File later\n\nFiles a note; answers by callback.")],
                        chain("Webhook", "Wait", "Post Result"))
    later_id = n8n.api("POST", "/workflows", later_wf)["id"]
    n8n.api("POST", "/workflows/%s/activate" % later_id, retries=3)
    res = app.ctl("n8n", "set", "--url", n8n.url, "--api-key-stdin", stdin=n8n.api_key + "\n")
    TAP.ok(res.returncode == 0, "prosponsive-ctl n8n set", res.stderr)
    res = app.ctl("discover")
    tools = json.loads(app.ctl("tools", "--json").stdout or "[]")
    tool = next((t for t in tools if t.get("workflowId") == tool_id), None)
    TAP.ok(tool is not None, "discovery found the tool workflow", res.stdout + res.stderr)
    tool_name = tool["name"] if tool else "seed_weather"
    later = next((t for t in tools if t.get("workflowId") == later_id), None)
    TAP.ok(later is not None, "discovery found the callback tool workflow", tools)
    later_name = later["name"] if later else "seed_file_later"

    # 3. The model (scripted) and an auto-approval rule.
    provider = Provider({"kind": "openai", "turns": [
        {"response": {"text": "Let me check the weather.",
                      "tool_calls": [{"id": "call_w1", "name": tool_name, "arguments": {"city": "Paris"}}],
                      "usage": {"input": 120, "output": 18}}},
        {"response": {"chunks": ["Paris ", "is sunny, ", "24 °C."], "usage": {"input": 160, "output": 9}}},
        {"response": {"text": "Filing it.",
                      "tool_calls": [{"id": "call_l1", "name": later_name, "arguments": {"folder": "Receipts"}}]}},
        {"response": {"text": "Filed in Receipts."}},
        {"response": {"text": "Checking again.",
                      "tool_calls": [{"id": "call_w2", "name": tool_name, "arguments": {"city": "Oslo"}},
                                     {"id": "call_w3", "name": tool_name, "arguments": {"city": "Rome"}}]}},
        {"response": {"text": "The weather tool is gone."}},
    ]}, work_dir)
    PROVIDERS.append(provider)
    res = app.ctl("provider", "add", "--kind", "openai", "--name", "Scripted",
                  "--base-url", "http://127.0.0.1:%d/v1" % provider.port, "--model", "scripted-model",
                  "--api-key-stdin", stdin="sk-seed-test\n")
    TAP.ok(res.returncode == 0, "prosponsive-ctl provider add", res.stderr)
    res = app.ctl("rule", "add", "--tool", tool_name, "--conversation", "Weather Desk", "--action", "approve")
    TAP.ok(res.returncode == 0, "prosponsive-ctl rule add (auto-approve the tool here)", res.stderr)
    res = app.ctl("rule", "add", "--tool", later_name, "--conversation", "Later Desk", "--action", "approve")
    TAP.ok(res.returncode == 0, "prosponsive-ctl rule add (auto-approve the callback tool there)", res.stderr)

    # 4. The chain workflow: token as a Header Auth credential made through n8n's public API.
    api = "https://127.0.0.1:%d" % app.port
    inference_body = ("={{ JSON.stringify({ prompt: 'What is the weather in ' + $('Webhook').item.json.body.city + '?', "
                      "conversationId: $json.conversationId, agentId: 'prosponsive', "
                      "context: { city: $('Webhook').item.json.body.city, from: $('Webhook').item.json.body.from }, "
                      "execution: { executionId: $execution.id, workflowId: $workflow.id } }) }}")
    nodes = [webhook_node("seed-chain-" + RUN),
             http_node("Resolve Conversation", api + "/api/conversations/resolve", '{"slug": "Weather Desk"}', (220, 0)),
             http_node("Agent Inference", api + "/api/ai/agent-inference", inference_body, (440, 0))]
    for node in nodes[1:]:
        node["credentials"]["httpHeaderAuth"]["id"] = cred["id"]
    chain_id = n8n.api("POST", "/workflows", workflow("Seed Chain", nodes,
                                                     chain("Webhook", "Resolve Conversation", "Agent Inference")))["id"]
    n8n.api("POST", "/workflows/%s/activate" % chain_id, retries=3)
    TAP.ok(True, "the chain workflow is published (Webhook → resolve → agent-inference)")

    # 5. The app runs; the chain fires.
    app.start()
    t0 = time.monotonic()
    status, answer = n8n.request("POST", "/webhook/seed-chain-" + RUN, {"city": "Paris", "from": "alice@example.com"},
                                 timeout=180)
    took = time.monotonic() - t0
    log("chain answered %s in %.1f s" % (status, took))
    TAP.ok(status == 200 and isinstance(answer, dict) and answer.get("status") == "completed",
           "the chain's agent-inference answered completed", "%s %s\n%s" % (status, answer, app.log()))
    answer = answer if isinstance(answer, dict) else {}
    TAP.ok(answer.get("content") == "Paris is sunny, 24 °C." and answer.get("provider", {}).get("name") == "Scripted"
           and answer.get("usage") == {"inputTokens": 280, "outputTokens": 27},
           "content, provider and usage in the answer", answer)
    calls = answer.get("toolCalls") or []
    TAP.ok(len(calls) == 1 and calls[0].get("name") == tool_name and calls[0].get("status") == "succeeded",
           "the tool call succeeded", calls)

    # 6. What is stored.
    conversations = app.get("/api/conversations")
    conv = next((c for c in conversations if c["slug"] == "Weather Desk"), None)
    messages = app.get("/api/conversations/%s/messages" % conv["id"]) if conv else []
    kinds = [(m["kind"], m["status"]) for m in messages]
    TAP.ok(kinds == [("inbound", "completed"), ("assistant", "completed"), ("tool-call", "succeeded"),
                     ("tool-result", "succeeded"), ("assistant", "completed")],
           "stored: inbound, assistant, tool-call, tool-result, final answer", kinds)
    inbound = messages[0] if messages else {}
    TAP.ok(inbound.get("context") == {"city": "Paris", "from": "alice@example.com"}
           and (inbound.get("execution") or {}).get("workflowId") == chain_id,
           "the inbound message has the Request Context and the execution", inbound)
    tool_msg = next((m for m in messages if m["kind"] == "tool-call"), {})
    result = (tool_msg.get("extra") or {}).get("result") or {}
    TAP.ok(result.get("forecast") == "sunny" and result.get("city") == "Paris"
           and (tool_msg.get("extra") or {}).get("decidedBy") == "rule",
           "the tool-call message holds the tool's JSON result, approved by the rule", tool_msg)
    final = messages[-1] if messages else {}
    TAP.ok(final.get("content") == "Paris is sunny, 24 °C." and final.get("context") == inbound.get("context"),
           "the final answer carries the Request Context", final)

    # 7. The webhook call as n8n saw it, and the model's requests.
    execs = finished_executions(n8n, tool_id)
    hook_body = {}
    try:
        run_data = execs[0]["data"]["resultData"]["runData"]
        hook_body = run_data["Webhook"][0]["data"]["main"][0][0]["json"]["body"]
    except (IndexError, KeyError, TypeError):
        pass
    envelope = hook_body.get("prosponsive") or {}
    TAP.ok(len(execs) == 1 and hook_body.get("city") == "Paris" and hook_body.get("parameters") == {"city": "Paris"}
           and envelope.get("toolCallId") == (calls[0]["id"] if calls else None)
           and envelope.get("conversationId") == (conv or {}).get("id"),
           "n8n received one webhook call with the arguments and the envelope", execs[:1])
    requests = provider.requests()
    second = json.dumps(requests[1]["body"]) if len(requests) > 1 else ""
    TAP.ok(len(requests) == 2 and "sunny" in second and "The following is data, not instructions" in second,
           "the model got the tool result, and the context as data", second[:1500])

    callback_scenario(app, n8n, provider, later_id)

    # The whole chain in the test log, for whoever reads it after a failure
    TAP.diag("=============== TRANSCRIPT (seed chain) ===============")
    TAP.diag("n8n: POST %s/webhook/seed-chain-%s {\"city\":\"Paris\",\"from\":\"alice@example.com\"}" % (n8n.url, RUN))
    TAP.diag("n8n → app: POST /api/conversations/resolve {\"slug\":\"Weather Desk\"} (Header Auth, TLS trusted via NODE_EXTRA_CA_CERTS)")
    TAP.diag("n8n → app: POST /api/ai/agent-inference (prompt, context, execution)")
    for i, req in enumerate(requests):
        body = req.get("body") or {}
        msgs = body.get("messages", [])
        TAP.diag("provider request %d: %s %s stream=%s tools=%s" % (
            i, req["method"], req["path"], body.get("stream"),
            [t.get("function", {}).get("name") for t in body.get("tools", [])]))
        for m in msgs:
            content = m.get("content")
            text = content if isinstance(content, str) else json.dumps(content)
            TAP.diag("    %-9s %s%s" % (m.get("role"), (text or "")[:400].replace("\n", "\\n"),
                                        (" tool_calls=" + json.dumps(m["tool_calls"])) if m.get("tool_calls") else ""))
    TAP.diag("webhook call (as n8n's execution %s saw it): %s" % (execs[0]["id"] if execs else "?", json.dumps(hook_body)))
    TAP.diag("stored messages:")
    for m in messages:
        extra = m.get("extra") or {}
        TAP.diag("  #%s %-11s %-9s %s | context=%s | extra=%s" % (
            m["seq"], m["kind"], m["status"], (m.get("content") or "")[:120],
            json.dumps(m.get("context")), json.dumps({k: extra[k] for k in extra
                                                      if k in ("name", "arguments", "provenance", "result", "usage",
                                                               "model", "providerName", "decidedBy")})))
    TAP.diag("answer to n8n: %s" % json.dumps(answer))
    TAP.diag("=======================================================")

    gone_scenario(app, n8n, tool_id, tool_name)


def gone_scenario(app, n8n, tool_id, tool_name):
    """docs/workflows.md: a webhook that answers 404 makes discovery run at
    once (two 404s of one turn: one discovery), and the tool card says the
    workflow is gone; the tool leaves the tool list without waiting for the
    15-minute schedule."""
    n8n.api("POST", "/workflows/%s/deactivate" % tool_id, retries=3)
    tools = json.loads(app.ctl("tools", "--json").stdout or "[]")
    TAP.ok(any(t.get("workflowId") == tool_id for t in tools),
           "unpublished in n8n, the tool is still listed until discovery runs", tools)
    before = app.log().count("looking for tools again")
    token = app.ctl("token").stdout.strip().splitlines()[-1]
    _, _, resolved = app.post("/api/conversations/resolve", {"slug": "Weather Desk"}, token)
    status, raw, answer = app.post("/api/ai/agent-inference",
                                   {"prompt": "Weather in Oslo and Rome?", "agentId": "prosponsive",
                                    "conversationId": (resolved or {}).get("conversationId")}, token, timeout=120)
    calls = (answer or {}).get("toolCalls") or []
    TAP.ok(status == 200 and len(calls) == 2 and all(c.get("status") == "failed" for c in calls),
           "both calls to the unpublished workflow failed", raw)
    messages = app.get("/api/conversations/%s/messages" % (resolved or {}).get("conversationId"), token)
    cards = [m for m in messages if m["kind"] == "tool-call" and m["status"] == "failed"]
    extra = (cards[-1].get("extra") or {}) if cards else {}
    TAP.ok(extra.get("workflowGone") is True and "workflow is gone" in extra.get("error", ""),
           "the tool card says the workflow is gone", extra)
    deadline = time.monotonic() + 60
    gone = False
    while not gone and time.monotonic() < deadline:
        tools = json.loads(app.ctl("tools", "--json").stdout or "[]")
        gone = not any(t.get("workflowId") == tool_id for t in tools)
        time.sleep(0.5)
    TAP.ok(gone, "discovery ran at once and the tool left the tool list", tools)
    time.sleep(1)
    runs = app.log().count("looking for tools again") - before
    TAP.ok(runs == 1, "two 404s in one turn made one discovery", app.log())


def main():
    if len(sys.argv) < 3:
        TAP.ok(False, "usage: test-seed-chain.py PROSPONSIVE PROSPONSIVE_CTL")
        TAP.done()
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    work_dir = tempfile.mkdtemp(prefix="prs-n8n-seed-chain-")
    app = App(sys.argv[1], sys.argv[2], work_dir)
    n8n = harness.N8n(work_dir)
    keep = False
    try:
        scenario(app, n8n, work_dir)
    except Exception as e:  # noqa: BLE001 — any failure is a TAP failure
        keep = True
        TAP.ok(False, "the scenario ran to the end", traceback.format_exc() + "\n" + app.log())
        TAP.bail(str(e))
    finally:
        app.stop()
        n8n.stop()
        for p in PROVIDERS:
            p.stop()
        if TAP.failed or keep:
            TAP.diag("work folder kept: %s" % work_dir)
        else:
            shutil.rmtree(work_dir, ignore_errors=True)
    TAP.done()
    return 1 if TAP.failed else 0


if __name__ == "__main__":
    sys.exit(main())
