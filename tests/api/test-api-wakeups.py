#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A kept-alive call does not make the API thread wake itself. GLib 2.74
writes to its main loop's eventfd for every poll record added or removed,
and libsoup's fresh source for every wait on a connection, nested down to
the socket's, cost ten such writes a call (bench/RESULTS.md). The socket's
record is now one per connection (prs-api-wait.c): the thread's write()
calls a call are counted from /proc (syscw counts write(), not the socket's
sendto()). The waits stay correct: calls on several connections at once,
a request that comes in pieces, two requests in one segment, a client that
hangs up in the middle of a request or right after sending one; the thread
does not spin while nobody waits, and every fd is given back."""

import os
import socket
import ssl
import threading
import time

from prsapi import answer_complete, run_suite, wait_until

PLAN = 8
BODY = b'{"slug":"Wakeups"}'


def api_thread(app):
    for tid in os.listdir('/proc/%d/task' % app.pid):
        with open('/proc/%d/task/%s/comm' % (app.pid, tid)) as f:
            if f.read().strip() == 'prs-api':
                return tid
    raise RuntimeError('no prs-api thread')


def writes(app, tid):
    with open('/proc/%d/task/%s/io' % (app.pid, tid)) as f:
        for line in f:
            if line.startswith('syscw:'):
                return int(line.split()[1])
    return -1


def cpu_ticks(app, tid):
    with open('/proc/%d/task/%s/stat' % (app.pid, tid)) as f:
        fields = f.read().rpartition(')')[2].split()
    return int(fields[11]) + int(fields[12])


def raw_request(app):
    return (b'POST /api/conversations/resolve HTTP/1.1\r\nHost: localhost:%d\r\n'
            b'Authorization: Bearer %s\r\nContent-Type: application/json\r\n'
            b'Content-Length: %d\r\n\r\n' % (app.port, app.token.encode(), len(BODY))) + BODY


def tls_socket(app):
    sock = socket.create_connection(('127.0.0.1', app.port), timeout=10)
    return app.ssl_context().wrap_socket(sock, server_hostname='localhost')


def read_answers(tls, count):
    raw, answers = b'', []
    while len(answers) < count:
        chunk = tls.recv(65536)
        if not chunk:
            break
        raw += chunk
        while answer_complete(raw):
            head, _, rest = raw.partition(b'\r\n\r\n')
            length = [int(l.split(b':')[1]) for l in head.split(b'\r\n')
                      if l.lower().startswith(b'content-length:')][0]
            answers.append(head.split(b' ')[1])
            raw = rest[length:]
    return answers


def run(tap, app):
    tid = api_thread(app)
    fds = app.fd_count()

    conn = app.connection()
    for _ in range(3):
        app.post('/api/conversations/resolve', {'slug': 'Wakeups'}, conn=conn)
    calls, ok = 40, 0
    before = writes(app, tid)
    for _ in range(calls):
        ok += app.post('/api/conversations/resolve', {'slug': 'Wakeups'}, conn=conn).status == 200
    per_call = (writes(app, tid) - before) / calls
    tap.ok(ok == calls, 'forty kept-alive calls answered', '%d of %d' % (ok, calls))
    tap.ok(per_call < 1, 'the API thread writes to itself less than once a call',
           '%.2f write() a call (ten before the socket had one record a connection)' % per_call)

    results = []

    def client():
        c = app.connection()
        results.append(sum(app.post('/api/conversations/resolve', {'slug': 'Wakeups'}, conn=c).status == 200
                           for _ in range(20)))
        c.close()
    threads = [threading.Thread(target=client) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    tap.ok(results == [20] * 6, 'six connections at once, every call answered', repr(results))

    tls = tls_socket(app)
    request = raw_request(app)
    for i in range(0, len(request), 9):
        tls.sendall(request[i:i + 9])
        time.sleep(0.002)
    tls.sendall(request + request)
    tap.ok(read_answers(tls, 3) == [b'200'] * 3,
           'a request in pieces, then two in one segment, all answered')

    # Hung up in the middle of a request, and right after sending one:
    # nobody waits on the second while its answer is made
    half = tls_socket(app)
    half.sendall(request[:40])
    half.close()
    gone = tls_socket(app)
    gone.sendall(request)
    gone.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b'\x01\x00\x00\x00\x00\x00\x00\x00')
    gone.close()
    tap.ok(app.post('/api/conversations/resolve', {'slug': 'Wakeups'}, conn=conn).status == 200,
           'calls go on after two clients hung up')

    ticks = cpu_ticks(app, tid)
    time.sleep(1.0)
    spent = cpu_ticks(app, tid) - ticks
    tap.ok(spent <= 10, 'the API thread rests with connections open and none waiting',
           '%d clock ticks in 1 s' % spent)

    tls.close()
    conn.close()
    tap.ok(wait_until(lambda: app.fd_count() <= fds, 10),
           'every connection\'s fd is given back', '%d fds, %d before' % (app.fd_count(), fds))
    tap.ok(app.post('/api/conversations/resolve', {'slug': 'Wakeups'}).status == 200,
           'a new connection is served afterwards')


if __name__ == '__main__':
    run_suite(PLAN, run)
