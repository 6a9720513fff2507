/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-http-request.h: one HTTP request the way every client of the app
 * makes them (the AI providers, the n8n REST client, tool calls): sent with
 * libsoup without following redirects (a key in a header would travel
 * along), its answer read in chunks, either kept up to a size cap or handed
 * to a function as it arrives, cancellable, within a deadline, and every
 * way it can fail sorted into one PrsHttpFailure. What a status means, and
 * the words for it, belong to the caller; the words for a connection that
 * failed are here for callers that have none of their own. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

G_BEGIN_DECLS

/* A session with the app's user agent and @io_timeout seconds (0: none)
 * for connecting and for every wait on the next bytes, so that slow streams
 * live as long as they move. Clients keep one and hand it to each request. */
SoupSession *prs_http_session_new (guint io_timeout);
/* The same for requests to @base_url's host: to a loopback host (a local
 * model server, a local n8n) without asking the system's proxy resolver. */
SoupSession *prs_http_session_new_for (guint       io_timeout,
                                       const char *base_url);

typedef enum
{
  PRS_HTTP_FAILURE_NONE,         /* no failure, or the chunk function's own error */
  PRS_HTTP_FAILURE_CANCELLED,    /* the caller's cancellable */
  PRS_HTTP_FAILURE_TIMEOUT,      /* the deadline passed, or the session's I/O timeout */
  PRS_HTTP_FAILURE_NOT_HTTP,     /* what came back is not HTTP */
  PRS_HTTP_FAILURE_REFUSED,      /* nothing listens there */
  PRS_HTTP_FAILURE_DNS,          /* the host name could not be resolved */
  PRS_HTTP_FAILURE_TLS,          /* the TLS handshake or a TLS record failed */
  PRS_HTTP_FAILURE_BROKEN,       /* the connection broke while the answer arrived */
  PRS_HTTP_FAILURE_UNREACHABLE,  /* no route to the host or its network */
  PRS_HTTP_FAILURE_CONNECT,      /* another failure to connect (host not found, a proxy) */
  PRS_HTTP_FAILURE_OTHER,        /* another failure before the answer began */
  PRS_HTTP_FAILURE_TOO_LARGE,    /* the answer is larger than the cap */
} PrsHttpFailure;

#define PRS_TYPE_HTTP_REQUEST (prs_http_request_get_type ())
G_DECLARE_FINAL_TYPE (PrsHttpRequest, prs_http_request, PRS, HTTP_REQUEST, GObject)

/* Part of a 2xx answer's body, as it arrived; @data is valid for the call
 * only. Returning FALSE with @error set stops reading: the request then
 * fails with that error, unchanged. */
typedef gboolean (*PrsHttpChunkFunc)   (const char      *data,
                                        gsize            len,
                                        gpointer         user_data,
                                        GError         **error);
/* The status line and headers are in and the body is not read yet: the
 * moment to choose prs_http_request_stream_body() or other limits. */
typedef void     (*PrsHttpHeadersFunc) (PrsHttpRequest  *self,
                                        gpointer         user_data);

/* NULL when @url is not an absolute http(s) URL libsoup accepts. A request
 * is sent once; a retry is a new request. */
PrsHttpRequest *prs_http_request_new            (SoupSession        *session,
                                                 const char         *method,
                                                 const char         *url);
void            prs_http_request_set_header     (PrsHttpRequest     *self,
                                                 const char         *name,
                                                 const char         *value);
void            prs_http_request_set_body       (PrsHttpRequest     *self,
                                                 const char         *content_type,
                                                 GBytes             *body);
void            prs_http_request_set_json_body  (PrsHttpRequest     *self,
                                                 JsonNode           *body);
/* At most @seconds from sending to the last byte of the answer (0, the
 * default: no deadline of its own; the session's I/O timeout still holds). */
void            prs_http_request_set_deadline   (PrsHttpRequest     *self,
                                                 guint               seconds);
/* The body is read up to @max_body bytes (64 MiB by default); one byte more,
 * or a Content-Length above it, fails with PRS_HTTP_FAILURE_TOO_LARGE.
 * @max_error_body > 0: the body of an answer that is not 2xx is only read
 * for its message, its first @max_error_body bytes kept and the rest left
 * unread; 0: it obeys @max_body like any other. */
void            prs_http_request_set_limits     (PrsHttpRequest     *self,
                                                 gsize               max_body,
                                                 gsize               max_error_body);
void            prs_http_request_set_headers_func (PrsHttpRequest   *self,
                                                 PrsHttpHeadersFunc  func,
                                                 gpointer            user_data);
/* From the headers function, for a 2xx answer: the body goes to @func as it
 * arrives instead of being kept (the size cap still counts every byte). */
void            prs_http_request_stream_body    (PrsHttpRequest     *self,
                                                 PrsHttpChunkFunc    func,
                                                 gpointer            user_data);

/* Sends and reads the whole answer. _finish is TRUE once the answer is
 * complete, whatever its status; else the error is the cause as GIO or
 * libsoup gave it (G_IO_ERROR_TIMED_OUT when the deadline passed,
 * G_IO_ERROR_MESSAGE_TOO_LARGE over the cap, G_IO_ERROR_CANCELLED when
 * @cancellable fired), and prs_http_request_get_failure() sorts it. */
void            prs_http_request_send_async     (PrsHttpRequest     *self,
                                                 GCancellable       *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer            user_data);
gboolean        prs_http_request_send_finish    (PrsHttpRequest     *self,
                                                 GAsyncResult       *result,
                                                 GError            **error);

/* ---- The answer -------------------------------------------------------- */

SoupMessage    *prs_http_request_get_message    (PrsHttpRequest     *self);
PrsHttpFailure  prs_http_request_get_failure    (PrsHttpRequest     *self);
/* Whether the request's headers went out: a failure before that never
 * reached the server, so a retry cannot act twice. */
gboolean        prs_http_request_get_sent       (PrsHttpRequest     *self);
/* The seconds that ran out for PRS_HTTP_FAILURE_TIMEOUT: the deadline, or
 * the session's I/O timeout. */
guint           prs_http_request_get_timeout    (PrsHttpRequest     *self);
guint           prs_http_request_get_status     (PrsHttpRequest     *self);
/* The reason phrase, or the standard one when the server sent none or one
 * with control characters; "" when there is neither. */
const char     *prs_http_request_get_reason     (PrsHttpRequest     *self);
/* The media type without parameters, NULL when absent or unprintable. */
const char     *prs_http_request_get_content_type (PrsHttpRequest   *self);
gboolean        prs_http_request_has_content_type (PrsHttpRequest   *self,
                                                 const char         *type);
/* A response header, NULL when absent or when it holds control characters
 * (it may end up in a message). */
const char     *prs_http_request_get_response_header (PrsHttpRequest *self,
                                                 const char         *name);
/* Retry-After in seconds (a number, rounded up, or an HTTP date), at most
 * @max; 0 when absent or unreadable. */
guint           prs_http_request_get_retry_after (PrsHttpRequest    *self,
                                                 guint               max);
/* A Retry-After value (seconds, with or without a fraction, or an HTTP date)
 * as whole seconds from now, at most @max; 0 for NULL or what is neither. */
guint           prs_http_parse_retry_after      (const char         *value,
                                                 guint               max);
/* The body as read (cut at the error cap for an error answer); NULL while
 * sending, and for a body streamed to a chunk function. */
GBytes         *prs_http_request_get_body       (PrsHttpRequest     *self);

/* ---- Words ------------------------------------------------------------- */

/* A failure to connect or to finish the answer (not CANCELLED, TOO_LARGE or
 * the chunk function's error, which the caller words), in words for a
 * person: "Could not connect to @name at @url: connection refused. Is it
 * running?" and the like. @unreachable is the code of failures to connect,
 * time out or finish; @bad_response that of an answer that is not HTTP. */
GError         *prs_http_request_describe_failure (PrsHttpRequest   *self,
                                                 const GError       *cause,
                                                 const char         *name,
                                                 const char         *url,
                                                 int                 unreachable,
                                                 int                 bad_response);
/* Whether @text holds a control character (tab included): such text must
 * not go into a URL or a header (libsoup would print a header value with a
 * line break in a warning, key and all) nor into a message. */
gboolean        prs_http_has_control_chars      (const char         *text);
/* A peer's own words, fit to quote in a message: at most @max_chars
 * characters (then "…"), control characters as spaces, trimmed. NULL when
 * @text is NULL, not UTF-8, or blank. */
char           *prs_http_clean_text             (const char         *text,
                                                 guint               max_chars);
/* The same for text of several lines (a tool's description, a program's
 * last words on stderr): line feeds and tabs stay. */
char           *prs_http_clean_lines            (const char         *text,
                                                 guint               max_chars);
/* Whether @name is an HTTP header name (an RFC 9110 token). */
gboolean        prs_http_is_header_name         (const char         *name);

G_END_DECLS
