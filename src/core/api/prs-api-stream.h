/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-stream.h: the streams between a connection's socket and
 * libsoup: above TLS, an answer's header block is held until its body
 * follows, so that one answer leaves as one TLS record; under TLS, a
 * record is read in one recv() (tests/api/HARDENING.md, "Nagle"). API
 * thread only. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define PRS_TYPE_API_STREAM (prs_api_stream_get_type ())
G_DECLARE_FINAL_TYPE (PrsApiStream, prs_api_stream, PRS, API_STREAM, GTlsConnection)

/* Wraps @tls (a handshaken server connection over a stream made by
 * prs_api_stream_wrap_socket()); closing the result closes @tls. Its
 * properties are @tls's. */
GIOStream *prs_api_stream_new         (GIOStream *tls);

/* Wraps @connection (a socket's) for the TLS connection over it: a
 * record's header and body come in one read (prs-api-stream.c). */
GIOStream *prs_api_stream_wrap_socket (GIOStream *connection);

G_END_DECLS
