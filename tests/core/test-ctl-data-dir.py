#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl on a data folder that holds no data (docs/ctl.md): a
command that only reads, or changes only what must be there already,
refuses it with exit 1 and a sentence naming the folder, and makes
nothing, so that a mistyped --data-dir is not mistaken for lost
conversations; a command that configures before the first start makes the
folder as before. TAP."""
import os
import shutil
import subprocess
import sys
import tempfile

from ctltap import Tap

ctl = sys.argv[1]
tap = Tap()

# Each command that must find a database
READERS = [
    ["conversation", "list"],
    ["conversation", "list", "--json"],
    ["conversation", "rename", "Email Inbox", "Mail"],
    ["conversation", "delete", "Email Inbox"],
    ["search", "invoice"],
    ["export", "Email Inbox"],
    ["insights", "--json"],
    ["tools"],
    ["discover"],
    ["agent", "list"],
    ["agent", "export", "prosponsive"],
    ["provider", "list"],
    ["provider", "remove", "local"],
    ["provider", "test", "local"],
    ["rule", "list"],
    ["rule", "remove", "1"],
    ["mcp", "list"],
    ["mcp", "test", "files"],
    ["mcp", "remove", "files"],
    ["schedule", "list"],
    ["schedule", "run", "morning"],
    ["schedule", "disable", "morning"],
    ["backup", "COPY"],
    # They read what the service made there (the control key, the
    # certificate): "not run yet" would send the person to make a new folder
    ["control-key"],
    ["approvals"],
    ["approve", "call-1"],
    ["deny", "call-1"],
    ["mcp", "approve", "call-1"],
    ["mcp", "serve"],
]


def run(data, *args, stdin=None):
    env = dict(os.environ, PROSPONSIVE_SECRETS="file", LC_ALL="C.UTF-8", LANGUAGE="")
    return subprocess.run([ctl, "--data-dir", data, *args], capture_output=True, text=True,
                          timeout=60, env=env, input=stdin)


def main():
    top = tempfile.mkdtemp(prefix="prs-ctl-data-dir-")
    try:
        # A mistyped folder: it does not exist, and must not afterwards
        typo = os.path.join(top, "prosponsve")
        copy = os.path.join(top, "copy.db")
        for command in READERS:
            args = [copy if a == "COPY" else a for a in command]
            r = run(typo, *args)
            name = " ".join(command)
            tap.ok(r.returncode == 1 and "There is no Prosponsive data in “%s”" % typo in r.stderr
                   and "--data-dir" in r.stderr and r.stdout == "",
                   "%s: refused with exit 1, naming the folder" % name, (r.returncode, r.stdout, r.stderr))
            tap.ok(not os.path.lexists(typo), "%s: no folder made" % name, os.listdir(top))
        tap.ok(not os.path.lexists(copy), "backup wrote no copy", os.listdir(top))

        # A folder that exists but holds no database: nothing made in it
        empty = os.path.join(top, "empty")
        os.mkdir(empty, 0o700)
        r = run(empty, "conversation", "list", "--json")
        tap.ok(r.returncode == 1 and empty in r.stderr and r.stdout == "",
               "an empty folder is refused too", (r.returncode, r.stdout, r.stderr))
        tap.ok(os.listdir(empty) == [], "and nothing is made in it", os.listdir(empty))

        # Configuring before the first start makes the folder, as documented
        fresh = os.path.join(top, "fresh")
        r = run(fresh, "rule", "add", "--tool", "send_email", "--action", "deny")
        tap.ok(r.returncode == 0 and os.path.isfile(os.path.join(fresh, "prosponsive.db")),
               "rule add makes the folder and its database", (r.returncode, r.stderr))
        r = run(fresh, "conversation", "list", "--json")
        tap.ok(r.returncode == 0 and r.stdout.strip() == "[]",
               "then the readers answer: no conversations", (r.returncode, r.stdout, r.stderr))
        r = run(fresh, "search", "invoice")
        tap.ok(r.returncode == 0 and r.stdout.strip() == "Nothing found.",
               "and a search finds nothing", (r.returncode, r.stdout, r.stderr))

        n8n = os.path.join(top, "n8n")
        r = run(n8n, "n8n", "set", "--url", "http://127.0.0.1:5678")
        tap.ok(r.returncode == 0 and os.path.isfile(os.path.join(n8n, "prosponsive.db")),
               "n8n set makes the folder and its database", (r.returncode, r.stderr))
        token = os.path.join(top, "token")
        r = run(token, "token")
        tap.ok(r.returncode == 0 and os.path.isdir(token), "token makes the folder", (r.returncode, r.stderr))
        r = run(token, "token", "--rotate")
        tap.ok(r.returncode == 0 and not os.path.lexists(os.path.join(token, "prosponsive.db")),
               "token --rotate reads n8n's credential only from a database there", (r.returncode, r.stderr))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
