# SPDX-License-Identifier: GPL-3.0-or-later
"""flood-5000: what a flood of new conversations costs the service. One
`prosponsive --headless` with an instant scripted provider: agent-inference
p50 on a fresh store (the baseline), then 5,000 new slugs from 4 clients
(the creation limit lifted with PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE),
the wait until the main thread answers provider-info again, and the same
agent-inference p50 afterwards. Used by bench/bench.py."""

import http.client
import json
import os
import socket
import ssl
import statistics
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)

SLUGS = 5000
CLIENTS = 4
# The old list kept the main thread busy ~9 minutes after 5,000 slugs
CATCH_UP_LIMIT = 1200


class Client:
    def __init__(self, port, token):
        self.port = port
        self.token = token
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE

    def call(self, method, path, body=None, timeout=30):
        conn = http.client.HTTPSConnection('127.0.0.1', self.port, context=self.ctx, timeout=timeout)
        try:
            headers = {'Authorization': 'Bearer ' + self.token, 'Host': '127.0.0.1:%d' % self.port}
            if body is not None:
                headers['Content-Type'] = 'application/json'
                body = json.dumps(body)
            conn.request(method, path, body, headers)
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()


def _inference_p50(client, cid, n):
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        status, body = client.call('POST', '/api/ai/agent-inference',
                                   {'prompt': 'Hi %d' % i, 'conversationId': cid, 'agentId': 'prosponsive'},
                                   timeout=CATCH_UP_LIMIT)
        times.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            raise RuntimeError('agent-inference answered %d %s' % (status, body[:200]))
    return statistics.median(times)


def _flood(client):
    errors = []

    def worker(k):
        for i in range(k, SLUGS, CLIENTS):
            status, body = client.call('POST', '/api/conversations/resolve', {'slug': 'flood-%05d' % i})
            if status != 200:
                errors.append((status, body[:200]))

    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(CLIENTS)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    if errors:
        raise RuntimeError('%d resolve calls failed, first %r' % (len(errors), errors[0]))
    return elapsed


def _catch_up(client):
    """Seconds until provider-info (answered on the main thread) answers."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < CATCH_UP_LIMIT:
        try:
            status, _ = client.call('GET', '/api/ai/provider-info', timeout=30)
            if status == 200:
                return time.monotonic() - t0
        except (OSError, http.client.HTTPException):
            pass
    raise RuntimeError('the main thread did not answer provider-info within %d s' % CATCH_UP_LIMIT)


def run(args, work, app_env, bench_line, failed, note, provider_factory):
    n = 10 if args.quick else 30
    d = os.path.join(work, 'flood')
    os.makedirs(d, exist_ok=True)
    env = app_env({'PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE': '1000000'})
    ctl = os.path.join(args.build, 'src', 'app', 'prosponsive-ctl')
    prosponsive = os.path.join(args.build, 'src', 'app', 'prosponsive')
    provider, pport = provider_factory(work)
    app = None
    try:
        add = subprocess.run([ctl, '--data-dir', d, 'provider', 'add', '--kind', 'openai',
                              '--name', 'instant', '--model', 'instant',
                              '--base-url', 'http://127.0.0.1:%d/v1' % pport, '--api-key-stdin'],
                             input='k\n', capture_output=True, text=True, env=env, timeout=60)
        if add.returncode != 0:
            raise RuntimeError('provider add failed: ' + add.stderr.strip())

        with socket.socket() as s:
            s.bind(('127.0.0.1', 0))
            port = s.getsockname()[1]
        log = open(os.path.join(d, 'headless.log'), 'ab')
        app = subprocess.Popen([prosponsive, '--headless', '--data-dir', d, '--port', str(port)],
                               stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)
        log.close()
        deadline = time.monotonic() + 30
        while True:
            try:
                with open(os.path.join(d, 'secrets.json')) as f:
                    client = Client(port, json.load(f)['api-token'])
                status, body = client.call('POST', '/api/conversations/resolve', {'slug': 'bench'})
                break
            except (OSError, ValueError, KeyError, http.client.HTTPException):
                if time.monotonic() > deadline or app.poll() is not None:
                    raise RuntimeError('prosponsive --headless did not start')
                time.sleep(0.1)
        cid = json.loads(body)['conversationId']

        before = _inference_p50(client, cid, n)
        create_s = _flood(client)
        catch_up_s = _catch_up(client)
        after = _inference_p50(client, cid, n)
        ratio = after / before
        note('flood-5000: %d new slugs from %d clients in %.1f s (%.0f/s); the main thread answered '
             'provider-info %.2f s after the last one; agent-inference p50 %.2f ms before, %.2f ms after '
             '(%d calls each)' % (SLUGS, CLIENTS, create_s, SLUGS / create_s, catch_up_s, before, after, n))
        bench_line('flood-5000', '%.2f' % after, 'ms', '%.2f' % before, '%.2f' % ratio,
                   '1.5,catch-up<1s', ratio <= 1.5 and catch_up_s < 1)
    except Exception as e:
        failed('flood-5000', 'ms', '1.5,catch-up<1s', str(e).replace('\n', ' ')[:500])
    finally:
        for p in (app, provider):
            if p is not None and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
