#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Disk full: the data folder on a 2 MiB tmpfs, filled up while
the API is used. Writes answer 507 with the JSON error body
{"success": false, "error", "code": "storage-full"}, the service keeps
running and answering reads, and once space returns writes succeed again;
the database passes PRAGMA integrity_check afterwards.

Needs `mount -t tmpfs` (root, or a user namespace that allows it): skips
with the reason otherwise."""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api'))
from prsapi import App, Tap, parse_args  # noqa: E402

PLAN = 8
BIG = 'x' * (120 * 1024)


def mount_tmpfs(path):
    try:
        r = subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', path],
                           capture_output=True, text=True, timeout=30)
    except OSError as e:
        return str(e)
    return None if r.returncode == 0 else (r.stderr.strip() or 'mount failed')


def fill(path):
    """Writes a filler file until the disk is full; returns its path."""
    filler = os.path.join(path, 'filler')
    with open(filler, 'wb') as f:
        chunk = b'\0' * 65536
        for _ in range(10000):          # bounded: 640 MB at most
            try:
                f.write(chunk)
                f.flush()
            except OSError:
                break
    try:
        with open(filler, 'ab') as f:   # the last few bytes
            for _ in range(65536):
                f.write(b'\0')
                f.flush()
    except OSError:
        pass
    return filler


def main():
    args = parse_args()
    tap = Tap(PLAN)
    mnt = tempfile.mkdtemp(prefix='prs-diskfull-')
    why = mount_tmpfs(mnt)
    if why is not None:
        os.rmdir(mnt)
        tap.skip_rest('cannot mount a tmpfs here: %s' % why)
        tap.finish()
    data = os.path.join(mnt, 'data')
    os.mkdir(data, 0o700)
    app = App(args, data_dir=data)
    try:
        agent = os.path.join(mnt, 'agent.md')
        with open(agent, 'w') as f:
            f.write('---\nid: a\nname: A\nallowedTools: []\n---\nAnswer briefly.\n')
        res = app.ctl('agent', 'import', agent)
        if res.returncode != 0:
            raise RuntimeError('agent import failed: ' + res.stderr)
        os.unlink(agent)
        app.start()
        cid = app.resolve('disk-full')
        tap.ok(cid is not None, 'service runs on a 2 MiB tmpfs')

        filler = fill(mnt)
        statuses = []
        body = None
        deadline = time.monotonic() + 60
        for i in range(200):             # bounded in count and time
            r = app.post('/api/ai/agent-inference',
                         {'prompt': 'email %d %s' % (i, BIG[:1000]), 'conversationId': cid,
                          'agentId': 'a', 'context': {'body': BIG}, 'idempotencyKey': 'full-%d' % i})
            statuses.append(r.status)
            if r.status == 507:
                body = r.json()
                break
            if time.monotonic() > deadline:
                break
        tap.ok(507 in statuses, 'a write on a full disk answers 507 (after %d writes: %s)'
               % (len(statuses), sorted(set(statuses))))
        tap.ok(isinstance(body, dict) and body.get('success') is False and
               body.get('code') == 'storage-full' and isinstance(body.get('error'), str),
               'the 507 body is the JSON error shape', body)
        r = app.post('/api/conversations/resolve', {'slug': 'new-while-full'})
        tap.ok(r.status in (507, 200) and app.proc.poll() is None,
               'resolve of a new conversation while full: %d, service alive' % r.status,
               r.body[:300])
        r = app.get('/api/conversations')
        tap.ok(r.status == 200, 'reads still answer while the disk is full', r)

        os.unlink(filler)
        ok = None
        for i in range(20):
            r = app.post('/api/conversations/resolve', {'slug': 'after-space-returned-%d' % i})
            if r.status == 200:
                ok = r
                break
            time.sleep(0.2)
        tap.ok(ok is not None, 'writes succeed again once space returns', r)
        r = app.post('/api/ai/agent-inference',
                     {'prompt': 'after', 'conversationId': cid, 'agentId': 'a',
                      'idempotencyKey': 'after-1'})
        tap.ok(r.status in (200, 503) and 'messageId' in (r.json() or {}),
               'an inbound message is stored again (%d)' % r.status, r)

        app.stop()
        res = subprocess.run(['sqlite3', os.path.join(data, 'prosponsive.db'), 'PRAGMA integrity_check'],
                             capture_output=True, text=True, timeout=60)
        tap.ok(res.stdout.strip() == 'ok', "PRAGMA integrity_check says '%s'" % res.stdout.strip())
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc() + '\n' + app.log())
    finally:
        app.cleanup()
        subprocess.run(['umount', mnt], capture_output=True)
        try:
            os.rmdir(mnt)
        except OSError:
            pass
    tap.finish()


if __name__ == '__main__':
    main()
