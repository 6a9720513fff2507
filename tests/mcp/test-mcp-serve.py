#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`prosponsive-ctl mcp serve` driven by the official TypeScript SDK client
(@modelcontextprotocol/sdk's Client and StdioClientTransport, through
mcp-serve-client.cjs) against a running `prosponsive --headless` whose tools
are a real n8n 1.123's workflow (discovered) and a real server-everything's
(one added shared, one not). Proves: the list holds the discovered n8n tool
and the shared server's tools, nothing else; the n8n tool runs in n8n; a call an auto-approval
rule covers returns the tool's result; a call without a rule waits (the
client hears progress), shows in the "MCP clients" conversation, and is
approved (`mcp approve`), denied (`mcp deny`) or times out, each with the
client told so and the card saying so; a call the client cancels
(notifications/cancelled, through an AbortSignal) is withdrawn while it
waits, or stopped while it runs (its card then says Cancelled, not Failed),
and the client gets no result for it; a running call stopped in Prosponsive
tells the client so; a result reaches the client as soon as the tool ends
(the state is waited for, not polled) while progress still flows; a
call still waiting when the service restarts keeps its time (expired at once
when it is up, else when it is up); the service stopped is said in
words; the API's routes refuse a missing token. TAP.

Usage: test-mcp-serve.py --prosponsive EXE --ctl CTL"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'api'))
sys.dont_write_bytecode = True

import prsapi  # noqa: E402

EVERYTHING = os.path.join(os.environ['PRS_MCP_PEERS'], 'node_modules', '@modelcontextprotocol',
                          'server-everything', 'dist', 'index.js')
CLIENT = os.path.join(HERE, 'mcp-serve-client.cjs')
PLAN = 44

_spec = importlib.util.spec_from_file_location('n8n_harness', os.path.join(HERE, '..', 'n8n', 'test-discovery.py'))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

# A workflow discovery makes a tool: it answers its text in upper case
SHOUT = harness.workflow('Shout', [
    harness.webhook_node('shout'),
    harness.code_node("const body = $input.first().json.body ?? {};\n"
                      "const parameters = { ...body, ...(body.parameters ?? {}) };\n"
                      "const text = parameters.text;\n"
                      "return [{json: {shouted: String(text ?? '').toUpperCase()}}];")],
    harness.chain('Webhook', 'Code'))
N8N = {}


class Client:
    """One SDK client process: `list`, or `call NAME ARGS`, with serve's
    approval timeout; its standard error (serve's) is read as it comes"""

    def __init__(self, app, timeout, *what):
        self.proc = subprocess.Popen(['node', CLIENT, app.args.ctl, app.data_dir, str(app.port), str(timeout)]
                                     + list(what), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=app.env())
        self.err = []
        self.out = []
        # Each pipe has a reader of its own: serve's last words on standard
        # error come while the client prints its answer
        self.readers = [threading.Thread(target=self._read, args=(self.proc.stderr, self.err), daemon=True),
                        threading.Thread(target=self._read, args=(self.proc.stdout, self.out), daemon=True)]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(pipe, lines):
        for line in pipe:
            lines.append(line)

    def call_id(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.err:
                m = re.search(r'call ([0-9a-f-]{36}) started', line)
                if m:
                    return m.group(1)
            time.sleep(0.1)
        return None

    def result(self, timeout=120):
        self.proc.wait(timeout=timeout)
        for reader in self.readers:
            reader.join(timeout=5)
        out = ''.join(self.out)
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            return {'error': 'no JSON: ' + out + ''.join(self.err)}


def text_of(answer):
    content = (answer.get('result') or {}).get('content') or [{}]
    return content[0].get('text', '')


def card(app, call_id):
    """The tool-call message of the call, as the window shows it"""
    state = app.get('/api/mcp/tools/calls/' + call_id).json()
    conversations = app.get('/api/conversations').json()
    mcp = [c for c in conversations if c['title'] == 'MCP clients']
    if not mcp:
        return state, None
    messages = app.get('/api/conversations/%s/messages?limit=200' % mcp[0]['id']).json()
    found = [m for m in messages if m['id'] == state.get('messageId')]
    return state, found[0] if found else None


def setup_n8n(app):
    n8n = N8N['n8n'] = harness.N8n(app.data_dir + '-n8n')
    os.makedirs(n8n.work_dir, exist_ok=True)
    n8n.start()
    wid = n8n.api('POST', '/workflows', SHOUT)['id']
    n8n.api('POST', '/workflows/%s/activate' % wid, retries=3)
    res = subprocess.run([app.args.ctl, '--data-dir', app.data_dir, 'n8n', 'set', '--url', n8n.url,
                          '--api-key-stdin'], input=n8n.api_key + '\n', capture_output=True, text=True,
                         env=app.env(), timeout=60)
    if res.returncode != 0:
        raise RuntimeError('n8n set failed: ' + res.stderr)
    res = app.ctl('discover')
    if res.returncode != 0:
        raise RuntimeError('discover failed: ' + res.stdout + res.stderr)
    res = app.ctl('rule', 'add', '--tool', 'shout', '--action', 'approve')
    if res.returncode != 0:
        raise RuntimeError('rule add failed: ' + res.stderr)


def setup(app):
    setup_n8n(app)
    for name, shared in (('everything', True), ('private', False)):
        res = app.ctl('mcp', 'add', '--name', name, '--command', 'node', *(['--shared'] if shared else []),
                      '--', EVERYTHING, 'stdio')
        if res.returncode != 0:
            raise RuntimeError('mcp add failed: ' + res.stderr)
    # Only the sum and the long operation are approved by a rule
    for tool in ('everything__get-sum', 'everything__trigger-long-running-operation'):
        res = app.ctl('rule', 'add', '--tool', tool, '--action', 'approve')
        if res.returncode != 0:
            raise RuntimeError('rule add failed: ' + res.stderr)


def listed(app):
    r = app.get('/api/mcp/tools')
    names = [t['name'] for t in r.json().get('tools', [])] if r.status == 200 else []
    return names if any(n.startswith('everything__') for n in names) else None


def test_list(tap, app):
    r = app.request('GET', '/api/mcp/tools', auth=False)
    tap.ok(r.status == 401, 'GET /api/mcp/tools without the token is refused', repr(r))
    tap.ok(prsapi.wait_until(lambda: listed(app), 60), 'the shared server\'s tools are listed by the API')
    answer = Client(app, 5, 'list').result()
    names = [t['name'] for t in answer.get('tools', [])]
    tap.ok(answer.get('serverName') == 'prosponsive' and 'everything__echo' in names
           and 'everything__get-sum' in names, 'the SDK client lists the shared server\'s tools', json.dumps(answer)[:2000])
    tap.ok('shout' in names, 'the SDK client lists the discovered n8n tool', repr(names))
    tap.ok(names and all(n.startswith('everything__') or n == 'shout' for n in names),
           'nothing else is listed: no tool of the server that is not shared, nothing undiscovered', repr(names))
    echo = [t for t in answer.get('tools', []) if t['name'] == 'everything__echo']
    tap.ok(echo and echo[0]['inputSchema'].get('properties', {}).get('message', {}).get('type') == 'string',
           'a tool comes with its input schema', json.dumps(echo))


def test_rule(tap, app):
    answer = Client(app, 5, 'call', 'shout', '{"text": "hi from the sdk"}').result()
    tap.ok(answer.get('result', {}).get('isError') is False and 'HI FROM THE SDK' in text_of(answer)
           and (answer['result'].get('structuredContent') or {}).get('shouted') == 'HI FROM THE SDK',
           'the n8n tool runs in n8n, approved by a rule, and its JSON comes back', json.dumps(answer))
    answer = Client(app, 5, 'call', 'everything__get-sum', '{"a": 2, "b": 40}').result()
    tap.ok(answer.get('result', {}).get('isError') is False and '42' in text_of(answer),
           'a call an auto-approval rule covers returns the tool\'s result at once', json.dumps(answer))
    answer = Client(app, 5, 'call', 'private__echo', '{"message": "x"}').result()
    tap.ok('error' in answer and 'offered' in answer['error'],
           'a tool of a server that is not shared cannot be called', json.dumps(answer))


def test_approved(tap, app):
    client = Client(app, 60, 'call', 'everything__echo', '{"message": "hello from the SDK"}')
    call_id = client.call_id()
    waiting = prsapi.wait_until(lambda: card(app, call_id)[0].get('status') == 'awaiting_approval', 30)
    state, message = card(app, call_id)
    tap.ok(waiting and message is not None and message['kind'] == 'tool-call' and message['status'] == 'proposed',
           'the call waits for approval as a tool card in the “MCP clients” conversation', json.dumps([state, message]))
    # The route itself: a look that has seen this revision is held for its
    # wait, then says the same; a wait that is no number is refused
    seen = app.get('/api/mcp/tools/calls/' + call_id).json().get('revision')
    t0 = time.monotonic()
    held = app.get('/api/mcp/tools/calls/%s?wait=1&revision=%s' % (call_id, seen))
    took = time.monotonic() - t0
    tap.ok(seen and held.status == 200 and held.json().get('revision') == seen
           and held.json().get('status') == 'awaiting_approval' and 0.9 <= took < 4,
           'a look at an unchanged call is held for its wait, then answered with the same revision (%.2f s)' % took,
           repr(held))
    r = app.get('/api/mcp/tools/calls/%s?wait=soon&revision=%s' % (call_id, seen))
    tap.ok(r.status == 400 and r.json().get('code') == 'invalid-field', 'a wait that is no number is refused', repr(r))
    # Longer than one hold of the state (5 s): the client hears that it waits
    time.sleep(6.5)
    res = app.ctl('mcp', 'approve', call_id, '--port', str(app.port))
    tap.ok(res.returncode == 0, 'mcp approve decides the waiting call', res.stdout + res.stderr)
    answer = client.result()
    tap.ok(answer.get('result', {}).get('isError') is False and text_of(answer) == 'Echo: hello from the SDK',
           'the approved call returns the tool\'s result to the client', json.dumps(answer))
    progress = answer.get('progress') or []
    tap.ok(len(progress) >= 2 and all('approve' in (p.get('message') or '') for p in progress[:2])
           and progress[1]['progress'] > progress[0]['progress'],
           'the client heard progress notifications while the call waited', json.dumps(progress))
    waiting = [p for p in progress if 'approve' in (p.get('message') or '')]
    tap.ok(len(waiting) <= 4,
           'while nothing changes, the state is held, not asked for twice a second (%d notifications in 6.5 s)'
           % len(waiting), json.dumps(progress))
    state, message = card(app, call_id)
    tap.ok(state.get('status') == 'succeeded' and message and message['status'] == 'succeeded',
           'the card shows the call succeeded', json.dumps([state, message]))


def test_denied(tap, app):
    client = Client(app, 60, 'call', 'everything__echo', '{"message": "no"}')
    call_id = client.call_id()
    prsapi.wait_until(lambda: card(app, call_id)[0].get('status') == 'awaiting_approval', 30)
    res = app.ctl('mcp', 'deny', call_id, '--port', str(app.port))
    answer = client.result()
    tap.ok(res.returncode == 0 and answer.get('result', {}).get('isError') is True and 'denied' in text_of(answer),
           'a denied call is a tool error saying it was denied', json.dumps(answer) + res.stderr)
    res = app.ctl('mcp', 'approve', call_id, '--port', str(app.port))
    tap.ok(res.returncode != 0 and ('already decided' in res.stderr or 'has ended' in res.stderr),
           'a decided call cannot be decided again',
           res.stdout + res.stderr)


def test_timeout(tap, app):
    started = time.monotonic()
    client = Client(app, 3, 'call', 'everything__echo', '{"message": "late"}')
    call_id = client.call_id()
    answer = client.result()
    took = time.monotonic() - started
    tap.ok(answer.get('result', {}).get('isError') is True and 'timed out' in text_of(answer) and took >= 3,
           'a call nobody decides within --approval-timeout is an error saying it timed out',
           '%.1f s %s' % (took, json.dumps(answer)))
    state, message = card(app, call_id)
    extra = (message or {}).get('extra') or {}
    tap.ok(state.get('status') == 'timed_out' and message and message['status'] == 'denied'
           and extra.get('timedOut') is True and 'timed out' in extra.get('error', ''),
           'the card shows the call timed out', json.dumps([state, message]))


def test_cancel_waiting(tap, app):
    # The first progress says the call waits for a person: then the client aborts
    client = Client(app, 60, 'cancel', 'everything__echo', '{"message": "never mind"}', '1')
    call_id = client.call_id()
    answer = client.result()
    tap.ok(answer.get('aborted') and 'no longer wants it' in answer['aborted'] and answer.get('errors') == [],
           'the SDK client cancels a waiting call and hears nothing more of it (no result, no progress)',
           json.dumps(answer))
    withdrawn = prsapi.wait_until(lambda: card(app, call_id)[0].get('status') == 'cancelled', 10)
    state, message = card(app, call_id)
    extra = (message or {}).get('extra') or {}
    tap.ok(withdrawn and message and message['status'] == 'denied' and extra.get('cancelledByClient') is True
           and 'cancelled this call' in extra.get('error', ''),
           'the waiting call is withdrawn: its card says the MCP client cancelled it', json.dumps([state, message]))
    tap.ok(any('cancelled call %s' % call_id in line for line in client.err),
           'mcp serve says on standard error that the client cancelled the call', ''.join(client.err))
    res = app.ctl('mcp', 'approve', call_id, '--port', str(app.port))
    tap.ok(res.returncode != 0, 'a withdrawn call can no longer be approved', res.stdout + res.stderr)


def test_cancel_running(tap, app):
    # Approved by a rule; 40 steps of a second each: cancelled at its third word
    started = time.monotonic()
    client = Client(app, 60, 'cancel', 'everything__trigger-long-running-operation',
                    '{"duration": 40, "steps": 40}', '3')
    call_id = client.call_id()
    answer = client.result()
    tap.ok(answer.get('aborted') and 'no longer wants it' in answer['aborted'] and answer.get('errors') == [],
           'the SDK client cancels a running call and gets no result for it', json.dumps(answer))
    stopped = prsapi.wait_until(lambda: card(app, call_id)[0].get('status') not in ('running', 'queued'), 15)
    state, message = card(app, call_id)
    tap.ok(stopped and state.get('status') != 'succeeded' and time.monotonic() - started < 35,
           'the running call is stopped in Prosponsive, long before the tool would have finished',
           '%.1f s %s' % (time.monotonic() - started, json.dumps([state, message])))
    extra = (message or {}).get('extra') or {}
    tap.ok(state.get('status') == 'cancelled' and message and message['status'] == 'cancelled'
           and extra.get('error') == 'The call was stopped.',
           'the stopped call ends cancelled, not failed: its card says it was stopped', json.dumps([state, message]))


def test_stopped_in_app(tap, app):
    """A running call stopped in Prosponsive, not by the client: the client
    hears that it was cancelled there"""
    client = Client(app, 60, 'call', 'everything__trigger-long-running-operation', '{"duration": 40, "steps": 40}')
    call_id = client.call_id()
    running = prsapi.wait_until(lambda: card(app, call_id)[0].get('status') == 'running', 15)
    r = app.request('POST', '/api/mcp/tools/calls/%s/cancel' % call_id, body={})
    answer = client.result(timeout=30)
    tap.ok(running and r.status == 200 and answer.get('result', {}).get('isError') is True
           and 'cancelled in Prosponsive' in text_of(answer) and 'stopped' in text_of(answer),
           'a running call stopped in Prosponsive is a tool error saying so', json.dumps(answer))
    state, message = card(app, call_id)
    tap.ok(state.get('status') == 'cancelled' and message and message['status'] == 'cancelled',
           'and its card says Cancelled', json.dumps([state, message]))


def test_latency(tap, app):
    """The result reaches the client when the tool ends, not at the next
    look: a tool of 0.2 s took at least 0.5 s when the state was polled
    every 500 ms; now the wait for it ends with the change"""
    elapsed = []
    # the best of five: on a machine busy beside the test the fastest of
    # three took 451 ms
    for _ in range(5):
        answer = Client(app, 5, 'call', 'everything__trigger-long-running-operation',
                        '{"duration": 0.2, "steps": 2}').result()
        if answer.get('result', {}).get('isError') is False and 'completed' in text_of(answer):
            elapsed.append(answer.get('elapsedMs', 1e9))
    tap.ok(len(elapsed) == 5 and min(elapsed) < 450,
           'a 0.2 s tool\'s result reaches the client well under 0.5 s after the call (best of 5: %s ms)'
           % (', '.join('%.0f' % e for e in elapsed)), json.dumps(elapsed))
    answer = Client(app, 5, 'call', 'everything__trigger-long-running-operation', '{"duration": 2, "steps": 4}').result()
    progress = answer.get('progress') or []
    tap.ok(answer.get('result', {}).get('isError') is False and len(progress) >= 3
           and all(b['progress'] > a['progress'] for a, b in zip(progress, progress[1:])),
           'the tool\'s progress still reaches the client as it comes, each saying more', json.dumps(progress))


def test_restart_waiting(tap, app):
    """Calls waiting for a person across a restart of the service: the
    timer of `--approval-timeout` did not survive it, the time does"""
    short = Client(app, 3, 'call', 'everything__echo', '{"message": "short"}')
    long_ = Client(app, 15, 'call', 'everything__echo', '{"message": "long"}')
    short_id, long_id = short.call_id(), long_.call_id()
    prsapi.wait_until(lambda: card(app, long_id)[0].get('status') == 'awaiting_approval', 30)
    started = time.monotonic()
    app.stop()
    for client in (short, long_):
        client.proc.kill()
        client.proc.wait()
    time.sleep(max(0.0, 3.5 - (time.monotonic() - started)))
    app.start()
    expired = prsapi.wait_until(lambda: card(app, short_id)[0].get('status') == 'timed_out', 5)
    state, message = card(app, short_id)
    extra = (message or {}).get('extra') or {}
    tap.ok(expired and 'within 3 seconds' in extra.get('error', ''),
           'a call whose time passed while the service was down expires when it starts, saying so',
           json.dumps([state, message]))
    state, _ = card(app, long_id)
    tap.ok(state.get('status') == 'awaiting_approval', 'a call with time left still waits after the restart',
           json.dumps(state))
    expired = prsapi.wait_until(lambda: card(app, long_id)[0].get('status') == 'timed_out', 30)
    state, message = card(app, long_id)
    extra = (message or {}).get('extra') or {}
    tap.ok(expired and 'within 15 seconds' in extra.get('error', ''),
           'and it times out when the rest of its time is up', json.dumps([state, message]))


def test_wire(tap, app):
    """The protocol by hand, where the SDK would not go: errors, ping, an
    unknown revision, and nothing but JSON-RPC on standard output"""
    lines = ['{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2099-01-01",'
             '"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
             'this is not json',
             '{"jsonrpc":"2.0","id":2,"method":"resources/list"}',
             '{"jsonrpc":"2.0","id":3,"method":"ping"}',
             '{"jsonrpc":"1.0","id":4,"method":"ping"}',
             '{"jsonrpc":"2.0","method":"notifications/initialized"}',
             '{"jsonrpc":"2.0","id":true,"method":"ping"}']
    # The last request has no line break: the client wrote it and closed
    last = '{"jsonrpc":"2.0","id":5,"method":"ping"}'
    res = subprocess.run([app.args.ctl, '--data-dir', app.data_dir, 'mcp', 'serve', '--port', str(app.port)],
                         input='\n'.join(lines) + '\n' + last, capture_output=True, text=True, env=app.env(),
                         timeout=30)
    try:
        out = [json.loads(line) for line in res.stdout.splitlines()]
    except ValueError:
        out = []
    by_id = {m.get('id'): m for m in out if m.get('id') is not None}
    unnamed = [m.get('error', {}).get('code') for m in out if m.get('id') is None]
    tap.ok(len(out) == 7 and all(m.get('jsonrpc') == '2.0' for m in out),
           'standard output carries JSON-RPC only, one answer per request', res.stdout + res.stderr)
    tap.ok(by_id.get(1, {}).get('result', {}).get('protocolVersion') == '2025-06-18',
           'an unknown protocol revision is answered with ours', json.dumps(by_id.get(1)))
    tap.ok(unnamed == [-32700, -32600], 'a line that is not JSON is a parse error; a request whose id is true '
           'is refused, with no id', json.dumps(out))
    tap.ok(by_id.get(2, {}).get('error', {}).get('code') == -32601 and by_id.get(3, {}).get('result') == {},
           'an unknown method is “method not found”; ping is answered', json.dumps(out))
    tap.ok(by_id.get(4, {}).get('error', {}).get('code') == -32600, 'a message that is not JSON-RPC 2.0 is refused',
           json.dumps(out))
    tap.ok(by_id.get(5, {}).get('result') == {}, 'a last request without a line break is answered', json.dumps(out))


def test_batch(tap, app):
    """A client that agreed on revision 2025-03-26 may send a batch: one
    array of answers comes back, the service's answers among them"""
    lines = ['{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26",'
             '"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}',
             '{"jsonrpc":"2.0","method":"notifications/initialized"}',
             '[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"tools/list"},'
             '{"jsonrpc":"2.0","id":4,"method":"resources/list"},{"jsonrpc":"2.0","method":"notifications/x"}]']
    res = subprocess.run([app.args.ctl, '--data-dir', app.data_dir, 'mcp', 'serve', '--port', str(app.port)],
                         input='\n'.join(lines) + '\n', capture_output=True, text=True, env=app.env(), timeout=30)
    try:
        out = [json.loads(line) for line in res.stdout.splitlines()]
    except ValueError:
        out = []
    batch = out[1] if len(out) == 2 and isinstance(out[1], list) else []
    by_id = {m.get('id'): m for m in batch if isinstance(m, dict)}
    tap.ok(len(out) == 2 and out[0].get('result', {}).get('protocolVersion') == '2025-03-26' and len(batch) == 3,
           'a batch under revision 2025-03-26 is answered with one array, one answer per request', res.stdout + res.stderr)
    names = [t.get('name') for t in by_id.get(3, {}).get('result', {}).get('tools', [])]
    tap.ok(by_id.get(2, {}).get('result') == {} and 'everything__echo' in names
           and by_id.get(4, {}).get('error', {}).get('code') == -32601,
           'its answers: ping, the service\'s tools, and “method not found”', json.dumps(batch)[:2000])


def test_stopped(tap, app):
    app.stop()
    answer = Client(app, 5, 'call', 'everything__echo', '{"message": "x"}').result()
    tap.ok(answer.get('result', {}).get('isError') is True and 'not running' in text_of(answer),
           'with the service stopped, a call says Prosponsive is not running', json.dumps(answer))


def run(tap, app):
    test_list(tap, app)
    test_rule(tap, app)
    test_approved(tap, app)
    test_denied(tap, app)
    test_timeout(tap, app)
    test_cancel_waiting(tap, app)
    test_cancel_running(tap, app)
    test_stopped_in_app(tap, app)
    test_latency(tap, app)
    test_restart_waiting(tap, app)
    test_wire(tap, app)
    test_batch(tap, app)
    test_stopped(tap, app)


try:
    prsapi.run_suite(PLAN, run, setup)
finally:
    if 'n8n' in N8N:
        N8N['n8n'].stop()
