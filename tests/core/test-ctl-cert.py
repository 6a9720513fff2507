#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""prosponsive-ctl cert [--pem]: the local API's certificate as the running
service uses it (docs/api.md), checked against OpenSSL. TAP."""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

ctl = sys.argv[1]
results = []


def check(ok, what):
    results.append((bool(ok), what))


def run(*args):
    return subprocess.run([ctl, "--data-dir", data, *args], capture_output=True, text=True)


data = tempfile.mkdtemp(prefix="prs-ctl-cert-")
try:
    first = run("cert")
    check(first.returncode == 0, "cert exits 0")
    fingerprint = first.stdout.strip()
    check(re.fullmatch(r"([0-9A-F]{2}:){31}[0-9A-F]{2}", fingerprint), "prints a SHA-256 fingerprint")

    cert_path = os.path.join(data, "tls-cert.pem")
    key_path = os.path.join(data, "tls-key.pem")
    check(os.path.isfile(cert_path) and os.path.isfile(key_path), "key and certificate are in the data folder")
    check(stat.S_IMODE(os.stat(key_path).st_mode) == 0o600, "the key is 0600")
    check(stat.S_IMODE(os.stat(cert_path).st_mode) == 0o600, "the certificate is 0600")

    ossl = subprocess.run(["openssl", "x509", "-in", cert_path, "-noout", "-fingerprint", "-sha256"],
                          capture_output=True, text=True).stdout
    check(ossl.strip().split("=", 1)[-1] == fingerprint, "the fingerprint is OpenSSL's SHA-256 of the certificate")

    text = subprocess.run(["openssl", "x509", "-in", cert_path, "-noout", "-text"],
                          capture_output=True, text=True).stdout
    for name in ["DNS:localhost", "DNS:host.containers.internal", "DNS:host.docker.internal",
                 "IP Address:127.0.0.1", "IP Address:0:0:0:0:0:0:0:1"]:
        check(name in text, f"the certificate names {name}")
    check("prime256v1" in text or "P-256" in text, "the key is ECDSA P-256")

    pem = run("cert", "--pem")
    with open(cert_path) as f:
        check(pem.returncode == 0 and pem.stdout == f.read(), "--pem prints the certificate file")
    check("PRIVATE KEY" not in pem.stdout, "--pem never prints the key")

    again = run("cert")
    check(again.stdout.strip() == fingerprint, "a second call keeps the same certificate")

    bad = run("cert", "extra")
    check(bad.returncode == 2, "an extra argument is a usage error (exit 2)")
finally:
    shutil.rmtree(data, ignore_errors=True)

print(f"1..{len(results)}")
for n, (ok, what) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
sys.exit(0 if all(ok for ok, _ in results) else 1)
