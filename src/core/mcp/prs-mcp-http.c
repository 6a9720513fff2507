/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-http.c: MCP over Streamable HTTP (prs-mcp-http.h), on the app's
 * one HTTP engine (prs-http-request.h). Deadlines belong to the requests
 * (PrsMcpClient cancels a send when its request's deadline passes), so the
 * session has no I/O timeout that would cut a long event stream. */
#include "config.h"

#include <string.h>
#include <libsoup/soup.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-event-stream.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-mcp-http.h"

/* How much of an error answer's body is read for its message. */
#define ERROR_BODY_MAX  4096
/* An event stream carries many messages, each within the message limit
 * (the event parser's); the stream as a whole only ends with its request. */
#define STREAM_MAX      G_MAXSSIZE

struct _PrsMcpHttp
{
  PrsMcpTransport  parent_instance;

  char            *url;
  char           **headers;
  char            *session_id;
  SoupSession     *session;
  GCancellable    *listening;    /* the GET stream's, NULL when there is none */
};

G_DEFINE_FINAL_TYPE (PrsMcpHttp, prs_mcp_http, PRS_TYPE_MCP_TRANSPORT)

/* One request under way: a POST, or the GET stream when @listening */
typedef struct
{
  PrsMcpHttp      *self;
  PrsHttpRequest  *http;
  PrsEventStream  *events;     /* an event-stream answer; NULL for JSON */
  gboolean         listening;
} Exchange;

static void
exchange_free (Exchange *exchange)
{
  g_clear_object (&exchange->self);
  g_clear_object (&exchange->http);
  g_clear_pointer (&exchange->events, prs_event_stream_free);
  g_free (exchange);
}

const char *
prs_mcp_http_get_session_id (PrsMcpHttp *self)
{
  g_return_val_if_fail (PRS_IS_MCP_HTTP (self), NULL);

  return self->session_id;
}

/* ---- Errors in words ---- */

/* The message of a JSON-RPC error in an error answer's body, if any. */
static char *
error_body_message (GBytes *body)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  gsize len = 0;
  const char *data = body != NULL ? g_bytes_get_data (body, &len) : NULL;

  if (len == 0)
    return NULL;
  root = prs_json_parse_strict (data, len, 16, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  object = json_node_get_object (root);
  if (json_object_has_member (object, "error") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (object, "error")))
    object = json_object_get_object_member (object, "error");
  if (!json_object_has_member (object, "message") ||
      json_node_get_value_type (json_object_get_member (object, "message")) != G_TYPE_STRING)
    return NULL;
  return prs_http_clean_text (json_object_get_string_member (object, "message"), 200);
}

static void
set_status_error (Exchange  *exchange,
                  GError   **error)
{
  PrsMcpHttp *self = exchange->self;
  PrsHttpRequest *http = exchange->http;
  guint status = prs_http_request_get_status (http);
  g_autofree char *said = error_body_message (prs_http_request_get_body (http));
  g_autofree char *what = NULL;
  int code = status == SOUP_STATUS_NOT_FOUND ? PRS_ERROR_MCP_UNAVAILABLE : PRS_ERROR_MCP_SERVER;

  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    /* Translators: %u is an HTTP status such as 401 */
    what = g_strdup_printf (_("The server refused the request (HTTP %u): check the headers, such as its "
                              "Authorization or API key."), status);
  else if (status == SOUP_STATUS_NOT_FOUND && self->session_id != NULL)
    what = g_strdup (_("The server ended the session (HTTP 404)."));
  else if (SOUP_STATUS_IS_REDIRECTION (status))
    {
      const char *location = prs_http_request_get_response_header (http, "Location");
      /* Translators: %u is an HTTP status; %s is the address it points to */
      what = g_strdup_printf (_("The server redirects (HTTP %u) to %s; use that address instead."),
                              status, location != NULL ? location : "?");
    }
  else
    /* Translators: %u is an HTTP status, %s its reason phrase */
    what = g_strdup_printf (_("The server answered HTTP %u %s."), status, prs_http_request_get_reason (http));

  if (said != NULL)
    g_set_error (error, PRS_ERROR, code, "%s (%s)", what, said);
  else
    g_set_error_literal (error, PRS_ERROR, code, what);
  if (status == SOUP_STATUS_NOT_FOUND && !exchange->listening)
    g_clear_pointer (&self->session_id, g_free);
}

/* A request that did not complete, in words (the caller's cancellation
 * stays as it is). */
static GError *
describe_failure (Exchange *exchange,
                  GError   *cause)
{
  PrsMcpTransport *transport = PRS_MCP_TRANSPORT (exchange->self);

  switch (prs_http_request_get_failure (exchange->http))
    {
    case PRS_HTTP_FAILURE_CANCELLED:
      return g_error_copy (cause);
    case PRS_HTTP_FAILURE_TOO_LARGE:
      {
        g_autofree char *message = prs_mcp_transport_describe_limit (transport);

        return g_error_new_literal (PRS_ERROR, PRS_ERROR_MCP_PROTOCOL, message);
      }
    case PRS_HTTP_FAILURE_NONE:
      {
        /* The event stream's or a message's own error */
        GError *error = g_error_copy (cause);

        prs_mcp_transport_word_stream_error (transport, &error);
        return error;
      }
    default:
      /* Translators: who did not answer, in "Could not connect to the server at URL" */
      return prs_http_request_describe_failure (exchange->http, cause, _("the server"), exchange->self->url,
                                                PRS_ERROR_MCP_UNAVAILABLE, PRS_ERROR_MCP_PROTOCOL);
    }
}

/* ---- Reading an answer ---- */

static gboolean
on_stream_chunk (const char  *data,
                 gsize        len,
                 gpointer     user_data,
                 GError     **error)
{
  Exchange *exchange = user_data;

  return prs_event_stream_feed (exchange->events, data, len, error);
}

static void
remember_session (PrsMcpHttp     *self,
                  PrsHttpRequest *http)
{
  const char *id = prs_http_request_get_response_header (http, "Mcp-Session-Id");

  /* Visible ASCII only (the spec's rule), so it can go back in a header */
  if (id == NULL || id[0] == '\0' || strlen (id) > 1024)
    return;
  for (const char *p = id; *p != '\0'; p++)
    {
      if (*p < 0x21 || *p > 0x7e)
        return;
    }
  if (g_strcmp0 (self->session_id, id) != 0)
    {
      g_free (self->session_id);
      self->session_id = g_strdup (id);
    }
}

/* The status line and headers are in: an event stream is parsed as it
 * arrives; a JSON answer is kept up to the message limit. */
static void
on_headers (PrsHttpRequest *http,
            gpointer        user_data)
{
  Exchange *exchange = user_data;
  PrsMcpHttp *self = exchange->self;
  gsize max_message = prs_mcp_transport_get_max_message (PRS_MCP_TRANSPORT (self));

  if (!SOUP_STATUS_IS_SUCCESSFUL (prs_http_request_get_status (http)))
    return;
  remember_session (self, http);
  if (prs_http_request_has_content_type (http, "text/event-stream"))
    {
      exchange->events = prs_event_stream_new (PRS_EVENT_STREAM_SSE, max_message,
                                              prs_mcp_transport_deliver_event, self);
      prs_http_request_set_limits (http, STREAM_MAX, ERROR_BODY_MAX);
      prs_http_request_stream_body (http, on_stream_chunk, exchange);
    }
}

/* What came back, once complete: the messages it carried are delivered */
static gboolean
take_answer (Exchange  *exchange,
             GError   **error)
{
  PrsHttpRequest *http = exchange->http;
  GBytes *body;
  gsize len = 0;
  const char *data;

  if (!SOUP_STATUS_IS_SUCCESSFUL (prs_http_request_get_status (http)))
    {
      set_status_error (exchange, error);
      return FALSE;
    }
  if (exchange->events != NULL)
    {
      if (prs_event_stream_finish (exchange->events, error))
        return TRUE;
      prs_mcp_transport_word_stream_error (PRS_MCP_TRANSPORT (exchange->self), error);
      return FALSE;
    }
  body = prs_http_request_get_body (http);
  data = body != NULL ? g_bytes_get_data (body, &len) : NULL;
  if (len == 0)
    return TRUE;
  return prs_mcp_transport_deliver (PRS_MCP_TRANSPORT (exchange->self), data, len, error);
}

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Exchange *exchange = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (!prs_http_request_send_finish (exchange->http, result, &error))
    {
      g_task_return_error (task, describe_failure (exchange, error));
      return;
    }
  g_debug ("MCP %s %s → %u", exchange->listening ? "GET" : "POST", exchange->self->url,
           prs_http_request_get_status (exchange->http));
  if (!take_answer (exchange, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

/* ---- The transport ---- */

/* A request to the server's URL with the user's headers, the session and
 * the protocol revision; NULL when the URL is not usable. */
static PrsHttpRequest *
new_request (PrsMcpHttp *self,
             const char *method)
{
  PrsHttpRequest *http = prs_http_request_new (self->session, method, self->url);
  const char *version = prs_mcp_transport_get_protocol_version (PRS_MCP_TRANSPORT (self));

  if (http == NULL)
    return NULL;
  for (guint i = 0; self->headers != NULL && self->headers[i] != NULL; i++)
    {
      const char *colon = strchr (self->headers[i], ':');
      g_autofree char *name = NULL;
      g_autofree char *value = NULL;

      if (colon == NULL)
        continue;
      name = g_strstrip (g_strndup (self->headers[i], colon - self->headers[i]));
      value = g_strstrip (g_strdup (colon + 1));
      prs_http_request_set_header (http, name, value);
    }
  prs_http_request_set_header (http, "Accept", "application/json, text/event-stream");
  if (self->session_id != NULL)
    prs_http_request_set_header (http, "Mcp-Session-Id", self->session_id);
  if (version != NULL)
    prs_http_request_set_header (http, "MCP-Protocol-Version", version);
  return http;
}

/* Sends @http; @task finishes once its answer's messages were delivered */
static void
start_exchange (PrsMcpHttp     *self,
                GTask          *task,
                PrsHttpRequest *http,
                gboolean        listening)
{
  Exchange *exchange = g_new0 (Exchange, 1);

  exchange->self = g_object_ref (self);
  exchange->http = http;
  exchange->listening = listening;
  g_task_set_task_data (task, exchange, (GDestroyNotify) exchange_free);

  prs_http_request_set_limits (http, prs_mcp_transport_get_max_message (PRS_MCP_TRANSPORT (self)),
                               ERROR_BODY_MAX);
  prs_http_request_set_headers_func (http, on_headers, exchange);
  prs_http_request_send_async (http, g_task_get_cancellable (task), on_sent, task);
}

static void
send_async (PrsMcpTransport     *transport,
            GBytes              *message,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  PrsMcpHttp *self = PRS_MCP_HTTP (transport);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  PrsHttpRequest *http = new_request (self, SOUP_METHOD_POST);

  g_task_set_source_tag (task, send_async);
  if (http == NULL)
    {
      /* Translators: %s is what the user gave as the server's address */
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE,
                               _("“%s” is not a usable address."), self->url);
      g_object_unref (task);
      return;
    }
  prs_http_request_set_body (http, "application/json", message);
  start_exchange (self, task, http, FALSE);
}

static gboolean
task_finish (PrsMcpTransport  *transport,
             GAsyncResult     *result,
             GError          **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
open_async (PrsMcpTransport     *transport,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  PrsMcpHttp *self = PRS_MCP_HTTP (transport);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  /* Nothing to start: a new connection is a new session */
  if (self->listening != NULL)
    g_cancellable_cancel (self->listening);
  g_clear_object (&self->listening);
  g_clear_pointer (&self->session_id, g_free);
  g_task_return_boolean (task, TRUE);
}

/* ---- The server's own stream (GET) ---- */

static void
on_listen_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* A server without the stream answers 405, which is fine: its
   * notifications then come within the answers to requests */
  if (!g_task_propagate_boolean (G_TASK (result), &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("MCP GET stream of %s ended: %s", PRS_MCP_HTTP (source)->url, error->message);
}

static void
listen_stream (PrsMcpTransport *transport)
{
  PrsMcpHttp *self = PRS_MCP_HTTP (transport);
  PrsHttpRequest *http;

  if (self->listening != NULL)
    g_cancellable_cancel (self->listening);
  g_clear_object (&self->listening);

  http = new_request (self, SOUP_METHOD_GET);
  if (http == NULL)
    return;
  self->listening = g_cancellable_new ();
  prs_http_request_set_header (http, "Accept", "text/event-stream");
  start_exchange (self, g_task_new (self, self->listening, on_listen_done, NULL), http, TRUE);
}

static void
on_deleted (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  /* The spec asks clients to end their session; the answer does not matter */
  prs_http_request_send_finish (PRS_HTTP_REQUEST (source), result, NULL);
  g_object_unref (source);
}

static void
close_transport (PrsMcpTransport *transport)
{
  PrsMcpHttp *self = PRS_MCP_HTTP (transport);
  PrsHttpRequest *http;

  if (self->listening != NULL)
    g_cancellable_cancel (self->listening);
  g_clear_object (&self->listening);
  /* Requests under way end now (their senders hear that they were cancelled) */
  soup_session_abort (self->session);
  if (self->session_id == NULL)
    return;

  http = new_request (self, SOUP_METHOD_DELETE);
  g_clear_pointer (&self->session_id, g_free);
  if (http == NULL)
    return;
  prs_http_request_set_limits (http, ERROR_BODY_MAX, ERROR_BODY_MAX);
  prs_http_request_send_async (http, NULL, on_deleted, NULL);
}

static void
prs_mcp_http_finalize (GObject *object)
{
  PrsMcpHttp *self = PRS_MCP_HTTP (object);

  g_clear_object (&self->listening);
  g_clear_object (&self->session);
  g_free (self->url);
  g_strfreev (self->headers);
  g_free (self->session_id);

  G_OBJECT_CLASS (prs_mcp_http_parent_class)->finalize (object);
}

static void
prs_mcp_http_class_init (PrsMcpHttpClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  PrsMcpTransportClass *transport_class = PRS_MCP_TRANSPORT_CLASS (klass);

  object_class->finalize = prs_mcp_http_finalize;

  transport_class->open_async = open_async;
  transport_class->open_finish = task_finish;
  transport_class->send_async = send_async;
  transport_class->send_finish = task_finish;
  transport_class->listen = listen_stream;
  transport_class->close = close_transport;
  transport_class->answers_inline = TRUE;
}

static void
prs_mcp_http_init (PrsMcpHttp *self)
{
  self->session = prs_http_session_new (0);
}

PrsMcpTransport *
prs_mcp_http_new (const char         *url,
                  const char * const *headers)
{
  PrsMcpHttp *self;

  g_return_val_if_fail (url != NULL, NULL);

  self = g_object_new (PRS_TYPE_MCP_HTTP, NULL);
  self->url = g_strdup (url);
  self->headers = g_strdupv ((char **) headers);
  return PRS_MCP_TRANSPORT (self);
}
