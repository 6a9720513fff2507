#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""LAN listening, against `prosponsive --headless`:

- off (the default): a non-loopback address of this machine is refused;
- on, the address not on `allowed-sources`: the connection is closed at
  accept time, before TLS, while loopback is still served;
- on and allowlisted: served, with the Host check accepting the address
  literal the client connected to (and still refusing other names).

The settings reach the program through GSettings' keyfile backend in a
private XDG_CONFIG_HOME. Skips with a reason when the machine has no
non-loopback address."""

import os
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import http.client

from prsapi import App, Tap, parse_args, schema_path

PLAN = 12


def local_addresses():
    """Global-scope addresses of this machine: (IPv4 list, IPv6 list)."""
    v4, v6 = [], []
    try:
        out = subprocess.run(['ip', '-o', 'addr', 'show', 'scope', 'global'],
                             capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired):
        return v4, v6
    for line in out.splitlines():
        m = re.search(r'\binet6? ([0-9a-fA-F.:]+)/\d+', line)
        if not m:
            continue
        (v6 if ':' in m.group(1) else v4).append(m.group(1))
    return v4, v6


class LanApp(App):
    """An instance whose GSettings come from a keyfile we write."""

    def __init__(self, args, lan, sources):
        super().__init__(args)
        self.config = tempfile.mkdtemp(prefix='prs-lan-config-')
        settings_dir = os.path.join(self.config, 'glib-2.0', 'settings')
        os.makedirs(settings_dir)
        with open(os.path.join(settings_dir, 'keyfile'), 'w') as f:
            f.write('[%s]\nlan-listening=%s\nallowed-sources=%s\n' % (
                schema_path(), 'true' if lan else 'false',
                '[' + ', '.join("'%s'" % s for s in sources) + ']'))

    def env(self):
        env = super().env()
        env['GSETTINGS_BACKEND'] = 'keyfile'
        env['XDG_CONFIG_HOME'] = self.config
        return env

    def cleanup(self):
        super().cleanup()
        shutil.rmtree(self.config, ignore_errors=True)


def pinned_context(app):
    """The app's own certificate, without the name check (it names
    localhost and loopback; a LAN client pins it instead)."""
    ctx = ssl.create_default_context(cafile=os.path.join(app.data_dir, 'tls-cert.pem'))
    ctx.check_hostname = False
    return ctx


def host_literal(address):
    return '[%s]' % address if ':' in address else address


def request_via(app, address, path, host=None, auth=True):
    """(status, None) or (None, 'what happened')."""
    conn = http.client.HTTPSConnection(address, app.port, context=pinned_context(app), timeout=5)
    try:
        conn.putrequest('GET', path, skip_host=True, skip_accept_encoding=True)
        conn.putheader('Host', host or '%s:%d' % (host_literal(address), app.port))
        if auth:
            conn.putheader('Authorization', 'Bearer ' + app.token)
        conn.endheaders()
        r = conn.getresponse()
        r.read()
        return r.status, None
    except ConnectionRefusedError:
        return None, 'refused'
    except (ConnectionResetError, BrokenPipeError, ssl.SSLEOFError, ssl.SSLZeroReturnError):
        return None, 'closed before TLS'
    except ssl.SSLError as e:
        return None, 'TLS error: %s' % e
    except OSError as e:
        return None, 'error: %s' % e
    finally:
        conn.close()


def main():
    args = parse_args()
    tap = Tap(PLAN)
    v4, v6 = local_addresses()
    if not v4 and not v6:
        tap.skip_rest('this machine has no non-loopback address to connect through')
        tap.finish()
    address = (v4 or v6)[0]
    tap.diag('non-loopback address of this machine: %s (IPv6: %s)' % (address, v6[:1]))

    apps = []
    try:
        # 1. LAN listening off (the default)
        app = LanApp(args, False, [address])
        apps.append(app)
        app.start()
        status, what = request_via(app, address, '/api/health', auth=False)
        tap.ok(status is None and what == 'refused',
               'LAN off: %s is refused even when allowlisted' % address, (status, what))
        status, _ = request_via(app, '127.0.0.1', '/api/health', auth=False)
        tap.ok(status == 200, 'LAN off: loopback served', status)
        app.cleanup()

        # 2. LAN on, the address not on the list
        app = LanApp(args, True, ['198.51.100.0/24', 'not-an-address'])
        apps.append(app)
        app.start()
        status, what = request_via(app, address, '/api/health', auth=False)
        tap.ok(status is None and what == 'closed before TLS',
               'LAN on, not allowlisted: closed at accept time, before TLS', (status, what))
        status, _ = request_via(app, '127.0.0.1', '/api/health', auth=False)
        tap.ok(status == 200, 'LAN on: loopback always allowed', status)
        tap.ok('not-an-address' in app.log(), 'an invalid allowed-sources entry is named in the log')
        app.cleanup()

        # 3. LAN on, allowlisted (as a network and as the IPv6 network)
        sources = ['%s/24' % address if ':' not in address else '%s/64' % address]
        if v6:
            sources.append('%s/64' % v6[0])
        app = LanApp(args, True, sources)
        apps.append(app)
        app.start()
        status, what = request_via(app, address, '/api/health', auth=False)
        tap.ok(status == 200, 'LAN on, allowlisted: %s served' % address, (status, what))
        status, what = request_via(app, address, '/api/conversations')
        tap.ok(status == 200, 'LAN on: authenticated route with Host = the connected address',
               (status, what))
        status, what = request_via(app, address, '/api/conversations', auth=False)
        tap.ok(status == 401, 'LAN on: still 401 without the token', (status, what))
        status, what = request_via(app, address, '/api/conversations',
                                   host='attacker.example:%d' % app.port)
        tap.ok(status == 403, 'LAN on: any other Host name is still 403', (status, what))
        other = '198.51.100.7:%d' % app.port
        status, what = request_via(app, address, '/api/conversations', host=other)
        tap.ok(status == 403, 'LAN on: an address literal that is not the connected one is 403',
               (status, what))
        status, _ = request_via(app, '127.0.0.1', '/api/conversations')
        tap.ok(status == 200, 'LAN on: loopback served as before', status)
        if v6:
            status, what = request_via(app, v6[0], '/api/conversations')
            tap.ok(status == 200, 'LAN on: IPv6 %s served (Host [addr]:port)' % v6[0],
                   (status, what))
        else:
            tap.ok(True, 'LAN on: IPv6 # SKIP no global IPv6 address')
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception',
               traceback.format_exc() + '\n' + (apps[-1].log() if apps else ''))
    finally:
        for a in apps:
            a.cleanup()
    tap.finish()


if __name__ == '__main__':
    main()
