#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The control key's home (docs/api.md#deciding-tool-calls): a secret of the
data folder like the API token, in the Secret Service with --keyring (run
inside tests/run-with-keyring.sh), else in the fallback file secrets.json.
The file control-key an older version wrote is moved there on the first
start, value unchanged, and removed; prosponsive-ctl goes on working with
it, and `prosponsive-ctl control-key` prints it; with no key stored, ctl
says the service has not made it yet."""

import json
import os
import secrets
import subprocess

from prsapi import run_suite

PLAN = 16

OLD_KEY = secrets.token_urlsafe(32)


def key_file(app):
    return os.path.join(app.data_dir, 'control-key')


def plant(app, value):
    fd = os.open(key_file(app), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.write(value + '\n')


def setup(app):
    # What the version before the keyring left in the data folder
    plant(app, OLD_KEY)


def forget_key(app):
    """Takes the key out of the store, as if the service never made it."""
    if app.args.keyring:
        subprocess.run(['secret-tool', 'clear', 'name', 'control-key',
                        'data-dir', os.path.abspath(app.data_dir)], env=app.env(), timeout=30, check=True)
        return
    path = os.path.join(app.data_dir, 'secrets.json')
    with open(path) as f:
        stored = json.load(f)
    del stored['control-key']
    with open(path, 'w') as f:
        json.dump(stored, f)


def listing(app, key):
    return app.get('/api/tool-calls', headers={'X-Prosponsive-Control': key})


def test_moved(tap, app):
    tap.ok(not os.path.lexists(key_file(app)), 'the first start removed the old control-key file')
    tap.ok(app.secret('control-key') == OLD_KEY, 'its key is now a secret of the data folder, the same value',
           app.secret('control-key'))
    tap.ok(os.path.exists(os.path.join(app.data_dir, 'secrets.json')) != app.args.keyring,
           'kept %s' % ('in the keyring (no fallback file)' if app.args.keyring else 'in the fallback file'))
    r = listing(app, OLD_KEY)
    tap.ok(r.status == 200, 'the moved key lists the waiting calls', r)
    r = app.get('/api/tool-calls')
    tap.ok(r.status == 403 and (r.json() or {}).get('code') == 'control-key-required',
           'without the key → 403 control-key-required, as before', r)
    res = app.ctl('approvals')
    tap.ok(res.returncode == 0, 'prosponsive-ctl approvals works with the key from the store', res.stdout + res.stderr)
    res = app.ctl('control-key')
    tap.ok(res.returncode == 0 and res.stdout == OLD_KEY + '\n', 'prosponsive-ctl control-key prints it',
           res.stdout + res.stderr)


def test_restart(tap, app):
    # A start stopped after storing the key but before removing the file
    # leaves a file behind: the stored key stays the key
    app.stop()
    plant(app, secrets.token_urlsafe(32))
    app.start()
    tap.ok(app.secret('control-key') == OLD_KEY and listing(app, OLD_KEY).status == 200,
           'the next start keeps the stored key', app.secret('control-key'))
    tap.ok(not os.path.lexists(key_file(app)), 'and removes a leftover control-key file')


def test_unmade(tap, app):
    app.stop()
    forget_key(app)
    res = app.ctl('approvals')
    tap.ok(res.returncode == 1 and 'has not made the control key' in res.stderr,
           'with no key stored, prosponsive-ctl says the service has not made it yet', res.stdout + res.stderr)
    res = app.ctl('control-key')
    tap.ok(res.returncode == 1 and res.stdout == '' and 'has not made the control key' in res.stderr,
           'and control-key prints nothing but that', res.stdout + res.stderr)
    app.start()
    key = app.secret('control-key') or ''
    tap.ok(len(key) >= 43 and key != OLD_KEY, 'a start with no key and no file makes a new one', key)
    tap.ok(not os.path.lexists(key_file(app)), 'and writes no control-key file')
    tap.ok(listing(app, key).status == 200 and listing(app, OLD_KEY).status == 403,
           'the new key opens the routes, the old one no longer does')
    res = app.ctl('approvals')
    tap.ok(res.returncode == 0, 'prosponsive-ctl approvals uses the new key', res.stdout + res.stderr)


def test_bad_file(tap, app):
    # A file that holds no key is not moved: the routes stay closed, as
    # when the key could not be read before
    app.stop()
    forget_key(app)
    plant(app, 'short')
    app.start()
    r = listing(app, 'short')
    tap.ok(r.status == 503 and (r.json() or {}).get('code') == 'control-unavailable'
           and app.secret('control-key') is None,
           'an old file with no key in it → 503 control-unavailable, nothing stored', r)


def run(tap, app):
    test_moved(tap, app)
    test_restart(tap, app)
    test_unmade(tap, app)
    test_bad_file(tap, app)


if __name__ == '__main__':
    run_suite(PLAN, run, setup)
