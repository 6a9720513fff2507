#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl conversation list|rename|delete|archive|pin, search and
export (docs/ctl.md) against a store seeded with every kind of message
(export/seed.sql: fixed ids and times). The exports are compared with
export/expected.md (exactly) and export/expected.json (every member it
names; and every column of every row the database holds). TAP."""
import json
import os
import sqlite3
import stat
import subprocess
import sys
import tempfile

from ctltap import Tap

ctl = sys.argv[1]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "export")
tap = Tap()
ID = "c0ffee00-0000-4000-8000-000000000001"


def run(data, *args):
    env = dict(os.environ, PROSPONSIVE_SECRETS="file", LC_ALL="C.UTF-8", LANGUAGE="")
    return subprocess.run([ctl, "--data-dir", data, *args], capture_output=True, text=True, timeout=60, env=env)


def db(data):
    return sqlite3.connect(os.path.join(data, "prosponsive.db"))


def count(data, sql):
    con = db(data)
    try:
        return con.execute(sql).fetchone()[0]
    finally:
        con.close()


def seed(data):
    # Configuring makes the database, at the latest schema (a reader makes
    # none: test-ctl-data-dir.py)
    r = run(data, "n8n", "set", "--url", "http://127.0.0.1:5678")
    assert r.returncode == 0, r.stderr
    r = run(data, "conversation", "list")
    tap.ok(r.returncode == 0 and "No conversations." in r.stdout, "an empty list says so", r.stderr)
    con = db(data)
    with open(os.path.join(here, "seed.sql")) as f:
        con.executescript(f.read())
    con.commit()
    con.close()
    r = run(data, "conversation", "list")
    return r


def subset(expected, actual, where="$"):
    """Every member of `expected` is in `actual` with the same value."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return "%s: not an object" % where
        for k, v in expected.items():
            if k not in actual:
                return "%s.%s: missing" % (where, k)
            bad = subset(v, actual[k], "%s.%s" % (where, k))
            if bad:
                return bad
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return "%s: %s elements, expected %d" % (where, len(actual) if isinstance(actual, list) else "no",
                                                      len(expected))
        for i, (e, a) in enumerate(zip(expected, actual)):
            bad = subset(e, a, "%s[%d]" % (where, i))
            if bad:
                return bad
        return None
    return None if expected == actual else "%s: %r, expected %r" % (where, actual, expected)


def rows(data, sql):
    con = db(data)
    con.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in con.execute(sql, (ID,))]
    finally:
        con.close()


def same_as_database(exported, data):
    """Every column of every row the conversation owns, with its value."""
    tables = {
        "messages": "SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq",
        "runs": "SELECT * FROM runs WHERE conversation_id = ?",
        "toolCalls": "SELECT t.* FROM tool_calls t JOIN runs r ON r.id = t.run_id WHERE r.conversation_id = ?",
        "contextFields": "SELECT * FROM context_fields WHERE conversation_id = ? ORDER BY path",
    }
    for member, sql in tables.items():
        stored = rows(data, sql)
        if len(stored) != len(exported[member]):
            return "%s: %d rows, %d exported" % (member, len(stored), len(exported[member]))
        for row, out in zip(stored, exported[member]):
            for column, value in row.items():
                if column == "rowid":
                    continue
                got = out.get(column, "<missing>")
                if column.endswith("_json") and value is not None:
                    value = json.loads(value)
                if got != value:
                    return "%s.%s: %r, stored %r" % (member, column, got, value)
    return None


def test_list_and_changes(data):
    r = run(data, "conversation", "list", "--json")
    listed = json.loads(r.stdout) if r.returncode == 0 else []
    tap.ok(r.returncode == 0 and listed == [{
        "id": ID, "slug": "Email Inbox", "title": "Mail from Alice", "agentId": "prosponsive",
        "messageCount": 8, "pinned": False, "archived": False, "updatedAt": "2026-03-02T09:20:00.000Z"}],
        "list --json: id, slug, title, agent id, message count, pinned, archived", r.stdout + r.stderr)

    r = run(data, "conversation", "rename", "Email Inbox", "Alice's mail")
    tap.ok(r.returncode == 0 and count(data, "SELECT title FROM conversations") == "Alice's mail"
           and count(data, "SELECT slug FROM conversations") == "Email Inbox",
           "rename changes the title, the slug stays", r.stderr)
    r = run(data, "conversation", "pin", "  Email Inbox ")
    tap.ok(r.returncode == 0 and count(data, "SELECT pinned FROM conversations") == 1,
           "pin (the slug trimmed, as resolve trims it)", r.stderr)
    r = run(data, "conversation", "archive", "Email Inbox")
    listed = json.loads(run(data, "conversation", "list", "--json").stdout)
    tap.ok(r.returncode == 0 and listed[0]["archived"] and not listed[0]["pinned"],
           "archive: listed as archived, no longer pinned", r.stderr)
    r = run(data, "conversation", "list")
    tap.ok("[archived]" in r.stdout and "Alice's mail" in r.stdout, "the text list says so", r.stdout)
    r = run(data, "conversation", "unarchive", "Email Inbox")
    tap.ok(r.returncode == 0 and count(data, "SELECT archived FROM conversations") == 0, "unarchive", r.stderr)

    r = run(data, "conversation", "delete", "email inbox")
    tap.ok(r.returncode == 1 and "There is no conversation “email inbox”" in r.stderr,
           "a slug matches exactly; an unknown one exits 1 in words", r.stderr)
    r = run(data, "conversation", "rename", "Email Inbox", "   ")
    tap.ok(r.returncode == 2 and "must not be empty" in r.stderr, "an empty title is refused input (exit 2), in words",
           r.stderr)
    r = run(data, "conversation", "rename", "Email Inbox", "  Alice's mail  ")
    tap.ok(r.returncode == 0 and "is now called “Alice's mail”;" in r.stdout
           and count(data, "SELECT title FROM conversations") == "Alice's mail",
           "rename prints the title as stored, trimmed", r.stdout + r.stderr)
    r = run(data, "conversation", "frobnicate", "Email Inbox")
    tap.ok(r.returncode == 2 and "conversation list" in r.stderr, "an unknown verb is bad usage", r.stderr)


def test_search(data):
    r = run(data, "search", "thursday", "--json")
    hits = json.loads(r.stdout) if r.returncode == 0 else []
    hit = hits[0] if hits else {}
    ok = (len(hits) == 1 and hit.get("conversationId") == ID and hit.get("slug") == "Email Inbox"
          and hit.get("messageId") == "m2" and hit.get("seq") == 2)
    tap.ok(ok, "search --json: conversation id and slug, message id", r.stdout + r.stderr)
    if ok:
        start, end = hit["highlights"][0]
        tap.ok(hit["snippet"][start:end] == "Thursday", "the highlight is the match itself", hit)
    else:
        tap.ok(False, "the highlight is the match itself")

    r = run(data, "search", "archive", "--json")
    ids = [h["messageId"] for h in json.loads(r.stdout)] if r.returncode == 0 else []
    tap.ok(ids == ["m3"], "a tool call's arguments are found", r.stdout)
    r = run(data, "search", "open in mail")
    tap.ok(r.returncode == 0 and r.stdout.startswith("Email Inbox #1:"),
           "Request Context values are found (the inbound message)", r.stdout + r.stderr)
    r = run(data, "search", "thurs")
    tap.ok(r.returncode == 0 and "[Thursday]" in r.stdout, "the last word is a prefix; the match in brackets",
           r.stdout)
    for query in ['"unbalanced', "NEAR(", "AND", "meeting OR", "subject:", "*"]:
        r = run(data, "search", query)
        tap.ok(r.returncode == 0, "bad syntax %r is a plain search, never an error" % query, r.stderr)
    r = run(data, "search", "zeppelin")
    tap.ok(r.returncode == 0 and "Nothing found." in r.stdout, "nothing found says so", r.stdout)

    # A word of a sentence written without spaces, and an emoji: found as
    # parts of the text (the index's unicode61 reads neither). The message
    # goes again: the tests after this one count the seeded ones.
    con = db(data)
    con.execute("INSERT INTO messages (id, conversation_id, seq, kind, content, created_at)"
                " VALUES ('cjk', ?, 99, 'user', '明日東京に行きます 🚀', '2026-01-01T00:00:00.000Z')", (ID,))
    con.commit()
    con.close()
    for query in ["東京", "🚀"]:
        r = run(data, "search", query, "--json")
        hits = json.loads(r.stdout) if r.returncode == 0 else []
        ok = [h["messageId"] for h in hits] == ["cjk"]
        tap.ok(ok and hits[0]["snippet"][slice(*hits[0]["highlights"][0])] == query,
               "%s is found in a sentence, highlighted" % query, r.stdout + r.stderr)
    con = db(data)
    con.execute("DELETE FROM messages WHERE id = 'cjk'")
    con.commit()
    con.close()


def test_export(data):
    with open(os.path.join(here, "expected.md")) as f:
        expected_md = f.read()
    with open(os.path.join(here, "expected.json")) as f:
        expected_json = json.load(f)

    r = run(data, "export", "Email Inbox")
    tap.ok(r.returncode == 0 and r.stdout == expected_md, "Markdown export is export/expected.md",
           "\n".join(l for l in __import__("difflib").unified_diff(expected_md.splitlines(), r.stdout.splitlines(),
                                                                  lineterm="")) + r.stderr)
    r = run(data, "export", "Email Inbox", "--format", "json")
    exported = json.loads(r.stdout) if r.returncode == 0 else {}
    version = count(data, "PRAGMA user_version")
    expected_json["schemaVersion"] = version
    tap.ok(r.returncode == 0 and subset(expected_json, exported) is None,
           "JSON export holds what export/expected.json names", subset(expected_json, exported) or r.stderr)
    tap.ok(exported and same_as_database(exported, data) is None,
           "JSON export holds every column of every row of the conversation",
           exported and same_as_database(exported, data))

    out = os.path.join(data, "out", "mail.md")
    os.makedirs(os.path.dirname(out))
    with open(out, "w") as f:
        f.write("old")
    r = run(data, "export", "Email Inbox", "-o", out)
    with open(out) as f:
        written = f.read()
    tap.ok(r.returncode == 0 and written == expected_md and stat.S_IMODE(os.stat(out).st_mode) == 0o600
           and os.listdir(os.path.dirname(out)) == ["mail.md"],
           "-o FILE replaces the file whole, 0600, no temporary file left", r.stderr)
    target = os.path.join(data, "out", "target")
    with open(target, "w") as f:
        f.write("untouched")
    link = os.path.join(data, "out", "link.md")
    os.symlink(target, link)
    r = run(data, "export", "Email Inbox", "-o", link)
    with open(target) as f:
        tap.ok(r.returncode != 0 and "symbolic link" in r.stderr and f.read() == "untouched"
               and os.path.islink(link), "a symbolic link is refused, its target untouched", r.stderr)
    r = run(data, "export", "Email Inbox", "--format", "pdf")
    tap.ok(r.returncode == 2, "an unknown format is bad usage", r.stderr)
    r = run(data, "export", "Nobody")
    tap.ok(r.returncode == 1 and "Nobody" in r.stderr, "an unknown slug exits 1", r.stderr)


def test_delete(data):
    r = run(data, "conversation", "delete", "Email Inbox")
    left = {t: count(data, "SELECT count(*) FROM %s" % t)
            for t in ("conversations", "messages", "runs", "tool_calls", "context_fields",
                      "message_search_docsize")}
    tap.ok(r.returncode == 0 and all(v == 0 for v in left.values()),
           "delete removes the conversation, its messages, runs, tool calls, fields and search entries",
           "%s %s" % (left, r.stderr))
    con = db(data)
    fk = con.execute("PRAGMA foreign_key_check").fetchall()
    con.close()
    tap.ok(fk == [], "no row refers to a missing one", fk)
    r = run(data, "search", "thursday", "--json")
    tap.ok(r.returncode == 0 and json.loads(r.stdout) == [], "its messages are no longer found", r.stdout)


# What a terminal reads as a command: CSI (ESC [ and the one-character
# U+009B), OSC 52 (writes the clipboard), BEL, a carriage return
RAW_CONTROLS = ("\x1b", "\x9b", "\x07", "\r")
EVIL_SLUG = "Evil\x1b[2J\x1b[31mRED\x9b2J"
EVIL_TEXT = "Paste this:\x1b]52;c;cm0gLXJmIH4=\x07 done\r\nline two\tend"


def test_hostile_text(data):
    """Text a workflow stored (here by an older version, which let control
    characters in) is never printed raw; names are checked on rename."""
    con = db(data)
    con.execute("INSERT INTO conversations (id, slug, title, default_agent, unread_count, message_count, "
                "created_at, updated_at) VALUES ('e', ?, ?, 'prosponsive', 0, 1, '2026-03-02T09:15:00.000Z', "
                "'2026-03-02T09:15:00.000Z')", (EVIL_SLUG, "Title\x1b[1A\nline2"))
    con.execute("INSERT INTO messages (id, conversation_id, seq, kind, content, status, created_at) "
                "VALUES ('e1', 'e', 1, 'user', ?, 'completed', '2026-03-02T09:15:00.000Z')", (EVIL_TEXT,))
    con.commit()
    con.close()
    r = run(data, "conversation", "list")
    tap.ok(r.returncode == 0 and "Evil" in r.stdout and "line2" in r.stdout
           and not any(c in r.stdout for c in RAW_CONTROLS) and r.stdout.count("\n") == 2,
           "conversation list prints a stored slug and title with their control characters blanked, "
           "one line each", repr(r.stdout))
    r = run(data, "conversation", "list", "--json")
    listed = json.loads(r.stdout) if r.returncode == 0 else []
    tap.ok(not any(c in r.stdout for c in RAW_CONTROLS) and [c["slug"] for c in listed if c["id"] == "e"] == [EVIL_SLUG],
           "list --json escapes them (C1 too) and keeps the slug exactly", repr(r.stdout))
    r = run(data, "export", EVIL_SLUG)
    tap.ok(r.returncode == 0 and "Paste this:" in r.stdout and "line two\tend" in r.stdout
           and not any(c in r.stdout for c in RAW_CONTROLS),
           "a Markdown export prints stored text with control characters blanked, lines and tabs kept",
           repr(r.stdout))
    tap.ok("\n# Title [1A line2\n" in "\n" + r.stdout and "\n- Slug: Evil [2J [31mRED 2J\n" in r.stdout,
           "its title and slug stay on their one line: a line break in them is a space too", repr(r.stdout[:200]))
    r = run(data, "export", EVIL_SLUG, "--format", "json")
    exported = json.loads(r.stdout) if r.returncode == 0 else {}
    tap.ok(not any(c in r.stdout for c in RAW_CONTROLS)
           and [m["content"] for m in exported.get("messages", [])] == [EVIL_TEXT],
           "a JSON export escapes them and keeps the text exactly", repr(r.stdout[:300]))
    r = run(data, "search", "paste", "--json")
    tap.ok(r.returncode == 0 and not any(c in r.stdout for c in RAW_CONTROLS), "search --json escapes them",
           repr(r.stdout))

    for title, what in [("x\x1b[2J", "an escape"), ("two\nlines", "a newline"), ("c1\x9bx", "a C1 control"),
                        ("t" * 201, "201 characters"), ("t" * 5000, "5,000 characters"),
                        ("a\tb", "a tab")]:
        r = run(data, "conversation", "rename", "Email Inbox", title)
        tap.ok(r.returncode == 2 and "one line of at most 200 characters" in r.stderr
               and count(data, "SELECT title FROM conversations WHERE slug = 'Email Inbox'") == "Alice's mail",
               "rename refuses a title with %s as input it does not take (exit 2), in words; the title stays" % what, r.stderr)
    r = run(data, "conversation", "rename", "Email Inbox", "Ünïcödé – “mail” 日本 🙂 " + "t" * 178)
    tap.ok(r.returncode == 0, "a 200-character title of printable characters is accepted", r.stderr)
    r = run(data, "conversation", "delete", EVIL_SLUG)
    tap.ok(r.returncode == 0 and "\x1b" not in r.stdout, "the stored slug still names its conversation", r.stderr)


with tempfile.TemporaryDirectory(prefix="prs-ctl-conversations-") as data:
    r = seed(data)
    tap.ok(r.returncode == 0 and "Mail from Alice" in r.stdout and "(8 messages)" in r.stdout,
           "list: slug, title and message count", r.stdout + r.stderr)
    test_export(data)
    test_search(data)
    test_list_and_changes(data)
    test_hostile_text(data)
    test_delete(data)

sys.exit(tap.finish())
