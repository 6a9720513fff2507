#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A kept-alive client that asks for many answers and reads none of them,
through the real server (libsoup 3.2.3 writing into prs-api-stream.c): the
answers are more than the kernel can hold for it (the largest TCP send
buffer, net.ipv4.tcp_wmem, plus the client's small receive buffer), so the
server's writes must be refused (WOULD_BLOCK) at least once. Meanwhile
another connection is answered at once: the API thread does not wait for
the client. Then the client reads, and every answer comes whole, once, in
order. The stream's would-block paths themselves are tested in
tests/core/test-api-stream.c."""

import socket
import threading
import time

from prsapi import run_suite

PLAN = 3
MAX_REQUESTS = 999      # under prs-api-connections.c's 1000 a connection
RECEIVE_BUFFER = 4096


def send_max():
    """The largest send buffer TCP grows a socket to"""
    with open('/proc/sys/net/ipv4/tcp_wmem') as f:
        return int(f.read().split()[2])


def run(tap, app):
    for i in range(40):
        app.resolve('a conversation whose name makes the list long, number %03d' % i)
    single = app.get('/api/conversations')
    answer_size = len(single.body) + 200
    count = min(MAX_REQUESTS, 2 * (send_max() + RECEIVE_BUFFER) // answer_size + 1)
    if count * answer_size < send_max() + RECEIVE_BUFFER + (1 << 20):
        tap.skip_rest('%d answers of %d bytes fit the kernel\'s buffers' % (count, answer_size))
        return

    request = ('GET /api/conversations HTTP/1.1\r\nHost: localhost:%d\r\n'
               'Authorization: Bearer %s\r\n\r\n' % (app.port, app.token)).encode()
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
    raw.connect(('127.0.0.1', app.port))
    tls = app.ssl_context().wrap_socket(raw, server_hostname='localhost')
    try:
        sender = threading.Thread(target=tls.sendall, args=(request * count,), daemon=True)
        sender.start()
        time.sleep(2.0)

        start = time.monotonic()
        r = app.get('/api/health')
        waited = time.monotonic() - start
        tap.ok(r.status == 200 and waited < 2.0,
               'another connection is answered while %d answers (%.1f MB) wait for a client '
               'that does not read (%.3f s)' % (count, count * answer_size / 1e6, waited), r)

        tls.settimeout(30)
        got = bytearray()
        status = b'HTTP/1.1 200 OK\r\n'
        starts, scanned = 0, 0
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (starts == count and got.endswith(single.body)):
            chunk = tls.recv(1 << 20)
            if not chunk:
                break
            got += chunk
            starts += got.count(status, scanned)
            scanned = max(scanned, len(got) - len(status) + 1)
        parts = bytes(got).split(b'HTTP/1.1 200 OK\r\n')
        bodies = [part.partition(b'\r\n\r\n')[2] for part in parts[1:]]
        tap.ok(parts[0] == b'' and len(bodies) == count,
               'then every answer comes (%d of %d)' % (len(bodies), count), bytes(got[:300]))
        tap.ok(all(body == single.body for body in bodies),
               'each whole and once: %.1f MB, as the single answer' % (len(got) / 1e6),
               [i for i, body in enumerate(bodies) if body != single.body][:10])
    finally:
        tls.close()


if __name__ == '__main__':
    run_suite(PLAN, run)
