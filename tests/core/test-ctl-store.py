#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl and the store shared with other programs: a verb that
writes waits while another program writes (busy timeout) and succeeds; one
that cannot get the database in time says so in words and exits 75; reading
is never held up by a writer. `prosponsive-ctl backup FILE`: a consistent,
private copy written while another process writes, restorable as the
prosponsive.db of a new folder; never through a symbolic link, never over
the live database. TAP."""
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time

ctl = sys.argv[1]
results = []
EX_TEMPFAIL = 75


def check(ok, what, diag=None):
    results.append((bool(ok), what, diag))


def run(data, *args, timeout=60):
    return subprocess.run([ctl, "--data-dir", data, *args], capture_output=True, text=True,
                          timeout=timeout, env=dict(os.environ, PROSPONSIVE_SECRETS="file"))


def hold_write_lock(db_path, seconds, started):
    """Another program writing: a write transaction kept open for a while."""
    db = sqlite3.connect(db_path, timeout=10, isolation_level=None)
    db.execute("BEGIN IMMEDIATE")
    started.set()
    time.sleep(seconds)
    db.execute("COMMIT")
    db.close()


def holding(db_path, seconds):
    started = threading.Event()
    thread = threading.Thread(target=hold_write_lock, args=(db_path, seconds, started), daemon=True)
    thread.start()
    started.wait(10)
    return thread


def rule_tools(data):
    db = sqlite3.connect(os.path.join(data, "prosponsive.db"))
    tools = [r[0] for r in db.execute("SELECT tool FROM approval_rules ORDER BY id")]
    db.close()
    return tools


def busy(data):
    db_path = os.path.join(data, "prosponsive.db")

    # Held 1.5 s: the verb waits and succeeds
    thread = holding(db_path, 1.5)
    start = time.monotonic()
    r = run(data, "rule", "add", "--tool", "waited", "--action", "deny")
    waited = time.monotonic() - start
    thread.join()
    check(r.returncode == 0 and waited >= 1.0,
          "a writing verb waits for another program's write, then succeeds (%.1f s)" % waited,
          r.stderr)
    check("waited" in rule_tools(data), "and its write is there")

    # Held longer than the busy timeout: words and exit 75, nothing written
    thread = holding(db_path, 8)
    r = run(data, "rule", "add", "--tool", "too-late", "--action", "deny")
    reading = run(data, "rule", "list")
    thread.join()
    check(r.returncode == EX_TEMPFAIL, "past the busy timeout the verb exits 75 (got %d)" % r.returncode,
          r.stderr)
    check("stayed in use by another program" in r.stderr and "Try again" in r.stderr
          and db_path in r.stderr, "and says so in words, naming the database", r.stderr)
    check("too-late" not in rule_tools(data), "nothing was written")
    check(reading.returncode == 0 and "waited" in reading.stdout,
          "reading is not held up by a writer", reading.stderr)


def writer(data, stop, written):
    db = sqlite3.connect(os.path.join(data, "prosponsive.db"), timeout=10)
    i = 0
    while not stop.is_set():
        with db:
            db.execute("INSERT INTO settings (key, value) VALUES (?, ?)", ("w%d" % i, "x" * 2000))
        written.append(i)
        i += 1
    db.close()


def backup(data, work):
    for i in range(50):
        run(data, "rule", "add", "--tool", "t%d" % i, "--action", "approve")

    # Written while another process keeps writing
    stop = threading.Event()
    written = []
    thread = threading.Thread(target=writer, args=(data, stop, written), daemon=True)
    thread.start()
    while len(written) < 20:
        time.sleep(0.01)
    before = len(written)
    copy = os.path.join(work, "copy.db")
    r = run(data, "backup", copy)
    stop.set()
    thread.join()
    check(r.returncode == 0 and os.path.exists(copy), "backup FILE while another process writes",
          r.stderr)
    mode = stat.S_IMODE(os.lstat(copy).st_mode)
    check(mode == 0o600, "the copy is readable only by its owner (%o)" % mode)
    db = sqlite3.connect(copy)
    check(db.execute("PRAGMA integrity_check").fetchone()[0] == "ok", "the copy passes integrity_check")
    keys = {k for (k,) in db.execute("SELECT key FROM settings WHERE key LIKE 'w%'")}
    db.close()
    check(all("w%d" % i in keys for i in range(before)),
          "it holds every write committed before it began (%d of %d in all)" % (len(keys), len(written)))
    leftovers = [f for f in os.listdir(work) if f.startswith("copy.db.")]
    check(not leftovers, "no temporary file is left beside it", leftovers)

    # Restored: the copy as prosponsive.db of a new folder
    restored = os.path.join(work, "restored")
    os.mkdir(restored, 0o700)
    shutil.copy(copy, os.path.join(restored, "prosponsive.db"))
    r = run(restored, "rule", "list")
    check(r.returncode == 0 and "t49" in r.stdout, "a new folder holding it as prosponsive.db opens",
          r.stderr)

    # Replaces an older file; never a link, never the live database
    with open(copy, "w") as f:
        f.write("an older backup")
    r = run(data, "backup", copy)
    check(r.returncode == 0 and sqlite3.connect(copy).execute("PRAGMA quick_check").fetchone()[0] == "ok",
          "an existing file is replaced by the new copy", r.stderr)

    target = os.path.join(work, "target")
    with open(target, "w") as f:
        f.write("precious")
    os.chmod(target, 0o644)
    link = os.path.join(work, "link.db")
    os.symlink(target, link)
    r = run(data, "backup", link)
    with open(target) as f:
        unchanged = f.read() == "precious"
    check(r.returncode != 0 and "symbolic link" in r.stderr and unchanged
          and os.path.islink(link), "a symbolic link at FILE is refused, its target untouched", r.stderr)

    live = os.path.join(data, "prosponsive.db")
    size = os.path.getsize(live)
    for name in ("prosponsive.db", "prosponsive.db-wal", "prosponsive.db-shm"):
        r = run(data, "backup", os.path.join(data, name))
        check(r.returncode != 0 and "live database" in r.stderr, "refuses to write over %s" % name,
              r.stderr)
    alias = os.path.join(work, "alias")
    os.symlink(data, alias)
    r = run(data, "backup", os.path.join(alias, "prosponsive.db"))
    check(r.returncode != 0 and "live database" in r.stderr, "refuses another path to the live database",
          r.stderr)
    db = sqlite3.connect(live)
    check(os.path.getsize(live) >= size and db.execute("PRAGMA integrity_check").fetchone()[0] == "ok",
          "the live database is intact")
    db.close()


work = tempfile.mkdtemp(prefix="prs-ctl-store-")
try:
    data = os.path.join(work, "data")
    r = run(data, "rule", "add", "--tool", "first", "--action", "deny")
    check(r.returncode == 0, "a first verb makes the data folder", r.stderr)
    for part in (busy, backup):
        try:
            part(data, work) if part is backup else part(data)
        except Exception:
            import traceback
            check(False, "%s: unexpected exception" % part.__name__, traceback.format_exc())
finally:
    shutil.rmtree(work, ignore_errors=True)

print("1..%d" % len(results))
for i, (ok, what, diag) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, what))
    if not ok and diag:
        for line in str(diag).splitlines():
            print("# " + line)
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
