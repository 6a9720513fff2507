/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-http-request.c: PrsHttpRequest against a real TCP server on loopback
 * that answers each test with scripted bytes (a whole answer, one over the
 * cap, an error body larger than what is read of it, a body in pieces, an
 * answer that stops, one that is not HTTP), and against a closed port, an
 * unresolvable name and a plain server spoken to over TLS. */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-test-util.h"

#define PEER "Peer"

/* ---- A scripted server ---------------------------------------------------- */

/* Steps: "R" reads the request (headers and a Content-Length body), "S…"
 * sends the rest of the step, "W<ms>" waits, "H" holds the connection until
 * the client drops it (or 10 s pass), "C" closes. One connection. */
typedef struct
{
  GSocket  *listener;
  guint     port;
  GThread  *thread;
  char    **script;
  GString  *request;
  gboolean  dropped;   /* "H" ended because the client closed */
  gint      done;
} Server;

static void
read_request (GSocket *socket,
              GString *request)
{
  char buffer[4096];
  gssize n;
  const char *end;
  const char *length;
  gsize want = 0;

  while ((end = strstr (request->str, "\r\n\r\n")) == NULL)
    {
      n = g_socket_receive (socket, buffer, sizeof buffer, NULL, NULL);
      if (n <= 0)
        return;
      g_string_append_len (request, buffer, n);
    }
  length = strstr (request->str, "Content-Length: ");
  if (length != NULL)
    want = g_ascii_strtoull (length + strlen ("Content-Length: "), NULL, 10);
  while (request->len < (gsize) (end - request->str) + 4 + want)
    {
      n = g_socket_receive (socket, buffer, sizeof buffer, NULL, NULL);
      if (n <= 0)
        return;
      g_string_append_len (request, buffer, n);
    }
}

static void
send_all (GSocket    *socket,
          const char *data)
{
  gsize len = strlen (data);

  while (len > 0)
    {
      gssize n = g_socket_send (socket, data, len, NULL, NULL);

      if (n <= 0)
        return;
      data += n;
      len -= n;
    }
}

static gpointer
serve (gpointer data)
{
  Server *server = data;
  g_autoptr(GSocket) socket = g_socket_accept (server->listener, NULL, NULL);
  char buffer[4096];

  g_assert_nonnull (socket);
  g_socket_set_timeout (socket, 10);
  for (guint i = 0; server->script[i] != NULL; i++)
    {
      const char *step = server->script[i];

      if (step[0] == 'R')
        read_request (socket, server->request);
      else if (step[0] == 'S')
        send_all (socket, step + 1);
      else if (step[0] == 'W')
        g_usleep (g_ascii_strtoull (step + 1, NULL, 10) * 1000);
      else if (step[0] == 'H')
        {
          gssize n;

          while ((n = g_socket_receive (socket, buffer, sizeof buffer, NULL, NULL)) > 0)
            ;
          server->dropped = n == 0;
        }
      else if (step[0] == 'C')
        break;
    }
  g_socket_close (socket, NULL);
  g_atomic_int_set (&server->done, TRUE);
  return NULL;
}

static Server *
server_start (const char *first_step,
              ...)
{
  Server *server = g_new0 (Server, 1);
  g_autoptr(GStrvBuilder) steps = g_strv_builder_new ();
  g_autoptr(GError) error = NULL;
  va_list args;

  va_start (args, first_step);
  for (const char *step = first_step; step != NULL; step = va_arg (args, const char *))
    g_strv_builder_add (steps, step);
  va_end (args);

  server->script = g_strv_builder_end (steps);
  server->request = g_string_new (NULL);
  server->listener = prs_test_bind_loopback (&server->port);
  g_socket_listen (server->listener, &error);
  g_assert_no_error (error);
  server->thread = g_thread_new ("scripted-server", serve, server);
  return server;
}

/* libsoup closes a connection it gives up on from the main loop. */
static void
server_wait (Server *server)
{
  while (!g_atomic_int_get (&server->done))
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
server_stop (Server *server)
{
  server_wait (server);
  g_thread_join (server->thread);
  g_socket_close (server->listener, NULL);
  g_object_unref (server->listener);
  g_strfreev (server->script);
  g_string_free (server->request, TRUE);
  g_free (server);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Server, server_stop)

static char *
server_url (Server     *server,
            const char *scheme)
{
  return g_strdup_printf ("%s://127.0.0.1:%u/path", scheme, server->port);
}

/* ---- Sending ------------------------------------------------------------- */

typedef struct
{
  GMainLoop *loop;
  gboolean   ok;
  GError    *error;
} Wait;

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->ok = prs_http_request_send_finish (PRS_HTTP_REQUEST (source), result, &wait->error);
  g_main_loop_quit (wait->loop);
}

static gboolean
send_and_wait (PrsHttpRequest  *request,
               GCancellable    *cancellable,
               GError         **error)
{
  Wait wait = { g_main_loop_new (NULL, FALSE), FALSE, NULL };

  prs_http_request_send_async (request, cancellable, on_sent, &wait);
  g_main_loop_run (wait.loop);
  g_main_loop_unref (wait.loop);
  g_assert_true (wait.ok == (wait.error == NULL));
  if (wait.error != NULL)
    g_propagate_error (error, wait.error);
  return wait.ok;
}

static PrsHttpRequest *
request_new (SoupSession *session,
             const char  *url)
{
  PrsHttpRequest *request = prs_http_request_new (session, "POST", url);

  g_assert_nonnull (request);
  return request;
}

static void
assert_body (PrsHttpRequest *request,
             const char     *expected)
{
  GBytes *body = prs_http_request_get_body (request);

  g_assert_nonnull (body);
  g_assert_cmpmem (g_bytes_get_data (body, NULL), g_bytes_get_size (body), expected, strlen (expected));
}

/* ---- Tests --------------------------------------------------------------- */

static void
test_kept (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n"
                                           "Content-Length: 11\r\n\r\n{\"a\":true}\n", "C", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(JsonNode) body = json_from_string ("{\"question\":42}", NULL);
  g_autoptr(GError) error = NULL;

  prs_http_request_set_json_body (request, body);
  prs_http_request_set_header (request, "X-Test", "yes");
  g_assert_null (prs_http_request_get_body (request));
  g_assert_true (send_and_wait (request, NULL, &error));
  g_assert_no_error (error);

  g_assert_cmpuint (prs_http_request_get_status (request), ==, 200);
  g_assert_cmpstr (prs_http_request_get_reason (request), ==, "OK");
  g_assert_cmpstr (prs_http_request_get_content_type (request), ==, "application/json");
  g_assert_true (prs_http_request_has_content_type (request, "APPLICATION/json"));
  g_assert_true (prs_http_request_get_sent (request));
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_NONE);
  assert_body (request, "{\"a\":true}\n");

  /* What went out: the method, our user agent, the header, the JSON. */
  g_assert_true (g_str_has_prefix (server->request->str, "POST /path HTTP/1.1\r\n"));
  g_assert_nonnull (strstr (server->request->str, "\r\nUser-Agent: Prosponsive/"));
  g_assert_nonnull (strstr (server->request->str, "\r\nX-Test: yes\r\n"));
  g_assert_nonnull (strstr (server->request->str, "\r\nContent-Type: application/json\r\n"));
  g_assert_true (g_str_has_suffix (server->request->str, "\r\n\r\n{\"question\":42}"));
}

#define CHUNKED_100 "SHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n64\r\n" \
  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
  "\r\n0\r\n\r\n"

static void
test_cap (void)
{
  /* Exactly at the cap: read. */
  {
    g_autoptr(Server) server = server_start ("R", CHUNKED_100, "C", NULL);
    g_autoptr(SoupSession) session = prs_http_session_new (10);
    g_autofree char *url = server_url (server, "http");
    g_autoptr(PrsHttpRequest) request = request_new (session, url);
    g_autoptr(GError) error = NULL;

    prs_http_request_set_limits (request, 100, 0);
    g_assert_true (send_and_wait (request, NULL, &error));
    g_assert_cmpuint (g_bytes_get_size (prs_http_request_get_body (request)), ==, 100);
  }

  /* One byte under the body: refused, whatever the framing. */
  {
    g_autoptr(Server) server = server_start ("R", CHUNKED_100, "H", NULL);
    g_autoptr(SoupSession) session = prs_http_session_new (10);
    g_autofree char *url = server_url (server, "http");
    g_autoptr(PrsHttpRequest) request = request_new (session, url);
    g_autoptr(GError) error = NULL;

    prs_http_request_set_limits (request, 99, 0);
    g_assert_false (send_and_wait (request, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
    g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_TOO_LARGE);
    g_assert_null (prs_http_request_get_body (request));
    /* The rest is neither read nor waited for: the connection goes. */
    server_wait (server);
    g_assert_true (server->dropped);
  }
}

/* A Content-Length over the cap fails before a byte of the body is read,
 * error answers too unless they are cut. */
static void
test_cap_declared (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 404 Not Found\r\nContent-Length: 1000000\r\n\r\n",
                                           "H", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  prs_http_request_set_limits (request, 1000, 0);
  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_TOO_LARGE);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  server_wait (server);
  g_assert_true (server->dropped);
}

/* An error answer is read for its message: the start is kept and the rest
 * is not waited for. */
static void
test_error_body_cut (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 500 Oops\r\nContent-Length: 1000000\r\n\r\n",
                                           "S{\"message\":\"broken\"}and more", "H", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();

  prs_http_request_set_limits (request, 10, 20);
  g_assert_true (send_and_wait (request, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (prs_http_request_get_status (request), ==, 500);
  g_assert_cmpstr (prs_http_request_get_reason (request), ==, "Oops");
  assert_body (request, "{\"message\":\"broken\"}");
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  server_wait (server);
  g_assert_true (server->dropped);
}

typedef struct
{
  GString *seen;
  guint    calls;
  gboolean refuse;
} Sink;

static gboolean
on_chunk (const char  *data,
          gsize        len,
          gpointer     user_data,
          GError     **error)
{
  Sink *sink = user_data;

  sink->calls++;
  if (sink->refuse)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE, "not for me");
      return FALSE;
    }
  g_string_append_len (sink->seen, data, len);
  return TRUE;
}

static void
on_headers (PrsHttpRequest *request,
            gpointer        user_data)
{
  g_assert_null (prs_http_request_get_body (request));
  if (prs_http_request_has_content_type (request, "text/event-stream"))
    prs_http_request_stream_body (request, on_chunk, user_data);
}

static void
test_stream (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                           "Transfer-Encoding: chunked\r\n\r\n", "S5\r\nhello\r\n", "W100",
                                           "S6\r\n world\r\n", "W100", "S0\r\n\r\n", "C", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  Sink sink = { g_string_new (NULL), 0, FALSE };

  prs_http_request_set_headers_func (request, on_headers, &sink);
  g_assert_true (send_and_wait (request, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (sink.seen->str, ==, "hello world");
  g_assert_cmpuint (sink.calls, >=, 2);   /* as the pieces came */
  g_assert_null (prs_http_request_get_body (request));
  g_string_free (sink.seen, TRUE);
}

static void
test_stream_refused (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                           "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n", "H", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  Sink sink = { g_string_new (NULL), 0, TRUE };

  prs_http_request_set_headers_func (request, on_headers, &sink);
  g_assert_false (send_and_wait (request, NULL, &error));
  /* The chunk function's own error, as it was. */
  g_assert_error (error, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_assert_cmpstr (error->message, ==, "not for me");
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_NONE);
  g_assert_cmpuint (sink.calls, ==, 1);
  server_wait (server);
  g_assert_true (server->dropped);
  g_string_free (sink.seen, TRUE);
}

/* The deadline covers the whole answer: headers that came in time do not
 * extend it. */
static void
test_deadline (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01", "H", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (0);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) words = NULL;
  g_autofree char *expected = NULL;

  prs_http_request_set_deadline (request, 1);
  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_TIMEOUT);
  g_assert_cmpuint (prs_http_request_get_timeout (request), ==, 1);
  g_assert_true (prs_http_request_get_sent (request));
  server_wait (server);
  g_assert_true (server->dropped);

  words = prs_http_request_describe_failure (request, error, PEER, url, PRS_ERROR_PROVIDER_UNREACHABLE,
                                             PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_assert_error (words, PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE);
  expected = g_strdup_printf ("Peer at %s did not answer within 1 second. "
                              "Is it running, and is it not overloaded?", url);
  g_assert_cmpstr (words->message, ==, expected);
}

/* The session's I/O timeout: silence after the request. */
static void
test_io_timeout (void)
{
  g_autoptr(Server) server = server_start ("R", "H", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (1);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;

  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_TIMEOUT);
  g_assert_cmpuint (prs_http_request_get_timeout (request), ==, 1);
}

static gboolean
cancel_later (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

static void
test_cancel (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01", "H", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  g_timeout_add (200, cancel_later, cancellable);
  g_assert_false (send_and_wait (request, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_CANCELLED);
  server_wait (server);
  g_assert_true (server->dropped);
}

static void
test_refused (void)
{
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", prs_test_free_port ());
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) words = NULL;
  g_autofree char *expected = NULL;

  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_REFUSED);
  g_assert_false (prs_http_request_get_sent (request));

  words = prs_http_request_describe_failure (request, error, PEER, url, PRS_ERROR_N8N_UNREACHABLE,
                                             PRS_ERROR_N8N_BAD_RESPONSE);
  g_assert_error (words, PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE);
  expected = g_strdup_printf ("Could not connect to Peer at %s: connection refused. Is it running?", url);
  g_assert_cmpstr (words->message, ==, expected);
}

static void
test_not_http (void)
{
  g_autoptr(Server) server = server_start ("R", "Sthis is no HTTP\r\n\r\n", "C", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) words = NULL;

  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_NOT_HTTP);
  words = prs_http_request_describe_failure (request, error, PEER, url, PRS_ERROR_PROVIDER_UNREACHABLE,
                                             PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_assert_error (words, PRS_ERROR, PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_assert_true (g_str_has_prefix (words->message, "Peer at "));
  g_assert_nonnull (strstr (words->message, "sent an answer that is not valid HTTP"));
}

static void
test_broken (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789",
                                           "C", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) words = NULL;
  g_autofree char *start = NULL;

  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_BROKEN);
  g_assert_cmpuint (prs_http_request_get_status (request), ==, 200);
  words = prs_http_request_describe_failure (request, error, PEER, url, PRS_ERROR_PROVIDER_UNREACHABLE,
                                             PRS_ERROR_PROVIDER_BAD_RESPONSE);
  g_assert_error (words, PRS_ERROR, PRS_ERROR_PROVIDER_UNREACHABLE);
  start = g_strdup_printf ("The connection to Peer at %s broke off during the answer (", url);
  g_assert_true (g_str_has_prefix (words->message, start));
}

static void
test_dns (void)
{
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autoptr(PrsHttpRequest) request = request_new (session, "http://prosponsive-test.invalid/");
  g_autoptr(GError) error = NULL;

  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_DNS);
  g_assert_false (prs_http_request_get_sent (request));
}

/* https:// to a plain HTTP server: the handshake reads something that is
 * not TLS. */
static void
test_tls (void)
{
  g_autoptr(Server) server = server_start ("SHTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "C", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "https");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;

  g_assert_false (send_and_wait (request, NULL, &error));
  g_assert_true (error->domain == G_TLS_ERROR);
  g_assert_cmpint (prs_http_request_get_failure (request), ==, PRS_HTTP_FAILURE_TLS);
  g_assert_false (prs_http_request_get_sent (request));
}

/* Redirects are answers, never followed; Retry-After is read. */
static void
test_status_headers (void)
{
  g_autoptr(Server) server = server_start ("R", "SHTTP/1.1 302 Found\r\nLocation: https://elsewhere.example/\r\n"
                                           "Retry-After: 1.5\r\nContent-Length: 0\r\n\r\n", "C", NULL);
  g_autoptr(SoupSession) session = prs_http_session_new (10);
  g_autofree char *url = server_url (server, "http");
  g_autoptr(PrsHttpRequest) request = request_new (session, url);
  g_autoptr(GError) error = NULL;

  g_assert_true (send_and_wait (request, NULL, &error));
  g_assert_cmpuint (prs_http_request_get_status (request), ==, 302);
  g_assert_cmpstr (prs_http_request_get_response_header (request, "Location"), ==, "https://elsewhere.example/");
  g_assert_cmpuint (prs_http_request_get_retry_after (request, 86400), ==, 2);
  g_assert_cmpuint (prs_http_request_get_retry_after (request, 1), ==, 1);
  g_assert_null (prs_http_request_get_content_type (request));
  assert_body (request, "");
}

static void
test_unusable_url (void)
{
  g_autoptr(SoupSession) session = prs_http_session_new (10);

  g_assert_null (prs_http_request_new (session, "GET", "not a url"));
  g_assert_null (prs_http_request_new (session, "GET", "ftp://example.com/"));
}

static void
test_clean_text (void)
{
  static const struct
  {
    const char *in;
    guint       max;
    const char *out;
  } cases[] = {
    { NULL, 10, NULL },
    { "", 10, NULL },
    { " \n\t ", 10, NULL },
    { "  Database\nis locked  ", 50, "Database is locked" },
    { "abcdefghij", 10, "abcdefghij" },
    { "abcdefghijk", 10, "abcdefghij…" },
    { "ééééé", 3, "ééé…" },
    { "bad \xff byte", 50, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = prs_http_clean_text (cases[i].in, cases[i].max);

      g_assert_cmpstr (out, ==, cases[i].out);
    }
}

/* Several lines keep their breaks and tabs; other control characters
 * (an escape sequence, a bell, C1) still become spaces */
static void
test_clean_lines (void)
{
  g_autofree char *out = prs_http_clean_lines ("  first\n\tsecond\x1b[31m\x07 \xc2\x9b end\n", 100);
  g_autofree char *cut = prs_http_clean_lines ("a\nbcdef", 4);

  g_assert_cmpstr (out, ==, "first\n\tsecond [31m    end");
  g_assert_cmpstr (cut, ==, "a\nbc…");
  g_assert_null (prs_http_clean_lines ("\n\n", 10));
  g_assert_null (prs_http_clean_lines ("bad \xff", 10));
}

static void
test_header_name (void)
{
  g_assert_true (prs_http_is_header_name ("X-Api-Key"));
  g_assert_true (prs_http_is_header_name ("a!#$%&'*+-.^_`|~9"));
  g_assert_false (prs_http_is_header_name (""));
  g_assert_false (prs_http_is_header_name (NULL));
  g_assert_false (prs_http_is_header_name ("X Api"));
  g_assert_false (prs_http_is_header_name ("X:Api"));
  g_assert_false (prs_http_is_header_name ("Ä"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/http-request/kept", test_kept);
  g_test_add_func ("/http-request/cap", test_cap);
  g_test_add_func ("/http-request/cap-declared", test_cap_declared);
  g_test_add_func ("/http-request/error-body-cut", test_error_body_cut);
  g_test_add_func ("/http-request/stream", test_stream);
  g_test_add_func ("/http-request/stream-refused", test_stream_refused);
  g_test_add_func ("/http-request/deadline", test_deadline);
  g_test_add_func ("/http-request/io-timeout", test_io_timeout);
  g_test_add_func ("/http-request/cancel", test_cancel);
  g_test_add_func ("/http-request/refused", test_refused);
  g_test_add_func ("/http-request/not-http", test_not_http);
  g_test_add_func ("/http-request/broken", test_broken);
  g_test_add_func ("/http-request/dns", test_dns);
  g_test_add_func ("/http-request/tls", test_tls);
  g_test_add_func ("/http-request/status-headers", test_status_headers);
  g_test_add_func ("/http-request/unusable-url", test_unusable_url);
  g_test_add_func ("/http-request/clean-text", test_clean_text);
  g_test_add_func ("/http-request/clean-lines", test_clean_lines);
  g_test_add_func ("/http-request/header-name", test_header_name);

  return g_test_run ();
}
