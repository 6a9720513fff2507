/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-framing.c: refusing requests whose framing two parsers could read
 * two ways. libsoup 3.2.3 keeps every header line it parsed (so duplicates
 * are visible here), answers "get_one" with the last of them (two Host
 * lines: the last one won the Host check), reads a negative or 2^64-1
 * Content-Length as "until the end" and builds the request URI from an
 * absolute-form target instead of the Host header. It unfolds obs-fold
 * lines into one value with a space (RFC 9112 §5.2 allows that), which the
 * strict checks below and the guard then judge as one value. What libsoup
 * refuses itself (an unknown Transfer-Encoding: 501, an absolute-form
 * http:// target on TLS: 400) never reaches this code. Measured on the wire
 * in tests/api/test-api-framing.py. */
#include "config.h"

#include <string.h>

#include "prs-api-framing.h"
#include "prs-api-routes-private.h"
#include "prs-json.h"

/* Headers a request may carry once: each one is read by a single
 * soup_message_headers_get_one () somewhere, which picks one of several */
static const char * const single_headers[] = {
  "Host",
  "Content-Length",
  "Transfer-Encoding",
  "Authorization",
  "Content-Type",
  "Origin",
  "Expect",
};

typedef struct
{
  guint       counts[G_N_ELEMENTS (single_headers)];
  const char *bad_value;     /* name of a header whose value holds a control character */
} HeaderScan;

static void
scan_header (const char *name,
             const char *value,
             gpointer    user_data)
{
  HeaderScan *scan = user_data;

  for (gsize i = 0; i < G_N_ELEMENTS (single_headers); i++)
    if (g_ascii_strcasecmp (name, single_headers[i]) == 0)
      scan->counts[i]++;

  for (const char *p = value; *p != '\0' && scan->bad_value == NULL; p++)
    if (((guchar) *p < 0x20 && *p != '\t') || *p == 0x7f)
      scan->bad_value = name;
}

static gboolean
refuse (PrsApiRejection *rejection,
        const char      *message)
{
  rejection->status = SOUP_STATUS_BAD_REQUEST;
  rejection->code = "bad-request-framing";
  rejection->message = message;
  return FALSE;
}

/* 1 to 19 digits, nothing else: no sign, no spaces, no list */
static gboolean
content_length_is_plain (const char *value)
{
  gsize len = strlen (value);

  if (len == 0 || len > 19)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isdigit (value[i]))
      return FALSE;
  return TRUE;
}

/* The target named this server the way the Host header does: libsoup made
 * the URI from the Host header for an origin-form target ("/api/…"), from
 * the target itself for an absolute-form one ("https://evil.example/…").
 * A Host without a port stands for 443 (the guard refuses it anyway). */
static gboolean
target_matches_host (SoupServerMessage *msg,
                     const char        *host)
{
  GUri *uri = soup_server_message_get_uri (msg);
  const char *uri_host;
  g_autofree char *name = NULL;
  int port;

  if (uri == NULL || host == NULL || g_strcmp0 (g_uri_get_scheme (uri), "https") != 0 ||
      g_uri_get_userinfo (uri) != NULL || (uri_host = g_uri_get_host (uri)) == NULL)
    return FALSE;

  name = strchr (uri_host, ':') != NULL ? g_strdup_printf ("[%s]", uri_host) : g_strdup (uri_host);
  port = g_uri_get_port (uri);
  if (g_ascii_strncasecmp (host, name, strlen (name)) != 0)
    return FALSE;
  host += strlen (name);
  if (*host == '\0')
    return port == -1 || port == 443;

  return *host == ':' && port > 0 && g_ascii_strtoll (host + 1, NULL, 10) == port &&
         strspn (host + 1, "0123456789") == strlen (host + 1);
}

gboolean
prs_api_framing_check (SoupServerMessage *msg,
                       PrsApiRejection   *rejection)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  HeaderScan scan = { { 0 }, NULL };
  const char *length, *encoding, *host;

  g_return_val_if_fail (rejection != NULL, FALSE);

  soup_message_headers_foreach (headers, scan_header, &scan);
  for (gsize i = 0; i < G_N_ELEMENTS (single_headers); i++)
    if (scan.counts[i] > 1)
      return refuse (rejection, "The request has a header that may appear once (Host, Content-Length, "
                                "Transfer-Encoding, Authorization, Content-Type, Origin or Expect) more "
                                "than once.");
  if (scan.bad_value != NULL)
    return refuse (rejection, "A header value holds a control character.");

  length = soup_message_headers_get_one (headers, "Content-Length");
  encoding = soup_message_headers_get_one (headers, "Transfer-Encoding");
  if (length != NULL && encoding != NULL)
    return refuse (rejection, "The request has both Content-Length and Transfer-Encoding.");
  if (length != NULL && !content_length_is_plain (length))
    return refuse (rejection, "Content-Length must be a whole number of bytes (digits only).");
  if (encoding != NULL && g_ascii_strcasecmp (encoding, "chunked") != 0)
    return refuse (rejection, "The only Transfer-Encoding accepted is “chunked”.");

  if (strcmp (soup_server_message_get_method (msg), SOUP_METHOD_CONNECT) == 0 ||
      soup_server_message_is_options_ping (msg))
    return refuse (rejection, "The request target must be a path (“/api/…”).");

  /* A request without Host is the guard's to refuse (403) */
  host = soup_message_headers_get_one (headers, "Host");
  if (host != NULL && !target_matches_host (msg, host))
    return refuse (rejection, "The request target must be a path (“/api/…”), or name the same "
                              "https host as the Host header.");

  return TRUE;
}

void
prs_api_framing_reject (SoupServerMessage     *msg,
                        GIOStream             *stream,
                        const PrsApiRejection *rejection)
{
  JsonObject *object = prs_api_error_object (rejection->code, rejection->message);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autofree char *body = prs_json_to_string (node, FALSE);
  g_autofree char *answer = NULL;
  g_autoptr(GError) error = NULL;
  GOutputStream *out;

  json_object_unref (object);
  prs_api_guard_reject (msg, rejection);
  if (stream == NULL)
    return;

  answer = g_strdup_printf ("HTTP/1.1 %u %s\r\n"
                            "Server: Prosponsive/" PACKAGE_VERSION "\r\n"
                            "Connection: close\r\n"
                            "Cache-Control: no-store\r\n"
                            "Content-Type: application/json\r\n"
                            "Content-Length: %" G_GSIZE_FORMAT "\r\n"
                            "\r\n%s",
                            rejection->status, soup_status_get_phrase (rejection->status),
                            strlen (body), body);

  /* Nothing of this request's answer has been written yet: libsoup writes
   * only after the body. A few hundred bytes fit any socket buffer. */
  out = g_io_stream_get_output_stream (stream);
  if (!g_output_stream_write_all (out, answer, strlen (answer), NULL, NULL, &error) ||
      !g_output_stream_flush (out, NULL, &error))
    g_debug ("Could not answer a badly framed request: %s", error->message);
}
