/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tls.h: the API server's TLS material. An ECDSA P-256 key and a
 * self-signed certificate for the loopback names (docs/api.md), made on first run
 * with GnuTLS, kept 0600 in the data folder and renewed before expiry. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define PRS_TLS_KEY_FILE  "tls-key.pem"
#define PRS_TLS_CERT_FILE "tls-cert.pem"

/* Makes the key and certificate when missing, unreadable, or valid for less
 * than 30 more days, then loads them. */
GTlsCertificate *prs_tls_ensure_certificate (const char       *data_dir,
                                             GError          **error);

/* "AB:CD:…" — the SHA-256 of the certificate's DER encoding. */
char            *prs_tls_dup_fingerprint    (GTlsCertificate  *certificate);
/* The certificate (not the key) as PEM. */
char            *prs_tls_dup_pem            (GTlsCertificate  *certificate);

G_END_DECLS
