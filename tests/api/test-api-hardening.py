#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The hardening outcomes on libsoup 3.2.3, measured from /proc/PID: idle
TCP connections, half-sent requests, connection churn, 15,000 kept-alive
connections that the client closes (3.2.3's leak, bounded by the server
generations of prs-api-generations.c), every generation pinned, kept-alive
connections that the client resets, and an unauthenticated 200 MB upload. With --report-only it prints the figures
without judging them (used for the baseline in HARDENING.md)."""

import argparse
import http.client
import os
import select
import socket
import ssl
import sys
import threading
import time

from prsapi import App, Tap

PLAN = 15


def parse():
    p = argparse.ArgumentParser()
    p.add_argument('--prosponsive', required=True)
    p.add_argument('--ctl', required=True)
    p.add_argument('--keep', action='store_true')
    p.add_argument('--report-only', action='store_true')
    p.add_argument('--token', help='token for a server without prosponsive-ctl')
    return p.parse_args()


def main():
    args = parse()
    tap = Tap(PLAN)
    app = App(args)
    if args.report_only:
        app._token = args.token or 'none'
    try:
        app.start()
        run(tap, app, args.report_only)
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc() + '\n' + app.log())
    finally:
        app.cleanup()
    tap.finish()


# Under AddressSanitizer (tests/sanitize.sh) freed memory sits in ASan's
# quarantine, so RSS says nothing about leaks there: those two outcomes are
# measured by the normal build only.
SANITIZED = os.environ.get('PROSPONSIVE_SANITIZED') == '1'


def judge_rss(tap, report_only, cond, desc, diag=None):
    if SANITIZED:
        tap.ok(True, desc + ' # SKIP RSS is not meaningful under AddressSanitizer', None)
    else:
        judge(tap, report_only, cond, desc, diag)


def judge(tap, report_only, cond, desc, diag=None):
    if report_only:
        tap.ok(True, desc + ' # report-only: ' + ('met' if cond else 'NOT met'), None)
        if diag:
            tap.diag(diag)
    else:
        tap.ok(cond, desc, diag)


def timed_health(app, timeout=10):
    t = time.monotonic()
    try:
        r = app.request('GET', '/api/health', auth=False, timeout=timeout)
        return r.status, time.monotonic() - t
    except Exception as e:
        return repr(e), time.monotonic() - t


def one_request(app, i, keep_open=False):
    """A connection with one request (three kinds, as n8n sends them);
    returns (the connection, whether the answer kept it alive)."""
    conn = app.connection(timeout=10)
    if i % 3 == 0:
        conn.request('GET', '/api/health', headers={'Host': 'localhost:%d' % app.port})
    elif i % 3 == 1:
        conn.request('POST', '/api/conversations/resolve', body=b'{"slug":"churn"}',
                     headers={'Host': 'localhost:%d' % app.port,
                              'Authorization': 'Bearer ' + app.token,
                              'Content-Type': 'application/json'})
    else:
        # unauthenticated, with a body: rejected early
        conn.request('POST', '/api/conversations/resolve', body=b'{"slug":"x"}',
                     headers={'Host': 'localhost:%d' % app.port,
                              'Content-Type': 'application/json'})
    r = conn.getresponse()
    r.read()
    kept = (r.getheader('Connection') or '').lower() != 'close'
    if not keep_open:
        conn.close()   # the client closes a kept-alive connection (3.2.3's leak)
    return conn, kept


def churn(app, total, threads=4):
    """@total connections from @threads clients, each closed by the client
    after one request. Returns (seconds, errors, how many answers that
    were not refused kept their connection alive, how many were not
    refused): a refusal always closes."""
    errors = []
    kept = [0, 0]

    def client(n):
        for i in range(n):
            try:
                alive = one_request(app, i)[1]
                if i % 3 != 2:
                    kept[0] += alive
                    kept[1] += 1
            except Exception as e:
                errors.append(repr(e))

    t = time.monotonic()
    workers = [threading.Thread(target=client, args=(total // threads,)) for _ in range(threads)]
    for th in workers:
        th.start()
    for th in workers:
        th.join(600)
    return time.monotonic() - t, errors, kept[0], kept[1]


def settle(app, fds, seconds=25):
    """Waits until the fd count is back within 5 of @fds; the seconds it took."""
    t = time.monotonic()
    while time.monotonic() - t < seconds:
        if abs(app.fd_count() - fds) <= 5:
            return time.monotonic() - t
        time.sleep(0.25)
    return None


def warm_up(app, n=50):
    for _ in range(n):
        app.request('GET', '/api/health', auth=False)
        app.post('/api/conversations/resolve', {'slug': 'warm'})


def run(tap, app, report_only):
    warm_up(app)
    time.sleep(0.5)
    base_fds, base_rss = app.fd_count(), app.rss_kb()
    tap.diag('baseline: %d fds, RSS %d kB' % (base_fds, base_rss))

    # 1. 64 idle TCP connections that never start TLS
    idle = [socket.create_connection(('127.0.0.1', app.port), timeout=5) for _ in range(64)]
    time.sleep(0.3)
    status, elapsed = timed_health(app, timeout=15)
    judge(tap, report_only, status == 200 and elapsed < 1.0,
          '64 idle TCP connections: a real request answers in %.3f s (< 1 s)' % elapsed, status)
    for s in idle:
        s.close()

    # 2. 200 clients sending half a request
    ctx = app.ssl_context()
    half = []
    for i in range(200):
        raw = socket.create_connection(('127.0.0.1', app.port), timeout=10)
        s = ctx.wrap_socket(raw, server_hostname='localhost')
        if i % 2 == 0:
            s.sendall(b'POST /api/conversations/resolve HTTP/1.1\r\nHost: localhost:%d\r\nContent-Ty' % app.port)
        else:
            s.sendall(b'POST /api/conversations/resolve HTTP/1.1\r\nHost: localhost:%d\r\n'
                      b'Authorization: Bearer %s\r\nContent-Type: application/json\r\n'
                      b'Content-Length: 100\r\n\r\n{"slug":' % (app.port, app.token.encode()))
        s.setblocking(False)
        half.append(s)
    t0 = time.monotonic()
    served = []
    for _ in range(10):
        status, elapsed = timed_health(app, timeout=10)
        served.append((status, round(elapsed, 3)))
    judge(tap, report_only, all(st == 200 and el < 1.0 for st, el in served),
          'while 200 half-sent requests are pending, others are served', served)
    closed_at = {}
    deadline = t0 + 40
    while len(closed_at) < len(half) and time.monotonic() < deadline:
        open_socks = [s for s in half if id(s) not in closed_at]
        r, _, _ = select.select(open_socks, [], [], 0.5)
        for s in r:
            try:
                data = s.recv(4096)
                if data == b'':
                    closed_at[id(s)] = time.monotonic() - t0
                else:
                    # an answer (e.g. 408) is also the server giving up on it
                    closed_at.setdefault(id(s), time.monotonic() - t0)
            except ssl.SSLWantReadError:
                pass
            except (ssl.SSLError, OSError):
                closed_at[id(s)] = time.monotonic() - t0
    latest = max(closed_at.values()) if closed_at else None
    judge(tap, report_only, len(closed_at) == 200 and latest <= 30,
          '200 half-sent requests: %d closed by the server, the last after %s s (≤ 30 s)'
          % (len(closed_at), '%.1f' % latest if latest is not None else 'never'))
    for s in half:
        s.close()

    # 3. 1,500 connections: fds and RSS come back
    time.sleep(1)
    before_fds, before_rss = app.fd_count(), app.rss_kb()
    churn_s, errors, _, _ = churn(app, 1500)
    settled = settle(app, before_fds)
    after_fds, after_rss = app.fd_count(), app.rss_kb()
    tap.diag('1,500 connections in %.1f s (%d errors); fds %d → %d (settled after %s s); RSS %d → %d kB'
             % (churn_s, len(errors), before_fds, after_fds,
                '%.1f' % settled if settled is not None else 'never', before_rss, after_rss))
    judge(tap, report_only, not errors, '1,500 connections all answered', errors[:3])
    judge(tap, report_only, abs(after_fds - before_fds) <= 5,
          'after 1,500 connections fds are back to baseline ±5 (%d → %d)' % (before_fds, after_fds))
    judge_rss(tap, report_only, after_rss - before_rss < 10 * 1024,
          'after 1,500 connections RSS grew %.1f MB (< 10 MB)' % ((after_rss - before_rss) / 1024))

    kept_alive_churn(tap, app, report_only, before_fds, before_rss)
    pinned_generations(tap, app, report_only)
    reset_connections(tap, app, report_only)

    # 4. an unauthenticated 200 MB upload
    time.sleep(0.5)
    rss0 = app.rss_kb()
    peak = [rss0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], app.rss_kb())
            except OSError:
                break
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    result = upload(app, 200 * 1024 * 1024, auth=False)
    time.sleep(0.3)
    stop.set()
    sampler.join()
    growth = (peak[0] - rss0) / 1024
    tap.diag('200 MB unauthenticated upload: %s; RSS %d → peak %d kB' % (result, rss0, peak[0]))
    judge_rss(tap, report_only, growth < 5, 'an unauthenticated 200 MB upload raised RSS by %.1f MB (< 5 MB)' % growth)
    judge(tap, report_only, result[0] in (401, 'closed'), 'the upload was refused (%s)' % (result,))

    status, elapsed = timed_health(app)
    judge(tap, report_only, status == 200, 'the service still answers after all of it (%.3f s)' % elapsed, status)


def kept_alive_churn(tap, app, report_only, base_fds, base_rss):
    """15,000 kept-alive connections that the client closes: libsoup 3.2.3
    keeps each (~24 KB) until its server generation is freed. RSS must not
    grow with the count (3,000 under AddressSanitizer, where RSS is not
    judged and TLS is slower)."""
    total = 3000 if SANITIZED else 15000
    seconds, errors, kept, served = churn(app, total)
    settled = settle(app, base_fds)
    time.sleep(1)
    fds, rss = app.fd_count(), app.rss_kb()
    tap.diag('%d kept-alive connections closed by the client in %.1f s (%d errors; %d of %d answers '
             'that were not refusals kept alive); fds %d → %d (settled after %s s); RSS %d → %d kB'
             % (total, seconds, len(errors), kept, served, base_fds, fds,
                '%.1f' % settled if settled is not None else 'never', base_rss, rss))
    # Most answers must have kept their connection alive, or the RSS bound
    # below would prove nothing about 3.2.3's leak (each kept-alive one
    # would leak ~24 KB: half of 15,000 is ~180 MB). How many more than
    # half depends on how soon the sweep retires generations, which a
    # loaded machine delays (~80 % at load 2 on two cores, ~95 % idle).
    judge(tap, report_only, not errors and kept >= served * 0.5,
          '%d connections answered; %d of the %d served kept alive (≥ 50 %%)' % (total, kept, served),
          errors[:3])
    judge(tap, report_only, abs(fds - base_fds) <= 5,
          'after %d kept-alive connections fds are back to baseline ±5 (%d → %d)' % (total, base_fds, fds))
    judge_rss(tap, report_only, rss - base_rss < 10 * 1024,
              'after %d kept-alive connections closed by the client RSS grew %.1f MB (< 10 MB)'
              % (total, (rss - base_rss) / 1024))


def pinned_generations(tap, app, report_only):
    """Each server generation takes 32 connections, at most 8 are alive:
    one idle connection kept open per generation pins all 8, and new
    connections are then served without keep-alive (nothing to leak) until
    the idle ones reach their 10 s deadline."""
    held = []
    try:
        for i in range(8 * 32):
            conn, _ = one_request(app, 0, keep_open=(i % 32 == 0))
            if i % 32 == 0:
                held.append(conn)
        _, kept = one_request(app, 0)
        status, _ = timed_health(app)
        judge(tap, report_only, not kept and status == 200,
              'every generation pinned by an idle connection: a new connection is served, '
              'without keep-alive (kept=%s, %s)' % (kept, status))
    finally:
        for conn in held:
            conn.close()
    # The sweep sees the closed idle connections and frees their generations
    deadline = time.monotonic() + 15
    kept = False
    while not kept and time.monotonic() < deadline:
        time.sleep(0.5)
        kept = one_request(app, 0)[1]
    judge(tap, report_only, kept, 'once they close, new connections are kept alive again')


def reset_connections(tap, app, report_only, count=32):
    """Kept-alive connections that the client resets (closed with an
    answer unread, as a load generator does when it stops): libsoup 3.2.3
    never lets go of them either, so the sweep must drop them as it drops
    those closed between requests, long before their 10 s idle deadline
    (until then each holds its TLS session, and pins its generation)."""
    time.sleep(1)
    base = app.fd_count()
    conns = []
    for _ in range(count):
        conn, kept = one_request(app, 1, keep_open=True)
        if kept:
            conns.append(conn)
    for conn in conns:
        conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\x01\x00\x00\x00\x00\x00\x00\x00')
        conn.sock.close()
    settled = settle(app, base, seconds=8)
    judge(tap, report_only, len(conns) == count and settled is not None and settled < 3,
          '%d of %d kept-alive connections reset by the client were dropped after %s s (< 3 s; '
          'the idle deadline is 10 s)' % (len(conns), count, '%.1f' % settled if settled is not None else 'never'))


def upload(app, size, auth):
    """Streams @size bytes of body; returns (status or 'closed', bytes sent)."""
    ctx = app.ssl_context()
    raw = socket.create_connection(('127.0.0.1', app.port), timeout=30)
    s = ctx.wrap_socket(raw, server_hostname='localhost')
    head = (b'POST /api/conversations/resolve HTTP/1.1\r\nHost: localhost:%d\r\n'
            b'Content-Type: application/json\r\nContent-Length: %d\r\n' % (app.port, size))
    if auth:
        head += b'Authorization: Bearer %s\r\n' % app.token.encode()
    s.sendall(head + b'\r\n')
    chunk = b'0' * 65536
    sent = 0
    try:
        while sent < size:
            n = s.send(chunk[:min(len(chunk), size - sent)])
            sent += n
    except OSError:
        pass
    try:
        s.settimeout(10)
        data = s.recv(4096)
        status = int(data.split(b' ')[1]) if data.startswith(b'HTTP/1.1 ') else 'closed'
    except (OSError, ValueError, IndexError):
        status = 'closed'
    s.close()
    return status, sent


if __name__ == '__main__':
    main()
