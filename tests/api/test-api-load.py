#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""A flood of new conversations over real HTTPS against `prosponsive
--headless`: resolve limits what a client may create (429 with Retry-After,
an existing slug never limited), and with the limit lifted, thousands of new
slugs leave the main thread free: provider-info (answered there) keeps
answering throughout, and an inference after the flood is answered."""

import os
import threading
import time

from prsapi import App, ScriptedProvider, Tap, parse_args

PLAN = 12

# As in src/core/api/prs-api-routes.h
BURST = 120
PER_MINUTE = 60

FLOOD_SLUGS = 3000
FLOOD_THREADS = 4
# provider-info goes through the main thread: before, a flood like this one
# held it for minutes and every probe timed out
PROBE_TIMEOUT = 30
PROBE_LIMIT = 5.0


def resolve(app, slug):
    return app.post('/api/conversations/resolve', {'slug': slug}, timeout=30)


def test_limit(tap, args):
    app = App(args)
    try:
        app.start()
        started = time.monotonic()
        created = 0
        limited = None
        for i in range(BURST * 3):
            r = resolve(app, 'limit-%d' % i)
            if r.status == 429:
                limited = r
                break
            if r.status != 200:
                tap.diag('resolve %d: %r' % (i, r))
                break
            created += 1
        elapsed = time.monotonic() - started
        # The bucket refills one a second meanwhile
        tap.ok(limited is not None and BURST <= created <= BURST + int(elapsed * PER_MINUTE / 60) + 1,
               'new slugs beyond the burst answer 429 (%d created in %.1f s)' % (created, elapsed),
               limited)
        if limited is None:
            for _ in range(5):
                tap.ok(False, 'not reached: no 429')
            return
        body = limited.json() or {}
        retry_after = limited.headers.get('Retry-After', '')
        tap.ok(retry_after.isdigit() and 1 <= int(retry_after) <= 60,
               '429 says when to retry (Retry-After: %s)' % retry_after)
        tap.ok(body.get('success') is False and body.get('code') == 'too-many-new-conversations'
               and isinstance(body.get('error'), str) and body['error'].endswith('.')
               and set(body) == {'success', 'error', 'code'},
               'the 429 body is the API error format', body)

        r = resolve(app, 'limit-0')
        tap.ok(r.status == 200 and (r.json() or {}).get('slug') == 'limit-0',
               'an existing slug resolves while new ones are limited', r)
        r = app.get('/api/conversations')
        tap.ok(r.status == 200 and len(r.json()) == created,
               'the refused slug was not created', len(r.json() or []))

        time.sleep(int(retry_after) + 0.2)
        r = resolve(app, 'after-the-wait')
        tap.ok(r.status == 200, 'after Retry-After seconds a new slug resolves', r)
    finally:
        app.cleanup()


class Prober(threading.Thread):
    """GET /api/ai/provider-info every 50 ms until stopped; the latencies."""

    def __init__(self, app):
        super().__init__(daemon=True)
        self.app = app
        self.latencies = []
        self.failures = []
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            t0 = time.monotonic()
            try:
                r = self.app.get('/api/ai/provider-info', timeout=PROBE_TIMEOUT)
                if r.status != 200:
                    self.failures.append(r.status)
            except Exception as e:  # a timeout is what this test is about
                self.failures.append(repr(e))
            self.latencies.append(time.monotonic() - t0)
            self.stopping.wait(0.05)


def flood(app, n, threads):
    errors = []

    def worker(k):
        for i in range(k, n, threads):
            try:
                r = resolve(app, 'flood-%05d' % i)
                if r.status != 200:
                    errors.append(r)
            except Exception as e:
                errors.append(repr(e))

    workers = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return errors


def test_flood(tap, args):
    os.environ['PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE'] = '1000000'
    provider = ScriptedProvider({'kind': 'openai', 'repeat_last': True,
                                 'turns': [{'response': {'text': 'Still here.'}}]})
    app = App(args)
    try:
        res = provider.add_to(app)
        tap.ok(res.returncode == 0, 'provider add', res.stderr)
        app.start()

        prober = Prober(app)
        prober.start()
        started = time.monotonic()
        errors = flood(app, FLOOD_SLUGS, FLOOD_THREADS)
        elapsed = time.monotonic() - started
        prober.stopping.set()
        prober.join(PROBE_TIMEOUT + 5)
        tap.ok(not errors, '%d new slugs from %d clients, all answered (%.1f s)'
               % (FLOOD_SLUGS, FLOOD_THREADS, elapsed), errors[:5])

        lat = sorted(prober.latencies)
        worst = lat[-1] if lat else float('inf')
        tap.diag('provider-info during the flood: %d probes, p50 %.3f s, max %.3f s'
                 % (len(lat), lat[len(lat) // 2] if lat else -1, worst))
        tap.ok(len(lat) >= 5 and not prober.failures and worst < PROBE_LIMIT,
               'provider-info (the main thread) answered throughout the flood, each within %.0f s'
               % PROBE_LIMIT, prober.failures[:5])

        r = app.get('/api/conversations', timeout=60)
        tap.ok(r.status == 200 and len(r.json()) == FLOOD_SLUGS,
               'every new slug is a conversation', len(r.json() or []))

        # After the flood, the main thread is still free for agent runs
        cid = app.resolve('flood-00042')
        r = app.post('/api/ai/agent-inference', {'prompt': 'Are you there?', 'conversationId': cid,
                                                 'agentId': 'prosponsive'}, timeout=60)
        body = r.json() or {}
        tap.ok(r.status == 200 and body.get('status') == 'completed' and body.get('content') == 'Still here.',
               'an inference after the flood is answered', r)
        r = app.get('/api/ai/provider-info', timeout=PROBE_TIMEOUT)
        tap.ok(r.status == 200, 'provider-info after the flood', r)
    finally:
        app.cleanup()
        provider.stop()
        os.environ.pop('PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE', None)


def main():
    args = parse_args()
    tap = Tap(PLAN)
    try:
        test_limit(tap, args)
        test_flood(tap, args)
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc())
    tap.finish()


if __name__ == '__main__':
    main()
