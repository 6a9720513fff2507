#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A scheduled prompt never fires twice, and no due time is lost, however
`prosponsive --headless` dies (docs/schedules.md, "Exactly once").

The service runs on the test clock (debug builds: PROSPONSIVE_TEST_CLOCK,
60 times faster), so an every-minute schedule is due each second. First it
is killed at each step of firing (PROSPONSIVE_TEST_CRASH_AT: before the
transaction, after its commit before the run is made, after the run is
made) and started again; then it is killed with SIGKILL at random moments
around the due times, 20 times (200 with --full), sometimes staying down for
a few (test) minutes. Afterwards the database must show: each due time
handled at most once, every prompt with exactly one run, every prompt
recorded with its due time, and consecutive due times a minute apart unless
the later one caught up, once, on what was missed."""

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api'))
from prsapi import App, ScriptedProvider, Tap, parse_args  # noqa: E402

ROUNDS = 20
STEPS = ('before-fire', 'fired', 'run-started')
PLAN = 3 * 3 + 4
SCRIPT = {'kind': 'openai', 'repeat_last': True, 'turns': [{'response': {'text': 'Tick noted.'}}]}


def ctl(app, *argv):
    return subprocess.run([app.args.ctl, '--data-dir', app.data_dir] + list(argv),
                          capture_output=True, text=True, env=app.env(), timeout=30)


def add_schedule(app, provider):
    res = provider.add_to(app)
    if res.returncode != 0:
        raise RuntimeError('provider add failed: ' + res.stderr)
    res = ctl(app, 'schedule', 'add', '--name', 'Tick', '--conversation', 'Ticks', '--agent', 'prosponsive',
              '--prompt', 'Tick.', '--every', '1m')
    if res.returncode != 0:
        raise RuntimeError('schedule add failed: ' + res.stderr)


def query(db_path, sql):
    db = sqlite3.connect('file:%s?mode=ro' % db_path, uri=True, timeout=10)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def problems(db_path):
    """Everything that would mean a double fire or a lost one, in words."""
    found = []
    twice = query(db_path, "SELECT schedule_id, due_at, count(*) FROM schedule_fires WHERE kind != 'manual'"
                           " GROUP BY schedule_id, due_at HAVING count(*) > 1")
    found += ['due time %s handled %d times' % (row[1], row[2]) for row in twice]
    runs = query(db_path, "SELECT f.due_at, count(r.id) FROM schedule_fires f"
                          " LEFT JOIN runs r ON r.trigger_message_id = f.message_id"
                          " WHERE f.message_id IS NOT NULL GROUP BY f.id HAVING count(r.id) != 1")
    found += ['the prompt due at %s has %d runs' % row for row in runs]
    stray = query(db_path, "SELECT count(*) FROM messages WHERE kind = 'inbound'"
                           " AND json_extract (extra_json, '$.origin') = 'schedule'"
                           " AND id NOT IN (SELECT message_id FROM schedule_fires WHERE message_id IS NOT NULL)")
    if stray[0][0]:
        found.append('%d prompts without their due time' % stray[0][0])
    dues = query(db_path, "SELECT json_extract (extra_json, '$.dueAt'), count(*) FROM messages"
                          " WHERE kind = 'inbound' AND json_extract (extra_json, '$.fire') != 'manual'"
                          " GROUP BY 1 HAVING count(*) > 1")
    found += ['two prompts for %s' % row[0] for row in dues]
    fires = query(db_path, "SELECT due_at, kind FROM schedule_fires WHERE kind != 'manual' ORDER BY due_at")
    for (a, _), (b, kind) in zip(fires, fires[1:]):
        if b - a != 60 and kind != 'missed-run':
            found.append('due times %d and %d are %d s apart, and the later one did not catch up' % (a, b, b - a))
    last = query(db_path, "SELECT last_fired_at FROM schedules")[0][0]
    if fires and last != fires[-1][0]:
        found.append('last_fired_at %s is not the last due time handled %s' % (last, fires[-1][0]))
    check = query(db_path, 'PRAGMA integrity_check')[0][0]
    if check != 'ok':
        found.append('integrity_check: ' + check)
    return found


def settle(app, seconds):
    """A life without a crash: start, let it fire, stop it gently."""
    app.start(timeout=30)
    time.sleep(seconds)
    app.stop()


def crash_at(tap, args, provider, step):
    app = App(args)
    try:
        add_schedule(app, provider)
        db_path = os.path.join(app.data_dir, 'prosponsive.db')
        env = dict(app.env(), PROSPONSIVE_TEST_CRASH_AT=step)
        with open(app.log_path, 'ab') as log:
            proc = subprocess.Popen([args.prosponsive, '--headless', '--data-dir', app.data_dir,
                                     '--port', str(app.port)], stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=log, env=env)
        try:
            status = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            status = proc.wait()
        fires = query(db_path, 'SELECT count(*) FROM schedule_fires')[0][0]
        runs = query(db_path, 'SELECT count(*) FROM runs')[0][0]
        expected = {'before-fire': (0, 0), 'fired': (1, 0), 'run-started': (1, 1)}[step]
        tap.ok(status == -signal.SIGKILL and (fires, runs) == expected,
               '%s: killed there, with %d due times handled and %d runs made' % (step, fires, runs),
               'exit %s, %s\n%s' % (status, (fires, runs), app.log()))
        settle(app, 3)
        first = query(db_path, "SELECT min(due_at) FROM schedule_fires")[0][0]
        base = query(db_path, "SELECT base_at FROM schedules")[0][0]
        tap.ok(first is not None and first - base <= 120,
               '%s: after a restart the first due time is handled' % step, (first, base))
        found = problems(db_path)
        tap.ok(not found, '%s: each due time once, each prompt one run' % step, '\n'.join(found[:10]))
    finally:
        app.cleanup()


def random_kills(tap, args, provider, rng):
    app = App(args)
    try:
        add_schedule(app, provider)
        db_path = os.path.join(app.data_dir, 'prosponsive.db')
        restarts = 0
        for _ in range(ROUNDS):
            app.start(timeout=30)
            restarts += 1
            time.sleep(rng.uniform(0.2, 2.5))
            app.kill(signal.SIGKILL)
            if rng.random() < 0.3:
                time.sleep(rng.uniform(0, 4))
        settle(app, 3)
        fires = query(db_path, "SELECT kind, count(*) FROM schedule_fires GROUP BY kind")
        tap.ok(restarts == ROUNDS, 'killed with SIGKILL and restarted %d times; due times handled: %s'
               % (restarts, dict(fires)))
        tap.ok(sum(n for _, n in fires) >= ROUNDS, 'the schedule kept firing between the kills', fires)
        found = problems(db_path)
        tap.ok(not found, 'each due time once, each prompt exactly one run, nothing lost', '\n'.join(found[:10]))
        pending = query(db_path, "SELECT count(*) FROM messages WHERE kind = 'inbound' AND status = 'pending'")[0][0]
        tap.ok(pending == 0, 'no prompt left waiting for its run', pending)
    finally:
        app.cleanup()


def main():
    global ROUNDS
    if '--full' in sys.argv:
        sys.argv.remove('--full')
        ROUNDS = 200
    args = parse_args()
    tap = Tap(PLAN)
    os.environ['PROSPONSIVE_TEST_CLOCK'] = '%d:60' % int(time.time())
    seed = int(os.environ.get('PRS_TEST_SEED', time.time()))
    tap.diag('kill moments drawn with PRS_TEST_SEED=%d' % seed)
    provider = ScriptedProvider(SCRIPT)
    try:
        for step in STEPS:
            crash_at(tap, args, provider, step)
        random_kills(tap, args, provider, random.Random(seed))
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc())
    finally:
        provider.stop()
    tap.finish()


if __name__ == '__main__':
    main()
