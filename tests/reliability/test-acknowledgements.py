#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An answer tells only what is on the disk (docs/storage.md).

While an agent-inference call waits for its model, its inbound message is
committed without waiting for the disk: a read of the conversation that
shows it syncs the database first. An agent-inference
call whose model has answered, while another program (a ctl verb, sqlite3)
keeps a write open past the busy timeout, cannot store the run's end — its
reply, its status. The call must then not answer 200 "completed" with that
reply: it answers 503 storage-busy with Retry-After, and nothing in the
database contradicts what it was told. The run keeps the reply and stores it
itself once the other program is done: the same request sent again hears
202 "running" until then and 200 "completed" with that reply after, with no
restart and without asking the model again. The next call answers 200 and
its reply is in the database, which passes PRAGMA integrity_check."""

import os
import sqlite3
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api'))
from prsapi import run_suite, wait_until  # noqa: E402

PLAN = 7
# The service's debug line when a read had to sync the database first
SYNCED_READ = 'Synced the database before answering a read'
HELD_REPLY = 'The reply written while the database was held'
LATER_REPLY = 'The reply written once it was free'
SCRIPT = {
    'kind': 'openai',
    'turns': [
        # The model thinks long enough for the other program to take the
        # database after the inbound message and the run's start are stored
        {'response': {'text': HELD_REPLY, 'stream': False, 'initial_delay': 2.0}},
        {'response': {'text': LATER_REPLY, 'stream': False}},
    ],
}


def stored_replies(db_path, cid):
    db = sqlite3.connect('file:%s?mode=ro' % db_path, uri=True, timeout=10)
    try:
        return [row[0] for row in db.execute(
            "SELECT content FROM messages WHERE conversation_id = ? AND kind = 'assistant'", (cid,))]
    finally:
        db.close()


def inference(app, cid, key, out):
    out['r'] = app.post('/api/ai/agent-inference',
                        {'prompt': 'Say something (%s)' % key, 'conversationId': cid, 'agentId': 'a',
                         'idempotencyKey': key}, timeout=150)


def run(tap, app):
    db_path = os.path.join(app.data_dir, 'prosponsive.db')
    cid = app.resolve('held-at-the-end')
    out = {}
    caller = threading.Thread(target=inference, args=(app, cid, 'held', out))
    caller.start()

    # The model was asked: the inbound message is committed; 0.5 s more and
    # the run's start is too (250 ms after it began)
    asked = wait_until(lambda: len(app.provider.requests('POST')) >= 1, 20)
    t0 = time.monotonic()
    page = app.get('/api/conversations/%s/messages' % cid)
    shown = [(m.get('kind'), m.get('status')) for m in (page.json() or [])]
    tap.ok(page.status == 200 and ('inbound', 'pending') in shown and SYNCED_READ in app.log(),
           'a read that shows the waiting inbound message synced the database before answering',
           '%r %r\n%s' % (page, shown, app.log()[-2000:]))
    time.sleep(max(0.0, 0.5 - (time.monotonic() - t0)))
    holder = sqlite3.connect(db_path, timeout=10, isolation_level=None)
    holder.execute('BEGIN IMMEDIATE')
    try:
        # Held until the call is answered (each write of the run's end waits
        # 5 s for it), at most 90 s
        caller.join(90)
    finally:
        holder.execute('ROLLBACK')
        holder.close()
    caller.join(60)
    r = out.get('r')
    body = (r.json() if r is not None else None) or {}
    replies = stored_replies(db_path, cid)
    acknowledged = r is not None and r.status == 200 and body.get('status') == 'completed'
    tap.ok(asked and r is not None and not (acknowledged and HELD_REPLY not in replies),
           'a reply the call answered with 200 "completed" is in the database',
           'answer %r %r; stored replies %r\n%s' % (r, body, replies, app.log()[-4000:]))
    tap.ok(r is not None and r.status == 503 and body.get('code') == 'storage-busy'
           and r.headers.get('Retry-After') == '1',
           'a run whose end could not be stored answers 503 storage-busy with Retry-After',
           '%r %r' % (r, body))

    # The same request again, until the run has stored the reply it kept
    answers = []

    def held_again():
        again = {}
        inference(app, cid, 'held', again)
        r = again.get('r')
        b = (r.json() if r is not None else None) or {}
        answers.append((r.status if r is not None else None, b.get('status'), b.get('content')))
        return r is not None and r.status == 200

    stored = wait_until(held_again, 90, interval=0.5)
    last = answers[-1] if answers else (None, None, None)
    tap.ok(stored and last[1:] == ('completed', HELD_REPLY) and HELD_REPLY in stored_replies(db_path, cid)
           and all(a[:2] in ((202, 'running'), (200, 'completed')) for a in answers),
           'the same request again hears 202 "running", then 200 "completed" with the reply the run kept, '
           'stored, without a restart',
           'answers %r; stored replies %r\n%s' % (answers, stored_replies(db_path, cid), app.log()[-4000:]))

    later = {}
    inference(app, cid, 'later', later)
    r2 = later['r']
    body2 = r2.json() or {}
    tap.ok(r2.status == 200 and body2.get('status') == 'completed' and body2.get('content') == LATER_REPLY
           and LATER_REPLY in stored_replies(db_path, cid),
           'once the database is free, the next call answers 200 and its reply is stored',
           '%r %r' % (r2, body2))
    asked = len(app.provider.requests('POST'))
    tap.ok(asked == 2, 'the model was asked once for each request: the reply kept is the one it gave',
           '%d model calls' % asked)
    app.stop()
    db = sqlite3.connect(db_path)
    try:
        check = db.execute('PRAGMA integrity_check').fetchone()[0]
    finally:
        db.close()
    tap.ok(check == 'ok', 'the database passes PRAGMA integrity_check', check)


def setup(app):
    agent = os.path.join(app.data_dir, 'a.md')
    with open(agent, 'w') as f:
        f.write('---\nid: a\nname: A\nallowedTools: []\n---\nAnswer briefly.\n')
    res = app.ctl('agent', 'import', agent)
    os.unlink(agent)
    if res.returncode != 0:
        raise RuntimeError('agent import failed: ' + res.stderr)
    app.provider = app.add_scripted_provider(SCRIPT)


if __name__ == '__main__':
    # Says when a read had to sync the database itself
    os.environ['G_MESSAGES_DEBUG'] = 'Prosponsive'
    run_suite(PLAN, run, setup)
