#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""JSON in and out of the local API, over real HTTPS against `prosponsive
--headless`: what is not strict JSON (RFC 8259) is refused with 400, as are
strings json-glib cannot hold (U+0000, lone surrogates) and numbers that
would not be kept exactly; every answer escapes every control character, so
that Node's JSON.parse (n8n's) reads it; the Request Context comes back with
its numbers exact."""

import json
import shutil
import subprocess

from prsapi import run_suite

PLAN = 20




def is_error(r, status, code):
    j = r.json()
    return (r.status == status and isinstance(j, dict) and j.get('success') is False
            and j.get('code') == code and isinstance(j.get('error'), str))


def clean(r):
    """The body parses as strict JSON (Python refuses raw control characters
    in strings, as JSON.parse does) and holds no byte below 0x20."""
    try:
        json.loads(r.body.decode('utf-8'), strict=True)
    except ValueError:
        return False
    return not any(b < 0x20 for b in r.body)


def node_parses(body):
    """Node's JSON.parse on @body: True, False, or None without Node."""
    node = shutil.which('node') or shutil.which('nodejs')
    if node is None:
        return None
    res = subprocess.run([node, '-e', 'let s="";process.stdin.on("data",d=>s+=d);'
                          'process.stdin.on("end",()=>{JSON.parse(s);console.log("parsed")})'],
                         input=body, capture_output=True, timeout=30)
    return res.returncode == 0 and b'parsed' in res.stdout


def slugs(app):
    # Lenient on purpose: the checks above judge the listing's strictness
    listing = json.loads(app.get('/api/conversations').body.decode('utf-8', 'replace'), strict=False)
    return {c['slug'] for c in listing}


def post_raw(app, path, text):
    return app.post(path, text.encode('utf-8') if isinstance(text, str) else text)


def run(tap, app):
    # -- a control character in a slug (the spec's rules allow it), written
    # back escaped --
    r = post_raw(app, '/api/conversations/resolve', '{"slug":"Inbox\\u001f\\u0001\\u007f\\u009b\\u2028 x"}')
    tap.ok(r.status == 200 and clean(r) and b'\xc2\x9b' not in r.body
           and r.json()['slug'] == 'Inbox\x1f\x01\x7f\x9b\u2028 x',
           'resolve: a slug with U+001F, U+0001, DEL, U+009B and U+2028 is answered escaped', r)
    listing = app.get('/api/conversations')
    tap.ok(listing.status == 200 and clean(listing),
           'GET /api/conversations escapes every control character', listing.body[:300])
    parsed = node_parses(listing.body)
    if parsed is None:
        tap.ok(True, "Node's JSON.parse reads GET /api/conversations # SKIP Node.js is not installed")
    else:
        tap.ok(parsed, "Node's JSON.parse reads GET /api/conversations", listing.body[:300])

    # -- strings json-glib cannot hold --
    before = slugs(app)
    r = post_raw(app, '/api/conversations/resolve', '{"slug":"ab\\u0000cd"}')
    tap.ok(is_error(r, 400, 'invalid-json') and 'U+0000' in r.json()['error'],
           'a slug with \\u0000 → 400 naming U+0000 (it used to become "ab")', r)
    r = post_raw(app, '/api/conversations/resolve', '{"slug":"x\\ud800y"}')
    tap.ok(is_error(r, 400, 'invalid-json') and 'surrogate' in r.json()['error'],
           'a lone \\ud800 → 400 (it used to be stored as invalid UTF-8)', r)
    r = post_raw(app, '/api/conversations/resolve', '{"slug":"\\ud83d\\ude00 mail"}')
    tap.ok(r.status == 200 and r.json()['slug'] == '\U0001F600 mail', 'a surrogate pair is one character', r)
    tap.ok(slugs(app) == before | {'\U0001F600 mail'}, 'the refused slugs created nothing')

    # -- what is not strict JSON --
    before = slugs(app)
    not_strict = [
        ("{'slug':'quoted'}", 'single quotes'),
        ('{"slug":"one"}{"slug":"two"}', 'two objects'),
        ('{"slug":"one"} trailing', 'text after the object'),
        ('{"slug":"c" /* comment */}', 'a comment'),
        ('{slug:"bare"}', 'a bare key'),
        ('{"slug":"t",}', 'a trailing comma'),
        ('{"slug":"tab\there"}', 'a raw tab in a string'),
    ]
    fails = [(why, r) for text, why in not_strict
             for r in [post_raw(app, '/api/conversations/resolve', text)]
             if not (is_error(r, 400, 'invalid-json') and 'at byte' in r.json()['error'])]
    tap.ok(not fails, 'resolve: %d bodies that are not strict JSON → 400 naming the byte' % len(not_strict), fails)
    tap.ok(slugs(app) == before, 'none of them created a conversation', slugs(app) - before)

    # -- numbers --
    cid = app.resolve('numbers')
    base = '{"prompt":"p","conversationId":"%s","agentId":"prosponsive","context":%s}'
    r = post_raw(app, '/api/ai/agent-inference', base % (cid, '{"id":123456789012345678901234567890}'))
    tap.ok(is_error(r, 400, 'invalid-json') and '123456789012345678901234567890' in r.json()['error']
           and 'exactly' in r.json()['error'],
           'a 30-digit integer → 400 naming it (it used to be stored as -1)', r)
    r = post_raw(app, '/api/ai/agent-inference', base % (cid, '{"n":1e999}'))
    tap.ok(is_error(r, 400, 'invalid-json') and '1e999' in r.json()['error'], '1e999 → 400 (it used to be a 500)', r)
    r = post_raw(app, '/api/ai/agent-inference', base % (cid, '{"n":0.12345678901234567891}'))
    tap.ok(is_error(r, 400, 'invalid-json'), 'a decimal with more digits than a double keeps → 400', r)
    r = post_raw(app, '/api/ai/agent-inference', base % (cid, '{"n":0x10}'))
    tap.ok(is_error(r, 400, 'invalid-json'), 'a hexadecimal number → 400', r)
    stored = app.get('/api/conversations/%s/messages' % cid).json()
    tap.ok(stored == [], 'the refused requests stored nothing', stored)

    context = ('{"x":0.1,"big":18446744073709552000,"max":9223372036854775807,"exact":9007199254740993,'
               '"tiny":1e-7,"neg":-2.5e300,"s":"a\\u0001\\u001f\\u007f\\u009bb\\n","deep":{"list":[0.3,1]}}')
    r = post_raw(app, '/api/ai/agent-inference', base % (cid, context))
    tap.ok(r.status in (200, 202, 503) and clean(r) and r.json().get('messageId'),
           'a context with 0.1, 2^64 as JavaScript writes it, 2^63-1 and control characters is accepted', r)
    msgs = app.get('/api/conversations/%s/messages' % cid)
    tap.ok(msgs.status == 200 and clean(msgs) and b'\xc2\x9b' not in msgs.body,
           'the messages answer is strict JSON, control characters (C1 too) escaped',
           msgs.body[:400])
    echoed = [m for m in msgs.json() if m['kind'] == 'inbound'][0]['context']
    sent = json.loads(context)
    tap.ok(b'"x":0.1,' in msgs.body and b'0.10000000000000001' not in msgs.body,
           '0.1 comes back as 0.1, not 0.10000000000000001', msgs.body[:400])
    tap.ok(echoed['max'] == sent['max'] and echoed['exact'] == sent['exact'] and echoed['x'] == 0.1
           and echoed['tiny'] == 1e-7 and echoed['neg'] == -2.5e300 and echoed['s'] == sent['s']
           and echoed['deep'] == sent['deep'],
           'integers up to 2^63-1 and decimals come back exact', echoed)
    tap.ok(float(echoed['big']) == float(sent['big']),
           '2^64 written as JavaScript writes it comes back as the same double', echoed.get('big'))
    r = app.get('/api/conversations')
    tap.ok(clean(r) and node_parses(r.body) in (True, None), 'GET /api/conversations still parses after all this')


if __name__ == '__main__':
    run_suite(PLAN, run)
