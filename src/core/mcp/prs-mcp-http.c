/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-http.c: MCP over Streamable HTTP (prs-mcp-http.h), on libsoup's
 * asynchronous API. Deadlines belong to the requests (PrsMcpClient cancels
 * a send when its request's deadline passes), so the session itself has
 * no I/O timeout that would cut a long event stream. */
#include "config.h"

#include <string.h>
#include <libsoup/soup.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-event-stream.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-mcp-http.h"
#include "prs-mcp-tool.h"

#define READ_CHUNK      65536
/* How much of an error answer's body is read for its message. */
#define ERROR_BODY_MAX  4096

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

typedef struct
{
  SoupMessage     *msg;
  GInputStream    *stream;
  PrsEventStream  *events;     /* an event-stream answer; NULL for JSON */
  GByteArray      *body;       /* a JSON answer or an error body */
  gsize            limit;
  gboolean         listening;  /* the GET stream, not a POST */
} Post;

static void
post_free (Post *post)
{
  g_clear_object (&post->msg);
  g_clear_object (&post->stream);
  g_clear_pointer (&post->events, prs_event_stream_free);
  g_clear_pointer (&post->body, g_byte_array_unref);
  g_free (post);
}

const char *
prs_mcp_http_get_session_id (PrsMcpHttp *self)
{
  g_return_val_if_fail (PRS_IS_MCP_HTTP (self), NULL);

  return self->session_id;
}

/* ---- Errors in words ---- */

static void
set_unreachable (PrsMcpHttp  *self,
                 GError      *cause,
                 GError     **error)
{
  /* Translators: %s is an address, the second %s the network's reason */
  g_set_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE,
               _("Could not reach %s: %s"), self->url, cause->message);
}

/* The message of a JSON-RPC error in an error answer's body, if any. */
static char *
error_body_message (GByteArray *body)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;

  if (body == NULL || body->len == 0)
    return NULL;
  root = prs_json_parse_strict ((const char *) body->data, body->len, 16, NULL);
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
set_status_error (PrsMcpHttp  *self,
                  Post        *post,
                  GError     **error)
{
  guint status = soup_message_get_status (post->msg);
  g_autofree char *said = error_body_message (post->body);
  g_autofree char *what = NULL;

  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    /* Translators: %u is an HTTP status such as 401 */
    what = g_strdup_printf (_("The server refused the request (HTTP %u): check the headers, such as its "
                              "Authorization or API key."), status);
  else if (status == SOUP_STATUS_NOT_FOUND && self->session_id != NULL)
    what = g_strdup (_("The server ended the session (HTTP 404)."));
  else if (SOUP_STATUS_IS_REDIRECTION (status))
    {
      const char *location = soup_message_headers_get_one (soup_message_get_response_headers (post->msg),
                                                           "Location");
      /* Translators: %u is an HTTP status; %s is the address it points to */
      what = g_strdup_printf (_("The server redirects (HTTP %u) to %s; use that address instead."),
                              status, location != NULL ? location : "?");
    }
  else
    /* Translators: %u is an HTTP status, %s its reason phrase */
    what = g_strdup_printf (_("The server answered HTTP %u %s."), status,
                            soup_message_get_reason_phrase (post->msg));

  if (said != NULL)
    g_set_error (error, PRS_ERROR, status == SOUP_STATUS_NOT_FOUND ? PRS_ERROR_MCP_UNAVAILABLE : PRS_ERROR_MCP_SERVER,
                 "%s (%s)", what, said);
  else
    g_set_error_literal (error, PRS_ERROR,
                         status == SOUP_STATUS_NOT_FOUND ? PRS_ERROR_MCP_UNAVAILABLE : PRS_ERROR_MCP_SERVER, what);
  if (status == SOUP_STATUS_NOT_FOUND && !post->listening)
    g_clear_pointer (&self->session_id, g_free);
}

/* ---- Reading an answer ---- */

static gboolean
on_event (const char  *event,
          const char  *data,
          gsize        len,
          const char  *id,
          gpointer     user_data,
          GError     **error)
{
  PrsMcpTransport *self = user_data;

  /* Events without data only prime a reconnection */
  if (len == 0 || (g_strcmp0 (event, "message") != 0 && event != NULL))
    return TRUE;
  return prs_mcp_transport_deliver (self, data, len, error);
}

static gboolean
finish_body (GTask   *task,
             GError **error)
{
  PrsMcpHttp *self = g_task_get_source_object (task);
  Post *post = g_task_get_task_data (task);
  guint status = soup_message_get_status (post->msg);

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      set_status_error (self, post, error);
      return FALSE;
    }
  if (post->events != NULL)
    return prs_event_stream_finish (post->events, error);
  if (post->body->len == 0)
    return TRUE;
  return prs_mcp_transport_deliver (PRS_MCP_TRANSPORT (self), (const char *) post->body->data,
                                    post->body->len, error);
}

static gboolean
take_chunk (GTask    *task,
            GBytes   *chunk,
            GError  **error)
{
  PrsMcpHttp *self = g_task_get_source_object (task);
  Post *post = g_task_get_task_data (task);
  gsize len = g_bytes_get_size (chunk);

  if (post->events != NULL)
    {
      if (prs_event_stream_feed (post->events, g_bytes_get_data (chunk, NULL), len, error))
        return TRUE;
      prs_mcp_transport_word_stream_error (PRS_MCP_TRANSPORT (self), error);
      return FALSE;
    }

  if (!SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (post->msg)))
    {
      /* An error body is read for its message, up to the limit */
      g_byte_array_append (post->body, g_bytes_get_data (chunk, NULL),
                           MIN (len, post->limit - MIN (post->body->len, post->limit)));
      return TRUE;
    }
  if (len > post->limit - MIN (post->body->len, post->limit))
    {
      g_autofree char *message = prs_mcp_transport_describe_limit (PRS_MCP_TRANSPORT (self));

      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL, message);
      return FALSE;
    }
  g_byte_array_append (post->body, g_bytes_get_data (chunk, NULL), len);
  return TRUE;
}

static void on_chunk (GObject *source, GAsyncResult *result, gpointer user_data);

/* Reads the next chunk of the answer; the read owns @task. */
static void
read_chunk (GTask *task)
{
  Post *post = g_task_get_task_data (task);

  g_input_stream_read_bytes_async (post->stream, READ_CHUNK, G_PRIORITY_DEFAULT,
                                   g_task_get_cancellable (task), on_chunk, task);
}

static void
on_chunk (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsMcpHttp *self = g_task_get_source_object (task);
  Post *post = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) chunk = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);

  if (chunk == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autoptr(GError) cause = g_steal_pointer (&error);

          set_unreachable (self, cause, &error);
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (g_bytes_get_size (chunk) == 0 ||
      (post->body != NULL && post->body->len >= post->limit && !SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (post->msg))))
    {
      if (finish_body (task, &error))
        g_task_return_boolean (task, TRUE);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!take_chunk (task, chunk, &error))
    {
      /* Stop reading: cancelling makes libsoup drop the connection
       * instead of draining what is left */
      g_task_return_error (task, g_steal_pointer (&error));
      g_input_stream_close_async (post->stream, G_PRIORITY_DEFAULT, NULL, NULL, NULL);
      return;
    }
  read_chunk (g_steal_pointer (&task));
}

static void
remember_session (PrsMcpHttp  *self,
                  SoupMessage *msg)
{
  const char *id = soup_message_headers_get_one (soup_message_get_response_headers (msg), "Mcp-Session-Id");

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

static void
on_sent (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsMcpHttp *self = g_task_get_source_object (task);
  Post *post = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  const char *type;
  guint status;

  post->stream = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (post->stream == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autoptr(GError) cause = g_steal_pointer (&error);

          set_unreachable (self, cause, &error);
        }
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  status = soup_message_get_status (post->msg);
  type = soup_message_headers_get_content_type (soup_message_get_response_headers (post->msg), NULL);
  g_debug ("MCP POST %s → %u %s", self->url, status, type != NULL ? type : "");
  if (SOUP_STATUS_IS_SUCCESSFUL (status))
    remember_session (self, post->msg);

  post->limit = SOUP_STATUS_IS_SUCCESSFUL (status) ? prs_mcp_transport_get_max_message (PRS_MCP_TRANSPORT (self))
                                                   : ERROR_BODY_MAX;
  if (SOUP_STATUS_IS_SUCCESSFUL (status) && g_strcmp0 (type, "text/event-stream") == 0)
    post->events = prs_event_stream_new (PRS_EVENT_STREAM_SSE, post->limit, on_event, self);
  else
    post->body = g_byte_array_new ();

  read_chunk (g_steal_pointer (&task));
}

/* ---- The transport ---- */

static void
add_headers (PrsMcpHttp  *self,
             SoupMessage *msg)
{
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  const char *version = prs_mcp_transport_get_protocol_version (PRS_MCP_TRANSPORT (self));

  for (guint i = 0; self->headers != NULL && self->headers[i] != NULL; i++)
    {
      const char *colon = strchr (self->headers[i], ':');
      g_autofree char *name = NULL;
      g_autofree char *value = NULL;

      if (colon == NULL)
        continue;
      name = g_strstrip (g_strndup (self->headers[i], colon - self->headers[i]));
      value = g_strstrip (g_strdup (colon + 1));
      soup_message_headers_replace (headers, name, value);
    }
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  if (self->session_id != NULL)
    soup_message_headers_replace (headers, "Mcp-Session-Id", self->session_id);
  if (version != NULL)
    soup_message_headers_replace (headers, "MCP-Protocol-Version", version);
}

static void
send_async (PrsMcpTransport     *transport,
            GBytes              *message,
            GCancellable        *cancellable,
            GAsyncReadyCallback  callback,
            gpointer             user_data)
{
  PrsMcpHttp *self = PRS_MCP_HTTP (transport);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Post *post = g_new0 (Post, 1);

  g_task_set_source_tag (task, send_async);
  g_task_set_task_data (task, post, (GDestroyNotify) post_free);

  post->msg = soup_message_new (SOUP_METHOD_POST, self->url);
  if (post->msg == NULL)
    {
      /* Translators: %s is what the user gave as the server's address */
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE,
                               _("“%s” is not a usable address."), self->url);
      return;
    }
  /* Headers may carry secrets: they must not follow a redirect elsewhere */
  soup_message_add_flags (post->msg, SOUP_MESSAGE_NO_REDIRECT);
  soup_message_set_request_body_from_bytes (post->msg, "application/json", message);
  add_headers (self, post->msg);

  soup_session_send_async (self->session, post->msg, G_PRIORITY_DEFAULT, cancellable,
                           on_sent, g_steal_pointer (&task));
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
  g_autoptr(GTask) task = NULL;
  Post *post;

  if (self->listening != NULL)
    g_cancellable_cancel (self->listening);
  g_clear_object (&self->listening);
  self->listening = g_cancellable_new ();

  task = g_task_new (self, self->listening, on_listen_done, NULL);
  post = g_new0 (Post, 1);
  post->listening = TRUE;
  g_task_set_task_data (task, post, (GDestroyNotify) post_free);
  post->msg = soup_message_new (SOUP_METHOD_GET, self->url);
  if (post->msg == NULL)
    {
      g_task_return_boolean (task, FALSE);
      return;
    }
  soup_message_add_flags (post->msg, SOUP_MESSAGE_NO_REDIRECT);
  add_headers (self, post->msg);
  soup_message_headers_replace (soup_message_get_request_headers (post->msg), "Accept", "text/event-stream");
  soup_session_send_async (self->session, post->msg, G_PRIORITY_DEFAULT, self->listening,
                           on_sent, g_steal_pointer (&task));
}

static void
on_deleted (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GInputStream) stream = soup_session_send_finish (SOUP_SESSION (source), result, NULL);

  if (stream != NULL)
    g_input_stream_close (stream, NULL, NULL);
}

static void
close_transport (PrsMcpTransport *transport)
{
  PrsMcpHttp *self = PRS_MCP_HTTP (transport);
  g_autoptr(SoupMessage) msg = NULL;

  if (self->listening != NULL)
    g_cancellable_cancel (self->listening);
  g_clear_object (&self->listening);
  soup_session_abort (self->session);
  if (self->session_id == NULL)
    return;

  /* The spec asks clients to end their session; the answer does not matter */
  msg = soup_message_new (SOUP_METHOD_DELETE, self->url);
  if (msg != NULL)
    {
      add_headers (self, msg);
      soup_session_send_async (self->session, msg, G_PRIORITY_DEFAULT, NULL, on_deleted, NULL);
    }
  g_clear_pointer (&self->session_id, g_free);
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
  self->session = soup_session_new_with_options ("user-agent", "Prosponsive/" PACKAGE_VERSION,
                                                 "timeout", 0,
                                                 "idle-timeout", 60,
                                                 NULL);
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
