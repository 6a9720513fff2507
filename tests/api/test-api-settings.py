#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Settings that reach the local API, against `prosponsive --headless`, through
GSettings' keyfile backend in a private XDG_CONFIG_HOME (as Preferences writes
them):

- api-port is the port when --port is absent, and --port wins over it;
- allowed-origins: a request whose Origin is on the list passes, any other
  Origin gets 403 forbidden-origin, a request without Origin (n8n) passes;
  the list is compared as browsers send origins (case, default port);
- a change of allowed-origins while the program runs applies from the next
  request on (the keyfile backend notices the file changed)."""

import http.client
import os
import shutil
import ssl
import subprocess
import tempfile
import time

from prsapi import App, Tap, free_port, parse_args, schema_path, wait_until

PLAN = 12


class SettingsApp(App):
    """An instance whose GSettings come from a keyfile; --port only when given."""

    def __init__(self, args, config, port=None, pass_port=False):
        super().__init__(args, port=port)
        self.config = config
        self.pass_port = pass_port

    def env(self):
        env = super().env()
        env['GSETTINGS_BACKEND'] = 'keyfile'
        env['XDG_CONFIG_HOME'] = self.config
        return env

    def start(self, timeout=20):
        log = open(self.log_path, 'ab')
        argv = [self.args.prosponsive, '--headless', '--data-dir', self.data_dir]
        if self.pass_port:
            argv += ['--port', str(self.port)]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=self.env())
        log.close()
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
        raise RuntimeError('prosponsive did not answer on %d within %d s:\n%s' % (self.port, timeout, self.log()))


def write_keyfile(config, **keys):
    settings_dir = os.path.join(config, 'glib-2.0', 'settings')
    os.makedirs(settings_dir, exist_ok=True)
    lines = ['[%s]' % schema_path()]
    for key, value in keys.items():
        lines.append('%s=%s' % (key.replace('_', '-'), value))
    path = os.path.join(settings_dir, 'keyfile')
    # Replaced whole, as GSettings writes it: the backend's monitor sees it
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    os.replace(tmp, path)


def strv(*values):
    return '[' + ', '.join("'%s'" % v for v in values) + ']'


def status_with_origin(app, origin):
    headers = {'Origin': origin} if origin is not None else None
    return app.get('/api/conversations', headers=headers).status


def main():
    args = parse_args()
    tap = Tap(PLAN)
    config = tempfile.mkdtemp(prefix='prs-settings-config-')
    apps = []
    try:
        port = free_port()
        write_keyfile(config, api_port=port, allowed_origins=strv('https://n8n.example.org'))
        app = SettingsApp(args, config, port=port)
        apps.append(app)
        app.start()
        tap.ok(True, 'without --port, the API listens on the api-port setting (%d)' % port)

        tap.ok(status_with_origin(app, None) == 200, 'a request without Origin (n8n) passes')
        tap.ok(status_with_origin(app, 'https://n8n.example.org') == 200, 'an allowed Origin passes')
        tap.ok(status_with_origin(app, 'HTTPS://N8N.example.org:443') == 200,
               'the allowed Origin with another case and its default port passes')
        r = app.get('/api/conversations', headers={'Origin': 'https://evil.example'})
        tap.ok(r.status == 403 and (r.json() or {}).get('code') == 'forbidden-origin',
               'another Origin gets 403 forbidden-origin', r)
        tap.ok(status_with_origin(app, 'https://n8n.example.org.evil.example') == 403,
               'a longer host that starts like an allowed one gets 403')
        tap.ok(status_with_origin(app, 'null') == 403, 'the opaque origin "null" gets 403')

        # Changed while running (Preferences does so through GSettings)
        write_keyfile(config, api_port=port, allowed_origins=strv('https://other.example:8443'))
        changed = wait_until(lambda: status_with_origin(app, 'https://other.example:8443') == 200, 10)
        tap.ok(changed, 'a changed allowed-origins applies while the API runs', app.log())
        tap.ok(status_with_origin(app, 'https://n8n.example.org') == 403,
               'the origin taken off the list gets 403 from then on')
        write_keyfile(config, api_port=port, allowed_origins='[]')
        tap.ok(wait_until(lambda: status_with_origin(app, 'https://other.example:8443') == 403, 10),
               'an empty list lets no web page in')
        app.stop()

        # --port wins over the setting
        other = free_port()
        app2 = SettingsApp(args, config, port=other, pass_port=True)
        app2.data_dir, app2.own_dir = app.data_dir, False
        app2.log_path = app.log_path
        apps.append(app2)
        app2.start()
        tap.ok(app2.get('/api/health', auth=False).status == 200, '--port %d wins over api-port' % other)
        try:
            app.request('GET', '/api/health', auth=False, timeout=2)
            refused = False
        except (ConnectionRefusedError, OSError):
            refused = True
        tap.ok(refused, 'and nothing listens on the api-port meanwhile')
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc() + '\n' + ''.join(a.log() for a in apps))
    finally:
        for a in reversed(apps):
            a.cleanup()
        shutil.rmtree(config, ignore_errors=True)
    tap.finish()


if __name__ == '__main__':
    main()
