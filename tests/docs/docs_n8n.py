# SPDX-License-Identifier: GPL-3.0-or-later
"""The n8n examples of docs/*.md against a real n8n 1.123 (test-docs-examples.py
--n8n): the workflows marked `<!-- n8n: ID -->` are imported as a person would
(the credentials picked by name), published and run against a real
`prosponsive --headless` whose certificate n8n trusts through
NODE_EXTRA_CA_CERTS; the outputs they produce are compared with the blocks
marked `<!-- output: ID -->`, and each row of the `<!-- response-cases -->`
table is answered by a real Respond to Webhook node and called with the same
code the app uses (tests/n8n/prs-call-tool).

What each example is for is decided here, by its ID:
  ask-agent         Webhook → resolve → agent-inference; output ask-agent
  weather-tool      a tool, called by an agent run; outputs weather-envelope
                    (its webhook body) and weather-result (what the model read)
  archive-old-mail  a tool answering through the callback, behind the
                    webhook's own Header Auth; outputs callback-answer and
                    archive-result
"""

import importlib.util
import json
import os
import shutil
import subprocess
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location('n8n_harness', os.path.join(HERE, '..', 'n8n', 'test-discovery.py'))
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)

WEBHOOK_HEADER = 'X-Prosponsive-Key'
WEBHOOK_SECRET = 'docs-webhook-secret-8f3a9c'
EXECUTION = {'workflowId': 'Xk3dP2', 'executionId': '1042'}

# The scripted model, in the order the scenarios below ask it.
TURNS = [
    {'response': {'text': 'Bob asks whether you are free for lunch.'}},
    {'response': {'tool_calls': [{'id': 'call_weather', 'name': 'weather_lookup', 'arguments': {'city': 'Paris'}}]}},
    {'response': {'text': 'Sunny in Paris for the next three days.'}},
    {'response': {'tool_calls': [{'id': 'call_archive', 'name': 'archive_old_mail',
                                  'arguments': {'olderThanDays': 90}}]}},
    {'response': {'text': 'I archived 42 messages older than 90 days.'}},
]

# Answers a tool call with the status and body it is given (the table's rows).
CASES_WORKFLOW = {
    'name': 'Docs Response Cases',
    'nodes': [
        {'name': 'Webhook', 'type': 'n8n-nodes-base.webhook', 'typeVersion': 2.1, 'position': [0, 0],
         'webhookId': '5e0c7a1b-2d3f-4a5b-8c9d-0e1f2a3b4c5d',
         'parameters': {'httpMethod': 'POST', 'path': 'docs-response-cases', 'responseMode': 'responseNode',
                        'options': {}}},
        {'name': 'Respond to Webhook', 'type': 'n8n-nodes-base.respondToWebhook', 'typeVersion': 1.1,
         'position': [220, 0],
         'parameters': {'respondWith': 'text', 'responseBody': '={{ $json.body.answer }}',
                        'options': {'responseCode': '={{ $json.body.status }}'}}},
    ],
    'connections': {'Webhook': {'main': [[{'node': 'Respond to Webhook', 'type': 'main', 'index': 0}]]}},
    'settings': {'executionOrder': 'v1'},
}


def importable(text, port, credentials):
    """A workflow of the docs as n8n's public API takes it: the four fields it
    accepts, the API's port, and the credentials chosen by name."""
    workflow = json.loads(text)
    workflow = json.loads(T.with_port(json.dumps(workflow), port))
    out = {k: workflow[k] for k in ('name', 'nodes', 'connections')}
    out['settings'] = workflow.get('settings', {'executionOrder': 'v1'})
    for node in out['nodes']:
        for ref in (node.get('credentials') or {}).values():
            ref['id'] = credentials[ref['name']]
    return out


def publish(n8n, workflow):
    wf_id = n8n.api('POST', '/workflows', workflow)['id']
    n8n.api('POST', '/workflows/%s/activate' % wf_id, retries=3)
    return wf_id


def node_output(n8n, workflow_id, node, timeout=60):
    """The first item's json of @node in the workflow's last finished execution."""
    deadline = time.monotonic() + timeout
    while True:
        execs = n8n.api('GET', '/executions?workflowId=%s&includeData=true&limit=1' % workflow_id).get('data', [])
        if execs and execs[0].get('finished'):
            return execs[0]['data']['resultData']['runData'][node][0]['data']['main'][0][0]['json']
        if time.monotonic() > deadline:
            raise RuntimeError('no finished execution of %s: %s' % (workflow_id, json.dumps(execs)[:1000]))
        time.sleep(0.5)


def model_read(provider, request_index):
    """What the model read as the last tool result in its @request_index'th request."""
    body = provider.requests()[request_index]['body']
    tool = [m for m in body['messages'] if m.get('role') == 'tool'][-1]
    return json.loads(tool['content'])


def ctl(args, env, *argv, stdin=None):
    res = subprocess.run([args.ctl] + list(argv), input=stdin, capture_output=True, text=True,
                         env=env, timeout=300)
    if res.returncode != 0:
        raise RuntimeError('prosponsive-ctl %s: exit %d\n%s%s' % (' '.join(argv), res.returncode,
                                                                   res.stdout, res.stderr))
    return res.stdout


def compare(outputs_seen, items, output_id, actual, port):
    for it in items:
        if it.marker('output') == output_id:
            outputs_seen.add(output_id)
            expected = T.Item(it.page, it.line, it.kind, it.lang, T.with_port(it.text, port), [])
            diffs = T.output_differences(expected, json.dumps(actual))
            T.TAP.ok(not diffs, '%s: output of %s is as documented' % (it.where(), output_id),
                     '\n'.join(diffs) + '\n--- got:\n' + json.dumps(actual, indent=2))


def inference(app, slug, prompt):
    cid = app.resolve(slug)
    r = app.post('/api/ai/agent-inference', {'prompt': prompt, 'conversationId': cid, 'agentId': 'prosponsive',
                                             'execution': EXECUTION}, timeout=200)
    return r.status, r.json() or {}


def save_workflow(n8n, work_dir, workflow_id, name):
    workflow = n8n.api('GET', '/workflows/%s' % workflow_id)
    path = os.path.join(work_dir, name)
    with open(path, 'w') as f:
        json.dump(workflow, f)
    return path, workflow


def response_cases(args, n8n, work_dir, table, cases_id, guarded_id):
    """Each row: `404` calls a path n8n does not know, `403` calls the
    Header Auth webhook of archive-old-mail with a wrong value, any other
    status is what the Respond to Webhook node of CASES_WORKFLOW answers."""
    path, workflow = save_workflow(n8n, work_dir, cases_id, 'cases-workflow.json')
    guarded, _ = save_workflow(n8n, work_dir, guarded_id, 'guarded-workflow.json')
    for node in workflow['nodes']:
        if node['type'] == 'n8n-nodes-base.webhook':
            node['parameters']['path'] = 'docs-not-registered'
    gone = os.path.join(work_dir, 'cases-not-registered.json')
    with open(gone, 'w') as f:
        json.dump(workflow, f)

    for row in T.table_rows(table):
        if T.response_row_problem(row):
            T.TAP.ok(False, '%s: response row %r: %s' % (table.where(), row, T.response_row_problem(row)))
            continue
        answer, call, model = T.code_spans(row[0]), row[1], T.code_spans(row[2])
        status = int(answer[0])
        body = answer[1] if len(answer) > 1 else ''
        argv = [args.call_tool, '--n8n', n8n.url, '--args', json.dumps({'status': status, 'answer': body})]
        if status == 404:
            argv += ['--workflow', gone]
        elif status == 403:
            argv += ['--workflow', guarded, '--auth-name', WEBHOOK_HEADER]
        else:
            argv += ['--workflow', path]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=200,
                             env=dict(os.environ, PRS_WEBHOOK_AUTH_VALUE='not-the-secret'))
        try:
            got = json.loads(res.stdout)['call']
        except (ValueError, KeyError):
            T.TAP.ok(False, '%s: response %s %s' % (table.where(), status, body), res.stdout + res.stderr)
            continue
        T.TAP.ok(got.get('httpStatus') == status and got.get('status') == call and got.get('forModel') == model[0],
                 '%s: n8n answers %d %s → %s, the model reads %s' % (table.where(), status, body or '(empty)',
                                                                     call, model[0]),
                 json.dumps(got, indent=2))


def scenario(args, items, work_dir, env, app, provider, n8n):
    port = app.port
    by_n8n = {it.marker('n8n'): it for it in items if it.marker('n8n') is not None}
    unknown = set(by_n8n) - {'ask-agent', 'weather-tool', 'archive-old-mail'}
    T.TAP.ok(not unknown, 'every n8n example has a scenario', unknown)
    seen = set()

    # The credentials a person creates in n8n (the first-run window makes the first)
    token = ctl(args, env, 'token').strip()
    credentials = {}
    for name, header, value in (('Prosponsive API', 'Authorization', 'Bearer ' + token),
                                ('Prosponsive Webhook', WEBHOOK_HEADER, WEBHOOK_SECRET)):
        credentials[name] = n8n.api('POST', '/credentials', {'name': name, 'type': 'httpHeaderAuth',
                                                              'data': {'name': header, 'value': value}})['id']

    # ask-agent: n8n calls resolve and agent-inference over HTTPS it trusts
    publish(n8n, importable(by_n8n['ask-agent'].text, port, credentials))
    status, answer = n8n.request('POST', '/webhook/ask-prosponsive', {'from': 'bob@example.com', 'subject': 'Lunch?'},
                                 timeout=200)
    T.TAP.ok(status == 200, 'ask-agent: the workflow answered 200', '%s %s\n%s' % (status, answer, app.log()))
    compare(seen, items, 'ask-agent', answer, port)

    # The tools: discovered, approved by rules, called by agent runs
    weather_id = publish(n8n, importable(by_n8n['weather-tool'].text, port, credentials))
    archive_id = publish(n8n, importable(by_n8n['archive-old-mail'].text, port, credentials))
    ctl(args, env, 'n8n', 'set', '--url', n8n.url, '--api-key-stdin', stdin=n8n.api_key + '\n')
    ctl(args, env, 'n8n', 'webhook-auth', '--header', WEBHOOK_HEADER, '--value-stdin', stdin=WEBHOOK_SECRET)
    ctl(args, env, 'discover')
    tools = {t['name']: t for t in json.loads(ctl(args, env, 'tools', '--json'))}
    T.TAP.ok({'weather_lookup', 'archive_old_mail'} <= set(tools), 'discovery found both tools', list(tools))
    for tool in ('weather_lookup', 'archive_old_mail'):
        ctl(args, env, 'rule', 'add', '--tool', tool, '--action', 'approve')

    status, answer = inference(app, 'Weather Desk', "What's the weather in Paris?")
    calls = answer.get('toolCalls') or []
    T.TAP.ok(status == 200 and answer.get('status') == 'completed' and len(calls) == 1
             and calls[0].get('status') == 'succeeded', 'weather: the run called the tool and completed',
             '%s %s' % (status, json.dumps(answer)))
    envelope = node_output(n8n, weather_id, 'Webhook').get('body')
    compare(seen, items, 'weather-envelope', envelope, port)
    compare(seen, items, 'weather-result', model_read(provider, 2), port)

    status, answer = inference(app, 'Mail Care', 'Archive mail older than 90 days.')
    calls = answer.get('toolCalls') or []
    T.TAP.ok(status == 200 and answer.get('status') == 'completed' and len(calls) == 1
             and calls[0].get('status') == 'succeeded',
             'archive: the call waited for the callback, then the run completed', '%s %s' % (status, json.dumps(answer)))
    compare(seen, items, 'callback-answer', node_output(n8n, archive_id, 'Post Result'), port)
    compare(seen, items, 'archive-result', model_read(provider, 4), port)

    # Every row of the answers table, answered by a real n8n
    tables = [it for it in items if it.marker('response-cases') is not None]
    T.TAP.ok(len(tables) == 1, 'one response-cases table', len(tables))
    if tables:
        cases_id = publish(n8n, CASES_WORKFLOW)
        response_cases(args, n8n, work_dir, tables[0], cases_id, archive_id)

    missing = T.N8N_OUTPUTS - seen
    T.TAP.ok(not missing, 'every n8n output block was compared', sorted(missing))


def run(args, pages, root, test_module):
    global T
    T = test_module
    items = []
    for page in pages:
        if T.page_suite(page) is not None:
            continue
        try:
            items += T.parse_page(page)
        except ValueError as e:
            T.TAP.ok(False, '%s parses' % os.path.basename(page), str(e))
            return
    if not args.call_tool:
        T.TAP.ok(False, '--call-tool is given')
        return
    if shutil.which('node') is None:
        T.TAP.skip('the n8n examples', 'Node.js is not installed, so n8n cannot run '
                   '(build-aux/install-deps.sh says how to get it)')
        return

    work_dir = os.path.join(root, 'n8n')
    data_dir = os.path.join(work_dir, 'data')
    os.makedirs(data_dir)
    env = T.tool_env(args, data_dir)
    provider = T.Provider(TURNS)
    app = n8n = None
    try:
        T.add_provider(args, env, provider)
        app = T.start_app(args, data_dir, {'PROSPONSIVE_SECRETS': 'file', 'GSETTINGS_BACKEND': 'memory'})
        # n8n trusts the exported certificate, as api.md advises
        cert = os.path.join(work_dir, 'prosponsive-api.pem')
        with open(cert, 'w') as f:
            f.write(ctl(args, env, 'cert', '--pem'))
        os.environ['NODE_EXTRA_CA_CERTS'] = cert
        n8n = harness.N8n(work_dir)
        n8n.start()
        T.TAP.ok(True, 'n8n runs at %s, trusting the exported certificate' % n8n.url)
        scenario(args, items, work_dir, env, app, provider, n8n)
    except Exception:
        T.TAP.ok(False, 'the n8n examples ran to the end', traceback.format_exc() + '\n' + (app.log() if app else ''))
    finally:
        if app is not None:
            app.stop()
        if n8n is not None:
            n8n.stop()
        provider.stop()
        os.environ.pop('NODE_EXTRA_CA_CERTS', None)


T = None
