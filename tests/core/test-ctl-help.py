#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl COMMAND --help, for every command --help lists and every
verb of a command group (docs/ctl.md): help on standard output, exit 0,
and a usage line that names the command, so that a person can type what
it shows; a group's help names each of its verbs; a group without its verb
is bad usage (exit 2). TAP."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ctltap import Tap

ctl = sys.argv[1]
tap = Tap()

VERBS = {
    "agent": ["import", "export", "list"],
    "conversation": ["list", "rename", "delete"],
    "mcp": ["add", "list", "test", "remove", "serve", "approve", "deny"],
    "n8n": ["set", "webhook-auth", "setup"],
    "provider": ["add", "list", "set-key", "remove", "test"],
    "rule": ["add", "list", "remove"],
    "schedule": ["add", "list", "run", "remove"],
}


def run(data, *args):
    env = dict(os.environ, PROSPONSIVE_SECRETS="file", LC_ALL="C.UTF-8", LANGUAGE="")
    return subprocess.run([ctl, "--data-dir", data, *args], capture_output=True, text=True,
                          timeout=60, env=env, stdin=subprocess.DEVNULL)


def usage_line(text):
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.strip() == "Usage:":
            return lines[i + 1].strip()
    return ""


def main():
    top = tempfile.mkdtemp(prefix="prs-ctl-help-")
    data = os.path.join(top, "data")
    try:
        r = run(data, "--help")
        listed = re.findall(r"^  ([a-z0-9-]+)  +", r.stdout.split("Commands:", 1)[-1], re.M)
        tap.ok(r.returncode == 0 and len(listed) >= 20, "--help lists the commands", r.stdout)

        for command in listed:
            r = run(data, command, "--help")
            line = usage_line(r.stdout)
            tap.ok(r.returncode == 0 and line.startswith("prosponsive-ctl %s [OPTION" % command),
                   "%s --help: exit 0, the usage names the command" % command,
                   (r.returncode, line, r.stdout, r.stderr))

        for group, verbs in sorted(VERBS.items()):
            # The group's own help leads to every verb it has
            r = run(data, group, "--help")
            missing = [verb for verb in verbs if not re.search(r"\b%s\b" % re.escape(verb), r.stdout)]
            tap.ok(r.returncode == 0 and not missing, "%s --help names every verb" % group,
                   (missing, r.stdout))
            for verb in verbs:
                r = run(data, group, verb, "--help")
                line = usage_line(r.stdout)
                tap.ok(r.returncode == 0 and line.startswith("prosponsive-ctl %s [OPTION" % group)
                       and verb in line,
                       "%s %s --help: exit 0, the usage names both" % (group, verb),
                       (r.returncode, line, r.stdout, r.stderr))
            r = run(data, group)
            tap.ok(r.returncode == 2 and usage_line(r.stderr).startswith("prosponsive-ctl %s" % group),
                   "%s alone: bad usage, with its help" % group, (r.returncode, r.stdout, r.stderr))

        tap.ok(not os.path.lexists(data), "help makes no data folder", os.listdir(top))
    finally:
        shutil.rmtree(top, ignore_errors=True)
    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
