#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`prosponsive-ctl n8n setup [--examples]` against a real n8n 1.123, as TAP.

Usage: test-ctl-n8n-setup.py PROSPONSIVE PROSPONSIVE_CTL

What the first-run window does, from a shell, with a `prosponsive --headless`
whose certificate n8n trusts (NODE_EXTRA_CA_CERTS). A workflow of the
user's, "Check Token" (Webhook → HTTP Request GET /api/ai/provider-info with the
"Prosponsive API" credential), proves what the credential holds: it answers
while the credential holds the current token, and fails after
`token --rotate` until setup has replaced the credential (n8n's public API
cannot change one) and pointed the workflow to the new one.

1. Before `n8n set`: setup says to connect n8n first (exit 1).
2. setup: the credential is created; a second run reuses it.
3. token --rotate: says which credential still holds the old token; Check
   Token fails; setup replaces the credential, lists Check Token among the
   workflows pointed to the new one, deletes the old one; Check Token answers.
4. setup --examples: the three examples, the API's address filled in,
   Hello World published (and discovered as a tool), the email ones inactive
   with what to do; a second run leaves them as they are.
5. Usage errors: the --imap options without --examples, an unknown agent.

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
import traceback
import uuid

sys.dont_write_bytecode = True    # nothing written into the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'api'))
import prsapi  # noqa: E402

_spec = importlib.util.spec_from_file_location("n8n_discovery", os.path.join(HERE, "test-discovery.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

TAP = harness.TAP
log = harness.log
RUN = uuid.uuid4().hex[:6]


class Args:
    def __init__(self, prosponsive, ctl):
        self.prosponsive, self.ctl, self.keep = prosponsive, ctl, False


def check_token_workflow(api_port, credential_id):
    """A workflow of the user's that calls Prosponsive with the credential"""
    nodes = [harness.webhook_node("check-token-" + RUN),
             {"id": harness.node_id(), "name": "Provider Info", "type": "n8n-nodes-base.httpRequest",
              "typeVersion": 4.2, "position": [220, 0],
              "parameters": {"method": "GET", "url": "https://127.0.0.1:%d/api/ai/provider-info" % api_port,
                             "authentication": "genericCredentialType", "genericAuthType": "httpHeaderAuth",
                             "options": {"timeout": 30000}},
              "credentials": {"httpHeaderAuth": {"id": credential_id, "name": "Prosponsive API"}}}]
    return harness.workflow("Check Token", nodes, harness.chain("Webhook", "Provider Info"))


def call_check_token(n8n):
    status, answer = n8n.request("POST", "/webhook/check-token-" + RUN, {}, timeout=60)
    return status, answer


def scenario(app, n8n, work):
    def ctl(*argv, stdin=None):
        res = app.ctl(*argv) if stdin is None else subprocess.run(
            [app.args.ctl, '--data-dir', app.data_dir] + list(argv), input=stdin, capture_output=True, text=True,
            env=app.env(), timeout=120)
        log("prosponsive-ctl %s → %d" % (" ".join(argv), res.returncode))
        return res

    def setup(*extra):
        res = subprocess.run([app.args.ctl, '--data-dir', app.data_dir, 'n8n', 'setup', '--json',
                              '--api-url', 'https://127.0.0.1:%d' % app.port] + list(extra),
                             capture_output=True, text=True, env=app.env(), timeout=300)
        log("prosponsive-ctl n8n setup %s → %d" % (" ".join(extra), res.returncode))
        try:
            return res, json.loads(res.stdout)
        except ValueError:
            return res, {}

    # 1. Not connected yet
    res, _ = setup()
    TAP.ok(res.returncode == 1 and "prosponsive-ctl n8n set" in res.stderr,
           "before n8n is connected, setup says how to connect it (exit 1)", res.stdout + res.stderr)
    res = ctl("n8n", "set", "--url", n8n.url, "--api-key-stdin", stdin=n8n.api_key + "\n")
    TAP.ok(res.returncode == 0, "prosponsive-ctl n8n set", res.stderr)

    # 2. Created, then reused
    token = app.token
    TAP.secrets.append(token)
    res, first = setup()
    cred = first.get("credential") or {}
    TAP.ok(res.returncode == 0 and cred.get("action") == "created" and cred.get("name") == "Prosponsive API"
           and cred.get("id") and "workflows" not in first,
           "setup created the credential \"Prosponsive API\"", res.stdout + res.stderr)
    TAP.ok(token not in res.stdout + res.stderr, "setup never prints the token")
    check = n8n.api("POST", "/workflows", check_token_workflow(app.port, cred.get("id")))
    n8n.api("POST", "/workflows/%s/activate" % check["id"], retries=3)
    status, answer = call_check_token(n8n)
    TAP.ok(status == 200 and isinstance(answer, dict) and answer.get("success") is True,
           "a workflow using the credential reaches the API (the credential holds the token)",
           "%s %s\n%s" % (status, answer, app.log()))
    res, again = setup()
    TAP.ok(res.returncode == 0 and again.get("credential") == {"name": "Prosponsive API", "id": cred.get("id"),
                                                               "action": "reused"},
           "a second setup reuses it", res.stdout)
    res = ctl("n8n", "setup", "--api-url", "https://127.0.0.1:%d" % app.port)
    TAP.ok(res.returncode == 0 and res.stdout.strip() ==
           "The credential “Prosponsive API” in n8n (id %s) holds the current token: reused." % cred.get("id"),
           "without --json it says so in a sentence", res.stdout)

    # 3. Rotation
    res = ctl("token", "--rotate")
    new_token = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else ""
    TAP.secrets.append(new_token)
    app.forget_token()
    TAP.ok(res.returncode == 0 and new_token != token and "(id %s) still holds the old token" % cred.get("id")
           in res.stderr and "prosponsive-ctl n8n setup" in res.stderr and new_token not in res.stderr,
           "token --rotate prints the new token, and says which credential still holds the old one", res.stderr)
    status, answer = call_check_token(n8n)
    TAP.ok(status != 200, "with the old token in the credential, the workflow fails (%s)" % status, answer)
    res, replaced = setup()
    rep = replaced.get("credential") or {}
    TAP.ok(res.returncode == 0 and rep.get("action") == "replaced" and rep.get("oldId") == cred.get("id")
           and rep.get("id") not in (None, cred.get("id")) and rep.get("oldDeleted") is True
           and rep.get("problem") is None
           and {"id": check["id"], "name": "Check Token"} in (rep.get("repointed") or []),
           "setup replaced the credential, pointed Check Token to the new one, deleted the old one",
           res.stdout + res.stderr)
    nodes = n8n.api("GET", "/workflows/%s" % check["id"])
    TAP.ok(nodes.get("active") is True and nodes["nodes"][1]["credentials"]["httpHeaderAuth"]["id"] == rep.get("id"),
           "in n8n, Check Token uses the new credential and is still published", nodes.get("nodes"))
    status, answer = call_check_token(n8n)
    TAP.ok(status == 200, "the workflow reaches the API again, with the new token", "%s %s" % (status, answer))
    status, answer = n8n.request("DELETE", "/api/v1/credentials/%s" % cred.get("id"),
                                 headers={"X-N8N-API-KEY": n8n.api_key})
    TAP.ok(status == 404, "the old credential is gone from n8n", "%s %s" % (status, answer))
    res, after = setup()
    TAP.ok((after.get("credential") or {}).get("action") == "reused", "the next setup reuses the new one", res.stdout)

    # 4. The examples
    res, imported = setup("--examples")
    flows = {w["name"]: w for w in imported.get("workflows", [])}
    TAP.ok(res.returncode == 0 and set(flows) == {"Hello World", "Prosponsive: IMAP New Email", "Email Move To Folder"}
           and all(w["action"] == "imported" and w["id"] for w in flows.values())
           and imported.get("imapCredential") is None,
           "setup --examples imported the three example workflows", res.stdout + res.stderr)
    hello = flows.get("Hello World", {})
    trigger = flows.get("Prosponsive: IMAP New Email", {})
    move = flows.get("Email Move To Folder", {})
    TAP.ok(hello.get("active") is True and hello.get("message") is None, "Hello World is published", hello)
    TAP.ok(trigger.get("active") is False and "choose the account in its trigger node" in (trigger.get("message") or ""),
           "the IMAP trigger is inactive: it needs the user's IMAP credential, and says so", trigger)
    TAP.ok(move.get("active") is False and "IMAP Account" in (move.get("message") or ""),
           "the move workflow is inactive: its IMAP Account node is empty, and says so", move)
    wf = n8n.api("GET", "/workflows/%s" % trigger.get("id"))
    http = [n for n in wf.get("nodes", []) if n["type"] == "n8n-nodes-base.httpRequest"]
    body = json.dumps(http)
    TAP.ok(len(http) == 2 and all(n["parameters"]["url"].startswith("https://127.0.0.1:%d/api/" % app.port)
                                  and n["credentials"]["httpHeaderAuth"]["id"] == rep.get("id")
                                  and n["parameters"]["options"]["allowUnauthorizedCerts"] is False
                                  for n in http)
           and "agentId: 'prosponsive'" in body and "__" not in body,
           "the trigger's HTTP nodes have the API's address, the credential, TLS checked, the default agent", body)
    res = ctl("discover")
    tools = json.loads(ctl("tools", "--json").stdout or "[]")
    TAP.ok(any(t["name"] == "hello_world" and t["workflowId"] == hello.get("id") for t in tools),
           "discovery finds Hello World as a tool", res.stdout + res.stderr)
    res, twice = setup("--examples")
    TAP.ok(res.returncode == 0 and [w["action"] for w in twice.get("workflows", [])] == ["existing"] * 3
           and [w["id"] for w in twice.get("workflows", [])] == [hello.get("id"), trigger.get("id"), move.get("id")],
           "a second setup --examples leaves them as they are", res.stdout)
    res = ctl("n8n", "setup", "--examples", "--api-url", "https://127.0.0.1:%d" % app.port)
    TAP.ok(res.returncode == 0 and "“Hello World” (id %s): Already in n8n: left as it is." % hello.get("id")
           in res.stdout and "NODE_EXTRA_CA_CERTS" in res.stdout,
           "in sentences: each workflow, and how n8n comes to trust the certificate", res.stdout)

    # 5. Usage errors
    res = ctl("n8n", "setup", "--imap-host", "imap.example.com")
    TAP.ok(res.returncode == 2 and "--examples" in res.stderr, "--imap-… without --examples is a usage error (2)",
           res.stderr)
    res = ctl("n8n", "setup", "--examples", "--imap-host", "imap.example.com", "--imap-user", "a")
    TAP.ok(res.returncode == 2 and "--imap-password-stdin" in res.stderr,
           "an IMAP account without its password is a usage error (2)", res.stderr)
    res = ctl("n8n", "setup", "--examples", "--agent", "nobody-here")
    TAP.ok(res.returncode == 1 and "“nobody-here”" in res.stderr and "agent import" in res.stderr,
           "an unknown agent is named, with how to import one (1)", res.stderr)
    res = ctl("n8n", "setup", "--api-url", "http://127.0.0.1:3100")
    TAP.ok(res.returncode == 2 and "https://" in res.stderr, "an API address that is not https:// is refused (2)",
           res.stderr)


def main():
    if len(sys.argv) < 3:
        TAP.ok(False, "usage: test-ctl-n8n-setup.py PROSPONSIVE PROSPONSIVE_CTL")
        TAP.done()
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if shutil.which("node") is None:
        print("1..0 # SKIP Node.js is not installed, so n8n cannot run", flush=True)
        return 0

    work = tempfile.mkdtemp(prefix="prs-n8n-setup-")
    saved = dict(os.environ)
    os.environ.update({"PROSPONSIVE_SECRETS": "file", "GSETTINGS_BACKEND": "memory"})
    app = prsapi.App(Args(sys.argv[1], sys.argv[2]), data_dir=os.path.join(work, "data"))
    os.makedirs(app.data_dir)
    n8n = harness.N8n(work)
    try:
        app.start()
        cert = os.path.join(work, "prosponsive-api.pem")
        with open(cert, "w") as f:
            f.write(app.ctl("cert", "--pem").stdout)
        os.environ["NODE_EXTRA_CA_CERTS"] = cert
        n8n.start()
        scenario(app, n8n, work)
    except Exception:
        TAP.ok(False, "the scenario ran to the end", traceback.format_exc() + "\n" + app.log())
    finally:
        app.stop()
        n8n.stop()
        os.environ.clear()
        os.environ.update(saved)
        if TAP.failed:
            TAP.diag("work folder kept: %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    TAP.done()
    return 1 if TAP.failed else 0


if __name__ == "__main__":
    sys.exit(main())
