# SPDX-License-Identifier: GPL-3.0-or-later
"""A real Dovecot (Debian's dovecot-imapd) on 127.0.0.1 for the email suite:
its own configuration, TLS certificate, user and Maildir in a work folder,
nothing under /etc/dovecot or /run/dovecot, implicit TLS only on a free port.
And an IMAP client for the test's side (Python's imaplib): APPEND, folder
listings, and delivery into the Maildir while the server is down, as a mail
transfer agent does.

Dovecot's master must start as root (it switches the mail processes to an
unprivileged user); Dovecot.unavailable() says why it cannot run here.

Python 3 standard library only.
"""

import email.message
import email.utils
import imaplib
import mailbox
import os
import re
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import time

MAIL_UID = 65534        # nobody: the mail processes' user
DOVECOT = shutil.which('dovecot') or '/usr/sbin/dovecot'

CONFIG = '''instance_name = prs-email-{tag}
base_dir = {work}/run
state_dir = {work}/state
protocols = imap
listen = 127.0.0.1
log_path = {work}/dovecot.log
info_log_path = {work}/dovecot.log
ssl = required
ssl_cert = <{work}/tls/cert.pem
ssl_key = <{work}/tls/key.pem
ssl_dh = </usr/share/dovecot/dh.pem
auth_mechanisms = plain login
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {work}/users
}}
userdb {{
  driver = static
  args = uid={uid} gid={uid} home={work}/mail/%n
}}
mail_location = maildir:~/Maildir
namespace inbox {{
  inbox = yes
  mailbox Archive {{
    auto = subscribe
    special_use = \\Archive
  }}
}}
protocol imap {{
  mail_max_userip_connections = 50
}}
service imap-login {{
  inet_listener imap {{
    port = 0
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {port}
    ssl = yes
  }}
}}
'''


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Dovecot:
    """One Dovecot with one user, in @work (a new folder)."""

    def __init__(self, work):
        self.work = work
        self.port = free_port()
        self.user = 'alice@example.test'
        self.password = secrets.token_urlsafe(18)
        self.proc = None
        self.cert = os.path.join(work, 'tls', 'cert.pem')

    @staticmethod
    def unavailable():
        """Why Dovecot cannot run here, or None"""
        if not os.path.exists(DOVECOT):
            return 'Dovecot is not installed (build-aux/install-deps.sh installs dovecot-imapd)'
        if os.geteuid() != 0:
            return "Dovecot's master process must start as root (it switches its mail processes to another user)"
        return None

    # ---- the server

    def prepare(self):
        for sub in ('run', 'state', 'tls', 'mail'):
            os.makedirs(os.path.join(self.work, sub))
        # The mail processes (uid 65534) must get through the work folder and
        # the test's folder around it (mkdtemp makes both 0700)
        for path in (os.path.dirname(self.work), self.work):
            os.chmod(path, os.stat(path).st_mode | 0o711)
        os.chown(os.path.join(self.work, 'mail'), MAIL_UID, MAIL_UID)
        subprocess.run(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1',
                        '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1',
                        '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
                        '-keyout', os.path.join(self.work, 'tls', 'key.pem'), '-out', self.cert],
                       check=True, capture_output=True)
        with open(os.path.join(self.work, 'users'), 'w') as f:
            f.write('%s:{PLAIN}%s::::::\n' % (self.user, self.password))
        with open(os.path.join(self.work, 'dovecot.conf'), 'w') as f:
            f.write(CONFIG.format(tag=os.getpid(), work=self.work, port=self.port, uid=MAIL_UID))

    def start(self, timeout=20):
        log = open(os.path.join(self.work, 'dovecot.out'), 'ab')
        self.proc = subprocess.Popen([DOVECOT, '-F', '-c', os.path.join(self.work, 'dovecot.conf')],
                                     stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('dovecot exited with %s:\n%s' % (self.proc.returncode, self.log()))
            try:
                with socket.create_connection(('127.0.0.1', self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError('dovecot did not listen within %d s:\n%s' % (timeout, self.log()))

    def stop(self):
        """The master and every process it started, by PID, as a service
        manager stops it (the master alone leaves sessions for ~10 s)."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = None
            return
        children = subprocess.run(['pgrep', '-P', str(self.proc.pid)], capture_output=True, text=True).stdout.split()
        for pid in [self.proc.pid] + [int(c) for c in children]:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for pid in children:
            for _ in range(100):
                try:
                    os.kill(int(pid), 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
        self.proc = None

    def log(self):
        try:
            with open(os.path.join(self.work, 'dovecot.log'), errors='replace') as f:
                return f.read()[-3000:]
        except OSError:
            return ''

    # ---- the client side

    def ssl_context(self):
        return ssl.create_default_context(cafile=self.cert)

    def connect(self):
        imap = imaplib.IMAP4_SSL('127.0.0.1', self.port, ssl_context=self.ssl_context(), timeout=30)
        imap.login(self.user, self.password)
        return imap

    @staticmethod
    def message(subject, message_id, sender='Alice Example <alice@example.com>', body='Hello.\n'):
        m = email.message.EmailMessage()
        m['From'] = sender
        m['To'] = 'alice@example.test'
        m['Subject'] = subject
        m['Date'] = email.utils.formatdate(localtime=True)
        m['Message-ID'] = message_id
        m.set_content(body)
        return m

    def append_at_once(self, *messages):
        """Puts @messages into INBOX in one step, so that a client watching
        INBOX sees them arrive together: APPENDed to a mailbox of their own,
        then MOVEd in one command (one EXISTS), the mailbox removed again.
        Returns their UIDs in INBOX, in order (Dovecot answers COPYUID)."""
        imap = self.connect()
        try:
            imap.create('Arriving')
            for m in messages:
                typ, data = imap.append('Arriving', None, imaplib.Time2Internaldate(time.time()), m.as_bytes())
                if typ != 'OK':
                    raise RuntimeError('APPEND: %s %s' % (typ, data))
            imap.select('Arriving')
            typ, data = imap.uid('MOVE', '1:*', 'INBOX')
            _, codes = imap.response('COPYUID')
            if typ != 'OK' or not codes or codes[0] is None:
                raise RuntimeError('MOVE: %s %s' % (typ, data))
            uids = []
            for part in codes[0].split()[2].decode().split(','):
                first, _, last = part.partition(':')
                uids.extend(range(int(first), int(last or first) + 1))
            if len(uids) != len(messages):
                raise RuntimeError('MOVE moved %d of %d: %s' % (len(uids), len(messages), codes))
            imap.close()
            imap.delete('Arriving')
            return uids
        finally:
            imap.logout()

    def append(self, *messages):
        """APPENDs @messages to INBOX over one connection, back to back;
        returns their UIDs (Dovecot answers APPENDUID)."""
        imap = self.connect()
        try:
            uids = []
            for m in messages:
                typ, data = imap.append('INBOX', None, imaplib.Time2Internaldate(time.time()), m.as_bytes())
                found = re.search(rb'APPENDUID \d+ (\d+)', data[0] or b'')
                if typ != 'OK' or found is None:
                    raise RuntimeError('APPEND: %s %s' % (typ, data))
                uids.append(int(found.group(1)))
            return uids
        finally:
            imap.logout()

    def deliver(self, m):
        """Into the Maildir's new/ while the server may be down"""
        home = os.path.join(self.work, 'mail', self.user.split('@')[0], 'Maildir')
        for sub in ('', 'new', 'cur', 'tmp'):
            os.makedirs(os.path.join(home, sub), exist_ok=True)
        key = mailbox.Maildir(home, create=False).add(m)
        for root, dirs, files in os.walk(os.path.join(self.work, 'mail')):
            for name in dirs + files:
                os.chown(os.path.join(root, name), MAIL_UID, MAIL_UID)
        return key

    def folder(self, name):
        """[{uid, messageId, subject}] of the folder @name"""
        imap = self.connect()
        try:
            typ, _ = imap.select('"%s"' % name, readonly=True)
            if typ != 'OK':
                raise RuntimeError('SELECT %s: %s' % (name, typ))
            typ, data = imap.uid('SEARCH', None, 'ALL')
            out = []
            for uid in (data[0] or b'').split():
                typ, parts = imap.uid('FETCH', uid, '(BODY.PEEK[HEADER.FIELDS (MESSAGE-ID SUBJECT)])')
                header = email.message_from_bytes(parts[0][1])
                out.append({'uid': int(uid), 'messageId': header['Message-ID'], 'subject': header['Subject']})
            return out
        finally:
            imap.logout()
