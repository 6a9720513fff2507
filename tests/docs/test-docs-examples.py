#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs the examples of docs/*.md and compares what they print with what the
pages say they print, as TAP. The markers are described in docs/README.md.

Usage:
  test-docs-examples.py --docs DIR --prosponsive EXE --ctl CTL
      every example that needs no n8n: the `sh` blocks in one bash per page
      (the API page against a real `prosponsive --headless` with the
      scripted provider as the model), the Code-node snippets and tool names
      through `prosponsive-ctl check-workflow`;
  test-docs-examples.py --docs DIR --prosponsive EXE --ctl CTL --n8n --call-tool PRS_CALL_TOOL
      the n8n examples, against a real n8n 1.123 started by tests/n8n/n8n-env.sh.

Python 3 standard library only; everything talks to 127.0.0.1.
"""

import argparse
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'api'))
import prsapi  # noqa: E402  (tests/api: the headless app, HTTPS, free ports)

# The address the pages use; the test serves the API on a free port instead.
DOC_PORT = '3100'
BLOCK_TIMEOUT = 90
# The API page's answers wait this long instead of 110 s, so its "long run"
# example (a model that takes LONG_RUN_DELAY s) gets its 202 quickly.
INFERENCE_WAIT = 8
LONG_RUN_DELAY = 16

MARKER = re.compile(r'^<!--\s*([a-z0-9-]+)(?::\s*(.*?))?\s*-->\s*$')
FENCE = re.compile(r'^(`{3,})\s*([A-Za-z0-9_+-]*)\s*$')
KNOWN_MARKERS = {'file', 'run', 'output', 'code-node', 'tool-names', 'n8n', 'response-cases', 'page'}

# Outputs that only the n8n examples produce (see N8nExamples).
N8N_OUTPUTS = {'ask-agent', 'weather-envelope', 'weather-result', 'callback-answer', 'archive-result'}

# What the scripted model answers on the API page, in the order the page's
# examples ask: one model request each (a repeated request makes none).
API_PAGE_TURNS = [
    {'response': {'text': 'Alice asks whether the Q3 planning meeting can move to Thursday.',
                  'usage': {'input': 412, 'output': 17}}},
    {'response': {'text': 'No, only the Q3 planning email.', 'usage': {'input': 530, 'output': 9}}},
    {'response': {'initial_delay': LONG_RUN_DELAY, 'text': 'Alice wrote twice, both times about Q3 planning.'}},
]

# The insights page: the first provider's 503 fails over to the second,
# which is the same server under another name
INSIGHTS_PAGE_TURNS = [
    {'response': {'status': 503, 'message': 'The model is loading.'}},
    {'response': {'text': 'Two emails came in, both about Q3 planning.', 'usage': {'input': 412, 'output': 17}}},
]
PAGE_TURNS = {'insights.md': INSIGHTS_PAGE_TURNS}


# --------------------------------------------------------------------- TAP

class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, diag=None):
        self.n += 1
        print('%s %d - %s' % ('ok' if cond else 'not ok', self.n, desc), flush=True)
        if not cond:
            self.failed += 1
            self.diag(diag if diag is not None else '')
        return cond

    def skip(self, desc, reason):
        self.n += 1
        print('ok %d - %s # SKIP %s' % (self.n, desc, reason), flush=True)

    def diag(self, text):
        for line in str(text).splitlines():
            print('# ' + line, flush=True)

    def done(self):
        print('1..%d' % self.n, flush=True)
        return 1 if self.failed or self.n == 0 else 0


TAP = Tap()


# --------------------------------------------------------------------- pages

class Item:
    """A fenced block or a table, with the markers written before it."""

    def __init__(self, page, line, kind, lang, text, markers):
        self.page, self.line, self.kind, self.lang, self.text = page, line, kind, lang, text
        self.markers = markers      # [(name, argument string)]

    def where(self):
        return '%s:%d' % (self.page, self.line)

    def marker(self, name):
        for m, arg in self.markers:
            if m == name:
                return arg
        return None


def parse_page(path):
    """The page's fenced blocks and tables, in order; raises ValueError for a
    marker that is unknown or not followed by a block."""
    name = os.path.basename(path)
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    items, markers = [], []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line.strip())
        fence = FENCE.match(line)
        if m:
            if m.group(1) not in KNOWN_MARKERS:
                raise ValueError('%s:%d: unknown marker %r' % (name, i + 1, m.group(1)))
            if m.group(1) != 'page':        # about the page, not the next block
                markers.append((m.group(1), m.group(2) or ''))
            i += 1
        elif fence:
            ticks, lang = fence.group(1), fence.group(2)
            body, j = [], i + 1
            while j < len(lines) and not (lines[j].startswith(ticks) and lines[j].strip('`').strip() == ''
                                          and len(lines[j].strip()) >= len(ticks)):
                body.append(lines[j])
                j += 1
            if j == len(lines):
                raise ValueError('%s:%d: the fenced block never closes' % (name, i + 1))
            items.append(Item(name, i + 1, 'fence', lang, '\n'.join(body) + '\n', markers))
            markers = []
            i = j + 1
        elif line.startswith('|') and markers:
            rows = []
            while i < len(lines) and lines[i].startswith('|'):
                rows.append(lines[i])
                i += 1
            items.append(Item(name, i, 'table', None, '\n'.join(rows), markers))
            markers = []
        else:
            if markers and line.strip() != '':
                raise ValueError('%s:%d: a marker must be followed by a block' % (name, i + 1))
            i += 1
    if markers:
        raise ValueError('%s: a marker at the end of the page' % name)
    return items


def table_rows(item):
    """Cells of each data row of a Markdown table (header and rule dropped)."""
    rows = []
    for line in item.text.split('\n')[2:]:
        cells = [c.strip() for c in re.split(r'(?<!\\)\|', line.strip().strip('|'))]
        rows.append([c.replace('\\|', '|') for c in cells])
    return rows


def code_spans(cell):
    return re.findall(r'`([^`]*)`', cell)


# --------------------------------------------------------------------- comparing

def is_placeholder(value):
    return isinstance(value, str) and len(value) >= 2 and value.startswith('<') and value.endswith('>')


def json_differences(expected, actual, path='$'):
    """Where @actual differs from the documented @expected; "<…>" strings
    stand for any value."""
    if is_placeholder(expected):
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return ['%s: expected an object, got %s' % (path, json.dumps(actual)[:200])]
        out = []
        for key in expected.keys() - actual.keys():
            out.append('%s: "%s" is documented but missing' % (path, key))
        for key in actual.keys() - expected.keys():
            out.append('%s: "%s" is not documented (value %s)' % (path, key, json.dumps(actual[key])[:200]))
        for key in expected.keys() & actual.keys():
            out += json_differences(expected[key], actual[key], '%s.%s' % (path, key))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return ['%s: expected %d elements, got %s' % (path, len(expected), json.dumps(actual)[:300])]
        out = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            out += json_differences(e, a, '%s[%d]' % (path, i))
        return out
    if type(expected) is not type(actual) and not (isinstance(expected, (int, float)) and
                                                   isinstance(actual, (int, float)) and
                                                   not isinstance(actual, bool)):
        return ['%s: expected %s, got %s' % (path, json.dumps(expected), json.dumps(actual))]
    if expected != actual:
        return ['%s: expected %s, got %s' % (path, json.dumps(expected), json.dumps(actual))]
    return []


def parse_http(text):
    """(status line, [(name, value)], body) of an HTTP answer as `curl -i`
    prints it (an interim 100 Continue skipped)."""
    text = text.replace('\r\n', '\n')
    while True:
        head, _, body = text.partition('\n\n')
        lines = head.split('\n')
        if re.match(r'^HTTP/\S+ 100\b', lines[0]) and body:
            text = body
            continue
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(':')
            headers.append((name.strip().lower(), value.strip()))
        return lines[0].strip(), headers, body


def http_differences(expected_text, actual_text):
    e_status, e_headers, e_body = parse_http(expected_text.strip('\n'))
    a_status, a_headers, a_body = parse_http(actual_text)
    out = []
    if e_status.split(' ', 1)[1:] != a_status.split(' ', 1)[1:]:
        out.append('status: expected %r, got %r' % (e_status, a_status))
    actual = dict(a_headers)
    for name, value in e_headers:
        if name not in actual:
            out.append('header %s: missing' % name)
        elif not (is_placeholder(value) or actual[name] == value):
            out.append('header %s: expected %r, got %r' % (name, value, actual[name]))
    out += body_differences(e_body, a_body)
    return out


def body_differences(expected_text, actual_text):
    if expected_text.strip() == '':
        return [] if actual_text.strip() == '' else ['body: expected none, got %r' % actual_text[:300]]
    try:
        expected = json.loads(expected_text)
    except ValueError as e:
        return ['the documented output is not JSON: %s' % e]
    try:
        actual = json.loads(actual_text)
    except ValueError:
        return ['the output is not JSON: %r' % actual_text[:500]]
    return json_differences(expected, actual)


def output_differences(item, stdout):
    if item.lang == 'http':
        return http_differences(item.text, stdout)
    if item.lang == 'json':
        return body_differences(item.text, stdout)
    if stdout.rstrip('\n') != item.text.rstrip('\n'):
        return ['expected:\n' + item.text.rstrip('\n') + '\ngot:\n' + stdout.rstrip('\n')]
    return []


def with_port(text, port):
    if port is None:
        return text
    text = re.sub(r'\b(localhost|127\.0\.0\.1):' + DOC_PORT + r'\b', r'\g<1>:%d' % port, text)
    # prosponsive-ctl's own option for the running app's port
    return re.sub(r'(--port )' + DOC_PORT + r'\b', r'\g<1>%d' % port, text)


# --------------------------------------------------------------------- bash

class Shell:
    """One bash for a page: each block is sourced in it, so variables carry
    over from block to block as they would in a reader's terminal."""

    def __init__(self, work_dir, env):
        self.dir = work_dir
        self.count = 0
        self.proc = subprocess.Popen(['bash', '--noprofile', '--norc'], cwd=work_dir, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)

    def run(self, text, timeout=BLOCK_TIMEOUT):
        self.count += 1
        base = os.path.join(self.dir, '.block-%d' % self.count)
        with open(base + '.sh', 'w') as f:
            f.write(text)
        sentinel = '__BLOCK_%d_DONE__' % self.count
        self.proc.stdin.write('source %s.sh > %s.out 2> %s.err < /dev/null; echo $? > %s.rc; echo %s\n'
                              % (base, base, base, base, sentinel))
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise RuntimeError('the block did not finish within %d s' % timeout)
            line = self.proc.stdout.readline()
            if line == '':
                raise RuntimeError('bash exited')
            if line.strip() == sentinel:
                break

        def read(suffix):
            with open(base + suffix, encoding='utf-8', errors='replace') as f:
                return f.read()
        return int(read('.rc').strip() or 1), read('.out'), read('.err')

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def tool_env(args, data_dir):
    env = dict(os.environ)
    env['PATH'] = os.pathsep.join([os.path.dirname(os.path.abspath(args.ctl)),
                                   os.path.dirname(os.path.abspath(args.prosponsive)), env.get('PATH', '')])
    env['PROSPONSIVE_DATA_DIR'] = data_dir
    env['PROSPONSIVE_SECRETS'] = 'file'
    env['GSETTINGS_BACKEND'] = 'memory'
    env['LC_ALL'] = 'C.UTF-8'
    env.pop('NODE_EXTRA_CA_CERTS', None)
    return env


# --------------------------------------------------------------------- ctl helpers

def check_workflow_json(args, env, work_dir, workflow):
    path = os.path.join(work_dir, '.check-workflow.json')
    with open(path, 'w') as f:
        json.dump(workflow, f)
    res = subprocess.run([args.ctl, 'check-workflow', '--json', path], capture_output=True, text=True,
                         env=env, timeout=60)
    try:
        return json.loads(res.stdout)
    except ValueError:
        raise RuntimeError('check-workflow printed no JSON (exit %d): %s' % (res.returncode, res.stderr))


def workflow_around(name, code=None):
    """A published workflow with a POST Webhook and, given @code, one Code node."""
    nodes = [{'name': 'Webhook', 'type': 'n8n-nodes-base.webhook', 'typeVersion': 2.1, 'position': [0, 0],
              'webhookId': '00000000-0000-4000-8000-000000000001',
              'parameters': {'httpMethod': 'POST', 'path': 'docs-example', 'responseMode': 'lastNode'}}]
    if code is not None:
        nodes.append({'name': 'Code', 'type': 'n8n-nodes-base.code', 'typeVersion': 2, 'position': [220, 0],
                      'parameters': {'jsCode': code}})
    return {'name': name, 'active': True, 'nodes': nodes, 'connections': {}}


# --------------------------------------------------------------------- the scripted model

class Provider(prsapi.ScriptedProvider):
    """The scripted model answering @turns (OpenAI-compatible); requests()
    are its chat requests only."""

    def __init__(self, turns):
        super().__init__({'kind': 'openai', 'turns': turns})

    def requests(self):
        return super().requests('POST')


def add_provider(args, env, provider):
    res = subprocess.run([args.ctl, 'provider', 'add', '--kind', 'openai', '--name', 'LM Studio',
                          '--base-url', 'http://127.0.0.1:%d/v1' % provider.port,
                          '--model', 'qwen2.5-7b-instruct', '--api-key-stdin'],
                         input='lm-studio\n', capture_output=True, text=True, env=env, timeout=60)
    if res.returncode != 0:
        raise RuntimeError('provider add failed: ' + res.stderr)


def start_app(args, data_dir, extra_env=None):
    """A headless Prosponsive on a free port with @data_dir (prsapi.App)."""
    saved = dict(os.environ)
    os.environ.update(extra_env or {})
    try:
        app = prsapi.App(args, data_dir=data_dir)
        app.start()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return app


# --------------------------------------------------------------------- offline

def page_suite(path):
    """The suite named by the page's `<!-- page: SUITE -->` marker, or None:
    such a page runs there as a whole (docs/email-assistant.md: tests/email)."""
    with open(path, encoding='utf-8') as f:
        for line in f:
            m = MARKER.match(line.strip())
            if m and m.group(1) == 'page':
                return m.group(2)
    return None


def page_needs_app(items):
    return any(it.marker('run') is not None and ('$API' in it.text or 'localhost:' + DOC_PORT in it.text)
               for it in items)


def run_page(args, path, root):
    name = os.path.basename(path)
    try:
        items = parse_page(path)
    except ValueError as e:
        TAP.ok(False, '%s parses' % name, str(e))
        return
    if page_suite(path) is not None:
        TAP.skip('%s: its examples' % name, 'they run in the %s suite, against the services it starts'
                 % page_suite(path))
        return
    work_dir = os.path.join(root, os.path.splitext(name)[0])
    data_dir = os.path.join(work_dir, 'data')
    os.makedirs(data_dir)
    env = tool_env(args, data_dir)
    app = provider = shell = None
    port = None
    try:
        turns = PAGE_TURNS.get(name, API_PAGE_TURNS)
        if page_needs_app(items):
            provider = Provider(turns)
            add_provider(args, env, provider)
            app = start_app(args, data_dir, {'PROSPONSIVE_INFERENCE_WAIT_SECONDS': str(INFERENCE_WAIT),
                                             'PROSPONSIVE_SECRETS': 'file', 'GSETTINGS_BACKEND': 'memory'})
            port = app.port
        shell = Shell(work_dir, env)
        run_items(args, items, work_dir, env, shell, port)
        if provider is not None:
            # The repeated request answered from the store: no model call of its own
            TAP.ok(len(provider.requests()) == len(turns),
                   '%s: the model was asked once per new request (%d)' % (name, len(turns)),
                   [r['path'] for r in provider.requests()])
    except Exception:
        TAP.ok(False, '%s: the examples ran to the end' % name,
               traceback.format_exc() + ('\n' + app.log() if app else ''))
    finally:
        if shell is not None:
            shell.close()
        if app is not None:
            app.stop()
        if provider is not None:
            provider.stop()


def run_items(args, items, work_dir, env, shell, port):
    outputs = {}     # run id → its stdout
    for it in items:
        file_name = it.marker('file')
        run = it.marker('run')
        output = it.marker('output')
        code = it.marker('code-node')
        if file_name is not None:
            with open(os.path.join(work_dir, file_name), 'w', encoding='utf-8') as f:
                f.write(with_port(it.text, port))
        if run is not None:
            run_id, _, options = run.partition(' ')
            want = int(dict(o.split('=', 1) for o in options.split() if '=' in o).get('exit', 0))
            rc, out, err = shell.run(with_port(it.text, port))
            outputs[run_id] = out
            TAP.ok(rc == want, '%s: run %s exits %d' % (it.where(), run_id, want),
                   'exit %d\nstdout:\n%s\nstderr:\n%s' % (rc, out, err))
        if code is not None:
            tool = check_workflow_json(args, env, work_dir, workflow_around('Code Example', it.text))['tool']
            outputs[code] = json.dumps(tool['inputSchema'])
        if it.marker('tool-names') is not None:
            check_tool_names(args, env, work_dir, it)
        if it.marker('response-cases') is not None:
            check_response_rows(it)
        if it.marker('n8n') is not None:
            try:
                json.loads(it.text)
                TAP.ok(True, '%s: n8n example %s is JSON (it runs in the n8n suite)'
                       % (it.where(), it.marker('n8n')))
            except ValueError as e:
                TAP.ok(False, '%s: n8n example %s is JSON' % (it.where(), it.marker('n8n')), str(e))
        if output is not None:
            if output in outputs:
                expected = Item(it.page, it.line, it.kind, it.lang, with_port(it.text, port), [])
                diffs = output_differences(expected, outputs[output])
                TAP.ok(not diffs, '%s: output of %s is as documented' % (it.where(), output),
                       '\n'.join(diffs) + '\n--- printed:\n' + outputs[output])
            elif output in N8N_OUTPUTS:
                TAP.skip('%s: output %s' % (it.where(), output), 'produced by the n8n examples (n8n suite)')
            else:
                TAP.ok(False, '%s: output %s belongs to a run' % (it.where(), output),
                       'no run or code-node example "%s" comes before it' % output)


def response_row_problem(row):
    """Why a row of the response-cases table cannot run, or None."""
    if len(row) != 3:
        return 'three cells expected'
    answer, model = code_spans(row[0]), code_spans(row[2])
    if not answer or not answer[0].isdigit() or len(answer) > 2:
        return 'the first cell is `STATUS` and, optionally, `BODY`'
    if row[1] not in ('succeeded', 'failed'):
        return 'the second cell is succeeded or failed'
    if len(model) != 1:
        return 'the third cell is one `TEXT`'
    return None


def check_response_rows(it):
    problems = ['%s: %s' % (row, response_row_problem(row)) for row in table_rows(it) if response_row_problem(row)]
    TAP.ok(not problems and table_rows(it), '%s: the response-cases table has %d well-formed rows '
           '(n8n answers them in the n8n suite)' % (it.where(), len(table_rows(it))), '\n'.join(problems))


def check_tool_names(args, env, work_dir, it):
    for line in it.text.strip('\n').split('\n'):
        workflow_name, arrow, tool_name = line.rpartition(' → ')
        if not arrow:
            TAP.ok(False, '%s: tool-names line %r has "name → tool_name"' % (it.where(), line))
            continue
        tool = check_workflow_json(args, env, work_dir, workflow_around(workflow_name.strip()))['tool']
        TAP.ok(tool['name'] == tool_name.strip(), '%s: %r → %s' % (it.where(), workflow_name.strip(), tool_name.strip()),
               'got %s' % tool['name'])


# --------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--docs', required=True)
    parser.add_argument('--prosponsive', required=True)
    parser.add_argument('--ctl', required=True)
    parser.add_argument('--n8n', action='store_true')
    parser.add_argument('--call-tool')
    parser.add_argument('--keep', action='store_true', help='keep the work folder')
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    pages = sorted(os.path.join(args.docs, p) for p in os.listdir(args.docs) if p.endswith('.md'))
    root = tempfile.mkdtemp(prefix='prs-docs-')
    try:
        if args.n8n:
            import docs_n8n  # noqa: E402  (tests/docs/docs_n8n.py)
            docs_n8n.run(args, pages, root, sys.modules[__name__])
        else:
            for page in pages:
                run_page(args, page, root)
    finally:
        if args.keep or TAP.failed:
            TAP.diag('work folder kept: %s' % root)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return TAP.done()


if __name__ == '__main__':
    sys.exit(main())
