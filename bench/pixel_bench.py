# SPDX-License-Identifier: GPL-3.0-or-later
"""inbound-to-pixel: an agent-inference call to the window's own API server
(bench-ui pixel: PrsService + PrsWindow with the conversation open), with an
OpenAI-kind provider that answers at once (tests/scripted-provider.py). For
each call: the monotonic time the client has the API's answer, and the
monotonic time of the first frame painted after the reply reached the
conversation's list (bench-ui prints it from the frame clock's
"after-paint"). The line is the p50 of (painted - answered), in frames of
16.67 ms. Used by bench/bench.py."""

import json
import os
import queue
import statistics
import subprocess
import threading
import time

import inference_bench

FRAME_MS = 1000.0 / 60


class Lines:
    """A process's stdout lines, read on a thread (a pipe's buffered reader
    and select() do not mix)."""

    def __init__(self, proc):
        self.queue = queue.Queue()
        threading.Thread(target=self._pump, args=(proc.stdout,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            self.queue.put(line)
        self.queue.put(None)

    def next(self, prefix, timeout):
        """The next line that starts with @prefix, within @timeout s."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                line = None
            if line is None:
                raise RuntimeError('bench-ui printed no %s line in %d s' % (prefix.strip(), timeout))
            if line.startswith(prefix):
                return line


def run(args, work, app_env, tool, seed, free_port, bench_line, failed, note):
    n = 30 if args.quick else 100
    d = os.path.join(work, 'pixel')
    os.makedirs(d, exist_ok=True)
    env = app_env()
    ctl = os.path.join(args.build, 'src', 'app', 'prosponsive-ctl')
    provider, pport = inference_bench._provider(work)
    ui = None
    client = None
    try:
        inference_bench.add_provider(ctl, d, env, pport)
        inference_bench.import_agent(ctl, d, env, work)
        seed(20, d, 'pixel')
        port = free_port()
        with open(os.path.join(d, 'bench-ui.log'), 'ab') as log:
            ui = subprocess.Popen([tool('bench-ui'), 'pixel', d, str(port), 'pixel', str(n)],
                                  stdout=subprocess.PIPE, stderr=log, text=True, env=env)
        lines = Lines(ui)
        lines.next('READY', 120)
        with open(os.path.join(d, 'secrets.json')) as f:
            client = inference_bench.Client(port, json.load(f)['api-token'])
        status, body = client.call('POST', '/api/conversations/resolve', {'slug': 'pixel'})
        cid = json.loads(body)['conversationId']

        answers, gaps = [], []
        for i in range(n):
            t0 = time.monotonic()
            status, body = client.call('POST', '/api/ai/agent-inference',
                                       {'prompt': 'Hi %d' % i, 'conversationId': cid, 'agentId': 'bench'})
            answered = time.monotonic()
            if status != 200:
                raise RuntimeError('agent-inference answered %d %s' % (status, body[:200]))
            painted = int(lines.next('PAINTED ', 30).split()[1]) / 1e6
            answers.append((answered - t0) * 1000)
            gaps.append((painted - answered) * 1000)
        gap = statistics.median(gaps)
        answer = statistics.median(answers)
        frames = gap / FRAME_MS
        note('inbound-to-pixel: %d calls; API answer p50 %.2f ms; reply painted p50 %.2f ms after the answer '
             '(min %.2f, max %.2f; negative: painted before the client had the answer); %.2f frames of %.2f ms'
             % (n, answer, gap, min(gaps), max(gaps), frames, FRAME_MS))
        bench_line('inbound-to-pixel', '%.2f' % gap, 'ms', '%.2f' % FRAME_MS, '%.2f' % frames,
                   '<=2frames', frames <= 2)
    except Exception as e:
        failed('inbound-to-pixel', 'ms', '<=2frames', str(e).replace('\n', ' ')[:500])
    finally:
        if client is not None:
            client.close()
        inference_bench.stop_all(ui, provider)
