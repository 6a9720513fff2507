#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A data folder other local users can write, tried as one of them would
(the other user is `nobody`: needs root, skips otherwise):

- the app started on a 0777 folder makes it 0700 and says so in its log;
  the other user can then neither replace secrets.json and the token stamp
  nor get their token accepted by the API;
- a secrets.json the other user planted before the start, or a
  prosponsive.db planted as a link, stops the app and prosponsive-ctl with
  an error naming the file; the link's target is left alone;
- a folder that belongs to the other user is refused, naming it. TAP."""

import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api'))
from prsapi import App, Tap, parse_args  # noqa: E402

PLAN = 8
NOBODY = 65534


def attacker_replaces_secrets(data_dir):
    """What the red team did, as `nobody`: their own secrets.json and a new
    stamp. Returns the child's exit status (0: it got in)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            for name, contents in (('secrets.json', '{"api-token": "attacker"}'),
                                   ('api-token.stamp', '99\n')):
                path = os.path.join(data_dir, name)
                with open(path + '.new', 'w') as f:
                    f.write(contents)
                os.rename(path + '.new', path)
            os._exit(0)
        except BaseException:
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def start_fails(app):
    try:
        app.start(timeout=10)
    except RuntimeError as e:
        return str(e)
    return None


def main():
    args = parse_args()
    tap = Tap(PLAN)
    if os.geteuid() != 0:
        tap.skip_rest('acting as another user (nobody) needs root')
        tap.finish()
    work = tempfile.mkdtemp(prefix='prs-folder-')
    os.chmod(work, 0o755)
    try:
        running_app(tap, args, work)
        planted_secrets(tap, args, work)
        planted_link(tap, args, work)
        foreign_folder(tap, args, work)
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tap.finish()


def running_app(tap, args, work):
    data = os.path.join(work, 'open')
    os.mkdir(data)
    os.chmod(data, 0o777)
    app = App(args, data_dir=data)
    try:
        app.start()
        mode = os.stat(data).st_mode & 0o777
        tap.ok(mode == 0o700 and 'now private' in app.log(),
               'a 0777 data folder is made 0700 at start, and the log says so (%o)' % mode, app.log())
        status = attacker_replaces_secrets(data)
        tap.ok(status != 0, 'the other user cannot replace secrets.json and the stamp')
        r = app.get('/api/conversations', token='attacker')
        tap.ok(r.status == 401, "the other user's token is refused (%d)" % r.status)
        tap.ok(app.get('/api/conversations').status == 200, 'the real token still works')
    finally:
        app.stop()


def planted_secrets(tap, args, work):
    data = os.path.join(work, 'planted')
    os.mkdir(data, 0o700)
    secrets = os.path.join(data, 'secrets.json')
    with open(secrets, 'w') as f:
        json.dump({'api-token': 'attacker'}, f)
    os.chown(secrets, NOBODY, NOBODY)
    app = App(args, data_dir=data)
    try:
        why = start_fails(app)
        tap.ok(why is not None and secrets in why and 'another user' in why,
               "the app does not start on a secrets.json another user planted, and names it", why)
        res = app.ctl('token')
        tap.ok(res.returncode != 0 and 'attacker' not in res.stdout and secrets in res.stderr,
               'prosponsive-ctl token refuses it too', res.stdout + res.stderr)
    finally:
        app.stop()


def planted_link(tap, args, work):
    data = os.path.join(work, 'linked')
    os.mkdir(data, 0o700)
    target = os.path.join(work, 'victim.db')
    with open(target, 'w') as f:
        f.write('not a database')
    db = os.path.join(data, 'prosponsive.db')
    os.symlink(target, db)
    app = App(args, data_dir=data)
    try:
        why = start_fails(app)
        res = app.ctl('rule', 'list')
        with open(target) as f:
            untouched = f.read() == 'not a database'
        tap.ok(why is not None and db in why and 'symbolic link' in why and res.returncode != 0
               and db in res.stderr and untouched,
               'a prosponsive.db planted as a link stops the app and the ctl, naming it; '
               'its target is untouched', (why or '') + res.stderr)
    finally:
        app.stop()


def foreign_folder(tap, args, work):
    data = os.path.join(work, 'theirs')
    os.mkdir(data, 0o700)
    os.chown(data, NOBODY, NOBODY)
    app = App(args, data_dir=data)
    try:
        why = start_fails(app)
        tap.ok(why is not None and data in why and 'another user' in why,
               "a data folder that belongs to another user is refused, naming it", why)
    finally:
        app.stop()


if __name__ == '__main__':
    main()
