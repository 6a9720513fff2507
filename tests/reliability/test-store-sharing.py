#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The store shared by the running app and prosponsive-ctl, as the README
teaches: `prosponsive --headless` takes writes through the API while ctl
verbs that read and write the same database run beside it (discover,
n8n setup, provider add/remove, rule add, agent import, schedule add, token --rotate,
tools, mcp add and test (which keeps the tools it lists), lists, backup, conversation
rename/pin/archive/delete, search, export), and the app — sometimes a ctl verb too — is killed with SIGKILL at
a random moment, 20 times (200 with --full: tests/reliability/run-full.sh).

Each round, before the kill, another process reads the live database and
must find everything the API has answered for (a WAL deleted under the app
would hide it), and the app must already use what the ctl committed (the
agent it imported). Before the rounds, a write held open by another
program past the busy timeout makes the API answer 503 storage-busy. At the end every acknowledged write of both sides is
there, the database passes PRAGMA integrity_check, and a backup taken
mid-run, restored as the prosponsive.db of a new folder, starts and holds
what had been acknowledged before it began."""

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api'))
from prsapi import App, Tap, free_port, parse_args  # noqa: E402

ROUNDS = 20
PLAN = 12
# An MCP server that answers as it should (tests/mcp)
HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'mcp', 'hostile-server.py')


class Ctl:
    """prosponsive-ctl verbs in a loop, each a process the test may kill."""

    def __init__(self, app, work):
        self.app = app
        self.work = work
        self.lock = threading.Lock()
        self.proc = None
        self.stop = threading.Event()
        self.rules = set()          # tools of acknowledged `rule add`
        self.deleted = set()        # slugs of acknowledged `conversation delete`
        self.agents = set()         # ids of acknowledged `agent import`
        self.schedules = set()      # names of acknowledged `schedule add`
        self.providers = {}         # name -> present after its last acknowledged verb
        self.uncertain = set()      # providers whose last verb was killed
        self.backups = []           # (path, conversations acknowledged before it began)
        self.mcp_tested = set()     # MCP servers whose acknowledged `mcp test` kept their tools
        self.verbs = 0
        self.busy = 0               # exit 75: the database stayed busy
        self.failures = []          # anything else unexpected
        self.killed = 0

    def run(self, *argv, stdin=None):
        with self.lock:
            if self.stop.is_set():
                return None
            self.proc = subprocess.Popen(
                [self.app.args.ctl, '--data-dir', self.app.data_dir] + list(argv),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=self.app.env(), text=True)
            proc = self.proc
        try:
            out, err = proc.communicate(stdin, timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            self.failures.append('%s did not finish within 60 s' % ' '.join(argv))
        with self.lock:
            self.proc = None
        self.verbs += 1
        if proc.returncode == -signal.SIGKILL:
            self.killed += 1
        elif proc.returncode == 75:
            self.busy += 1
        return proc.returncode, out, err

    def kill_current(self):
        with self.lock:
            if self.proc is not None and self.proc.poll() is None:
                self.proc.send_signal(signal.SIGKILL)

    def expect(self, res, what, ok_codes=(0,)):
        if res is None or res[0] in ok_codes or res[0] in (-signal.SIGKILL, 75):
            return res is not None and res[0] == 0
        self.failures.append('%s exited %d: %s' % (what, res[0], res[2].strip()[-300:]))
        return False

    def loop(self, client):
        n = 0
        while not self.stop.is_set():
            step = n % 10
            if step == 0:
                # fails (no n8n on port 9) and records the failure: a write
                self.expect(self.run('discover'), 'discover', ok_codes=(0, 1))
                # reads the n8n settings and the token, fails before its writes
                self.expect(self.run('n8n', 'setup'), 'n8n setup', ok_codes=(1,))
            elif step == 1:
                name = 'p%d' % n
                self.uncertain.add(name)
                res = self.run('provider', 'add', '--kind', 'ollama', '--name', name,
                               '--model', 'm', '--base-url', 'http://127.0.0.1:9')
                if self.expect(res, 'provider add'):
                    self.providers[name] = True
                    self.uncertain.discard(name)
            elif step == 2:
                present = [p for p, here in self.providers.items() if here and p not in self.uncertain]
                if present:
                    name = present[0]
                    self.uncertain.add(name)
                    if self.expect(self.run('provider', 'remove', name), 'provider remove'):
                        self.providers[name] = False
                        self.uncertain.discard(name)
            elif step == 3:
                tool = 'tool_%d' % n
                if self.expect(self.run('rule', 'add', '--tool', tool, '--action', 'deny'), 'rule add'):
                    self.rules.add(tool)
            elif step == 4:
                agent = 'agent-%d' % n
                path = os.path.join(self.work, agent + '.md')
                with open(path, 'w') as f:
                    f.write('---\nid: %s\nname: Agent %d\nallowedTools: []\n---\nAnswer briefly.\n'
                            % (agent, n))
                if self.expect(self.run('agent', 'import', path), 'agent import'):
                    self.agents.add(agent)
                    client.use_agent(agent)
            elif step == 5:
                if self.expect(self.run('token', '--rotate'), 'token --rotate'):
                    client.token_rotated()
            elif step == 6:
                self.expect(self.run('tools'), 'tools')
                self.expect(self.run('rule', 'list'), 'rule list')
                name = 'mcp-%d' % n
                if (self.expect(self.run('mcp', 'add', '--name', name, '--command', 'python3', '--', HOSTILE,
                                         '--mode', 'ok'), 'mcp add')
                        and self.expect(self.run('mcp', 'test', name), 'mcp test')):
                    self.mcp_tested.add(name)
            elif step == 7:
                self.expect(self.run('agent', 'list'), 'agent list')
                name = 'schedule-%d' % n
                if self.expect(self.run('schedule', 'add', '--name', name, '--conversation', 'scheduled',
                                        '--agent', 'a', '--prompt', 'Anything new?', '--every', '600m'),
                               'schedule add'):
                    self.schedules.add(name)
                self.expect(self.run('schedule', 'list'), 'schedule list')
            elif step == 8:
                path = os.path.join(self.work, 'backup-%d.db' % n)
                before = client.snapshot()
                if self.expect(self.run('backup', path), 'backup'):
                    # the latest is the one restored; keep the disk small
                    if self.backups:
                        os.unlink(self.backups[-1][0])
                    self.backups.append((path, before))
            elif step == 9:
                self.conversation_verbs(client, n)
            n += 1

    def conversation_verbs(self, client, n):
        """Keeping conversations in order beside the app: changes to one the
        API made (never deleted), then a conversation of our own deleted."""
        slugs = list(client.snapshot())
        if slugs:
            slug = slugs[n % len(slugs)]
            self.expect(self.run('conversation', 'rename', slug, 'Renamed %d' % n), 'conversation rename')
            self.expect(self.run('conversation', 'pin' if n % 20 == 9 else 'unpin', slug), 'conversation pin')
            self.expect(self.run('conversation', 'archive', slug), 'conversation archive')
            self.expect(self.run('conversation', 'unarchive', slug), 'conversation unarchive')
            self.expect(self.run('export', slug, '--format', 'json', '-o',
                                 os.path.join(self.work, 'export.json')), 'export')
        self.expect(self.run('search', 'message'), 'search')
        self.expect(self.run('conversation', 'list', '--json'), 'conversation list')
        doomed = 'doomed-%d' % n
        try:
            r = client.post('/api/conversations/resolve', {'slug': doomed})
        except Exception:
            return
        if r.status == 200 and self.expect(self.run('conversation', 'delete', doomed), 'conversation delete'):
            self.deleted.add(doomed)


class Client:
    """The API side: new conversations and inbound messages, one at a time."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.conversations = {}     # slug -> id, acknowledged by the API
        self.messages = {}          # prompt -> (conversation id, message id)
        self.agent = 'a'
        self.not_found = []         # agents the ctl had imported that the API did not know
        self.stop = threading.Event()
        self.rotated = threading.Event()
        self.acks = 0

    def use_agent(self, agent):
        with self.lock:
            self.agent = agent

    def token_rotated(self):
        self.rotated.set()

    def snapshot(self):
        with self.lock:
            return dict(self.conversations)

    def post(self, path, body):
        r = self.app.post(path, body, timeout=5)
        if r.status == 401:
            # the ctl rotated the token: read it again, as n8n's user would
            self.app.forget_token()
            r = self.app.post(path, body, timeout=5)
        return r

    def loop(self):
        i = 0
        while not self.stop.is_set():
            try:
                slug = 'conversation-%d' % i
                r = self.post('/api/conversations/resolve', {'slug': slug})
                if r.status != 200:
                    time.sleep(0.02)
                    continue
                cid = r.json()['conversationId']
                with self.lock:
                    self.conversations[slug] = cid
                    agent = self.agent
                prompt = 'message %d' % i
                r = self.post('/api/ai/agent-inference',
                              {'prompt': prompt, 'conversationId': cid, 'agentId': agent,
                               'idempotencyKey': 'sharing-%d' % i})
                body = r.json() or {}
                if r.status == 404 and agent != 'a':
                    self.not_found.append((agent, r.body[:200]))
                if 'messageId' in body:
                    with self.lock:
                        self.messages[prompt] = (cid, body['messageId'])
                        self.acks += 1
                    i += 1
            except Exception:
                time.sleep(0.02)


def read_live(db_path):
    """What another process finds in the live database (a plain reader,
    as sqlite3 or a ctl verb would open it)."""
    db = sqlite3.connect('file:%s?mode=ro' % db_path, uri=True, timeout=10)
    try:
        conversations = {row[0] for row in db.execute('SELECT id FROM conversations')}
        messages = {row[0] for row in db.execute('SELECT id FROM messages')}
    finally:
        db.close()
    return conversations, messages


def integrity(db_path):
    db = sqlite3.connect(db_path)
    try:
        return db.execute('PRAGMA integrity_check').fetchone()[0]
    finally:
        db.close()


def main():
    global ROUNDS
    if '--full' in sys.argv:
        sys.argv.remove('--full')
        ROUNDS = 200
    args = parse_args()
    tap = Tap(PLAN)
    app = App(args)
    work = tempfile.mkdtemp(prefix='prs-sharing-')
    try:
        agent = os.path.join(work, 'a.md')
        with open(agent, 'w') as f:
            f.write('---\nid: a\nname: A\nallowedTools: []\n---\nAnswer briefly.\n')
        for argv, stdin in ((['agent', 'import', agent], None),
                            (['n8n', 'set', '--url', 'http://127.0.0.1:9', '--api-key-stdin'], 'key')):
            res = subprocess.run([args.ctl, '--data-dir', app.data_dir] + argv, input=stdin,
                                 capture_output=True, text=True, env=app.env(), timeout=30)
            if res.returncode != 0:
                raise RuntimeError('%s failed: %s' % (argv, res.stderr))
        app.start()
        run(tap, app, work)
    except Exception:
        import traceback
        tap.ok(False, 'unexpected exception', traceback.format_exc() + '\n' + app.log())
    finally:
        app.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    tap.finish()


def api_waits_then_says_busy(tap, app, db_path):
    """Another program (a ctl verb, sqlite3) keeps a write open: the API
    waits for it, and past the busy timeout answers 503 with Retry-After,
    storing nothing, instead of failing with a 500."""
    db = sqlite3.connect(db_path, timeout=10, isolation_level=None)
    db.execute('BEGIN IMMEDIATE')
    try:
        r = app.post('/api/conversations/resolve', {'slug': 'while-busy'}, timeout=20)
    finally:
        db.execute('ROLLBACK')
        db.close()
    body = r.json() or {}
    after = app.post('/api/conversations/resolve', {'slug': 'after-busy'})
    tap.ok(r.status == 503 and body.get('code') == 'storage-busy' and r.headers.get('Retry-After')
           and after.status == 200,
           'the API waits for another writer, then answers 503 storage-busy with Retry-After; '
           'once it is free, 200', '%r %r' % (r, after))


def run(tap, app, work):
    db_path = os.path.join(app.data_dir, 'prosponsive.db')
    api_waits_then_says_busy(tap, app, db_path)
    client = Client(app)
    ctl = Ctl(app, work)
    threads = [threading.Thread(target=client.loop, daemon=True),
               threading.Thread(target=ctl.loop, args=(client,), daemon=True)]
    for t in threads:
        t.start()

    seed = int(os.environ.get('PRS_TEST_SEED', time.time()))
    rng = random.Random(seed)
    tap.diag('kill moments drawn with PRS_TEST_SEED=%d' % seed)
    hidden = []          # (round, what the API acknowledged but another process could not read)
    restarts = 0
    for k in range(ROUNDS):
        # Each life of the app takes writes from both sides before it dies
        acks, verbs = client.acks, ctl.verbs
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (client.acks < acks + 2 or ctl.verbs < verbs + 2):
            time.sleep(0.01)

        # Another process reads the live database: everything acknowledged
        # so far must be there (the app is still running and writing)
        with client.lock:
            conversations = set(client.conversations.values())
            messages = {mid for _, mid in client.messages.values()}
        live_conversations, live_messages = read_live(db_path)
        missing = (conversations - live_conversations) | (messages - live_messages)
        if missing:
            hidden.append((k, len(missing), sorted(missing)[:3]))

        time.sleep(rng.uniform(0, 0.3))
        if k % 3 == 2:
            ctl.kill_current()
        app.kill(signal.SIGKILL)
        try:
            app.start(timeout=30)
            restarts += 1
        except RuntimeError as e:
            tap.diag(str(e))
            break

    time.sleep(0.5)
    client.stop.set()
    ctl.stop.set()
    for t in threads:
        t.join(90)

    tap.ok(restarts == ROUNDS, 'the app was killed with SIGKILL and restarted %d times' % restarts)
    tap.ok(len(client.messages) >= ROUNDS and len(ctl.rules) > 0 and len(ctl.agents) > 0,
           '%d API writes and %d ctl verbs acknowledged (%d ctl processes killed, %d busy)'
           % (len(client.messages), ctl.verbs, ctl.killed, ctl.busy))
    tap.ok(not ctl.failures, 'every ctl verb worked beside the running app', '\n'.join(ctl.failures[:5]))
    tap.ok(not hidden, 'each round, another process read everything the API had acknowledged',
           '\n'.join('round %d: %d missing, e.g. %s' % h for h in hidden[:5]))
    tap.ok(not client.not_found, 'an agent the ctl imported was usable through the API at once',
           client.not_found[:3])

    check_final(tap, app, client, ctl, db_path)
    check_backup(tap, app, ctl)


def check_final(tap, app, client, ctl, db_path):
    # API side: every acknowledged conversation and message, read through
    # the API and by another process
    app.forget_token()
    r = app.get('/api/conversations')
    # The token prosponsive-ctl reads (after its rotations) is the one the app accepts
    tap.ok(r.status == 200, "the token prosponsive-ctl reads is the one the app accepts (%d)" % r.status)
    listed = {c['id'] for c in (r.json() if r.status == 200 else [])}
    live_conversations, live_messages = read_live(db_path)
    lost = [s for s, cid in client.conversations.items() if cid not in listed or cid not in live_conversations]
    lost += [p for p, (_, mid) in client.messages.items() if mid not in live_messages]
    tap.ok(not lost, 'every acknowledged API write is there (%d conversations, %d messages)'
           % (len(client.conversations), len(client.messages)), lost[:5])

    # ctl side: rules, agents, providers
    db = sqlite3.connect('file:%s?mode=ro' % db_path, uri=True, timeout=10)
    rules = {row[0] for row in db.execute('SELECT tool FROM approval_rules')}
    agents = {row[0] for row in db.execute('SELECT id FROM agents')}
    providers = {row[0] for row in db.execute('SELECT name FROM providers')}
    schedules = {row[0] for row in db.execute('SELECT name FROM schedules')}
    left = {row[0] for row in db.execute('SELECT slug FROM conversations')} & ctl.deleted
    orphans = db.execute('SELECT count(*) FROM messages WHERE conversation_id NOT IN'
                         ' (SELECT id FROM conversations)').fetchone()[0]
    orphans += db.execute('SELECT count(*) FROM runs WHERE conversation_id NOT IN'
                          ' (SELECT id FROM conversations)').fetchone()[0]
    # the search index's own rows (FTS5's docsize: one per message indexed)
    orphans += db.execute('SELECT count(*) FROM message_search_docsize WHERE id NOT IN'
                          ' (SELECT rowid FROM messages)').fetchone()[0]
    mcp_listed = {row[0] for row in db.execute('SELECT DISTINCT s.name FROM mcp_tools t'
                                               ' JOIN mcp_servers s ON s.id = t.server_id')}
    db.close()
    wrong = ['rule ' + t for t in ctl.rules - rules] + ['agent ' + a for a in ctl.agents - agents]
    wrong += ['schedule ' + name for name in ctl.schedules - schedules]
    wrong += ['deleted conversation ' + s for s in left]
    wrong += ['%d rows of deleted conversations' % orphans] if orphans else []
    wrong += ['provider %s (%s)' % (p, 'gone' if here else 'back') for p, here in ctl.providers.items()
              if p not in ctl.uncertain and here != (p in providers)]
    wrong += ['the tools of MCP server ' + m for m in ctl.mcp_tested - mcp_listed]
    tap.ok(not wrong, 'every acknowledged ctl write is there (%d rules, %d agents, %d providers, '
           '%d schedules, %d MCP servers\' tools, %d conversations deleted, nothing of theirs left)'
           % (len(ctl.rules), len(ctl.agents), len(ctl.providers), len(ctl.schedules), len(ctl.mcp_tested),
              len(ctl.deleted)), wrong[:5])

    app.stop()
    result = integrity(db_path)
    tap.ok(result == 'ok', "PRAGMA integrity_check says '%s'" % result)


def check_backup(tap, app, ctl):
    if not ctl.backups:
        tap.ok(False, 'a backup was taken while the app ran')
        tap.ok(False, 'the backup restores')
        return
    path, before = ctl.backups[-1]
    tap.ok(integrity(path) == 'ok', 'a backup taken while the app ran passes integrity_check (%d taken)'
           % len(ctl.backups))

    restored = tempfile.mkdtemp(prefix='prs-restored-')
    shutil.copy(path, os.path.join(restored, 'prosponsive.db'))
    second = App(app.args, data_dir=restored, port=free_port())
    try:
        second.start()
        listed = {c['slug']: c['id'] for c in (second.get('/api/conversations').json() or [])}
        missing = [s for s, cid in before.items() if listed.get(s) != cid]
        tap.ok(not missing, 'restored as prosponsive.db of a new folder, it starts and holds the %d '
               'conversations acknowledged before it began' % len(before), missing[:5])
    finally:
        second.stop()
        shutil.rmtree(restored, ignore_errors=True)


if __name__ == '__main__':
    main()
