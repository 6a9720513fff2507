#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`prosponsive --headless` runs prosponsive-service, a program on the core
library alone: read from /proc/PID/maps, the running service maps no GTK,
libadwaita, Pango or Cairo. Same options, same one instance per data
folder, same answers."""

import os
import re
import shutil
import subprocess
import tempfile
import time

from prsapi import App, run_suite

PLAN = 11
UI_LIBRARIES = ('libgtk-4', 'libadwaita-1', 'libpango', 'libcairo', 'libgdk_pixbuf', 'libharfbuzz')


def mapped_libraries(pid):
    libraries = set()
    with open('/proc/%d/maps' % pid) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and '.so' in parts[5]:
                libraries.add(os.path.basename(parts[5]))
    return libraries


def run(tap, app):
    exe = os.readlink('/proc/%d/exe' % app.pid)
    tap.ok(os.path.basename(exe) == 'prosponsive-service',
           '`prosponsive --headless` runs prosponsive-service in the same process', exe)

    libraries = mapped_libraries(app.pid)
    ui = sorted(lib for lib in libraries if lib.startswith(UI_LIBRARIES))
    tap.ok(any(lib.startswith('libsoup-3') for lib in libraries),
           'the maps are read (libsoup is there)', sorted(libraries))
    tap.ok(not ui, 'no GTK, libadwaita, Pango or Cairo is mapped', ui)

    # What a person sees on start: sentences, each line as it happens,
    # without GLib's "Prosponsive-Message: 18:01:02.123:" before them
    deadline = time.monotonic() + 10
    while 'running without a window' not in app.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    lines = app.log().splitlines()
    tap.ok(any(line.startswith('Prosponsive is running without a window') for line in lines) and
           ('Local API listening on https://127.0.0.1:%d' % app.port) in lines,
           'the start is said in plain lines, while it runs', app.log())
    tap.ok(not any(re.search(r'-Message: \d\d:\d\d', line) for line in lines),
           'no line carries GLib\'s log prefix', app.log())

    r = app.post('/api/conversations/resolve', {'slug': 'Headless'})
    tap.ok(r.status == 200 and r.json()['slug'] == 'Headless', 'it serves the API', r)

    # The same data folder a second time: refused, whatever the port
    second = App(app.args, data_dir=app.data_dir)
    proc = subprocess.run([app.args.prosponsive, '--headless', '--data-dir', app.data_dir,
                           '--port', str(second.port)],
                          capture_output=True, text=True, env=app.env(), timeout=30)
    tap.ok(proc.returncode != 0 and 'already running' in proc.stderr,
           'a second instance on the same data folder is refused', (proc.returncode, proc.stderr))

    # What it prints names the data folder, whose name may hold an escape
    # (ESC [2J clears a terminal, U+009B is a one-character CSI): each
    # control character is printed as a space (docs/ctl.md "Text output")
    parent = tempfile.mkdtemp(prefix='prs-api-')
    odd = App(app.args, data_dir=os.path.join(parent, 'data\x1b[2J\u009bend'))
    try:
        os.mkdir(odd.data_dir, 0o700)
        odd.start()
        deadline = time.monotonic() + 10
        while 'running without a window' not in odd.log() and time.monotonic() < deadline:
            time.sleep(0.1)
        tap.ok('data [2J end, port' in odd.log() and '\x1b' not in odd.log() and '\u009b' not in odd.log(),
               'a control character it prints is a space', repr(odd.log()))
    finally:
        odd.cleanup()
        shutil.rmtree(parent, ignore_errors=True)

    proc = subprocess.run([app.args.prosponsive, '--headless', '--port', '70000'],
                          capture_output=True, text=True, env=app.env(), timeout=30)
    tap.ok(proc.returncode != 0 and 'between 1 and 65535' in proc.stderr,
           'options are read as before (a bad port)', (proc.returncode, proc.stderr))

    proc = subprocess.run([app.args.prosponsive, '--headless', '--version'],
                          capture_output=True, text=True, env=app.env(), timeout=30)
    tap.ok(proc.returncode == 0 and proc.stdout.startswith('prosponsive '),
           '--headless --version', (proc.returncode, proc.stdout, proc.stderr))

    # SIGTERM (Ctrl+C, systemd): it ends cleanly and says so, last
    app.stop()
    tap.ok(app.proc.returncode == 0 and app.log().rstrip().endswith('Prosponsive has stopped.'),
           'a stop is said once it is done', (app.proc.returncode, app.log()[-300:]))


if __name__ == '__main__':
    run_suite(PLAN, run)
