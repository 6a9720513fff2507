#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""First-run setup against a real n8n 1.123, as TAP.

Usage: test-first-run.py TEST_FIRST_RUN_PROGRAM

Starts a private n8n (n8n-env.sh) and a scripted OpenAI-compatible provider,
then runs the test-first-run program (real windows under the X server of
DISPLAY) that walks through the setup: n8n (a wrong key first, then the
right one), the provider (Test, then Next), the "Prosponsive API" credential
and the example workflows, and Done (a discovery that must find the Hello
World tool). Then, through n8n's public API: the three examples exist, Hello
World is published, the IMAP one is not, and its HTTP Request nodes point at
the credential the app created. Finally no secret (n8n API key, provider
key, API token) appears in the SQLite files, the GSettings keyfile
(GSETTINGS_BACKEND=keyfile in a private XDG_CONFIG_HOME) or the program's
output (with G_MESSAGES_DEBUG=all).
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("n8n_discovery", os.path.join(HERE, "test-discovery.py"))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

TAP = harness.TAP
log = harness.log
PROVIDER_KEY = "sk-scripted-" + os.urandom(12).hex()
TAP.secrets.append(PROVIDER_KEY)


def start_provider(work):
    script = os.path.join(work, "provider.json")
    with open(script, "w") as f:
        json.dump({"kind": "openai", "repeat_last": True, "turns": [
            {"expect": {"headers": {"authorization": "Bearer " + PROVIDER_KEY}},
             "response": {"models": [{"id": "scripted-model"}, {"id": "other-model"}]}}]}, f)
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "..", "scripted-provider.py"),
                             "--script", script, "--log", os.path.join(work, "provider-log.json")],
                            stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline().strip())
    return proc, "http://127.0.0.1:%d/v1" % port


def files_under(path):
    for root, _, names in os.walk(path):
        for name in names:
            yield os.path.join(root, name)


def main():
    program = sys.argv[1]
    work = tempfile.mkdtemp(prefix="prs-first-run-")
    n8n = harness.N8n(work)
    provider = None
    try:
        n8n.start()
        provider, provider_url = start_provider(work)
        data_dir = os.path.join(work, "data")
        config = os.path.join(work, "config")
        os.makedirs(data_dir)
        os.makedirs(config)
        env = dict(os.environ)
        env.update({
            "PRS_TEST_N8N_URL": n8n.url, "PRS_TEST_N8N_KEY": n8n.api_key,
            "PRS_TEST_PROVIDER_URL": provider_url, "PRS_TEST_PROVIDER_KEY": PROVIDER_KEY,
            "PRS_TEST_DATA_DIR": data_dir,
            "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": config,
            "G_MESSAGES_DEBUG": "all", "PROSPONSIVE_SECRETS": "file",
        })
        run = subprocess.run([program, "--tap"], env=env, capture_output=True, text=True, timeout=600)
        output = run.stdout + run.stderr
        for line in run.stdout.splitlines():
            if line.startswith("# "):
                log(line[2:])
        TAP.ok(run.returncode == 0, "the first run completes and discovers the Hello World tool",
               diag=output[-4000:])

        with open(os.path.join(data_dir, "secrets.json")) as f:
            stored = json.load(f)
        token = stored.get("api-token")
        TAP.secrets.append(token)
        TAP.ok(token is not None and stored.get("n8n-api-key") == n8n.api_key,
               "the token and the n8n key are in the secrets store (the keyring stand-in)")

        workflows = n8n.api("GET", "/workflows?limit=250")["data"]
        by_name = {w["name"]: w for w in workflows}
        TAP.ok(set(by_name) >= {"Hello World", "Prosponsive: IMAP New Email", "Email Move To Folder"},
               "the three example workflows exist in n8n", diag=sorted(by_name))
        TAP.ok(by_name.get("Hello World", {}).get("active") is True, "Hello World is published")
        TAP.ok(by_name.get("Prosponsive: IMAP New Email", {}).get("active") is False,
               "the IMAP workflow is imported inactive (it needs the user's IMAP account)")

        import sqlite3
        db = sqlite3.connect(os.path.join(data_dir, "prosponsive.db"))
        cred_id = db.execute("SELECT value FROM settings WHERE key = 'n8n-api-credential-id'").fetchone()
        db.close()
        imap = n8n.api("GET", "/workflows/" + by_name["Prosponsive: IMAP New Email"]["id"]) \
            if "Prosponsive: IMAP New Email" in by_name else {"nodes": []}
        header_creds = [n["credentials"]["httpHeaderAuth"] for n in imap["nodes"]
                        if "httpHeaderAuth" in (n.get("credentials") or {})]
        TAP.ok(cred_id is not None and len(header_creds) == 2 and
               all(c.get("id") == cred_id[0] and c.get("name") == "Prosponsive API" for c in header_creds),
               "the \"Prosponsive API\" credential exists in n8n and the IMAP workflow uses it",
               diag=json.dumps(header_creds))
        creds = n8n.rest("GET", "/credentials")
        names = [c.get("name") for c in (creds or {}).get("data", [])] if isinstance(creds, dict) else []
        TAP.ok("Prosponsive API" in names, "n8n lists the \"Prosponsive API\" credential", diag=names)

        secrets = {"n8n API key": n8n.api_key, "provider key": PROVIDER_KEY, "API token": token}
        places = [p for p in files_under(data_dir) if os.path.basename(p).startswith("prosponsive.db")]
        places += list(files_under(config))
        TAP.ok(any(os.path.basename(p) == "keyfile" for p in places), "GSettings wrote its keyfile",
               diag=places)
        leaks = []
        for path in places:
            with open(path, "rb") as f:
                content = f.read()
            for what, secret in secrets.items():
                if secret and secret.encode() in content:
                    leaks.append("%s in %s" % (what, path))
        for what, secret in secrets.items():
            if secret and secret in output:
                leaks.append("%s in the program's output" % what)
        TAP.ok(not leaks, "no secret in the SQLite files, the GSettings keyfile or the logs", diag=leaks)
    except Exception:
        TAP.bail(traceback.format_exc())
    finally:
        if provider is not None:
            provider.kill()
            provider.wait()
        n8n.stop()
        shutil.rmtree(work, ignore_errors=True)
        TAP.done()
    return 1 if TAP.failed else 0


if __name__ == "__main__":
    sys.exit(main())
