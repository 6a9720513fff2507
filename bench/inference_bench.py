# SPDX-License-Identifier: GPL-3.0-or-later
"""inference-overhead: the round trip of POST
/api/ai/agent-inference through `prosponsive --headless` with an OpenAI-kind
provider that answers at once (tests/scripted-provider.py), minus the
provider's own round trip measured by the same client, one of each in turn
so that both meet the same machine. Both p50. Used by bench/bench.py."""

import glob
import http.client
import json
import os
import shutil
import socket
import ssl
import statistics
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


def _provider(work):
    """The scripted provider without --log: it rewrites its whole log before
    each answer, so each answer would take longer than the one before it,
    and the calls timed after the baseline's would pay for that."""
    script = os.path.join(work, 'instant.json')
    with open(script, 'w') as f:
        json.dump({'kind': 'openai', 'repeat_last': True,
                   'turns': [{'response': {'text': 'Done.'}}]}, f)
    proc = subprocess.Popen(['python3', os.path.join(TOP, 'tests', 'scripted-provider.py'),
                             '--script', script],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(proc.stdout.readline().strip())
    return proc, port


def _provider_round_trip(port):
    """One streamed chat request straight to the provider, in ms: a fresh
    connection with TCP_NODELAY (with keep-alive, the server's small chunk
    writes meet delayed ACKs, +40 ms)."""
    body = json.dumps({'model': 'instant', 'messages': [{'role': 'user', 'content': 'Hi'}],
                       'stream': True, 'stream_options': {'include_usage': True}})
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
    t0 = time.perf_counter()
    conn.connect()
    conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn.request('POST', '/v1/chat/completions', body,
                 {'Content-Type': 'application/json', 'Authorization': 'Bearer k'})
    r = conn.getresponse()
    r.read()
    elapsed = (time.perf_counter() - t0) * 1000
    conn.close()
    if r.status != 200:
        raise RuntimeError('the scripted provider answered %d' % r.status)
    return elapsed


def _provider_round_trips(port, n):
    return [_provider_round_trip(port) for _ in range(n)]


class Client:
    """HTTPS to a local Prosponsive over a kept-alive connection (one per
    thread that calls), opened again when the server closed it (a retiring
    server generation answers with Connection: close: docs/api.md)."""

    def __init__(self, port, token):
        self.port = port
        self.token = token
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE
        self.local = threading.local()
        self.lock = threading.Lock()
        self.connections = 0

    def _connect(self, timeout):
        conn = http.client.HTTPSConnection('127.0.0.1', self.port, context=self.ctx, timeout=timeout)
        conn.connect()
        conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.local.conn = conn
        with self.lock:
            self.connections += 1
        return conn

    def close(self):
        conn = getattr(self.local, 'conn', None)
        if conn is not None:
            conn.close()
            self.local.conn = None

    def call(self, method, path, body=None, timeout=30):
        headers = {'Authorization': 'Bearer ' + self.token, 'Host': '127.0.0.1:%d' % self.port}
        if body is not None:
            headers['Content-Type'] = 'application/json'
            body = json.dumps(body)
        for attempt in (0, 1):
            conn = getattr(self.local, 'conn', None)
            fresh = conn is None
            if fresh:
                conn = self._connect(timeout)
            conn.timeout = timeout
            conn.sock.settimeout(timeout)
            try:
                conn.request(method, path, body, headers)
                r = conn.getresponse()
                data = r.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                    http.client.CannotSendRequest, ssl.SSLEOFError):
                # Closed while idle: once more on a new connection
                self.close()
                if fresh or attempt == 1:
                    raise
                continue
            except (OSError, http.client.HTTPException):
                self.close()    # its state is unknown: never reused
                raise
            if r.getheader('Connection', '').lower() == 'close':
                self.close()
            return r.status, data
        raise RuntimeError('unreachable')


def add_provider(ctl, d, env, pport):
    add = subprocess.run([ctl, '--data-dir', d, 'provider', 'add', '--kind', 'openai',
                          '--name', 'instant', '--model', 'instant',
                          '--base-url', 'http://127.0.0.1:%d/v1' % pport, '--api-key-stdin'],
                         input='k\n', capture_output=True, text=True, env=env, timeout=60)
    if add.returncode != 0:
        raise RuntimeError('provider add failed: ' + add.stderr.strip())


def import_agent(ctl, d, env, work):
    """The agent "bench" (no tools) into the data folder @d."""
    agent = os.path.join(work, 'bench-agent.md')
    with open(agent, 'w') as f:
        f.write('---\nid: bench\nname: Bench\nallowedTools: []\n---\nAnswer briefly.\n')
    imp = subprocess.run([ctl, '--data-dir', d, 'agent', 'import', agent],
                         capture_output=True, text=True, env=env, timeout=60)
    if imp.returncode != 0:
        raise RuntimeError('agent import failed: ' + imp.stderr.strip())


def start_headless(prosponsive, d, env, slug, wrapper=(), timeout=30):
    """Starts it on a free port, under the command @wrapper (a profiler) if
    given; returns (process, client, id of conversation @slug)."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
    log = open(os.path.join(d, 'headless.log'), 'ab')
    app = subprocess.Popen(list(wrapper) + [prosponsive, '--headless', '--data-dir', d, '--port', str(port)],
                           stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)
    log.close()
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(os.path.join(d, 'secrets.json')) as f:
                client = Client(port, json.load(f)['api-token'])
            status, body = client.call('POST', '/api/conversations/resolve', {'slug': slug})
            return app, client, json.loads(body)['conversationId']
        except (OSError, ValueError, KeyError, http.client.HTTPException):
            if time.monotonic() > deadline or app.poll() is not None:
                stop_all(app)
                raise RuntimeError('prosponsive --headless did not start')
            time.sleep(0.1)


def start_side(build, wrapper=(), timeout=30):
    """One build's `prosponsive --headless` with its own data folder, the
    agent "bench" and its own instant scripted provider (bench/inference-ab,
    bench/inference-profile)"""
    work = tempfile.mkdtemp(prefix='inference-')
    env = dict(os.environ)
    env.update({'GSETTINGS_BACKEND': 'memory', 'GSETTINGS_SCHEMA_DIR': os.path.join(build, 'data'),
                'PROSPONSIVE_SECRETS': 'file', 'NO_AT_BRIDGE': '1', 'LC_ALL': 'C.UTF-8'})
    d = os.path.join(work, 'data')
    os.makedirs(d)
    ctl = os.path.join(build, 'src', 'app', 'prosponsive-ctl')
    side = {'build': build, 'work': work, 'app': None, 'times': [], 'base': []}
    side['provider'], side['pport'] = _provider(work)
    try:
        add_provider(ctl, d, env, side['pport'])
        import_agent(ctl, d, env, work)
        side['app'], side['client'], side['cid'] = start_headless(
            os.path.join(build, 'src', 'app', 'prosponsive'), d, env, 'bench', wrapper, timeout)
    except Exception:
        stop_side(side)
        raise
    return side


def stop_side(side):
    stop_all(side['app'], side['provider'])
    shutil.rmtree(side['work'], ignore_errors=True)


def side_call(side, prompt, timeout=30):
    status, body = side['client'].call('POST', '/api/ai/agent-inference',
                                       {'prompt': prompt, 'conversationId': side['cid'], 'agentId': 'bench'},
                                       timeout=timeout)
    if status != 200:
        raise RuntimeError('%s answered %d %s' % (side['build'], status, body[:200]))


def service_tids(side):
    """Every thread of the service (the launcher's child, or the launcher
    itself once it has executed the service) and of the launcher"""
    pids = [str(side['app'].pid)] + subprocess.run(['pgrep', '-P', str(side['app'].pid)],
                                                   capture_output=True, text=True).stdout.split()
    return [t for pid in pids for t in glob.glob('/proc/%s/task/*' % pid)]


def service_cpu_ns(side):
    total = 0
    for task in service_tids(side):
        try:
            with open(task + '/schedstat') as f:
                total += int(f.read().split()[0])
        except OSError:
            pass    # a thread that ended meanwhile
    return total


def stop_all(*procs):
    for p in procs:
        if p is not None and p.poll() is None:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def run(args, work, app_env, bench_line, failed, note):
    n = 60 if args.quick else 200
    d = os.path.join(work, 'inference')
    os.makedirs(d, exist_ok=True)
    env = app_env()
    ctl = os.path.join(args.build, 'src', 'app', 'prosponsive-ctl')
    prosponsive = os.path.join(args.build, 'src', 'app', 'prosponsive')
    provider, pport = _provider(work)
    app = None
    try:
        base = []
        add_provider(ctl, d, env, pport)
        import_agent(ctl, d, env, work)
        app, client, cid = start_headless(prosponsive, d, env, 'bench')
        client.call('GET', '/api/health')     # the handshake, before the clock runs

        _provider_round_trips(pport, 5)     # the provider warmed up too
        times = []
        for i in range(n):
            base.append(_provider_round_trip(pport))
            t0 = time.perf_counter()
            status, body = client.call('POST', '/api/ai/agent-inference',
                                       {'prompt': 'Hi %d' % i, 'conversationId': cid, 'agentId': 'bench'})
            times.append((time.perf_counter() - t0) * 1000)
            if status != 200:
                raise RuntimeError('agent-inference answered %d %s (the run engine is not wired to '
                                   'the API yet, or the provider was not used)' % (status, body[:200]))
        p50, b50 = statistics.median(times), statistics.median(base)
        added = p50 - b50
        note('inference-overhead: %d calls over %d kept-alive HTTPS connection(s); agent-inference p50 %.2f ms '
             '(p90 %.2f), provider alone p50 %.2f ms (plain HTTP, a connection a call; one of each in turn)'
             % (n, client.connections, p50, sorted(times)[n * 9 // 10], b50))
        bench_line('inference-overhead', '%.2f' % added, 'ms', '%.2f' % b50, '%.2f' % (p50 / b50),
                   '<=2ms', added <= 2)
    except Exception as e:
        failed('inference-overhead', 'ms', '<=2ms', str(e).replace('\n', ' ')[:500])
    finally:
        stop_all(app, provider)
