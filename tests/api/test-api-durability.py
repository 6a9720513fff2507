#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Durability: a client posts inbound messages (agent-inference: stored,
then 503 no-provider) while the service is killed with SIGKILL 20 times in
a row and restarted. Every message whose status line was received must be
there afterwards, and the database must pass PRAGMA integrity_check.

--full kills 200 times (reliability suite, on demand:
tests/reliability/run-full.sh); the api suite runs the short form (20)."""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

from prsapi import run_suite

KILLS = 20
PLAN = 6


def setup(app):
    # The agent the inbound messages name (agent-inference checks it exists)
    agent = os.path.join(app.data_dir, 'durability-agent.md')
    with open(agent, 'w') as f:
        f.write('---\nid: a\nname: A\nallowedTools: []\n---\nAnswer briefly.\n')
    app.ctl('agent', 'import', agent)


def run(tap, app):
    cid = app.resolve('durability')
    acked = {}          # prompt -> messageId
    attempts = [0]
    stop = threading.Event()
    lock = threading.Lock()

    def client():
        i = 0
        while not stop.is_set():
            prompt = 'email %d' % i
            try:
                r = app.post('/api/ai/agent-inference',
                             {'prompt': prompt, 'conversationId': cid, 'agentId': 'a',
                              'idempotencyKey': 'dur-%d' % i}, timeout=5)
                attempts[0] += 1
                if r.status == 503 and 'messageId' in (r.json() or {}):
                    with lock:
                        acked[prompt] = r.json()['messageId']
                    i += 1
                # other outcomes: not acknowledged, retried with the same key
            except Exception:
                time.sleep(0.01)

    # daemon: a test ended early (SIGTERM → SystemExit) must not wait for it
    threads = [threading.Thread(target=client, daemon=True) for _ in range(1)]
    for t in threads:
        t.start()

    restarts_ok = 0
    for k in range(KILLS):
        # Each life acknowledges at least one message before it dies (a slow
        # build, ASan say, would otherwise be killed before its first answer),
        # then lives a little longer so the kill lands mid-request too.
        with lock:
            before = len(acked)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with lock:
                if len(acked) > before:
                    break
            time.sleep(0.01)
        time.sleep((k % 5) * 0.04)
        app.kill(signal.SIGKILL)
        try:
            app.start(timeout=20)
            restarts_ok += 1
        except RuntimeError as e:
            tap.diag(str(e))
            break
    time.sleep(0.3)
    stop.set()
    for t in threads:
        t.join(30)

    tap.ok(restarts_ok == KILLS, 'killed with SIGKILL and restarted %d times' % restarts_ok)
    tap.ok(len(acked) >= KILLS, '%d messages acknowledged over %d attempts' % (len(acked), attempts[0]))

    stored = {}
    after = 0
    while True:
        page = app.get('/api/conversations/%s/messages?after=%d&limit=500' % (cid, after)).json()
        if not page:
            break
        for m in page:
            stored[m['id']] = m
        after = page[-1]['seq']
    missing = [p for p, mid in acked.items() if mid not in stored or stored[mid].get('content') != p]
    tap.ok(not missing, 'every acknowledged message is there afterwards (%d stored)' % len(stored),
           missing[:5])
    # Only the inbound messages: a run may add notices or replies of its own
    contents = [m.get('content') for m in stored.values() if m.get('kind') == 'inbound']
    tap.ok(len(contents) == len(set(contents)), 'no message was stored twice (idempotencyKey)')
    # A request stored just before a kill is answered when the client sends it
    # again (never left "pending" forever, never answered "running" forever)
    pending = [m['content'] for m in stored.values()
               if m.get('kind') == 'inbound' and m.get('status') == 'pending']
    tap.ok(not pending, 'no request was left unanswered', pending[:5])

    app.stop()
    db = os.path.join(app.data_dir, 'prosponsive.db')
    if shutil.which('sqlite3'):
        res = subprocess.run(['sqlite3', db, 'PRAGMA integrity_check'], capture_output=True, text=True)
        result = res.stdout.strip()
    else:
        result = sqlite3.connect(db).execute('PRAGMA integrity_check').fetchone()[0]
    tap.ok(result == 'ok', "PRAGMA integrity_check says '%s'" % result)


if __name__ == '__main__':
    if '--full' in sys.argv:
        sys.argv.remove('--full')
        KILLS = 200
    run_suite(PLAN, run, setup)
