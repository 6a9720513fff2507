/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-framing.h: the request line and the headers that frame a request
 * (Host, Content-Length, Transfer-Encoding, and the ones the guard trusts),
 * checked as libsoup parsed them, before anything else. A request whose
 * framing is ambiguous is answered 400 at once and its connection closed:
 * its body cannot be told from the next request. */
#pragma once

#include <libsoup/soup.h>

#include "prs-api-guard.h"

G_BEGIN_DECLS

/* TRUE to go on; else fills @rejection (400, code "bad-request-framing",
 * a sentence naming the problem). */
gboolean  prs_api_framing_check            (SoupServerMessage      *msg,
                                            PrsApiRejection        *rejection);

/* Answers @msg with @rejection now: libsoup would first read a body whose
 * length it cannot know (a negative Content-Length: until the client
 * gives up), so the whole HTTP/1.1 answer (JSON error body, Connection:
 * close) is written to @stream, the connection's own, and @msg is marked
 * rejected so that no handler runs. The caller then closes the
 * connection. */
void      prs_api_framing_reject           (SoupServerMessage      *msg,
                                            GIOStream              *stream,
                                            const PrsApiRejection  *rejection);

G_END_DECLS
