#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Duplicate inference requests, over real HTTPS against `prosponsive
--headless` with tests/scripted-provider.py as the model: a duplicate key
means something in its own conversation, agent and route only; a retry that
differs only in `execution` (n8n's IMAP trigger re-sending its last batch
after a restart) gets the first answer and starts no run; a reused
idempotencyKey whose prompt or context differ is refused with 409."""

import json
import os
import threading

from prsapi import run_suite

PLAN = 21

SCRIPT = {'kind': 'openai', 'repeat_last': True,
          'turns': [{'response': {'text': 'Filed it.'}}]}

SECOND_AGENT = """---
id: mail-agent
name: Mail Agent
description: Files mail.
---
You file mail.
"""


def setup(app):
    app.provider = app.add_scripted_provider(SCRIPT)
    agent_file = os.path.join(app.data_dir, 'mail-agent.md')
    with open(agent_file, 'w') as f:
        f.write(SECOND_AGENT)
    res = app.ctl('agent', 'import', agent_file)
    if res.returncode != 0:
        raise RuntimeError('agent import failed: ' + res.stderr)


def messages(app, cid):
    return app.get('/api/conversations/%s/messages?limit=500' % cid).json()


def inbound(app, cid):
    return [m for m in messages(app, cid) if m['kind'] == 'inbound']


def infer(app, body, route='/api/ai/agent-inference'):
    r = app.post(route, body)
    return r, (r.json() or {})


def at_once(app, bodies):
    """@bodies posted together, each on its own connection (its handshake
    done first): [(status, json)] in the same order"""
    conns = [app.connection() for _ in bodies]
    for conn in conns:
        conn.connect()
    barrier = threading.Barrier(len(bodies))
    answers = [None] * len(bodies)

    def post(i):
        barrier.wait()
        r = app.request('POST', '/api/ai/agent-inference', bodies[i], conn=conns[i])
        answers[i] = (r.status, r.json() or {})

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for conn in conns:
        conn.close()
    return answers


def replayed_races(app):
    return app.log().count('An identical request was stored first')


def concurrent(tap, app, cid):
    """Identical requests arriving together pass the look for their key
    before any of them is stored: the key's UNIQUE index refuses all but
    the first, and each of those hears the first's answer. Rounds until
    such a race happened (most rounds have one)."""
    provider = app.provider
    rounds = []
    for n in range(30):
        runs = len(provider.requests())
        key = '<race-%d@example>' % n
        same = {'prompt': 'Race %d' % n, 'conversationId': cid, 'agentId': 'prosponsive',
                'idempotencyKey': key, 'context': {'n': n}}
        answers = at_once(app, [same] * 4)
        stored = [m for m in inbound(app, cid) if m['content'] == same['prompt']]
        ids = {j.get('messageId') for _, j in answers}
        rounds.append({'answers': answers, 'stored': len(stored), 'ids': ids,
                       'runs': len(provider.requests()) - runs})
        if replayed_races(app) > 0:
            break
    tap.ok(replayed_races(app) > 0, 'identical requests sent together raced past the look for their key',
           len(rounds))
    tap.ok(all(r['stored'] == 1 and r['runs'] == 1 for r in rounds),
           'each round of four identical requests stored one message and started one run',
           [(r['stored'], r['runs']) for r in rounds])
    tap.ok(all(len(r['ids']) == 1 and None not in r['ids'] and
               all(st in (200, 202) and j.get('success') is True for st, j in r['answers'])
               for r in rounds),
           "… and every one of the four heard that message's answer", rounds[-1])

    # The same key for four different requests, together: one is stored, three are refused
    before = len(inbound(app, cid))
    bodies = [{'prompt': 'Reused %d' % i, 'conversationId': cid, 'agentId': 'prosponsive',
               'idempotencyKey': '<reused@example>'} for i in range(4)]
    answers = at_once(app, bodies)
    ok = [j for st, j in answers if st == 200]
    refused = [j for st, j in answers if st == 409]
    tap.ok(len(ok) == 1 and len(refused) == 3 and
           all(j.get('code') == 'idempotency-key-reused' and j.get('messageId') == ok[0].get('messageId')
               for j in refused),
           'one key for four different requests sent together: one answered, three refused with 409 naming it',
           json.dumps(answers)[:2000])
    tap.ok(len(inbound(app, cid)) == before + 1, '… and one message stored', len(inbound(app, cid)) - before)


def run(tap, app):
    provider = app.provider
    a = app.resolve('Inbox A')
    b = app.resolve('Inbox B')
    mail = {'prompt': 'New email from alice: Q3', 'agentId': 'prosponsive', 'idempotencyKey': '<m1@example>',
            'context': {'uid': '12345', 'mailbox': 'INBOX'},
            'execution': {'workflowId': 'wf-imap', 'executionId': '100'}}

    r1, j1 = infer(app, dict(mail, conversationId=a))
    runs = len(provider.requests())
    tap.ok(r1.status == 200 and j1.get('status') == 'completed' and j1.get('messageId'),
           'conversation A: the first request runs and completes', r1)

    # -- the same key in another conversation is another request --
    other = dict(mail, conversationId=b, prompt='New email from bob: invoice', context={'uid': '777'})
    r2, j2 = infer(app, other)
    tap.ok(r2.status == 200 and j2.get('messageId') and j2.get('messageId') != j1.get('messageId'),
           "conversation B with A's idempotencyKey gets its own messageId, not A's", (r1, r2))
    stored = inbound(app, b)
    tap.ok(len(stored) == 1 and stored[0]['content'] == other['prompt'] and stored[0]['context'] == {'uid': '777'},
           "B's prompt and context are stored in B", stored)
    tap.ok(len(provider.requests()) == runs + 1, "B's request started its own run", len(provider.requests()) - runs)

    # -- n8n's IMAP trigger, restarted, re-sends its last batch under new execution ids --
    runs = len(provider.requests())
    n_a = len(messages(app, a))
    resent = dict(mail, conversationId=a, execution={'workflowId': 'wf-imap', 'executionId': '205'},
                  context={'mailbox': 'INBOX', 'uid': '12345'})
    r3, j3 = infer(app, resent)
    tap.ok(r3.status == 200 and j3.get('messageId') == j1.get('messageId') and j3.get('content') == j1.get('content'),
           'a re-send under a new execution id (context members reordered) gets the first answer', r3)
    tap.ok(len(provider.requests()) == runs and len(messages(app, a)) == n_a,
           'the re-send started no run and stored nothing', (len(provider.requests()) - runs, len(messages(app, a)) - n_a))

    # -- a reused key for a different request: 409, nothing stored --
    r4, j4 = infer(app, dict(mail, conversationId=a, prompt='New email from carol: lunch'))
    tap.ok(r4.status == 409 and j4.get('success') is False and j4.get('code') == 'idempotency-key-reused'
           and isinstance(j4.get('error'), str) and j4.get('messageId') == j1.get('messageId'),
           'the same key with another prompt → 409 idempotency-key-reused naming the first message', r4)
    r5, j5 = infer(app, dict(mail, conversationId=a, context={'uid': '99999', 'mailbox': 'INBOX'}))
    tap.ok(r5.status == 409 and j5.get('code') == 'idempotency-key-reused',
           'the same key with another context → 409', r5)
    r6, j6 = infer(app, dict(mail, conversationId=a, context=None))
    tap.ok(r6.status == 409, 'the same key without the context → 409', r6)
    tap.ok(len(provider.requests()) == runs and len(messages(app, a)) == n_a,
           'the refused requests started no run and stored nothing',
           (len(provider.requests()) - runs, len(messages(app, a)) - n_a))

    # -- scoped to the agent and the route --
    r7, j7 = infer(app, dict(mail, conversationId=a, agentId='mail-agent'))
    tap.ok(r7.status == 200 and j7.get('messageId') not in (None, j1.get('messageId')),
           'the same key for another agent in A is another request', r7)
    hist = {'prompt': mail['prompt'], 'conversationId': a, 'idempotencyKey': mail['idempotencyKey'],
            'context': {'activeAgentId': 'prosponsive'}}
    r8, j8 = infer(app, hist, route='/api/ai/inference')
    tap.ok(r8.status == 200 and j8.get('messageId') not in (None, j1.get('messageId'), j7.get('messageId')),
           'the same key on /api/ai/inference is another request', r8)
    r9, j9 = infer(app, hist, route='/api/ai/inference')
    tap.ok(r9.status == 200 and j9.get('messageId') == j8.get('messageId'),
           '… and its own retry gets its own first answer', r9)

    # -- without a key: the execution ids, prompt and context, per conversation --
    batch = {'prompt': 'Digest', 'agentId': 'prosponsive', 'context': {'n': 1},
             'execution': {'workflowId': 'wf-digest', 'executionId': 7}}
    e1, k1 = infer(app, dict(batch, conversationId=a))
    e2, k2 = infer(app, dict(batch, conversationId=b))
    tap.ok(e1.status == 200 and e2.status == 200 and k1.get('messageId') != k2.get('messageId')
           and any(m['content'] == 'Digest' for m in inbound(app, b)),
           'one execution posting the same prompt to two conversations stores it in both', (e1, e2))
    e3, k3 = infer(app, dict(batch, conversationId=b))
    tap.ok(k3.get('messageId') == k2.get('messageId'), '… and an n8n retry in B gets B\'s answer', e3)
    tap.ok(sum(1 for m in inbound(app, b) if m['content'] == 'Digest') == 1, '… storing nothing new')

    concurrent(tap, app, app.resolve('Inbox C'))


if __name__ == '__main__':
    # Says when a request lost the race for its key on the main thread
    os.environ['G_MESSAGES_DEBUG'] = 'Prosponsive'
    run_suite(PLAN, run, setup)
