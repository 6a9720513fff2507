# SPDX-License-Identifier: GPL-3.0-or-later
"""Helpers for the `api` suite: start `prosponsive --headless` on a free
loopback port with a temporary data folder, talk real HTTPS to it, read
/proc/PID, and print TAP. Python 3 standard library only."""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

# meson test ends a test that runs out of time with SIGTERM: turn it into an
# exception, so that the tests' finally blocks stop the prosponsive they
# started instead of leaving it running
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--prosponsive', required=True)
    parser.add_argument('--ctl', required=True)
    parser.add_argument('--keep', action='store_true', help='keep the data folder')
    parser.add_argument('--keyring', action='store_true',
                        help='keep secrets in the Secret Service of tests/run-with-keyring.sh, '
                             'not in the fallback file')
    return parser.parse_args()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Tap:
    def __init__(self, plan):
        self.plan = plan
        self.n = 0
        self.failed = 0
        print('1..%d' % plan, flush=True)

    def ok(self, cond, desc, diag=None):
        self.n += 1
        if cond:
            print('ok %d - %s' % (self.n, desc), flush=True)
        else:
            self.failed += 1
            print('not ok %d - %s' % (self.n, desc), flush=True)
            if diag is not None:
                for line in str(diag).splitlines():
                    print('# ' + line, flush=True)
        return cond

    def diag(self, text):
        for line in str(text).splitlines():
            print('# ' + line, flush=True)

    def skip_rest(self, reason):
        while self.n < self.plan:
            self.n += 1
            print('ok %d # SKIP %s' % (self.n, reason), flush=True)

    def finish(self):
        while self.n < self.plan:
            self.n += 1
            print('not ok %d - not run' % self.n, flush=True)
            self.failed += 1
        sys.exit(1 if self.failed else 0)


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        try:
            return json.loads(self.body.decode('utf-8'))
        except Exception:
            return None

    def __repr__(self):
        return '<%d %r>' % (self.status, self.body[:300])


class App:
    """One headless instance and its data folder."""

    def __init__(self, args, data_dir=None, port=None):
        self.args = args
        self.providers = []
        self.own_dir = data_dir is None
        self.data_dir = data_dir or tempfile.mkdtemp(prefix='prs-api-')
        self.port = port or free_port()
        self.proc = None
        self.log_path = os.path.join(self.data_dir, 'server.log')
        self._ctx = None
        self._token = None

    # -- process --

    def env(self):
        env = dict(os.environ)
        if getattr(self.args, 'keyring', False):
            env.pop('PROSPONSIVE_SECRETS', None)
        else:
            env.setdefault('PROSPONSIVE_SECRETS', 'file')
        env.setdefault('GSETTINGS_BACKEND', 'memory')
        env['PROSPONSIVE_DATA_DIR'] = self.data_dir
        return env

    def start(self, timeout=20):
        log = open(self.log_path, 'ab')
        self.proc = subprocess.Popen(
            [self.args.prosponsive, '--headless', '--data-dir', self.data_dir,
             '--port', str(self.port)],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=self.env())
        log.close()
        self._ctx = None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('prosponsive exited with %s:\n%s' % (self.proc.returncode, self.log()))
            try:
                if self.request('GET', '/api/health', auth=False, timeout=2).status == 200:
                    return self
            except (OSError, ssl.SSLError, http.client.HTTPException):
                pass
            time.sleep(0.05)
        raise RuntimeError('prosponsive did not answer within %d s:\n%s' % (timeout, self.log()))

    def log(self):
        try:
            with open(self.log_path, 'rb') as f:
                return f.read().decode('utf-8', 'replace')[-4000:]
        except OSError:
            return ''

    @property
    def pid(self):
        return self.proc.pid

    def kill(self, sig=signal.SIGKILL):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def stop(self):
        self.kill(signal.SIGTERM)

    def cleanup(self):
        self.stop()
        for provider in self.providers:
            provider.stop()
        if self.own_dir and not getattr(self.args, 'keep', False):
            shutil.rmtree(self.data_dir, ignore_errors=True)

    # -- secrets --

    def ctl(self, *argv):
        return subprocess.run([self.args.ctl, '--data-dir', self.data_dir] + list(argv),
                              capture_output=True, text=True, env=self.env(), timeout=30)

    def add_scripted_provider(self, script, name='Scripted', model='model-a'):
        """Starts a ScriptedProvider, configures it with prosponsive-ctl (an
        OpenAI-compatible provider) and returns it; cleanup() stops it."""
        provider = ScriptedProvider(script)
        self.providers.append(provider)
        res = subprocess.run([self.args.ctl, '--data-dir', self.data_dir, 'provider', 'add', '--kind', 'openai',
                              '--name', name, '--base-url', 'http://127.0.0.1:%d/v1' % provider.port,
                              '--model', model, '--api-key-stdin'],
                             input='sk-test-key\n', capture_output=True, text=True, env=self.env(), timeout=30)
        if res.returncode != 0:
            raise RuntimeError('provider add failed: ' + res.stderr)
        return provider

    @property
    def token(self):
        if self._token is None:
            res = self.ctl('token')
            if res.returncode == 0 and res.stdout.strip():
                self._token = res.stdout.strip().splitlines()[-1]
            else:
                with open(os.path.join(self.data_dir, 'secrets.json')) as f:
                    self._token = json.load(f)['api-token']
        return self._token

    def secret(self, name):
        """The secret @name of this data folder as the app stored it (None when
        there is none): from the keyring with --keyring, else from the
        fallback file secrets.json."""
        if getattr(self.args, 'keyring', False):
            res = subprocess.run(['secret-tool', 'lookup', 'name', name,
                                  'data-dir', os.path.abspath(self.data_dir)],
                                 capture_output=True, text=True, env=self.env(), timeout=30)
            return res.stdout.strip() if res.returncode == 0 and res.stdout.strip() else None
        try:
            with open(os.path.join(self.data_dir, 'secrets.json')) as f:
                return json.load(f).get(name)
        except FileNotFoundError:
            return None

    def forget_token(self):
        self._token = None

    # -- HTTPS --

    def ssl_context(self):
        if self._ctx is None:
            ctx = ssl.create_default_context(cafile=os.path.join(self.data_dir, 'tls-cert.pem'))
            self._ctx = ctx
        return self._ctx

    def connection(self, timeout=10, host='127.0.0.1'):
        return http.client.HTTPSConnection(host, self.port, context=self.ssl_context(),
                                           timeout=timeout)

    def request(self, method, path, body=None, auth=True, token=None, headers=None,
                host_header=None, content_type='application/json', timeout=10, conn=None):
        own = conn is None
        if own:
            conn = self.connection(timeout=timeout)
        try:
            conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            conn.putheader('Host', host_header or 'localhost:%d' % self.port)
            if auth:
                conn.putheader('Authorization', 'Bearer ' + (token or self.token))
            if body is not None:
                if not isinstance(body, (bytes, bytearray)):
                    body = json.dumps(body).encode('utf-8')
                if content_type is not None:
                    conn.putheader('Content-Type', content_type)
                conn.putheader('Content-Length', str(len(body)))
            for k, v in (headers or {}).items():
                conn.putheader(k, v)
            conn.endheaders()
            if body is not None:
                conn.send(body)
            r = conn.getresponse()
            data = r.read()
            return Response(r.status, r.headers, data)
        finally:
            if own:
                conn.close()

    def post(self, path, body, **kw):
        return self.request('POST', path, body, **kw)

    def get(self, path, **kw):
        return self.request('GET', path, **kw)

    def resolve(self, slug):
        r = self.post('/api/conversations/resolve', {'slug': slug})
        return r.json()['conversationId'] if r.status == 200 else None

    # -- /proc --

    def fd_count(self):
        return len(os.listdir('/proc/%d/fd' % self.pid))

    def rss_kb(self):
        with open('/proc/%d/status' % self.pid) as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1])
        return 0


class ScriptedProvider:
    """tests/scripted-provider.py serving @script (a dict, its SCRIPT FORMAT)
    on a free port, with its request log, in its own temporary folder."""

    def __init__(self, script):
        self.dir = tempfile.mkdtemp(prefix='prs-provider-')
        self.log = os.path.join(self.dir, 'log.json')
        path = os.path.join(self.dir, 'script.json')
        with open(path, 'w') as f:
            json.dump(script, f)
        self.proc = subprocess.Popen([sys.executable,
                                      os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                                   'scripted-provider.py'),
                                      '--script', path, '--log', self.log],
                                     stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.port = int(self.proc.stdout.readline())

    def add_to(self, app):
        """`prosponsive-ctl provider add` for it: OpenAI kind, model model-a."""
        return subprocess.run([app.args.ctl, '--data-dir', app.data_dir, 'provider', 'add', '--kind', 'openai',
                               '--name', 'Scripted', '--base-url', 'http://127.0.0.1:%d/v1' % self.port,
                               '--model', 'model-a', '--api-key-stdin'],
                              input='sk-test-key\n', capture_output=True, text=True, env=app.env(), timeout=30)

    def requests(self, method=None):
        try:
            with open(self.log) as f:
                requests = json.load(f)['requests']
        except (OSError, ValueError):
            return []
        return [r for r in requests if method is None or r['method'] == method]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def run_suite(plan, run, setup=None):
    """The usual test program: one App on a fresh data folder; @setup(app)
    before it starts, @run(tap, app) once it answers; an exception is a
    failure with the server's log; everything is stopped; exits with the
    TAP verdict."""
    args = parse_args()
    tap = Tap(plan)
    app = App(args)
    try:
        if setup is not None:
            setup(app)
        app.start()
        run(tap, app)
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc() + '\n' + app.log())
    finally:
        app.cleanup()
    tap.finish()


def answer_complete(raw):
    """Whether @raw holds a whole HTTP answer framed by Content-Length."""
    head, sep, body = raw.partition(b'\r\n\r\n')
    if not sep:
        return False
    for line in head.split(b'\r\n')[1:]:
        name, _, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            return len(body) >= int(value)
    return False


def wait_until(pred, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(interval)
    return pred()


def schema_path():
    """The path of the app's GSettings schema (as a keyfile group), from the
    build's compiled schema folder."""
    schema_dir = os.environ.get('GSETTINGS_SCHEMA_DIR', '')
    for name in sorted(os.listdir(schema_dir)) if os.path.isdir(schema_dir) else []:
        if name.endswith('.gschema.xml'):
            with open(os.path.join(schema_dir, name)) as f:
                m = re.search(r'<schema id="[^"]+" path="/([^"]+)/"', f.read())
                if m:
                    return m.group(1)
    return 'org/prosponsive/App'
