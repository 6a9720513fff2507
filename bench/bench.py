#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench/run's driver: every benchmark, one line each,

    BENCH <name> <value> <unit> baseline=<value> ratio=<r> target=<t> PASS|FAIL

with each baseline measured in the same invocation, plus `NOTE` lines
(load average, p99s, linearity) that say what limits a figure. A benchmark
that cannot run prints its line with value nan, FAIL and the reason.

Only loopback targets; every loop is bounded in count and time."""

import argparse
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
CACHE = os.path.join(os.path.expanduser('~'), '.cache', 'prosponsive-bench')

RESOLVE_CALLS = 100_000
WRK_CONNECTIONS = 8
WRK_THREADS = 2


# ---- small helpers ----

def loadavg():
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def cpu_times():
    """The machine's CPU time so far (/proc/stat's first line, in ticks)"""
    with open('/proc/stat') as f:
        return [int(x) for x in f.readline().split()[1:9]]


def steal_share(before, after):
    """The share of the CPU time between two cpu_times () that the
    hypervisor gave to other guests (steal), in percent: this virtual
    machine's speed drifts with it, the provider's own round trip too"""
    d = [b - a for a, b in zip(before, after)]
    return 100.0 * d[7] / max(sum(d), 1)


def note(text):
    print('NOTE ' + text, flush=True)


def bench_line(name, value, unit, baseline, ratio, target, ok, reason=None):
    line = 'BENCH %s %s %s baseline=%s ratio=%s target=%s %s' % (
        name, value, unit, baseline, ratio, target, 'PASS' if ok else 'FAIL')
    print(line, flush=True)
    if reason:
        note('%s: %s' % (name, reason))
    RESULTS.append(line)


def failed(name, unit, target, reason):
    bench_line(name, 'nan', unit, 'nan', 'nan', target, False, reason)


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def rss_kb(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return -1


def app_env(extra=None):
    env = dict(os.environ)
    env.update({
        'GSETTINGS_BACKEND': 'memory',
        'GSETTINGS_SCHEMA_DIR': os.path.join(ARGS.build, 'data'),
        'PROSPONSIVE_SECRETS': 'file',
        'NO_AT_BRIDGE': '1',
        'GSK_RENDERER': os.environ.get('GSK_RENDERER', 'cairo'),
        'GDK_BACKEND': 'x11',
        'PROSPONSIVE_TRACE_FRAMES': '1',
        'LC_ALL': 'C.UTF-8',
    })
    env.update(extra or {})
    return env


def tool(name):
    return os.path.join(ARGS.build, 'bench', name)


def token_of(data_dir):
    with open(os.path.join(data_dir, 'secrets.json')) as f:
        return json.load(f)['api-token']


def wait_https(port, timeout=30, proc=None):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            req = urllib.request.Request('https://127.0.0.1:%d/api/health' % port,
                                         headers={'Host': '127.0.0.1:%d' % port})
            with urllib.request.urlopen(req, context=ctx, timeout=2) as r:
                if r.status == 200:
                    return True
        except Exception:
            time.sleep(0.1)
    return False


def resolve_once(port, token, slug='Email Inbox'):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    req = urllib.request.Request('https://127.0.0.1:%d/api/conversations/resolve' % port,
                                 data=json.dumps({'slug': slug}).encode(), method='POST',
                                 headers={'Authorization': 'Bearer ' + token,
                                          'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
        return json.load(r)


def stop(proc):
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


WRK_SCRIPT = r'''
local limit = tonumber(os.getenv("BENCH_LIMIT") or "0")
local done_prefix = os.getenv("BENCH_DONE") or ""
local counter = 0
local next_id = 0
-- thread:stop() ends a thread, not wrk's fixed duration: each thread leaves
-- a marker when it has its share, and bench.py interrupts wrk (SIGINT,
-- which still prints the summary) once every thread has
function setup(thread)
  next_id = next_id + 1
  thread:set("id", next_id)
end
wrk.method = "POST"
wrk.body = '{"slug":"Email Inbox"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
if limit > 0 then
  response = function(status, headers, body)
    counter = counter + 1
    if counter == limit then
      local f = io.open(done_prefix .. id, "w")
      if f then f:close() end
      wrk.thread:stop()
    end
  end
end
done = function(summary, latency, requests)
  io.write(string.format("WRK requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d connect_errors=%d read_errors=%d timeouts=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    summary.errors.status, summary.errors.connect, summary.errors.read, summary.errors.timeout))
end
'''


def run_wrk(port, token, seconds, limit_total=0):
    """wrk against resolve: 8 keep-alive connections, at most `seconds`,
    stopping after `limit_total` responses when given. Returns a dict."""
    script = os.path.join(WORK, 'resolve.lua')
    with open(script, 'w') as f:
        f.write(WRK_SCRIPT)
    done_prefix = os.path.join(WORK, 'wrk-done-%d-' % time.monotonic_ns())
    env = dict(os.environ, BENCH_TOKEN=token, BENCH_DONE=done_prefix,
               BENCH_LIMIT=str(limit_total // WRK_THREADS if limit_total else 0))
    proc = subprocess.Popen(['wrk', '-t%d' % WRK_THREADS, '-c%d' % WRK_CONNECTIONS,
                             '-d%ds' % seconds, '--timeout', '10s', '-s', script,
                             'https://127.0.0.1:%d/api/conversations/resolve' % port],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + seconds + 60
    while limit_total and proc.poll() is None and time.monotonic() < deadline:
        if all(os.path.exists(done_prefix + str(i)) for i in range(1, WRK_THREADS + 1)):
            proc.send_signal(signal.SIGINT)
            break
        time.sleep(0.05)
    try:
        stdout, stderr = proc.communicate(timeout=max(5, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    out = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    for line in out.stdout.splitlines():
        if line.startswith('WRK '):
            d = dict(kv.split('=') for kv in line.split()[1:])
            d = {k: int(v) for k, v in d.items()}
            d['rps'] = d['requests'] / (d['duration_us'] / 1e6) if d['duration_us'] else 0
            return d
    raise RuntimeError('wrk printed no summary: %s %s' % (out.stdout[-500:], out.stderr[-500:]))


# ---- the benchmarks ----

def bench_discovery():
    out = subprocess.run([tool('bench-discovery')] + (['--quick'] if ARGS.quick else []),
                         capture_output=True, text=True, timeout=600)
    found = False
    for line in out.stdout.splitlines():
        if line.startswith('BENCH '):
            print(line, flush=True)
            RESULTS.append(line)
            found = True
        elif line.startswith('NOTE '):
            print(line, flush=True)
    if found:
        return
    failed('discovery-1000', 'ms', '1.5', 'bench-discovery printed nothing: ' + out.stderr[-300:])


def hyperfine_mean(command, runs):
    js = os.path.join(WORK, 'hf.json')
    subprocess.run(['hyperfine', '-N', '--warmup', '3', '-r', str(runs), '--export-json', js,
                    '--style', 'none'] + [command],
                   capture_output=True, text=True, timeout=300, check=True)
    with open(js) as f:
        r = json.load(f)['results'][0]
    return r['median'] * 1000.0


def bench_layout():
    d = os.path.join(WORK, 'layout')
    os.makedirs(d, exist_ok=True)
    out = subprocess.run([tool('bench-layout'), d] + (['--quick'] if ARGS.quick else []),
                         capture_output=True, text=True, timeout=600, check=True)
    rows = {}
    for line in out.stdout.splitlines():
        _, mib, ms, size = line.split()
        rows[int(mib)] = (float(ms), int(size))
    ms1, size1 = rows[1]
    mbps = size1 / 1e6 / (ms1 / 1000.0)
    wc_ms = hyperfine_mean('wc -l %s' % os.path.join(d, 'reply-1MiB.txt'), 10 if ARGS.quick else 30)
    wc_mbps = size1 / 1e6 / (wc_ms / 1000.0)
    per_mib_1 = ms1 / 1
    per_mib_16 = rows[16][0] / 16
    linearity = per_mib_16 / per_mib_1
    note('layout-throughput: 1 MiB %.2f ms, 4 MiB %.2f ms, 16 MiB %.2f ms; time per MiB at 16 MiB / at 1 MiB = %.2f (1.00 is linear; PASS needs <= 1.5)'
         % (rows[1][0], rows[4][0], rows[16][0], linearity))
    note('layout-throughput: wc -l median %.2f ms includes starting the process (hyperfine -N)' % wc_ms)
    bench_line('layout-throughput', '%.1f' % mbps, 'MB/s', '%.1f' % wc_mbps,
               '%.2f' % (mbps / wc_mbps), '>=100MB/s,linear<=1.5', mbps >= 100 and linearity <= 1.5)


def seed(n, data_dir, slug, conversations=1, reply_bytes=0, question_bytes=0):
    extra = ['--question-bytes', str(question_bytes)] if question_bytes else []
    subprocess.run([tool('seed-conversation'), str(n), data_dir, '--slug', slug,
                    '--conversations', str(conversations), '--reply-bytes', str(reply_bytes)] + extra,
                   capture_output=True, text=True, timeout=300, check=True)


def bench_ui(*argv, timeout=600, env_extra=None):
    proc = subprocess.run([tool('bench-ui')] + [str(a) for a in argv], capture_output=True, text=True,
                          timeout=timeout, env=app_env(env_extra))
    if proc.returncode != 0:
        raise RuntimeError('bench-ui %s failed (%d): %s' % (argv[0], proc.returncode, proc.stderr[-800:]))
    return proc.stdout


def parse_kv(out):
    values = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:
            values.setdefault(parts[0], parts[1])
    return values


def first_trace_after_action(out):
    seen = False
    for line in out.splitlines():
        if line.startswith('ACTION '):
            seen = True
        elif seen and line.startswith('TRACE first-frame '):
            return float(line.split()[2])
    return None


def bench_idle_rss():
    d = os.path.join(WORK, 'idle')
    seed(10, d, 'small', conversations=1000)
    bare = subprocess.run([tool('bench-bare-window')], capture_output=True, text=True,
                          timeout=120, env=app_env())
    base = int(parse_kv(bare.stdout)['RSS'])
    out = bench_ui('idle', d, free_port())
    rss = int(parse_kv(out)['RSS'])
    ratio = rss / base
    bench_line('idle-rss', '%.1f' % (rss / 1024), 'MB', '%.1f' % (base / 1024), '%.2f' % ratio,
               '1.5', ratio <= 1.5)


def launch_to_first_frame(argv):
    """ms from starting @argv to the first frame it paints (it prints
    FIRST-FRAME <monotonic µs> from its frame clock's after-paint)."""
    started = time.monotonic()
    out = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=app_env())
    at = parse_kv(out.stdout).get('FIRST-FRAME')
    if out.returncode != 0 or at is None:
        raise RuntimeError('%s failed (%d): %s' % (os.path.basename(argv[0]), out.returncode, out.stderr[-500:]))
    return (int(at) / 1e6 - started) * 1000.0


def bench_startup():
    """startup: the window (PrsService + PrsWindow over 1,000 conversations)
    from launch to its first painted frame, against the bare window's; the
    two launched in turns after one launch each to warm the caches."""
    d = os.path.join(WORK, 'startup')
    seed(10, d, 'small', conversations=1000)
    runs = 5 if ARGS.quick else 15
    app_argv = [tool('bench-ui'), 'startup', d, str(free_port())]
    bare_argv = [tool('bench-bare-window')]
    launch_to_first_frame(app_argv)
    launch_to_first_frame(bare_argv)
    app, bare = [], []
    for _ in range(runs):
        app.append(launch_to_first_frame(app_argv))
        bare.append(launch_to_first_frame(bare_argv))
    app_ms, bare_ms = sorted(app)[runs // 2], sorted(bare)[runs // 2]
    note('startup: %d launches each; window with 1,000 conversations %s ms; bare window %s ms' % (
        runs, ' '.join('%.0f' % t for t in app), ' '.join('%.0f' % t for t in bare)))
    ratio = app_ms / bare_ms
    bench_line('startup', '%.1f' % app_ms, 'ms', '%.1f' % bare_ms, '%.2f' % ratio, '1.5', ratio <= 1.5)


def bench_pixel():
    """inbound-to-pixel: an agent-inference call to its reply painted"""
    import pixel_bench
    pixel_bench.run(ARGS, WORK, app_env, tool, seed, free_port, bench_line, failed, note)


def bench_open_scroll():
    d = os.path.join(WORK, 'huge')
    seed(100_000, d, 'huge')
    seed(10, d, 'small')
    # Seeded last, so the window starts showing it (newest first): both
    # measurements then switch to another conversation for real (before,
    # "small" was already shown, and selecting it again only timed a frame)
    seed(1, d, 'start')
    steps = 60 if ARGS.quick else 400
    small = bench_ui('open', d, free_port(), 'small', 0)
    small_ms = first_trace_after_action(small)
    out = bench_ui('open', d, free_port(), 'huge', steps, timeout=900)
    huge_ms = first_trace_after_action(out)
    kv = parse_kv(out)
    if small_ms is None or huge_ms is None:
        failed('open-100k', 'ms', '2.0,<300ms', 'no TRACE first-frame line after selecting')
    else:
        ratio = huge_ms / small_ms
        bench_line('open-100k', '%.1f' % huge_ms, 'ms', '%.1f' % small_ms, '%.2f' % ratio,
                   '2.0,<300ms', ratio <= 2 and huge_ms < 300)
    opened = int(kv['RSS-OPEN'])
    scrolled = int(kv['RSS-SCROLLED'])
    growth = (scrolled - opened) / 1024
    note('scroll-100k-rss: %s items, %d jumps from the bottom to the top (a frame each), '
         'final scroll offset %s px' % (kv.get('ITEMS'), steps, kv.get('TOP')))
    bench_line('scroll-100k-rss', '%.1f' % growth, 'MB', '%.1f' % (opened / 1024), '%.3f' % (scrolled / opened),
               '<=50MB', growth <= 50)


def bench_scroll_long_replies():
    # Replies of 20 KiB of Markdown (about 3,000 words, laid out as Markdown:
    # docs/conversations.md "Long replies") against one-line replies, the
    # same count, scrolled down the same PX a frame, in the same run
    d = os.path.join(WORK, 'long-replies')
    n = 20 if ARGS.quick else 60
    seed(n, d, 'long', reply_bytes=20 * 1024)
    seed(n, d, 'short')
    # The person's long messages: 6 KiB (a label each) and 20 KiB (past
    # PRS_TEXT_LABEL_MAX_BYTES: a text view each), one-line replies
    seed(n, d, 'asked-6k', question_bytes=6 * 1024)
    seed(n, d, 'asked-20k', question_bytes=20 * 1024)
    seed(1, d, 'start')
    short = parse_kv(bench_ui('scroll', d, free_port(), 'short', SCROLL_PX))
    long = parse_kv(bench_ui('scroll', d, free_port(), 'long', SCROLL_PX, timeout=900))
    note('scroll-long-replies: %s messages, %s px a frame; short replies %s frames over %s px, CPU p50 %s p99 %s '
         'max %s ms, wall p99 %s ms; 20 KiB replies %s frames over %s px, CPU p50 %s p99 %s max %s ms, wall p50 %s '
         'p99 %s max %s ms' % (
             long.get('ITEMS'), SCROLL_PX, short.get('FRAMES'), short.get('HEIGHT'), short.get('CPU-P50'),
             short.get('CPU-P99'), short.get('CPU-MAX'), short.get('WALL-P99'), long.get('FRAMES'),
             long.get('HEIGHT'), long.get('CPU-P50'), long.get('CPU-P99'), long.get('CPU-MAX'),
             long.get('WALL-P50'), long.get('WALL-P99'), long.get('WALL-MAX')))
    p99, base = float(long['CPU-P99']), float(short['CPU-P99'])
    bench_line('scroll-long-replies', '%.2f' % p99, 'ms', '%.2f' % base, '%.2f' % (p99 / max(base, 0.01)),
               '<16.7ms', p99 < 16.7)
    # Opening lays out the rows of the first screenful (a long reply is
    # many screens: one or two), then reveals older ones above a frame at a
    # time (docs/conversations.md "Long replies")
    out_short = bench_ui('open', d, free_port(), 'short', 0)
    out_long = bench_ui('open', d, free_port(), 'long', 0, timeout=900)
    open_short, open_long = first_trace_after_action(out_short), first_trace_after_action(out_long)
    after = parse_kv(out_long).get('AFTER-OPEN-CPU-MAX')
    note('open-long-replies: %s messages; to the first frame: short replies %s ms (CPU %s), 20 KiB replies '
         '%s ms (CPU %s); the longest frame in the second after it: short %s ms, long %s ms CPU' % (
             long.get('ITEMS'), open_short, parse_kv(out_short).get('OPEN-CPU'), open_long,
             parse_kv(out_long).get('OPEN-CPU'), parse_kv(out_short).get('AFTER-OPEN-CPU-MAX'), after))
    asked = {}
    for slug in ('asked-6k', 'asked-20k'):
        out = bench_ui('open', d, free_port(), slug, 0, timeout=900)
        asked[slug] = (first_trace_after_action(out), parse_kv(out).get('OPEN-CPU'),
                       parse_kv(out).get('AFTER-OPEN-CPU-MAX'))
    note('open-long-replies: %s messages whose person\'s messages are 6 KiB: first frame %s ms (CPU %s), the '
         'longest frame after it %s ms CPU; 20 KiB: %s ms (CPU %s), %s ms CPU' % (
             long.get('ITEMS'), *asked['asked-6k'], *asked['asked-20k']))
    if open_short is None or open_long is None:
        failed('open-long-replies', 'ms', '<=300ms,after<100ms', 'no TRACE first-frame line after selecting')
    else:
        bench_line('open-long-replies', '%.1f' % open_long, 'ms', '%.1f' % open_short,
                   '%.2f' % (open_long / max(open_short, 0.01)), '<=300ms,after<100ms',
                   open_long <= 300 and after is not None and float(after) < 100)


SCROLL_PX = 60


def bench_jump():
    """jump-to-hit: opening a 100,000-message conversation at its first
    message (a search hit), against opening it at the bottom."""
    d = os.path.join(WORK, 'jump')
    seed(100_000, d, 'huge')
    seed(1, d, 'start')   # shown first, so both switch conversations for real
    bottom = first_trace_after_action(bench_ui('open', d, free_port(), 'huge', 0, timeout=900))
    out = bench_ui('jump', d, free_port(), 'huge', 1, timeout=900)
    jump = first_trace_after_action(out)
    kv = parse_kv(out)
    if bottom is None or jump is None:
        failed('jump-100k', 'ms', '2.0,<300ms', 'no TRACE first-frame line after selecting')
        return
    on_screen = kv.get('HIT-ON-SCREEN') == '1'
    note('jump-100k: message 1 of 100,000 on screen and highlighted: %s; pages read: %s'
         % ('yes' if on_screen else 'NO', kv.get('PAGES')))
    ratio = jump / bottom
    bench_line('jump-100k', '%.1f' % jump, 'ms', '%.1f' % bottom, '%.2f' % ratio, '2.0,<300ms',
               ratio <= 2 and jump < 300 and on_screen)


def bench_search():
    """search-1m: a specific search over 1,000,000 messages through the FTS5
    index, against a LIKE scan of the messages' text."""
    d = os.path.join(WORK, 'search')
    subprocess.run([tool('seed-conversation'), '1000000', d, '--slug', 'huge', '--conversations', '1000'],
                   capture_output=True, text=True, timeout=900, check=True)
    rounds = '5' if ARGS.quick else '20'
    out = subprocess.run([tool('bench-search'), d, 'question 123457', 'number 123457:', rounds],
                         capture_output=True, text=True, timeout=900, check=True).stdout
    kv = {line.split()[0]: line.split()[1:] for line in out.splitlines()}
    fts, fts_hits = float(kv['SEARCH'][0]), kv['SEARCH'][1]
    like, like_hits = float(kv['LIKE'][0]), kv['LIKE'][1]
    common = subprocess.run([tool('bench-search'), d, 'changed', 'changed', '3'],
                            capture_output=True, text=True, timeout=900, check=True).stdout
    ckv = {line.split()[0]: line.split()[1:] for line in common.splitlines()}
    note('search-1m: "question 123457" found %s (LIKE %s); a word in 500,000 messages ("changed", '
         'the newest 10,000 matches ranked) %.1f ms for 50 hits, the LIKE scan stops at its first 50: %.2f ms'
         % (fts_hits, like_hits, float(ckv['SEARCH'][0]), float(ckv['LIKE'][0])))
    ratio = fts / like
    bench_line('search-1m', '%.2f' % fts, 'ms', '%.2f' % like, '%.3f' % ratio, '0.1,<50ms',
               ratio <= 0.1 and fts < 50 and fts_hits == like_hits)


def gaps_run(d, port, seconds, load_token=None):
    proc = subprocess.Popen([tool('bench-ui'), 'gaps', d, str(port), 'small', str(seconds)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=app_env())
    wrk_result = None
    try:
        deadline = time.monotonic() + 120
        line = ''
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line or line.startswith('READY'):
                break
        if not line.startswith('READY'):
            raise RuntimeError('bench-ui gaps did not get ready: ' + proc.stderr.read()[-500:])
        if load_token is not None:
            wrk_result = run_wrk(port, load_token, max(1, seconds - 1))
        out, err = proc.communicate(timeout=seconds + 120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    kv = parse_kv(out)
    # "GAP-LONG <start µs> <ms> <ran ms> <waited ms>": every gap over 33 ms
    kv['long'] = ['%s ms at %.3f s (ran %s, waited %s)' % (p[2], int(p[1]) / 1e6, p[3], p[4])
                  for p in (line.split() for line in out.splitlines()) if p and p[0] == 'GAP-LONG']
    return kv, wrk_result


def bench_ui_under_load():
    d = os.path.join(WORK, 'load')
    # The conversation wrk resolves exists before: the load is API traffic
    # alone, which must not wake the window (a new conversation would, once)
    seed(1, d, 'Email Inbox')
    seed(50, d, 'small', conversations=100)
    seconds = 6 if ARGS.quick else 20
    port = free_port()
    idle, _ = gaps_run(d, port, seconds)
    token = token_of(d)
    loaded, w = gaps_run(d, port, seconds, load_token=token)
    idle_max = float(idle['GAP-MAX'])
    load_max = float(loaded['GAP-MAX'])
    ratio = load_max / idle_max
    note('ui-under-load: idle %s frames (p50 %s, p99 %s ms); under wrk %s frames (p50 %s, p99 %s ms); '
         'wrk meanwhile %.0f resolve/s, p99 %.2f ms; within its longest gap the window ran %s and '
         'waited for a core %s of %s ms idle, ran %s and waited %s of %s ms under wrk' % (
             idle.get('FRAMES'), idle.get('GAP-P50'), idle.get('GAP-P99'),
             loaded.get('FRAMES'), loaded.get('GAP-P50'), loaded.get('GAP-P99'),
             w['rps'] if w else 0, (w['p99_us'] / 1000.0) if w else 0,
             idle.get('GAP-MAX-CPU'), idle.get('GAP-MAX-WAIT'), idle.get('GAP-MAX'),
             loaded.get('GAP-MAX-CPU'), loaded.get('GAP-MAX-WAIT'), loaded.get('GAP-MAX')))
    # Their starts are on the monotonic clock, for a system trace taken
    # meanwhile (perf record -k mono) to say who had the cores
    note('ui-under-load: gaps over 33 ms idle: %s; under wrk: %s; the longest started at %.3f s idle, '
         '%.3f s under wrk (monotonic clock)' % (
             ', '.join(idle['long']) or 'none', ', '.join(loaded['long']) or 'none',
             int(idle.get('GAP-MAX-AT', 0)) / 1e6, int(loaded.get('GAP-MAX-AT', 0)) / 1e6))
    bench_line('ui-under-load', '%.1f' % load_max, 'ms', '%.1f' % idle_max, '%.2f' % ratio,
               '2.0,<33ms', ratio <= 2 and load_max < 33)


def start_headless(d, port):
    log = open(os.path.join(d, 'headless.log'), 'ab')
    proc = subprocess.Popen([os.path.join(ARGS.build, 'src', 'app', 'prosponsive'), '--headless',
                             '--data-dir', d, '--port', str(port)],
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=app_env())
    log.close()
    if not wait_https(port, proc=proc):
        stop(proc)
        raise RuntimeError('prosponsive --headless did not answer')
    return proc


def ensure_anchor():
    """better-sqlite3@12 into ~/.cache/prosponsive-bench (outside the repo)."""
    os.makedirs(CACHE, exist_ok=True)
    shutil.copy(os.path.join(HERE, 'anchor', 'package.json'), os.path.join(CACHE, 'package.json'))
    probe = ['node', '-e', "require('better-sqlite3')(':memory:')"]
    env = dict(os.environ, NODE_PATH=os.path.join(CACHE, 'node_modules'))
    if subprocess.run(probe, capture_output=True, env=env, cwd=CACHE).returncode != 0:
        subprocess.run(['npm', 'install', '--no-audit', '--no-fund', '--loglevel=error'],
                       cwd=CACHE, capture_output=True, timeout=900, check=True)
        if subprocess.run(probe, capture_output=True, env=env, cwd=CACHE).returncode != 0:
            subprocess.run(['npm', 'rebuild', 'better-sqlite3'], cwd=CACHE, capture_output=True,
                           timeout=900, check=True)
    return env


def start_anchor(d, port, token):
    env = ensure_anchor()
    log = open(os.path.join(d, 'anchor.log'), 'ab')
    proc = subprocess.Popen(['node', os.path.join(HERE, 'anchor', 'server.js'), '--data-dir', d,
                             '--port', str(port), '--token', token],
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env)
    log.close()
    if not wait_https(port, proc=proc):
        stop(proc)
        raise RuntimeError('the Node.js twin did not answer (see %s/anchor.log)' % d)
    return proc


RESOLVE_ROUNDS = 4


def combine_wrk(runs):
    """One figure for several wrk runs against one server: requests and
    time summed; p50 and p99 are the median of the runs' own (wrk gives no
    histogram to merge), the worst p99 kept beside them."""
    total = {k: sum(r[k] for r in runs) for k in ('requests', 'duration_us', 'non2xx', 'connect_errors',
                                                   'read_errors', 'timeouts')}
    total['rps'] = total['requests'] / (total['duration_us'] / 1e6) if total['duration_us'] else 0
    for k in ('p50_us', 'p99_us'):
        values = sorted(r[k] for r in runs)
        total[k] = values[len(values) // 2]
    total['p99_max_us'] = max(r['p99_us'] for r in runs)
    return total


def bench_resolve():
    """resolve-throughput and headless-rss: the same 100,000 resolve calls
    against each server, in RESOLVE_ROUNDS rounds that take turns (so that
    the shared machine's load weighs on both alike); RSS read from /proc
    after the last."""
    d = os.path.join(WORK, 'headless')
    os.makedirs(d, exist_ok=True)
    cap = 600
    port = free_port()
    prs = start_headless(d, port)
    anchor = None
    prs_runs, node_runs = [], []
    try:
        token = token_of(d)
        resolve_once(port, token)
        prs_rss_start = rss_kb(prs.pid)
        aport = free_port()
        anchor = start_anchor(d, aport, token)
        resolve_once(aport, token)
        anchor_rss_start = rss_kb(anchor.pid)
        for _ in range(RESOLVE_ROUNDS):
            prs_runs.append(run_wrk(port, token, cap, RESOLVE_CALLS // RESOLVE_ROUNDS))
            node_runs.append(run_wrk(aport, token, cap, RESOLVE_CALLS // RESOLVE_ROUNDS))
        prs_rss = rss_kb(prs.pid)
        anchor_rss = rss_kb(anchor.pid)
        time.sleep(3)       # idle: the API thread hands freed memory back (malloc_trim)
        prs_rss_idle = rss_kb(prs.pid)
        anchor_rss_idle = rss_kb(anchor.pid)
    finally:
        stop(prs)
        stop(anchor)

    prs_w, node_w = combine_wrk(prs_runs), combine_wrk(node_runs)
    for who, w, runs in (('prosponsive', prs_w, prs_runs), ('node-twin', node_w, node_runs)):
        note('resolve-throughput %s: %d requests in %.1f s = %.0f/s (rounds: %s), p50 %.2f ms, p99 %.2f ms '
             '(worst round %.2f ms), non-2xx %d, connect/read/timeout errors %d/%d/%d' % (
                 who, w['requests'], w['duration_us'] / 1e6, w['rps'],
                 ' '.join('%.0f' % r['rps'] for r in runs), w['p50_us'] / 1000.0,
                 w['p99_us'] / 1000.0, w['p99_max_us'] / 1000.0, w['non2xx'], w['connect_errors'],
                 w['read_errors'], w['timeouts']))
    ratio = prs_w['rps'] / node_w['rps']
    bench_line('resolve-throughput', '%.0f' % prs_w['rps'], 'req/s', '%.0f' % node_w['rps'],
               '%.3f' % ratio, '1.0', ratio >= 1 and prs_w['non2xx'] == 0)
    note('resolve-throughput p99: prosponsive %.2f ms, node-twin %.2f ms (ratio %.2f)' % (
        prs_w['p99_us'] / 1000.0, node_w['p99_us'] / 1000.0, prs_w['p99_us'] / max(1, node_w['p99_us'])))
    note('headless-rss: prosponsive %.1f MB at start -> %.1f MB after %d calls; node-twin %.1f -> %.1f MB' % (
        prs_rss_start / 1024, prs_rss / 1024, prs_w['requests'], anchor_rss_start / 1024, anchor_rss / 1024))
    note('headless-rss after 3 s idle: prosponsive %.1f MB, node-twin %.1f MB (the BENCH line is read '
         'right after the last call)' % (prs_rss_idle / 1024, anchor_rss_idle / 1024))
    ratio = prs_rss / anchor_rss
    complete = prs_w['requests'] >= RESOLVE_CALLS and node_w['requests'] >= RESOLVE_CALLS
    bench_line('headless-rss', '%.1f' % (prs_rss / 1024), 'MB', '%.1f' % (anchor_rss / 1024),
               '%.3f' % ratio, '0.25', ratio <= 0.25 and complete,
               None if complete else 'fewer than %d calls within %d s' % (RESOLVE_CALLS, cap))


def bench_inference():
    """agent-inference through a configured provider that answers at once
    (tests/scripted-provider.py), against that provider's own round trip."""
    import inference_bench
    inference_bench.run(ARGS, WORK, app_env, bench_line, failed, note)


def bench_flood():
    """flood-5000: agent-inference before and after 5,000 new conversations."""
    import flood_bench
    import inference_bench
    flood_bench.run(ARGS, WORK, app_env, bench_line, failed, note, inference_bench._provider)


INSIGHTS_RUNS = 1_000_000


def bench_insights():
    """insights-1m: the figures of each period over 1,000,000 runs and
    2,000,000 tool calls (bench/seed-insights: a year of them, through the
    store's triggers), the slowest period against one COUNT(*) over the
    runs on the same connection."""
    d = os.path.join(WORK, 'insights')
    t0 = time.monotonic()
    subprocess.run([tool('seed-insights'), str(INSIGHTS_RUNS), d], capture_output=True, text=True,
                   timeout=1800, check=True)
    note('insights-1m: seeded %d runs and %d tool calls over 365 days in %.0f s'
         % (INSIGHTS_RUNS, 2 * INSIGHTS_RUNS, time.monotonic() - t0))
    out = subprocess.run([tool('bench-insights'), d, '--rounds', '7' if ARGS.quick else '15'],
                         capture_output=True, text=True, timeout=600, check=True).stdout
    counts, periods, opened = {}, {}, None
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == 'COUNT':
            counts[parts[1]] = (int(parts[2]), float(parts[3]))
        elif parts[0] == 'PERIOD':
            periods[parts[1]] = float(parts[2])
        elif parts[0] == 'OPEN':
            opened = float(parts[1])
    if counts['runs'][0] != INSIGHTS_RUNS or counts['tool_calls'][0] != 2 * INSIGHTS_RUNS:
        raise RuntimeError('the seeded store holds %s' % counts)
    slowest = max(periods, key=periods.get)
    worst = periods[slowest]
    baseline = counts['runs'][1]
    note('insights-1m: median ms per period: %s; COUNT(*) runs %.2f ms, tool_calls %.2f ms; '
         'a new connection + "all" (the page\'s worker thread) %.2f ms'
         % (', '.join('%s %.2f' % kv for kv in periods.items()), baseline, counts['tool_calls'][1], opened))
    bench_line('insights-1m', '%.2f' % worst, 'ms', '%.2f' % baseline, '%.2f' % (worst / baseline),
               '<=100ms', worst <= 100.0, 'slowest period: %s' % slowest)


BENCHES = {
    'discovery-1000': bench_discovery,
    'layout-throughput': bench_layout,
    'idle-rss': bench_idle_rss,
    'startup': bench_startup,
    'open-100k': bench_open_scroll,      # also scroll-100k-rss
    'ui-under-load': bench_ui_under_load,
    'resolve-throughput': bench_resolve,  # also headless-rss
    'inference-overhead': bench_inference,
    'inbound-to-pixel': bench_pixel,
    'flood-5000': bench_flood,
    'insights-1m': bench_insights,
    'search-1m': bench_search,
    'jump-100k': bench_jump,
    'scroll-long-replies': bench_scroll_long_replies,
}
UNITS = {
    'discovery-1000': ('ms', '1.5'), 'layout-throughput': ('MB/s', '>=100MB/s,linear<=1.5'),
    'idle-rss': ('MB', '1.5'), 'startup': ('ms', '1.5'), 'open-100k': ('ms', '2.0,<300ms'), 'ui-under-load': ('ms', '2.0,<33ms'),
    'resolve-throughput': ('req/s', '1.0'), 'inference-overhead': ('ms', '<=2ms'),
    'flood-5000': ('ms', '1.5,catch-up<1s'), 'insights-1m': ('ms', '<=100ms'),
    'search-1m': ('ms', '0.1,<50ms'), 'jump-100k': ('ms', '2.0,<300ms'),
    'inbound-to-pixel': ('ms', '<=2frames'), 'scroll-long-replies': ('ms', '<16.7ms'),
}

RESULTS = []


def main():
    global ARGS, WORK
    parser = argparse.ArgumentParser()
    parser.add_argument('--build', required=True)
    parser.add_argument('--quick', action='store_true')
    parser.add_argument('--only', action='append', help='run only these (repeatable)')
    ARGS = parser.parse_args()
    sys.path.insert(0, HERE)
    WORK = tempfile.mkdtemp(prefix='prs-bench-')
    started = time.monotonic()
    note('machine: %d cores, load average %s at start; GSK_RENDERER=%s; %s' % (
        os.cpu_count(), loadavg(), app_env()['GSK_RENDERER'], 'quick' if ARGS.quick else 'full'))
    try:
        for name, fn in BENCHES.items():
            if ARGS.only and name not in ARGS.only:
                continue
            t0, ticks = time.monotonic(), cpu_times()
            try:
                fn()
            except Exception as e:
                unit, target = UNITS[name]
                failed(name, unit, target, 'could not run: %s' % str(e).strip().replace('\n', ' ')[:600])
            note('%s took %.0f s; load average %s; steal %.1f %%' % (
                name, time.monotonic() - t0, loadavg(), steal_share(ticks, cpu_times())))
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    note('all benchmarks took %.0f s' % (time.monotonic() - started))


if __name__ == '__main__':
    main()
