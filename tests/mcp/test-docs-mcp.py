#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""docs/mcp.md followed as a reader would, against real peers, as TAP: its
blocks run in page order in one bash (tests/docs/test-docs-examples.py's
Shell), its outputs compared with the page — the reference server
@modelcontextprotocol/server-everything (the page's npx command, run from the
test cache), then a real n8n 1.123 with a workflow whose trigger is the MCP
Server Trigger, then n8n's instance-level MCP server, turned on as the page
says (its settings and access token, through n8n's own REST API).

Then the whole way through `prosponsive --headless`: the scripted model calls
the trigger workflow's tool and, through the instance-level server, runs a
webhook workflow made available in MCP; both workflows run in n8n and their
answers come back to the model.

Usage: test-docs-mcp.py --prosponsive EXE --ctl CTL --docs DIR
(PRS_MCP_PEERS names the installed peers: tests/mcp/mcp-env.sh)"""
import argparse
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'api'))
sys.dont_write_bytecode = True

import prsapi  # noqa: E402


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


T = load('docs_examples', os.path.join(HERE, '..', 'docs', 'test-docs-examples.py'))
TAP = T.TAP
harness = load('n8n_harness', os.path.join(HERE, '..', 'n8n', 'test-discovery.py'))

PAGE = 'mcp.md'
DOC_N8N = 'http://localhost:5678'
NPX_EVERYTHING = '--command npx -- -y @modelcontextprotocol/server-everything'
WAIT = 120

# A webhook workflow the instance-level server may run: it answers its text
# in upper case
ECHO = {
    'name': 'Shout',
    'nodes': [harness.webhook_node('shout'),
              harness.code_node("return [{json: {shouted: String($input.first().json.body.text ?? '').toUpperCase()}}];")],
    'connections': {'Webhook': {'main': [[{'node': 'Code', 'type': 'main', 'index': 0}]]}},
    'settings': {'executionOrder': 'v1'},
}


def wait_until(what, pred, timeout=WAIT, interval=0.3):
    deadline = time.monotonic() + timeout
    while True:
        value = pred()
        if value:
            return value
        if time.monotonic() > deadline:
            raise RuntimeError('timed out after %d s waiting for %s' % (timeout, what))
        time.sleep(interval)


class Page:
    def __init__(self, args, root):
        self.args, self.root = args, root
        self.data_dir = os.path.join(root, 'data')
        self.page_dir = os.path.join(root, 'page')
        os.makedirs(self.data_dir)
        os.makedirs(self.page_dir)
        everything = os.path.join(os.environ['PRS_MCP_PEERS'], 'node_modules', '@modelcontextprotocol',
                                  'server-everything', 'dist', 'index.js')
        self.npx_replacement = '--command node -- ' + everything
        self.n8n = harness.N8n(root)
        self.echo_id = None
        self.app = None
        self.provider = None
        self.env = dict(os.environ, PROSPONSIVE_DATA_DIR=self.data_dir, PROSPONSIVE_SECRETS='file',
                        GSETTINGS_BACKEND='memory', LC_ALL='C.UTF-8')
        self.env['PATH'] = os.pathsep.join([os.path.dirname(os.path.abspath(args.ctl)), self.env['PATH']])
        self.env.pop('NODE_EXTRA_CA_CERTS', None)
        self.shell = None

    def doc_text(self, text):
        text = text.replace(NPX_EVERYTHING, self.npx_replacement)
        return text.replace(DOC_N8N, self.n8n.url) if self.n8n.env else text

    def expected_text(self, text):
        """What the page shows, with n8n's address as the test has it"""
        return text.replace(DOC_N8N, self.n8n.url) if self.n8n.env else text

    # ---- the hooks: what a reader does outside the shell

    def start_n8n(self):
        self.n8n.start()
        TAP.ok(True, 'n8n runs at %s' % self.n8n.url)
        self.shell.run('export N8N_API_KEY=%s\n' % self.n8n.api_key)

    def enable_instance_mcp(self):
        """Settings › MCP Access › Enable MCP, the access token, and a
        workflow made Available in MCP: what the page has the reader do in
        n8n's editor, through the REST API the editor uses"""
        self.n8n.rest('PATCH', '/mcp/settings', {'mcpAccessEnabled': True})
        token = self.n8n.rest('GET', '/mcp/api-key')['data']['apiKey']
        self.echo_id = self.n8n.api('POST', '/workflows', ECHO)['id']
        self.n8n.api('POST', '/workflows/%s/activate' % self.echo_id, retries=3)
        self.n8n.rest('PATCH', '/mcp/workflows/%s/toggle-access' % self.echo_id, {'availableInMCP': True})
        self.shell.run('export N8N_MCP_TOKEN=%s\n' % token)

    def run_page(self):
        hooks = {'import-trigger': self.start_n8n, 'add-instance': self.enable_instance_mcp}
        outputs = {}
        for it in T.parse_page(os.path.join(self.args.docs, PAGE)):
            name, run, output = it.marker('file'), it.marker('run'), it.marker('output')
            if name is not None:
                with open(os.path.join(self.page_dir, name), 'w', encoding='utf-8') as f:
                    f.write(self.doc_text(it.text))
            if run is not None:
                run_id = run.split(' ')[0]
                if run_id in hooks:
                    hooks[run_id]()
                rc, out, err = self.shell.run(self.doc_text(it.text))
                outputs[run_id] = out
                TAP.ok(rc == 0, '%s: run %s exits 0' % (it.where(), run_id),
                       'exit %d\nstdout:\n%s\nstderr:\n%s' % (rc, out, err))
            if output is not None:
                expected = T.Item(it.page, it.line, it.kind, it.lang, self.expected_text(it.text), [])
                diffs = T.output_differences(expected, outputs.get(output, ''))
                TAP.ok(output in outputs and not diffs, '%s: output of %s is as documented' % (it.where(), output),
                       '\n'.join(diffs) + '\n--- printed:\n' + outputs.get(output, '(no such run)'))

    # ---- the whole way

    def ctl(self, *argv):
        res = subprocess.run([self.args.ctl] + list(argv), capture_output=True, text=True, env=self.env,
                               timeout=120)
        if res.returncode != 0:
            raise RuntimeError('prosponsive-ctl %s: exit %d\n%s%s' % (' '.join(argv), res.returncode,
                                                                       res.stdout, res.stderr))
        return res.stdout

    def executions(self, workflow_id):
        return self.n8n.api('GET', '/executions?workflowId=%s&includeData=false' % workflow_id).get('data', [])

    def run_through_the_app(self):
        trigger_id = self.n8n.api('GET', '/workflows?name=Text%20Tools')['data'][0]['id']
        before = len(self.executions(trigger_id))
        self.provider = T.Provider([
            {'response': {'text': 'Shouting.', 'tool_calls': [
                {'id': 'call_upper', 'name': 'n8n-tools__Uppercase_Tool', 'arguments': {'text': 'hi there'}}]}},
            {'when': 'tool-result', 'response': {'tool_calls': [
                {'id': 'call_run', 'name': 'n8n__execute_workflow',
                 'arguments': {'workflowId': self.echo_id,
                               'inputs': {'type': 'webhook',
                                          'webhookData': {'method': 'POST', 'body': {'text': 'from prosponsive'}}}}}]}},
            {'when': 'tool-result', 'response': {'text': 'Both n8n servers answered.'}},
        ])
        T.add_provider(self.args, self.env, self.provider)
        for tool in ('n8n-tools__Uppercase_Tool', 'n8n__execute_workflow'):
            self.ctl('rule', 'add', '--tool', tool, '--action', 'approve')
        self.app = T.start_app(self.args, self.data_dir, {'PROSPONSIVE_SECRETS': 'file', 'GSETTINGS_BACKEND': 'memory'})
        conversation = self.app.resolve('mcp-tools')
        r = self.app.post('/api/ai/agent-inference', {'prompt': 'Shout hi there, then run Shout.',
                                                      'conversationId': conversation, 'agentId': 'prosponsive'},
                          timeout=WAIT)
        answer = r.json() if r.status in (200, 202) else {}
        if answer.get('status') == 'running':
            answer = wait_until('the run to end', lambda: self.final_answer(conversation))
        TAP.ok(answer.get('status') == 'completed' and answer.get('content') == 'Both n8n servers answered.',
               'the run ends with the model\'s answer', json.dumps(answer)[:3000] + '\n' + self.app.log()[-3000:])
        calls = answer.get('toolCalls') or []
        TAP.ok([c.get('status') for c in calls] == ['succeeded', 'succeeded']
               and [c.get('name') for c in calls] == ['n8n-tools__Uppercase_Tool', 'n8n__execute_workflow'],
               'both calls succeeded, approved by the rules the page and the test added', json.dumps(calls))

        requests = self.provider.requests()
        bodies = [json.dumps(r.get('body')) for r in requests]
        TAP.ok(len(requests) == 3 and not any(r.get('violations') for r in requests),
               'the model was asked three times, every request well-formed',
               json.dumps([(r['path'], r.get('violations')) for r in requests]))
        TAP.ok(len(bodies) > 0 and 'n8n-tools__Uppercase_Tool' in bodies[0] and 'n8n__execute_workflow' in bodies[0]
               and 'everything__get-sum' in bodies[0],
               'the first request offers the tools of all three servers', bodies[0][:2000] if bodies else '')
        TAP.ok(len(bodies) > 1 and 'HI THERE' in bodies[1],
               'the trigger workflow\'s answer went back to the model', bodies[1][:3000] if len(bodies) > 1 else '')
        TAP.ok(len(bodies) > 2 and 'FROM PROSPONSIVE' in bodies[2],
               'the webhook workflow\'s output, run by n8n\'s own MCP server, went back to the model',
               bodies[2][:3000] if len(bodies) > 2 else '')
        TAP.ok(len(self.executions(trigger_id)) > before and len(self.executions(self.echo_id)) > 0,
               'n8n ran both workflows', json.dumps([self.executions(trigger_id), self.executions(self.echo_id)])[:2000])

    def final_answer(self, conversation):
        messages = self.app.get('/api/conversations/%s/messages?limit=100' % conversation).json()
        inbound = [m for m in messages if m['kind'] == 'inbound']
        if not inbound or inbound[-1].get('status') in (None, 'pending'):
            return None
        r = self.app.post('/api/ai/agent-inference', {'prompt': 'Shout hi there, then run Shout.',
                                                      'conversationId': conversation, 'agentId': 'prosponsive'})
        answer = r.json()
        return answer if answer.get('status') != 'running' else None

    def run(self):
        self.shell = T.Shell(self.page_dir, self.env)
        self.run_page()
        self.run_through_the_app()

    def stop(self):
        if self.shell is not None:
            self.shell.close()
        if self.app is not None:
            self.app.stop()
        self.n8n.stop()
        if self.provider is not None:
            self.provider.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--prosponsive', required=True)
    parser.add_argument('--ctl', required=True)
    parser.add_argument('--docs', required=True)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if shutil.which('node') is None:
        TAP.skip('docs/mcp.md', 'Node.js is not installed, so neither n8n nor the MCP servers can run')
        return TAP.done()
    root = tempfile.mkdtemp(prefix='prs-docs-mcp-')
    page = Page(args, root)
    try:
        page.run()
    except Exception:
        TAP.ok(False, 'docs/mcp.md ran to the end',
               traceback.format_exc() + ('\n' + page.app.log()[-5000:] if page.app else ''))
    finally:
        page.stop()
        if TAP.failed:
            TAP.diag('work folder kept: %s' % root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return TAP.done()


if __name__ == '__main__':
    sys.exit(main())
