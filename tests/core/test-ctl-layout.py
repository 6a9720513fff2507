#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`prosponsive-ctl layout [FILE|-]` (docs/layout.md), as TAP.

Usage: test-ctl-layout.py PROSPONSIVE_CTL

Runs the built program on sample replies from a file, from "-" and from
standard input with no argument, and checks the JSON blocks, their member
order, and the exit codes for unreadable input and bad usage.
"""

import json
import os
import resource
import subprocess
import sys
import tempfile

from ctltap import Tap

SAMPLE = (
    "Here is the email:\r\n"
    "\r\n"
    "- **Subject:** Re: Q3 Planning\r\n"
    "- **From:** alice@example.com\r\n"
    "Date: April 3, 2026\r\n"
    "\r\n"
    "Body:\r\n"
    "Hi team,\r\n"
    "Link: https://example.com/q3\r\n"
)

EXPECTED = [
    {"type": "text", "text": "Here is the email:"},
    {"type": "grid", "rows": [
        {"key": "Subject", "value": "Re: Q3 Planning"},
        {"key": "From", "value": "alice@example.com"},
        {"key": "Date", "value": "April 3, 2026"},
    ]},
    {"type": "text", "text": "Body:\nHi team,\nLink: https://example.com/q3"},
]


# The longest reply laid out (PRS_LAYOUT_MAX_INPUT), and the address space
# its worst case (one-letter pairs) must fit in: the JSON used to be built
# as a json-glib tree, ~180 times the input
MAX_INPUT = 8 * 1024 * 1024
ADDRESS_SPACE = 512 * 1024 * 1024
# ASan reserves terabytes of address space: no limit can apply there
SANITIZED = bool(os.environ.get("PROSPONSIVE_SANITIZED"))


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def run(ctl, args, stdin=b"", data_dir=None, limited=False):
    env = dict(os.environ)
    env.setdefault("LC_ALL", "C.UTF-8")
    cmd = [ctl]
    if data_dir is not None:
        cmd += ["--data-dir", data_dir]
    return subprocess.run(cmd + ["layout"] + args, input=stdin, capture_output=True,
                          env=env, timeout=120,
                          preexec_fn=limit_memory if limited and not SANITIZED else None)


def ordered_keys(text):
    """The member names of every object, in document order."""
    keys = []
    try:
        json.loads(text, object_pairs_hook=lambda pairs: keys.append([k for k, _ in pairs]) or dict(pairs))
    except ValueError:
        return None
    return keys


def main():
    if len(sys.argv) != 2:
        print("Bail out! usage: test-ctl-layout.py PROSPONSIVE_CTL")
        return 1
    ctl = sys.argv[1]
    tap = Tap()

    with tempfile.TemporaryDirectory() as tmp:
        data_dir = os.path.join(tmp, "data")
        sample = os.path.join(tmp, "reply.txt")
        with open(sample, "wb") as f:
            f.write(SAMPLE.encode())

        for label, args, stdin in (("file", [sample], b""),
                                   ("dash", ["-"], SAMPLE.encode()),
                                   ("stdin", [], SAMPLE.encode())):
            r = run(ctl, args, stdin, data_dir)
            tap.ok(r.returncode == 0, "%s: exit 0" % label, r.stderr.decode(errors="replace"))
            try:
                blocks = json.loads(r.stdout)
            except ValueError as e:
                blocks = e
            tap.ok(blocks == EXPECTED, "%s: the blocks" % label, "%r" % (blocks,))
            tap.ok(ordered_keys(r.stdout) == [["type", "text"]] + [["key", "value"]] * 3
                   + [["type", "rows"], ["type", "text"]],
                   "%s: members in order" % label, r.stdout.decode(errors="replace"))

        # The guide's own six lines: one grid of six rows.
        guide = ("Subject: Re: Q3 Planning\nFrom: alice@example.com\nDate: April 3, 2026\n"
                 "Status: Unread\nFolder: INBOX\nPriority: Normal\n")
        r = run(ctl, [], guide.encode(), data_dir)
        blocks = json.loads(r.stdout) if r.returncode == 0 else None
        tap.ok(blocks is not None and len(blocks) == 1 and blocks[0]["type"] == "grid"
               and len(blocks[0]["rows"]) == 6 and blocks[0]["rows"][5] == {"key": "Priority", "value": "Normal"},
               "guide example: one grid of six rows", r.stdout.decode(errors="replace"))

        # By default one compact line, exactly the form docs/layout.md shows.
        r = run(ctl, [], b"Subject: Re: Q3 Planning\nFrom: alice@example.com\n\nThanks", data_dir)
        tap.ok(r.stdout == b'[{"type":"grid","rows":[{"key":"Subject","value":"Re: Q3 Planning"},'
               b'{"key":"From","value":"alice@example.com"}]},{"type":"text","text":"Thanks"}]\n',
               "compact output, exact", r.stdout)
        r = run(ctl, ["--pretty", sample], b"", data_dir)
        tap.ok(r.returncode == 0 and json.loads(r.stdout) == EXPECTED and r.stdout.count(b"\n") > 10,
               "--pretty", r.stdout)

        r = run(ctl, [], b"", data_dir)
        tap.ok(r.returncode == 0 and r.stdout == b"[]\n", "empty input: []", r.stdout)

        r = run(ctl, [], b"A: \xff\x00\nB: 2\n", data_dir)
        ok = r.returncode == 0
        if ok:
            blocks = json.loads(r.stdout.decode("utf-8"))
            ok = blocks == [{"type": "grid", "rows": [{"key": "A", "value": "\ufffd\ufffd"},
                                                      {"key": "B", "value": "2"}]}]
        tap.ok(ok, "invalid UTF-8 and NUL become U+FFFD", r.stdout)

        big = ("Key: value\nSome text line\n" * 200000).encode()
        r = run(ctl, [], big, data_dir)
        tap.ok(r.returncode == 0 and len(json.loads(r.stdout)) == 1, "a 5 MiB reply", r.stderr)

        # The worst case at the limit: every line a pair, one grid
        pairs = MAX_INPUT // 5
        worst = b"a: b\n" * pairs
        for args in ([], ["--pretty"]):
            r = run(ctl, args, worst, data_dir, limited=True)
            ok = r.returncode == 0
            if ok:
                blocks = json.loads(r.stdout)
                ok = len(blocks) == 1 and len(blocks[0]["rows"]) == pairs
            tap.ok(ok, "%d one-letter pairs (%s) within %d MiB of address space%s"
                   % (pairs, "pretty" if args else "compact", ADDRESS_SPACE >> 20,
                      " (no limit under ASan)" if SANITIZED else ""),
                   "exit %d: %s" % (r.returncode, r.stderr[-300:]))

        r = run(ctl, [], b"x" * (MAX_INPUT + 1), data_dir)
        tap.ok(r.returncode == 2 and b"larger than 8.0" in r.stderr and b"MiB" in r.stderr,
               "a reply over 8 MiB: exit 2 with the limit named", r.stderr)

        r = run(ctl, [os.path.join(tmp, "missing.txt")], b"", data_dir)
        tap.ok(r.returncode == 2 and b"missing.txt" in r.stderr, "a missing file: exit 2", r.stderr)

        r = run(ctl, [tmp], b"", data_dir)
        tap.ok(r.returncode == 2, "a folder: exit 2", r.stderr)

        r = run(ctl, [sample, sample], b"", data_dir)
        tap.ok(r.returncode == 2, "two files: usage error, exit 2", r.stderr)

        r = subprocess.run([ctl, "--help"], capture_output=True, timeout=60)
        tap.ok(b"layout" in r.stdout + r.stderr, "listed in --help", r.stdout)

    return tap.finish()


if __name__ == "__main__":
    sys.exit(main())
