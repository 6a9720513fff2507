#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl provider set-key (docs/providers.md "Configuring"): a
provider added without a key says how to give it one, and that advice works —
the key, read from standard input, goes among the secrets (here the 0600
fallback file: PROSPONSIVE_SECRETS=file), never into SQLite or the output, and
`provider test` then reaches the provider with it (tests/scripted-provider.py
checks the header). TAP."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ctl = sys.argv[1]
scripted = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripted-provider.py")
KEY = "sk-set-later-4711"
results = []


def check(ok, what, diag=None):
    results.append((bool(ok), what, diag))


def run(*args, stdin=None):
    return subprocess.run([ctl, "--data-dir", data, "provider", *args], input=stdin,
                          capture_output=True, text=True, timeout=30,
                          env=dict(os.environ, PROSPONSIVE_SECRETS="file", LANGUAGE="", LC_ALL="C.UTF-8"))


def secrets():
    path = os.path.join(data, "secrets.json")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


work = tempfile.mkdtemp(prefix="prs-ctl-provider-key-")
data = os.path.join(work, "data")
script = os.path.join(work, "script.json")
log = os.path.join(work, "log.json")
with open(script, "w") as f:
    json.dump({"kind": "openai", "repeat_last": True,
               "turns": [{"expect": {"headers": {"authorization": "Bearer " + KEY}},
                          "response": {"text": "OK", "models": [{"id": "m", "name": "M"}]}}]}, f)
server = subprocess.Popen([sys.executable, scripted, "--script", script, "--log", log],
                          stdout=subprocess.PIPE, text=True)
try:
    port = int(server.stdout.readline())
    r = run("add", "--kind", "openai", "--name", "dup", "--model", "m",
            "--base-url", "http://127.0.0.1:%d/v1" % port)
    check(r.returncode == 0, "provider add without a key exits 0", r.stderr)
    check("provider set-key NAME" in r.stderr, "add without a key names set-key", r.stderr)

    r = run("test", "dup")
    advice = "prosponsive-ctl provider set-key dup"
    check(r.returncode == 1 and advice in r.stderr, "provider test without a key advises “%s”" % advice,
          r.stdout + r.stderr)
    check("provider add" not in r.stderr, "the advice is not provider add, which refuses the name", r.stderr)

    r = run("set-key", "dup", stdin=KEY + "\n")
    check(r.returncode == 0, "provider set-key NAME exits 0", r.stderr)
    check(KEY not in r.stdout + r.stderr, "the key is never printed")
    check(KEY in json.dumps(secrets()), "the key is among the secrets")
    with open(os.path.join(data, "prosponsive.db"), "rb") as f:
        check(KEY.encode() not in f.read(), "the key is not in the SQLite file")
    r = run("list", "--json")
    check(r.returncode == 0 and json.loads(r.stdout)[0]["hasKey"] is True, "provider list says hasKey", r.stdout)

    r = run("test", "dup")
    check(r.returncode == 0 and "Chat works" in r.stdout, "provider test works with the key set", r.stdout + r.stderr)
    with open(log) as f:
        requests = json.load(f)["requests"]
    check(requests and all(not q["violations"] for q in requests),
          "every request to the provider carried the key", json.dumps(requests)[:2000])

    check(run("set-key", "dup", stdin="\n").returncode == 2, "an empty key is refused (exit 2)")
    check(run("set-key", "dup", stdin="a\x07b\n").returncode == 2, "a key with control characters is refused (exit 2)")
    check(run("set-key", "nobody", stdin="k\n").returncode == 1, "set-key of a provider that does not exist exits 1")
    check(KEY in json.dumps(secrets()), "refused keys leave the stored one")
finally:
    server.kill()
    server.wait()
    shutil.rmtree(work, ignore_errors=True)

print(f"1..{len(results)}")
for n, (ok, what, diag) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    if not ok and diag:
        for line in str(diag).splitlines():
            print("# " + line)
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
