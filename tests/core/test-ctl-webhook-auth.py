#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl n8n webhook-auth: the Header Auth that tool webhooks
expect (docs/workflows.md) — the header name in the store, the value among the
secrets (here the 0600 fallback file: PROSPONSIVE_SECRETS=file), never in
SQLite. TAP."""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

ctl = sys.argv[1]
results = []


def check(ok, what):
    results.append((bool(ok), what))


def run(*args, stdin=None):
    return subprocess.run([ctl, "--data-dir", data, "n8n", "webhook-auth", *args], input=stdin,
                          capture_output=True, text=True,
                          env=dict(os.environ, PROSPONSIVE_SECRETS="file"))


def setting():
    db = sqlite3.connect(os.path.join(data, "prosponsive.db"))
    row = db.execute("SELECT value FROM settings WHERE key = 'n8n-webhook-auth-header'").fetchone()
    db.close()
    return row[0] if row else None


def secrets():
    path = os.path.join(data, "secrets.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


data = tempfile.mkdtemp(prefix="prs-ctl-webhook-auth-")
try:
    r = run("--header", "X-Prosponsive-Key", "--value-stdin", stdin="s3cret-value\n")
    check(r.returncode == 0, "webhook-auth --header NAME --value-stdin exits 0")
    check("s3cret-value" not in r.stdout + r.stderr, "the value is never printed")
    check(setting() == "X-Prosponsive-Key", "the header name is in the store")
    check("s3cret-value" in json.dumps(secrets()), "the value is among the secrets")
    with open(os.path.join(data, "prosponsive.db"), "rb") as f:
        check(b"s3cret-value" not in f.read(), "the value is not in the SQLite file")

    r = run("--clear")
    check(r.returncode == 0, "webhook-auth --clear exits 0")
    check(setting() is None, "--clear removes the header name")
    check("s3cret-value" not in json.dumps(secrets()), "--clear removes the value")

    check(run("--header", "Bad Header", "--value-stdin", stdin="x").returncode == 2,
          "an invalid header name is a usage error (exit 2)")
    check(run("--header", "X-Key").returncode == 2, "a header without --value-stdin is a usage error")
    check(run("--header", "X-Key", "--value-stdin", stdin="\n").returncode == 2,
          "an empty value is refused")
finally:
    shutil.rmtree(data, ignore_errors=True)

print(f"1..{len(results)}")
for n, (ok, what) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
sys.exit(0 if all(ok for ok, _ in results) else 1)
