#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`prosponsive-ctl agent import` never replaces an agent unasked, as TAP.

Usage: test-ctl-agent-import.py PROSPONSIVE_CTL

An id that exists needs --replace (exit 1 with a sentence otherwise, the
stored agent untouched); the built-in `prosponsive` agent is replaced in
place only with --replace, keeping its id.
"""

import json
import os
import subprocess
import sys
import tempfile

from ctltap import Tap


def main():
    if len(sys.argv) != 2:
        print("Bail out! usage: test-ctl-agent-import.py PROSPONSIVE_CTL")
        return 1
    binary = sys.argv[1]
    tap = Tap()

    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data")
        env = dict(os.environ, LC_ALL="C.UTF-8")

        def ctl(*args):
            return subprocess.run([binary, "--data-dir", data] + list(args), capture_output=True,
                                  text=True, env=env, timeout=60)

        def write(name, agent_id, title, prompt):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write("---\nid: %s\nname: %s\nallowedTools: all\n---\n%s\n" % (agent_id, title, prompt))
            return path

        def agents():
            r = ctl("agent", "list", "--json")
            return {a["id"]: a for a in json.loads(r.stdout)} if r.returncode == 0 else {}

        first = write("first.md", "triage", "Triage", "Sort the mail.")
        second = write("second.md", "triage", "Triage Two", "Sort it differently.")

        r = ctl("agent", "import", first)
        tap.ok(r.returncode == 0 and r.stdout.strip() == "triage" and "Replaced" not in r.stderr,
               "a new id is imported", r.stderr)

        r = ctl("agent", "import", second)
        tap.ok(r.returncode == 1 and "already exists" in r.stderr and "--replace" in r.stderr,
               "the same id again: exit 1, asking for --replace", "exit %d: %s" % (r.returncode, r.stderr))
        stored = agents().get("triage", {})
        tap.ok(stored.get("name") == "Triage" and stored.get("systemPrompt") == "Sort the mail.",
               "the stored agent is untouched", stored)

        r = ctl("agent", "import", "--replace", second)
        stored = agents().get("triage", {})
        tap.ok(r.returncode == 0 and "Replaced the agent “triage”" in r.stderr
               and stored.get("name") == "Triage Two", "--replace replaces it, and says so",
               "exit %d: %s %s" % (r.returncode, r.stderr, stored))

        default = agents().get("prosponsive", {})
        mine = write("default.md", "prosponsive", "My Default", "Be terse.")
        r = ctl("agent", "import", mine)
        tap.ok(r.returncode == 1 and "default agent" in r.stderr and "--replace" in r.stderr
               and agents().get("prosponsive") == default,
               "the built-in agent's id: exit 1, the default agent named, nothing changed",
               "exit %d: %s" % (r.returncode, r.stderr))

        r = ctl("agent", "import", "--replace", mine)
        listed = ctl("agent", "list")
        now = agents()
        tap.ok(r.returncode == 0 and now.get("prosponsive", {}).get("name") == "My Default"
               and listed.stdout.splitlines()[0].startswith("prosponsive "),
               "--replace replaces the built-in agent in place: same id, listed first",
               "exit %d: %s %s" % (r.returncode, r.stderr, listed.stdout))

        # docs/agents.md: a name is one line of at most 200 characters
        long = write("long.md", "long", "x" * 500, "Prompt.")
        r = ctl("agent", "import", long)
        tap.ok(r.returncode == 2 and "at most 200 characters" in r.stderr and "long" not in agents(),
               "a 500-character name is refused (exit 2), in words", "exit %d: %s" % (r.returncode, r.stderr))
        edge = write("edge.md", "edge", "y" * 200, "Prompt.")
        r = ctl("agent", "import", edge)
        tap.ok(r.returncode == 0 and agents().get("edge", {}).get("name") == "y" * 200,
               "a 200-character name is imported", "exit %d: %s" % (r.returncode, r.stderr))
        bell = write("bell.md", "bell", '"a\\u001b[2Jb"', "Prompt.")
        r = ctl("agent", "import", bell)
        tap.ok(r.returncode == 2 and "control characters" in r.stderr and "bell" not in agents(),
               "a name with a control character is refused (exit 2)", "exit %d: %s" % (r.returncode, r.stderr))

        r = ctl("agent", "import", "--help")
        tap.ok(r.returncode == 0 and "--replace" in r.stdout, "--replace is in the help", r.stdout)

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
