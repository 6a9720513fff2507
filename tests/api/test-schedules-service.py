#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Scheduled prompts in the running service (docs/schedules.md), seen
through the local API, with tests/scripted-provider.py as the model:
a schedule added by prosponsive-ctl while `prosponsive --headless` runs,
`schedule run` answered by the service (the prompt is an inbound message
of origin schedule, with its Request Context, answered by the agent), due
times fired by the service itself on the test clock (debug builds:
PROSPONSIVE_TEST_CLOCK, here 60 times faster), a run missed while the
service was stopped caught up once at start with a notice, and `schedule
run` once the service is gone. The service hears of another program's
changes through a stamp in a folder of its own: no inotify watch covers
the database's folder (each commit would wake it)."""

import json
import os
import sqlite3
import subprocess
import time

from prsapi import App, ScriptedProvider, Tap, parse_args, wait_until

PLAN = 18
SCRIPT = {'kind': 'openai', 'repeat_last': True, 'turns': [{'response': {'text': 'Done.'}}]}


def ctl(app, *argv, timeout=30):
    return subprocess.run([app.args.ctl, '--data-dir', app.data_dir, 'schedule'] + list(argv),
                          capture_output=True, text=True, env=app.env(), timeout=timeout)


def messages_of(app, slug):
    convs = app.get('/api/conversations').json() or []
    ids = [c['id'] for c in convs if c['slug'] == slug]
    if not ids:
        return []
    return app.get('/api/conversations/%s/messages?limit=500' % ids[0]).json() or []


def of_kind(messages, kind):
    return [m for m in messages if m['kind'] == kind]


def inotify_inodes(pid):
    """The inodes (device numbers aside) that the process's inotify
    descriptors watch, from /proc/PID/fdinfo ("inotify wd:1 ino:1a2b ...")."""
    inodes = set()
    for fd in os.listdir('/proc/%d/fd' % pid):
        try:
            if os.readlink('/proc/%d/fd/%s' % (pid, fd)) != 'anon_inode:inotify':
                continue
            with open('/proc/%d/fdinfo/%s' % (pid, fd)) as f:
                for line in f:
                    if line.startswith('inotify '):
                        fields = dict(p.split(':', 1) for p in line.split()[1:] if ':' in p)
                        inodes.add(int(fields['ino'], 16))
        except OSError:
            continue
    return inodes


def main():
    args = parse_args()
    tap = Tap(PLAN)
    clock = '%d:60' % int(time.time())
    os.environ['PROSPONSIVE_TEST_CLOCK'] = clock
    os.environ['TZ'] = 'Europe/Berlin'
    app = App(args)
    provider = ScriptedProvider(SCRIPT)
    app.providers.append(provider)
    try:
        provider.add_to(app)
        app.start()

        # -- added while the service runs, then run by the service on request --
        with open(os.path.join(app.data_dir, 'context.json'), 'w') as f:
            json.dump({'team': 'ops'}, f)
        r = ctl(app, 'add', '--name', 'Briefing', '--conversation', 'Morning', '--agent', 'prosponsive',
                '--prompt', 'Summarise my day.', '--every', '600m', '--context-file',
                os.path.join(app.data_dir, 'context.json'))
        tap.ok(r.returncode == 0, 'schedule add while the service runs', r.stderr)
        changes = os.path.join(app.data_dir, 'changes')
        stamp = os.path.join(changes, 'schedules')
        tap.ok(os.stat(changes).st_mode & 0o777 == 0o700 and os.stat(stamp).st_mode & 0o777 == 0o600,
               "the change stamp is the user's alone", oct(os.stat(stamp).st_mode))
        watched = inotify_inodes(app.pid)
        tap.ok(os.stat(changes).st_ino in watched, "the service watches the stamp's folder",
               (watched, os.stat(changes).st_ino))
        tap.ok(os.stat(app.data_dir).st_ino not in watched,
               "no inotify watch covers the database's folder", (watched, os.stat(app.data_dir).st_ino))
        started = time.monotonic()
        r = ctl(app, 'run', 'Briefing')
        tap.ok(r.returncode == 0 and r.stdout == '“Briefing” runs now in “Morning”.\n',
               'schedule run: the running service took the request', r.stdout + r.stderr)
        tap.diag('taken after %.2f s' % (time.monotonic() - started))
        tap.ok(wait_until(lambda: of_kind(messages_of(app, 'Morning'), 'assistant'), 20),
               'the agent answered in the conversation', app.log())
        msgs = messages_of(app, 'Morning')
        inbound = of_kind(msgs, 'inbound')
        extra = inbound[0].get('extra') or {} if inbound else {}
        tap.ok(len(inbound) == 1 and inbound[0]['content'] == 'Summarise my day.'
               and inbound[0].get('context') == {'team': 'ops'} and inbound[0]['status'] == 'completed',
               'the prompt is an inbound message with its Request Context', msgs)
        tap.ok(extra.get('origin') == 'schedule' and extra.get('scheduleName') == 'Briefing'
               and extra.get('fire') == 'manual', 'its origin is the schedule', extra)
        tap.ok(of_kind(msgs, 'assistant')[0]['content'] == 'Done.', 'answered by the agent', msgs)

        # -- due times fired by the service: every minute on a clock 60 times faster --
        r = ctl(app, 'add', '--name', 'Fast', '--conversation', 'Fast', '--agent', 'prosponsive',
                '--prompt', 'Tick.', '--every', '1m')
        tap.ok(r.returncode == 0, 'an every-minute schedule', r.stderr)
        tap.ok(wait_until(lambda: len(of_kind(messages_of(app, 'Fast'), 'inbound')) >= 3, 20),
               'the service fires it by itself', app.log())
        app.stop()
        with sqlite3.connect(os.path.join(app.data_dir, 'prosponsive.db')) as db:
            dues = [row[0] for row in db.execute(
                "SELECT f.due_at FROM schedule_fires f JOIN schedules s ON s.id = f.schedule_id"
                " WHERE s.name = 'Fast' ORDER BY f.due_at")]
            runs = db.execute("SELECT count(*) FROM runs r JOIN schedule_fires f ON f.message_id = r.trigger_message_id"
                              " JOIN schedules s ON s.id = f.schedule_id WHERE s.name = 'Fast'").fetchone()[0]
        tap.ok(len(dues) >= 3 and all(b - a == 60 for a, b in zip(dues, dues[1:])),
               'one due time a minute, none twice', dues)
        tap.ok(runs == len(dues), 'one run per due time', (runs, dues))

        # -- stopped for five (test) minutes: caught up once at start, and said --
        time.sleep(5)
        app.start()
        tap.ok(wait_until(lambda: any('while Prosponsive was not running' in (m['content'] or '')
                                      for m in of_kind(messages_of(app, 'Fast'), 'notice')), 20),
               'a notice says what was missed', app.log())
        notice = [m for m in of_kind(messages_of(app, 'Fast'), 'notice')][0]['content']
        tap.ok(notice.startswith('“Fast” was due from ') and notice.endswith('It runs once now.'),
               'several missed due times: run once', notice)

        # -- its agent deleted (here behind the service's back): Run Now says why, the schedule is off --
        agent = os.path.join(app.data_dir, 'helper.md')
        with open(agent, 'w') as f:
            f.write('---\nid: helper\nname: Helper\nallowedTools: []\n---\nAnswer briefly.\n')
        subprocess.run([app.args.ctl, '--data-dir', app.data_dir, 'agent', 'import', agent], check=True,
                       capture_output=True, env=app.env(), timeout=30)
        r = ctl(app, 'add', '--name', 'Helper', '--conversation', 'Help', '--agent', 'helper', '--prompt', 'Hi.',
                '--every', '600m')
        with sqlite3.connect(os.path.join(app.data_dir, 'prosponsive.db'), timeout=10) as db:
            db.execute("DELETE FROM agents WHERE id = 'helper'")
        r = ctl(app, 'run', 'Helper')
        tap.ok(r.returncode == 1 and r.stderr == '“Helper” could not run: Its agent “helper” no longer exists. '
               'Choose another agent to turn it on again.\n', 'Run Now of a schedule whose agent is gone says why',
               r.stdout + r.stderr)
        helper = [s for s in json.loads(ctl(app, 'list', '--json').stdout) if s['name'] == 'Helper'][0]
        notices = of_kind(messages_of(app, 'Help'), 'notice')
        tap.ok(not helper['enabled'] and helper['prompt'] == 'Hi.' and len(notices) == 1
               and notices[0]['status'] == 'failed', 'it is off, its prompt kept, and its conversation says so',
               (helper, notices))
        app.stop()

        # -- nothing runs any more --
        r = ctl(app, 'run', 'Briefing')
        tap.ok(r.returncode == 1 and 'Prosponsive is not running' in r.stderr,
               'schedule run after the service stopped says so', r.stdout + r.stderr)
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc() + '\n' + app.log())
    finally:
        app.cleanup()
    tap.finish()


if __name__ == '__main__':
    main()
