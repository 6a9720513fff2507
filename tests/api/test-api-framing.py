#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""HTTP framing on the wire: raw requests over TLS (python ssl) against
`prosponsive --headless`, because HTTP client libraries refuse to send what
an attacker would. A request whose framing could be read two ways (two
Host, Content-Length, Transfer-Encoding or Authorization lines, a negative
or 2^64-1 Content-Length, Transfer-Encoding with Content-Length, an
absolute-form target naming another host) is answered 400 at once and its
connection closed; nothing it asked for happens. What libsoup 3.2.3 refuses
before Prosponsive sees the request, or changes first (obs-fold), is
measured here too, as it reaches the wire."""

import json
import socket
import time

from prsapi import answer_complete, run_suite

PLAN = 27
QUICK = 3.0     # seconds: an answer "at once" (a held connection took 10 s)




class Answer:
    def __init__(self, raw, seconds, closed):
        self.raw = raw
        self.seconds = seconds
        self.closed = closed
        head, _, self.body = raw.partition(b'\r\n\r\n')
        lines = head.split(b'\r\n')
        try:
            self.status = int(lines[0].split()[1])
        except (IndexError, ValueError):
            self.status = None
        self.headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b':')
            self.headers[name.strip().lower().decode('latin-1')] = value.strip().decode('latin-1')

    def json(self):
        try:
            return json.loads(self.body.decode('utf-8'))
        except ValueError:
            return None

    def __repr__(self):
        return '<%s in %.2fs, closed=%s: %r>' % (self.status, self.seconds, self.closed, self.raw[:240])


def read_answer(sock, timeout):
    """Reads one answer from @sock. An answer that keeps the connection
    alive ends at its Content-Length (closed=False); otherwise reads until
    the server closes (or @timeout passes: closed=False)."""
    start = time.monotonic()
    raw = b''
    closed = False
    sock.settimeout(timeout)
    try:
        while True:
            if answer_complete(raw) and Answer(raw, 0, False).headers.get('connection', '').lower() != 'close':
                break
            chunk = sock.recv(65536)
            if not chunk:
                closed = True
                break
            raw += chunk
    except socket.timeout:
        pass
    except OSError:
        closed = True   # reset, or TLS ended without close_notify: closed all the same
    return Answer(raw, time.monotonic() - start, closed)


def connect(app, timeout=15):
    ctx = app.ssl_context()
    return ctx.wrap_socket(socket.create_connection(('127.0.0.1', app.port), timeout=timeout),
                           server_hostname='localhost')


def send_raw(app, data, timeout=15):
    """Sends @data as is over TLS on a new connection and reads the answer."""
    sock = connect(app, timeout)
    try:
        sock.sendall(data)
        return read_answer(sock, timeout)
    finally:
        sock.close()


def kept_alive_then(app, first, second, timeout=15):
    """Two requests on one kept-alive connection: both answers, and whether
    the connection was still open after the first."""
    sock = connect(app, timeout)
    try:
        sock.sendall(first)
        a = read_answer(sock, timeout)
        if a.closed:
            return a, None
        sock.sendall(second)
        return a, read_answer(sock, timeout)
    finally:
        sock.close()


def refused(a, status=400, code='bad-request-framing'):
    j = a.json()
    return (a.status == status and isinstance(j, dict) and j.get('success') is False
            and j.get('code') == code and isinstance(j.get('error'), str)
            and a.headers.get('connection', '').lower() == 'close' and a.closed and a.seconds < QUICK)


def run(tap, app):
    host = 'localhost:%d' % app.port
    auth = 'Authorization: Bearer %s\r\n' % app.token
    body = '{"slug":"framing"}'

    def req(lines, payload=''):
        return ('%s\r\n\r\n%s' % ('\r\n'.join(lines), payload)).encode('utf-8')

    def resolve_with(*headers, payload=body):
        return req(['POST /api/conversations/resolve HTTP/1.1', 'Host: ' + host, auth.strip(),
                    'Content-Type: application/json'] + list(headers), payload)

    def slugs():
        return {c['slug'] for c in app.get('/api/conversations').json()}

    # -- a well-framed request on the same raw path --
    a = send_raw(app, req(['GET /api/conversations HTTP/1.1', 'Host: ' + host, auth.strip()]))
    tap.ok(a.status == 200 and isinstance(a.json(), list), 'a plain raw request is served', a)

    # -- Host --
    for order, lines in [('evil last', ['Host: ' + host, 'Host: evil.example']),
                         ('evil first', ['Host: evil.example', 'Host: ' + host])]:
        a = send_raw(app, req(['GET /api/conversations HTTP/1.1'] + lines + [auth.strip()]))
        tap.ok(refused(a), 'two Host headers (%s) → 400 and closed' % order, a)
    a = send_raw(app, req(['GET https://evil.example/api/conversations HTTP/1.1', 'Host: ' + host, auth.strip()]))
    tap.ok(refused(a), 'an absolute-form target naming another host → 400 and closed', a)
    a = send_raw(app, req(['GET https://x@%s/api/conversations HTTP/1.1' % host, 'Host: ' + host, auth.strip()]))
    tap.ok(refused(a), 'an absolute-form target with user info → 400', a)
    a = send_raw(app, req(['GET https://%s/api/health HTTP/1.1' % host, 'Host: ' + host]))
    tap.ok(a.status == 200, 'an absolute-form target naming this server, as the Host header does, is served', a)
    a = send_raw(app, req(['GET http://%s/api/conversations HTTP/1.1' % host, 'Host: ' + host, auth.strip()]))
    tap.ok(a.status == 400 and a.seconds < QUICK and a.json() is None,
           'an http:// target over TLS: libsoup answers 400 itself (empty body)', a)

    # -- body framing --
    before = slugs()
    a = send_raw(app, resolve_with('Content-Length: %d' % len(body), 'Content-Length: 3'))
    tap.ok(refused(a), 'two different Content-Lengths → 400 and closed', a)
    a = send_raw(app, resolve_with('Content-Length: %d' % len(body), 'Content-Length: %d' % len(body)))
    tap.ok(refused(a), 'two equal Content-Lengths → 400 too', a)
    a = send_raw(app, resolve_with('Content-Length: -1'))
    tap.ok(refused(a), 'a negative Content-Length → 400 at once (it held the connection 10 s)', a)
    a = send_raw(app, resolve_with('Content-Length: 18446744073709551615'))
    tap.ok(refused(a), 'Content-Length 2^64-1 → 400 at once', a)
    a = send_raw(app, resolve_with('Content-Length: +%d' % len(body)))
    tap.ok(refused(a), 'Content-Length with a sign → 400', a)
    chunked = '%x\r\n%s\r\n0\r\n\r\n' % (len(body), body)
    a = send_raw(app, resolve_with('Content-Length: 5', 'Transfer-Encoding: chunked', payload=chunked))
    tap.ok(refused(a), 'Transfer-Encoding with Content-Length → 400', a)
    a = send_raw(app, resolve_with('Transfer-Encoding: chunked', 'Transfer-Encoding: chunked', payload=chunked))
    tap.ok(refused(a), 'two Transfer-Encoding lines → 400', a)
    a = send_raw(app, resolve_with('Transfer-Encoding: gzip, chunked', payload=chunked))
    tap.ok(a.status == 501 and a.seconds < QUICK,
           'an unknown transfer coding: libsoup answers 501 itself', a)
    tap.ok(slugs() == before, 'no badly framed resolve created a conversation', slugs() - before)
    a = send_raw(app, resolve_with('Transfer-Encoding: chunked', payload=chunked))
    tap.ok(a.status == 200 and (a.json() or {}).get('slug') == 'framing', 'a chunked body alone is served', a)

    # -- headers the guard trusts --
    for order, lines in [('good last', ['Authorization: Bearer nope', auth.strip()]),
                         ('good first', [auth.strip(), 'Authorization: Bearer nope'])]:
        a = send_raw(app, req(['GET /api/conversations HTTP/1.1', 'Host: ' + host] + lines))
        tap.ok(refused(a), 'two Authorization headers (%s) → 400' % order, a)
    a = send_raw(app, resolve_with('Content-Type: text/plain', 'Content-Length: %d' % len(body)))
    tap.ok(refused(a), 'two Content-Type headers → 400', a)

    a = send_raw(app, req(['GET /api/conversations HTTP/1.1', 'Host: ' + host, auth.strip(), 'X-Note: a\x01b']))
    tap.ok(refused(a), 'a header value with a control character → 400', a)

    # -- obs-fold: libsoup unfolds it into one value with a space (RFC 9112 §5.2) --
    a = send_raw(app, req(['GET /api/conversations HTTP/1.1', 'Host: evil.example',
                           ' ' + host, auth.strip()]))
    tap.ok(a.status == 403, 'a folded Host ("evil.example localhost:PORT") → 403', a)
    a = send_raw(app, req(['GET /api/conversations HTTP/1.1', 'Host: ' + host,
                           'Authorization: Bearer nope', ' ' + app.token]))
    tap.ok(a.status == 401, 'a folded Authorization ("Bearer nope TOKEN") → 401', a)

    # -- every request of a kept-alive connection is checked --
    good = req(['GET /api/conversations HTTP/1.1', 'Host: ' + host, auth.strip()])
    a, b = kept_alive_then(app, good, resolve_with('Content-Length: %d' % len(body), 'Content-Length: 3'))
    tap.ok(a.status == 200 and not a.closed and b is not None and refused(b),
           'a kept-alive connection: the first request served, a badly framed second one → 400 and closed',
           [a, b])
    a, b = kept_alive_then(app, good, req(['GET /api/conversations HTTP/1.1', 'Host: evil.example', auth.strip()]))
    tap.ok(a.status == 200 and not a.closed and b is not None and b.status == 403,
           'a kept-alive connection: a second request with a foreign Host → 403', [a, b])
    a, b = kept_alive_then(app, good, req(['GET http://%s/api/conversations HTTP/1.1' % host, 'Host: ' + host,
                                           auth.strip()]))
    tap.ok(a.status == 200 and b is not None and b.status == 400 and b.closed and b.seconds < QUICK,
           'a request libsoup refuses before any check of ours (http:// over TLS) is not kept alive', [a, b])

    r = app.get('/api/health', auth=False)
    tap.ok(r.status == 200, 'the server still answers', r)


if __name__ == '__main__':
    run_suite(PLAN, run)
