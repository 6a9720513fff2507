#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The history /api/ai/inference sends (docs/runs.md, what the model is
given), over real HTTPS against `prosponsive --headless` with
tests/scripted-provider.py as the model: the whole conversation by default,
well past the 20 messages the history-depth setting once capped it at
(tests/core/test-run-history.c trims it to the context window, keeps tool
calls with their results and applies the cap; tests/core/test-runs.c sends
a real tool round as history to each provider kind)."""

import json

from prsapi import run_suite

PLAN = 2

SCRIPT = {
    'kind': 'openai',
    'repeat_last': True,
    'turns': [{'response': {'text': 'Noted.'}}],
}


def setup(app):
    app.provider = app.add_scripted_provider(SCRIPT)


def last_messages(provider):
    return provider.requests()[-1]['body']['messages']


def run(tap, app):
    provider = app.provider
    cid = app.resolve('Long Talk')
    base = {'conversationId': cid, 'agentId': 'prosponsive'}
    app.post('/api/ai/agent-inference', dict(base, prompt='fact 0: the sky is green'))
    for i in range(1, 30):
        r = app.post('/api/ai/agent-inference', dict(base, prompt='fact %d' % i))
    tap.ok(r.status == 200, 'thirty inbound prompts, each answered', r)

    r = app.post('/api/ai/inference', {'prompt': 'What colour is the sky?', 'conversationId': cid,
                                       'context': {'activeAgentId': 'prosponsive'}})
    messages = last_messages(provider)
    text = json.dumps(messages)
    tap.ok(r.status == 200 and 'fact 0: the sky is green' in text and 'fact 29' in text
           and text.count('Noted.') == 30 and messages[-1]['role'] == 'user'
           and 'What colour is the sky?' in json.dumps(messages[-1]),
           'inference sends the whole conversation by default (%d messages)' % len(messages), text[:600])


if __name__ == '__main__':
    run_suite(PLAN, run, setup)
