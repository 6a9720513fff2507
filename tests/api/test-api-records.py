#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An answer is one TLS record: the TLS connection is run through memory
BIOs (python ssl), so that each record the server sends is seen as it comes
off the socket. libsoup 3.2.3 writes an answer's headers and body apart;
prs-api-stream.c holds the headers until the body follows (or the answer
ends), so that each answer costs one record and one sendto()
(bench/RESULTS.md). Every answer's shape is checked on a kept-alive
connection: a JSON answer, an error answer, a HEAD answer (headers only),
and a "100 Continue", which must come at once, before the body is sent.
Reading, the server takes what the socket has in one read and keeps what
GnuTLS has not asked for yet: two requests that come in one segment are
both answered, and so is a request that comes a few bytes a record."""

import json
import socket
import ssl
import time

from prsapi import answer_complete, run_suite

PLAN = 11
APPLICATION_DATA = 23


class Wire:
    """One TLS connection whose records are counted."""

    def __init__(self, app, timeout=10):
        self.sock = socket.create_connection(('127.0.0.1', app.port), timeout=timeout)
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = app.ssl_context().wrap_bio(self.incoming, self.outgoing, server_hostname='localhost')
        self.pending = b''
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                self.push()
                self.read_record()
        self.push()

    def push(self):
        data = self.outgoing.read()
        if data:
            self.sock.sendall(data)

    def send(self, data):
        self.tls.write(data)
        self.push()

    def read_record(self, timeout=None):
        """Reads one whole TLS record off the socket into the TLS object:
        its type, or None when the socket ends (or @timeout passes)."""
        self.sock.settimeout(timeout if timeout is not None else 10)
        try:
            while len(self.pending) < 5 or len(self.pending) < 5 + int.from_bytes(self.pending[3:5], 'big'):
                chunk = self.sock.recv(65536)
                if not chunk:
                    return None
                self.pending += chunk
        except socket.timeout:
            return None
        n = 5 + int.from_bytes(self.pending[3:5], 'big')
        record, self.pending = self.pending[:n], self.pending[n:]
        self.incoming.write(record)
        return record[0]

    def plaintext(self):
        data = b''
        try:
            while True:
                chunk = self.tls.read(65536)
                if not chunk:
                    break
                data += chunk
        except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
            pass
        return data

    def answer(self, complete, timeout=10):
        """Reads records until @complete(plaintext): (plaintext, how many
        records carried some of it). Records without plaintext (TLS 1.3
        session tickets) are not counted."""
        raw, records = b'', 0
        deadline = time.monotonic() + timeout
        while not complete(raw) and time.monotonic() < deadline:
            kind = self.read_record(max(0.01, deadline - time.monotonic()))
            if kind is None:
                break
            data = self.plaintext()
            if data and kind == APPLICATION_DATA:
                records += 1
            raw += data
        return raw, records

    def close(self):
        self.sock.close()


def head_only(raw):
    return b'\r\n\r\n' in raw


def status_of(raw):
    try:
        return int(raw.split(b' ', 2)[1])
    except (IndexError, ValueError):
        return None


def run(tap, app):
    host = 'Host: localhost:%d\r\n' % app.port
    auth = 'Authorization: Bearer %s\r\n' % app.token
    body = json.dumps({'slug': 'records'})
    resolve = ('POST /api/conversations/resolve HTTP/1.1\r\n' + host + auth +
               'Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' % (len(body), body)).encode()

    wire = Wire(app)
    try:
        for i in range(3):
            wire.send(resolve)
            raw, records = wire.answer(answer_complete)
            tap.ok(status_of(raw) == 200 and records == 1,
                   'resolve answer %d of a kept-alive connection: one TLS record' % (i + 1),
                   'status %s in %d records: %r' % (status_of(raw), records, raw[:200]))

        wire.send(('GET /api/conversations/nope HTTP/1.1\r\n' + host + auth + '\r\n').encode())
        raw, records = wire.answer(answer_complete)
        tap.ok(status_of(raw) == 404 and records == 1, 'an error answer: one TLS record',
               'status %s in %d records: %r' % (status_of(raw), records, raw[:200]))

        wire.send(('HEAD /api/health HTTP/1.1\r\n' + host + auth + '\r\n').encode())
        raw, records = wire.answer(head_only)
        tap.ok(status_of(raw) == 405 and records == 1 and raw.endswith(b'\r\n\r\n'),
               'an answer of headers only (HEAD) comes at once, in one record',
               'status %s in %d records: %r' % (status_of(raw), records, raw[:200]))

        wire.send(('POST /api/conversations/resolve HTTP/1.1\r\n' + host + auth +
                   'Content-Type: application/json\r\nExpect: 100-continue\r\n'
                   'Content-Length: %d\r\n\r\n' % len(body)).encode())
        start = time.monotonic()
        raw, _ = wire.answer(head_only, timeout=3)
        waited = time.monotonic() - start
        tap.ok(status_of(raw) == 100 and waited < 1.0,
               '"100 Continue" comes before the body is sent (%.2f s)' % waited, raw[:200])
        wire.send(body.encode())
        raw, records = wire.answer(answer_complete)
        tap.ok(status_of(raw) == 200 and records == 1, 'then the answer, in one record',
               'status %s in %d records: %r' % (status_of(raw), records, raw[:200]))
    finally:
        wire.close()

    # Two records in one segment: the second is read ahead with the first
    wire = Wire(app)
    try:
        wire.tls.write(resolve)
        wire.tls.write(resolve)
        wire.push()
        start = time.monotonic()
        raw, _ = wire.answer(lambda raw: raw.count(b'HTTP/1.1 200 ') == 2 and raw.endswith(b'}'), timeout=5)
        waited = time.monotonic() - start
        tap.ok(raw.count(b'HTTP/1.1 200 ') == 2 and waited < 2.0,
               'two requests in one segment, two records: both answered (%.2f s)' % waited, raw[:400])
    finally:
        wire.close()

    # A request a few bytes a record, each record sent alone
    wire = Wire(app)
    try:
        for i in range(0, len(resolve), 7):
            wire.tls.write(resolve[i:i + 7])
            wire.push()
            time.sleep(0.002)
        raw, _ = wire.answer(answer_complete)
        tap.ok(status_of(raw) == 200, 'a request in %d records of 7 bytes is answered' % ((len(resolve) + 6) // 7),
               raw[:200])
    finally:
        wire.close()

    # A body larger than one record still arrives whole
    r = app.get('/api/conversations')
    tap.ok(r.status == 200 and isinstance(r.json(), list), 'the conversations are listed', r)
    wire = Wire(app)
    try:
        wire.send(('GET /api/conversations HTTP/1.1\r\n' + host + auth + 'Connection: close\r\n\r\n').encode())
        raw, records = wire.answer(answer_complete)
        head, _, rest = raw.partition(b'\r\n\r\n')
        tap.ok(status_of(raw) == 200 and json.loads(rest.decode()) == r.json(),
               'an answer with Connection: close arrives whole before the close', raw[:200])
    finally:
        wire.close()


if __name__ == '__main__':
    run_suite(PLAN, run)
