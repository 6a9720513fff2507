# SPDX-License-Identifier: GPL-3.0-or-later
"""flood-5000: what a flood of new conversations costs the service. Two
`prosponsive --headless` with an instant scripted provider, one on a fresh
store (the baseline); 5,000 new slugs from 4 clients go to the other (the
creation limit lifted with PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE), then
the wait until its main thread answers provider-info again, then
agent-inference against both in turn, so that the shared machine's load
weighs on both medians alike. Used by bench/bench.py."""

import http.client
import os
import statistics
import threading
import time

from inference_bench import add_provider, start_headless, stop_all

SLUGS = 5000
CLIENTS = 4
# The old list kept the main thread busy ~9 minutes after 5,000 slugs
CATCH_UP_LIMIT = 1200


def _inference_ms(client, cid, i):
    t0 = time.perf_counter()
    status, body = client.call('POST', '/api/ai/agent-inference',
                               {'prompt': 'Hi %d' % i, 'conversationId': cid, 'agentId': 'prosponsive'},
                               timeout=CATCH_UP_LIMIT)
    if status != 200:
        raise RuntimeError('agent-inference answered %d %s' % (status, body[:200]))
    return (time.perf_counter() - t0) * 1000


def _flood(client):
    errors = []

    def worker(k):
        for i in range(k, SLUGS, CLIENTS):
            status, body = client.call('POST', '/api/conversations/resolve', {'slug': 'flood-%05d' % i})
            if status != 200:
                errors.append((status, body[:200]))

    threads = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(CLIENTS)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    if errors:
        raise RuntimeError('%d resolve calls failed, first %r' % (len(errors), errors[0]))
    return elapsed


def _catch_up(client):
    """Seconds until provider-info (answered on the main thread) answers."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < CATCH_UP_LIMIT:
        try:
            status, _ = client.call('GET', '/api/ai/provider-info', timeout=30)
            if status == 200:
                return time.monotonic() - t0
        except (OSError, http.client.HTTPException):
            pass
    raise RuntimeError('the main thread did not answer provider-info within %d s' % CATCH_UP_LIMIT)


def run(args, work, app_env, bench_line, failed, note, provider_factory):
    n = 10 if args.quick else 30
    env = app_env({'PROSPONSIVE_NEW_CONVERSATIONS_PER_MINUTE': '1000000'})
    ctl = os.path.join(args.build, 'src', 'app', 'prosponsive-ctl')
    prosponsive = os.path.join(args.build, 'src', 'app', 'prosponsive')
    provider, pport = provider_factory(work)
    fresh = flooded = None
    try:
        apps = {}
        for name in ('fresh', 'flooded'):
            d = os.path.join(work, 'flood-' + name)
            os.makedirs(d, exist_ok=True)
            add_provider(ctl, d, env, pport)
            apps[name] = start_headless(prosponsive, d, env, 'bench')
        fresh, fresh_client, fresh_cid = apps['fresh']
        flooded, client, cid = apps['flooded']

        create_s = _flood(client)
        catch_up_s = _catch_up(client)
        before, after = [], []
        for i in range(n):
            before.append(_inference_ms(fresh_client, fresh_cid, i))
            after.append(_inference_ms(client, cid, i))
        before, after = statistics.median(before), statistics.median(after)
        ratio = after / before
        note('flood-5000: %d new slugs from %d clients in %.1f s (%.0f/s); the main thread answered '
             'provider-info %.2f s after the last one; agent-inference p50 %.2f ms on a fresh store, '
             '%.2f ms after the flood (%d calls each, in turn)'
             % (SLUGS, CLIENTS, create_s, SLUGS / create_s, catch_up_s, before, after, n))
        bench_line('flood-5000', '%.2f' % after, 'ms', '%.2f' % before, '%.2f' % ratio,
                   '1.5,catch-up<1s', ratio <= 1.5 and catch_up_s < 1)
    except Exception as e:
        failed('flood-5000', 'ms', '1.5,catch-up<1s', str(e).replace('\n', ' ')[:500])
    finally:
        stop_all(fresh, flooded, provider)
