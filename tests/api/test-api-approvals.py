#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Deciding tool calls through the API (docs/api.md#deciding-tool-calls),
over real HTTPS against `prosponsive --headless` with the scripted model:
the waiting calls listed and decided with the control key, refused (403)
with the token alone — the token n8n holds — 404 and 409, and the same
through `prosponsive-ctl approvals|approve|deny`, which find the port the
service was started with (`--port`) in the data folder's api-port. The
control key is a secret like the token: with --keyring in the Secret
Service, else in the fallback file; never a file of its own."""

import json
import os
import sqlite3
import stat
import subprocess

from prsapi import free_port, run_suite, wait_until

PLAN = 32

SCRIPT = {
    'kind': 'openai',
    'repeat_last': True,
    'turns': [
        {'response': {'tool_calls': [{'id': 'call_a', 'name': 'get_weather', 'arguments': {'city': 'Paris'}}]}},
        {'response': {'tool_calls': [{'id': 'call_b', 'name': 'get_weather', 'arguments': {'city': 'Rome'}}]}},
        {'response': {'text': 'Done.'}},
    ],
}


def setup(app):
    app.provider = app.add_scripted_provider(SCRIPT)


def control_key(app):
    return app.secret('control-key') or ''


def propose(app, cid, prompt):
    r = app.post('/api/ai/agent-inference', {'prompt': prompt, 'conversationId': cid, 'agentId': 'prosponsive'})
    calls = (r.json() or {}).get('toolCalls') or [{}]
    return r, calls[0].get('id')


def status_of(app, cid, call_id):
    message_id = known_messages.get(call_id)
    msgs = app.get('/api/conversations/%s/messages?limit=500' % cid).json() or []
    return [m['status'] for m in msgs if m['id'] == message_id]


# call id → its tool-call message's id, as the list gave it
known_messages = {}


def test_key(tap, app):
    # A workflow that reads the user's files must not find it
    files = sorted(os.listdir(app.data_dir))
    tap.ok(len(control_key(app)) >= 43 and 'control-key' not in files
           and (not app.args.keyring or 'secrets.json' not in files),
           'the service made a control key among its secrets (%s), in no file of its own'
           % ('the keyring' if app.args.keyring else 'the fallback file'), files)


def test_refused(tap, app, call_a):
    r = app.get('/api/tool-calls?status=proposed')
    tap.ok(r.status == 403 and (r.json() or {}).get('code') == 'control-key-required',
           'listing waiting calls with the API token alone → 403 control-key-required', r)
    r = app.get('/api/tool-calls', headers={'X-Prosponsive-Control': 'x' * 43})
    tap.ok(r.status == 403, 'a wrong control key → 403', r)
    r = app.request('GET', '/api/tool-calls', auth=False, headers={'X-Prosponsive-Control': control_key(app)})
    tap.ok(r.status == 401, 'the control key without the token → 401', r)
    r = app.post('/api/tool-calls/%s/decision' % call_a, {'decision': 'approve'})
    tap.ok(r.status == 403 and (r.json() or {}).get('code') == 'control-key-required',
           'a workflow with the token cannot approve a call → 403', r)
    r = app.post('/api/mcp/tools/calls/%s/decision' % call_a, {'action': 'approve'})
    tap.ok(r.status == 403, 'nor through the MCP clients\' decision route', r)


def test_api(tap, app, cid, call_a, call_b):
    key = {'X-Prosponsive-Control': control_key(app)}
    r = app.get('/api/tool-calls?status=proposed', headers=key)
    calls = (r.json() or {}).get('toolCalls') or []
    by_id = {c.get('id'): c for c in calls}
    a = by_id.get(call_a) or {}
    known_messages.update({c.get('id'): c.get('messageId') for c in calls})
    tap.ok(r.status == 200 and set(by_id) == {call_a, call_b},
           'with the control key the two waiting calls are listed (still waiting after the refusals)', r)
    tap.ok(a.get('name') == 'get_weather' and a.get('arguments') == {'city': 'Paris'}
           and a.get('conversationId') == cid and a.get('conversationSlug') == 'approvals'
           and a.get('agentId') == 'prosponsive' and a.get('origin') == 'agent-inference'
           and a.get('createdAt') and a.get('messageId') and a.get('runId'),
           'each with its tool, arguments, conversation, agent, origin and time', a)
    r = app.get('/api/tool-calls?status=denied', headers=key)
    tap.ok(r.status == 400 and (r.json() or {}).get('code') == 'invalid-field', 'only status=proposed is listed', r)
    r = app.post('/api/tool-calls/%s/decision' % call_a, {'decision': 'maybe'}, headers=key)
    tap.ok(r.status == 400 and (r.json() or {}).get('code') == 'invalid-field', 'a decision is approve or deny', r)
    r = app.post('/api/tool-calls/%s/decision' % call_a, {'decision': 'deny'}, headers=key)
    j = r.json() or {}
    tap.ok(r.status == 200 and j.get('success') is True and j.get('decision') == 'deny' and j.get('id') == call_a,
           'deny → 200', r)
    tap.ok(wait_until(lambda: 'denied' in status_of(app, cid, call_a), 10),
           'the call is denied in its conversation', status_of(app, cid, call_a))
    r = app.post('/api/tool-calls/%s/decision' % call_a, {'decision': 'approve'}, headers=key)
    tap.ok(r.status == 409 and (r.json() or {}).get('code') == 'already-decided'
           and 'denied' in (r.json() or {}).get('error', ''),
           'a decided call → 409 already-decided, saying how it was decided', r)
    r = app.post('/api/tool-calls/no-such-call/decision', {'decision': 'approve'}, headers=key)
    tap.ok(r.status == 404 and (r.json() or {}).get('code') == 'tool-call-not-found', 'an unknown id → 404', r)
    r = app.get('/api/tool-calls', headers=key)
    ids = [c['id'] for c in (r.json() or {}).get('toolCalls') or []]
    tap.ok(ids == [call_b], 'a decided call is no longer listed', ids)


def test_published_port(tap, app, call_b):
    path = os.path.join(app.data_dir, 'api-port')
    try:
        st = os.lstat(path)
        with open(path) as f:
            published = f.read()
    except OSError as e:
        st, published = None, str(e)
    tap.ok(st is not None and stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
           and published == '%d\n' % app.port,
           'the service publishes the port it listens on in api-port (0600)', published)
    # The settings say 3100; the service listens on the port it was given
    res = app.ctl('approvals')
    tap.ok(res.returncode == 0 and call_b in res.stdout,
           'prosponsive-ctl approvals finds the service started with --port without being told',
           res.stdout + res.stderr)
    res = app.ctl('approvals', '--port', str(free_port()))
    tap.ok(res.returncode == 1 and 'not running' in res.stderr, '--port still overrides the published port',
           res.stdout + res.stderr)


def test_ctl(tap, app, cid, call_b):
    port = str(app.port)
    test_published_port(tap, app, call_b)
    # A slug an older version let in (resolve refuses it now): its escapes
    # could redraw the lines a person approves from
    evil = 'approvals\x1b[2J\x1b[1A\x9b2J\nApproved by you\x1b]52;c;eA==\x07'
    con = sqlite3.connect(os.path.join(app.data_dir, 'prosponsive.db'))
    con.execute('UPDATE conversations SET slug = ? WHERE id = ?', (evil, cid))
    con.commit()
    res = app.ctl('approvals', '--port', port)
    tap.ok(res.returncode == 0 and call_b in res.stdout and 'get_weather' in res.stdout
           and 'approvals' in res.stdout and 'Rome' in res.stdout,
           'prosponsive-ctl approvals lists the waiting call', res.stdout + res.stderr)
    lines = res.stdout.splitlines()
    tap.ok(not any(c in res.stdout for c in '\x1b\x9b\x07\r') and len(lines) == 3
           and lines[1].startswith('  in approvals') and 'Approved by you' in lines[1],
           'approvals prints a stored slug on its line with its control characters blanked', repr(res.stdout))
    con.execute('UPDATE conversations SET slug = ? WHERE id = ?', ('approvals', cid))
    con.commit()
    con.close()
    res = app.ctl('approvals', '--json', '--port', port)
    try:
        listed = json.loads(res.stdout)
    except ValueError:
        listed = None
    tap.ok(isinstance(listed, list) and [c['id'] for c in listed] == [call_b]
           and listed[0]['arguments'] == {'city': 'Rome'}, 'approvals --json prints the list as JSON',
           res.stdout + res.stderr)
    res = app.ctl('approve', call_b, '--port', port)
    tap.ok(res.returncode == 0 and 'Approved the call %s' % call_b in res.stdout,
           'prosponsive-ctl approve decides the call', res.stdout + res.stderr)
    tap.ok(wait_until(lambda: 'proposed' not in status_of(app, cid, call_b), 10),
           'the approved call left the proposed state', status_of(app, cid, call_b))
    res = app.ctl('deny', call_b, '--port', port)
    tap.ok(res.returncode == 1 and 'already decided' in res.stderr,
           'deciding it again says it was already decided', res.stdout + res.stderr)
    res = app.ctl('approve', 'no-such-call', '--port', port)
    tap.ok(res.returncode == 1 and 'There is no tool call no-such-call' in res.stderr,
           'an unknown call is named', res.stdout + res.stderr)
    res = app.ctl('approve', '--port', port)
    tap.ok(res.returncode == 2 and 'approve CALL' in res.stderr, 'approve without a call is a usage error (exit 2)',
           res.stdout + res.stderr)
    app.stop()
    res = app.ctl('approvals', '--port', port)
    tap.ok(res.returncode == 1 and 'not running' in res.stderr,
           'with the service stopped, approvals says Prosponsive is not running', res.stdout + res.stderr)
    tap.ok(not os.path.lexists(os.path.join(app.data_dir, 'api-port')), 'a stopped service withdraws api-port')
    # A service killed leaves the file; with nobody holding the data folder's
    # lock it is not believed
    app.start()
    app.kill()
    tap.ok(os.path.exists(os.path.join(app.data_dir, 'api-port')), 'a killed service leaves api-port behind')
    res = app.ctl('approvals')
    tap.ok(res.returncode == 1 and ':%d' % app.port not in res.stderr and 'not running' in res.stderr,
           'what a killed service left is ignored: the port of the settings is tried', res.stdout + res.stderr)


def test_never_ran(tap, app):
    empty = os.path.join(app.data_dir, 'never-ran')
    os.makedirs(empty, mode=0o700)
    res = subprocess.run([app.args.ctl, '--data-dir', empty, 'approvals'], capture_output=True, text=True,
                         env=app.env(), timeout=30)
    tap.ok(res.returncode == 1 and 'There is no Prosponsive data in' in res.stderr
           and 'start Prosponsive once' in res.stderr,
           'with a data folder Prosponsive never ran with, approvals says to start it first', res.stderr)


def run(tap, app):
    test_never_ran(tap, app)
    cid = app.resolve('approvals')
    test_key(tap, app)
    r, call_a = propose(app, cid, 'Weather in Paris?')
    tap.ok(r.status == 200 and (r.json() or {}).get('status') == 'awaiting_approval' and call_a,
           'an agent run waits for approval of its tool call', r)
    r, call_b = propose(app, cid, 'Weather in Rome?')
    test_refused(tap, app, call_a)
    test_api(tap, app, cid, call_a, call_b)
    test_ctl(tap, app, cid, call_b)


if __name__ == '__main__':
    run_suite(PLAN, run, setup)
