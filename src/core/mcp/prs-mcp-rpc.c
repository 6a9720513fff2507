/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-rpc.c: JSON-RPC 2.0 for PrsMcpClient: every request gets an id,
 * a deadline and, when asked, a progress token; answers, notifications and
 * the server's own requests are dispatched here. Everything runs on the
 * client's main context. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-json.h"
#include "prs-mcp-client-private.h"
#include "prs-mcp-message.h"


struct _PrsMcpRequest
{
  PrsMcpClient       *client;       /* not a reference: requests live in its table */
  gint64              id;
  char               *method;
  GTask              *task;
  GSource            *deadline;
  GSource            *cancel_source;
  GCancellable       *send_cancellable;
  guint               timeout_ms;
  gboolean            notify_cancel;
  PrsMcpProgressFunc  progress_func;
  gpointer            progress_data;
};

typedef struct
{
  PrsMcpClient *client;
  gint64        id;
} SendData;

void
prs_mcp_rpc_request_free (PrsMcpRequest *request)
{
  if (request->deadline != NULL)
    {
      g_source_destroy (request->deadline);
      g_source_unref (request->deadline);
    }
  if (request->cancel_source != NULL)
    {
      g_source_destroy (request->cancel_source);
      g_source_unref (request->cancel_source);
    }
  g_clear_object (&request->send_cancellable);
  g_clear_object (&request->task);
  g_free (request->method);
  g_free (request);
}


/* ---- Sending without an answer ---- */

static void
on_notice_sent (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!prs_mcp_transport_send_finish (PRS_MCP_TRANSPORT (source), result, &error))
    g_debug ("MCP notice not delivered: %s", error->message);
}

static gboolean
cancel_late (gpointer data)
{
  g_cancellable_cancel (data);
  return G_SOURCE_REMOVE;
}

static void
send_object (PrsMcpClient *self,
             JsonObject   *object)
{
  g_autoptr(GBytes) bytes = prs_mcp_message_serialize (object);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  GSource *timeout = g_timeout_source_new (self->request_ms);

  /* An HTTP server that never answers a notification must not keep it */
  g_source_set_callback (timeout, cancel_late, g_object_ref (cancellable), g_object_unref);
  g_source_set_static_name (timeout, "[prosponsive] MCP notice deadline");
  g_source_attach (timeout, self->context);
  g_source_unref (timeout);
  prs_mcp_transport_send_async (self->transport, bytes, cancellable, on_notice_sent, NULL);
}

void
prs_mcp_rpc_notify (PrsMcpClient *self,
                    const char   *method,
                    JsonObject   *params)
{
  g_autoptr(JsonObject) object = prs_mcp_message_new_notification (method, params);

  send_object (self, object);
}

static void
answer_server (PrsMcpClient *self,
               JsonNode     *id,
               JsonObject   *result,
               int           error_code,
               const char   *error_message)
{
  g_autoptr(JsonObject) object = result != NULL ? prs_mcp_message_new_result (id, result)
                                 : prs_mcp_message_new_error (id, error_code, error_message);

  send_object (self, object);
}

/* ---- Finishing a request ---- */

static void
complete (PrsMcpRequest *request,
          JsonNode      *result,
          GError        *error)
{
  PrsMcpClient *self = request->client;
  GTask *task = g_steal_pointer (&request->task);

  g_hash_table_steal (self->pending, &request->id);
  if (error != NULL)
    {
      /* Stop an HTTP answer still streaming */
      g_cancellable_cancel (request->send_cancellable);
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, result, (GDestroyNotify) json_node_unref);
  prs_mcp_rpc_request_free (request);
  g_object_unref (task);
}

static void
notify_cancelled (PrsMcpRequest *request,
                  const char    *reason)
{
  JsonObject *params;

  if (!request->notify_cancel)
    return;
  params = json_object_new ();
  json_object_set_int_member (params, "requestId", request->id);
  json_object_set_string_member (params, "reason", reason);
  prs_mcp_rpc_notify (request->client, "notifications/cancelled", params);
}

static char *
format_duration (guint ms)
{
  if (ms % 60000 == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u minute", "%u minutes", ms / 60000), ms / 60000);
  if (ms % 1000 == 0)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u second", "%u seconds", ms / 1000), ms / 1000);
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u millisecond", "%u milliseconds", ms), ms);
}

static gboolean
on_deadline (gpointer data)
{
  PrsMcpRequest *request = data;
  g_autofree char *duration = format_duration (request->timeout_ms);
  GError *error;

  /* Translators: %s is a method such as tools/call; the second %s a duration such as "10 minutes" */
  error = g_error_new (PRS_ERROR, PRS_ERROR_TIMEOUT, _("The server did not answer %s within %s."),
                       request->method, duration);
  notify_cancelled (request, "timeout");
  complete (request, NULL, error);
  return G_SOURCE_REMOVE;
}

static gboolean
on_cancelled (GCancellable *cancellable,
              gpointer      data)
{
  PrsMcpRequest *request = data;

  notify_cancelled (request, "The user stopped the call.");
  complete (request, NULL, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The call was stopped.")));
  return G_SOURCE_REMOVE;
}

void
prs_mcp_rpc_fail_all (PrsMcpClient *self,
                      const GError *error)
{
  GHashTableIter iter;
  gpointer request;

  /* One at a time from the table: a caller's callback may run inside
   * complete() and finish other requests */
  for (;;)
    {
      g_hash_table_iter_init (&iter, self->pending);
      if (!g_hash_table_iter_next (&iter, NULL, &request))
        break;
      complete (request, NULL, g_error_copy (error));
    }
}

/* ---- Sending a request ---- */

static void
on_request_sent (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  SendData *data = user_data;
  g_autoptr(PrsMcpClient) self = data->client;
  g_autoptr(GError) error = NULL;
  PrsMcpRequest *request;
  gboolean sent = prs_mcp_transport_send_finish (PRS_MCP_TRANSPORT (source), result, &error);

  request = g_hash_table_lookup (self->pending, &data->id);
  g_free (data);
  if (request == NULL)
    return;   /* answered, timed out or cancelled already */

  if (!sent)
    {
      if (prs_mcp_transport_answers_inline (self->transport) &&
          g_error_matches (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE))
        prs_mcp_client_connection_lost (self, error);
      complete (request, NULL, g_steal_pointer (&error));
      return;
    }
  if (prs_mcp_transport_answers_inline (self->transport))
    complete (request, NULL,
              g_error_new (PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
                           /* Translators: %s is a method such as tools/call */
                           _("The server ended its answer to %s without a result."), request->method));
}

static JsonObject *
build_request (PrsMcpRequest *request,
               JsonObject    *params)
{
  JsonObject *object = json_object_new ();

  if (params == NULL)
    params = json_object_new ();
  if (request->progress_func != NULL)
    {
      JsonObject *meta = json_object_new ();

      json_object_set_int_member (meta, "progressToken", request->id);
      json_object_set_object_member (params, "_meta", meta);
    }
  json_object_set_string_member (object, "jsonrpc", "2.0");
  json_object_set_int_member (object, "id", request->id);
  json_object_set_string_member (object, "method", request->method);
  json_object_set_object_member (object, "params", params);
  return object;
}

void
prs_mcp_rpc_request_async (PrsMcpClient        *self,
                           const char          *method,
                           JsonObject          *params,
                           guint                timeout_ms,
                           gboolean             notify_cancel,
                           PrsMcpProgressFunc   progress_func,
                           gpointer             progress_data,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  PrsMcpRequest *request = g_new0 (PrsMcpRequest, 1);
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(GBytes) bytes = NULL;
  SendData *data;

  request->client = self;
  request->id = ++self->next_id;
  request->method = g_strdup (method);
  request->task = g_task_new (self, cancellable, callback, user_data);
  request->timeout_ms = timeout_ms;
  request->notify_cancel = notify_cancel;
  request->progress_func = progress_func;
  request->progress_data = progress_data;
  request->send_cancellable = g_cancellable_new ();
  g_task_set_source_tag (request->task, prs_mcp_rpc_request_async);
  g_task_set_check_cancellable (request->task, FALSE);

  object = build_request (request, params);
  bytes = prs_mcp_message_serialize (object);
  if (g_bytes_get_size (bytes) > prs_mcp_transport_get_max_message (self->transport))
    {
      GTask *task = g_steal_pointer (&request->task);

      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_INVALID_INPUT, "%s",
                               _("The request is too large to send."));
      g_object_unref (task);
      prs_mcp_rpc_request_free (request);
      return;
    }

  g_hash_table_insert (self->pending, &request->id, request);
  request->deadline = g_timeout_source_new (timeout_ms);
  g_source_set_callback (request->deadline, on_deadline, request, NULL);
  g_source_set_static_name (request->deadline, "[prosponsive] MCP request deadline");
  g_source_attach (request->deadline, self->context);
  if (cancellable != NULL)
    {
      request->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (request->cancel_source, G_SOURCE_FUNC (on_cancelled), request, NULL);
      g_source_attach (request->cancel_source, self->context);
    }

  data = g_new0 (SendData, 1);
  data->client = g_object_ref (self);
  data->id = request->id;
  prs_mcp_transport_send_async (self->transport, bytes, request->send_cancellable, on_request_sent, data);
}

JsonNode *
prs_mcp_rpc_request_finish (PrsMcpClient  *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- What the server sends ---- */

static const char *
string_member (JsonObject *object,
               const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
number_member (JsonObject *object,
               const char *member,
               double     *out)
{
  JsonNode *node = json_object_get_member (object, member);
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type != G_TYPE_INT64 && type != G_TYPE_DOUBLE)
    return FALSE;
  *out = json_node_get_double (node);
  return TRUE;
}

/* The code of a JSON-RPC error object: 0 when there is none, or none an
 * int holds (a cast of 1e300 would be undefined) */
static int
error_code (JsonObject *error)
{
  double code = 0;

  if (!number_member (error, "code", &code) || code < G_MININT || code > G_MAXINT)
    return 0;
  return (int) code;
}

static PrsMcpRequest *
find_by_id_node (PrsMcpClient *self,
                 JsonNode     *id)
{
  gint64 key;

  /* Ours are integers; a server that echoes something else answers nothing of ours */
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_INT64)
    return NULL;
  key = json_node_get_int (id);
  return g_hash_table_lookup (self->pending, &key);
}

static void
on_progress (PrsMcpClient *self,
             JsonObject   *params)
{
  PrsMcpRequest *request = find_by_id_node (self, json_object_get_member (params, "progressToken"));
  double progress = 0, total = -1;
  g_autofree char *message = NULL;

  if (request == NULL || request->progress_func == NULL || !number_member (params, "progress", &progress))
    return;
  if (!number_member (params, "total", &total))
    total = -1;
  if (string_member (params, "message") != NULL)
    message = prs_http_clean_text (string_member (params, "message"), 500);
  request->progress_func (progress, total, message, request->progress_data);
}

static void
on_notification (PrsMcpClient *self,
                 const char   *method,
                 JsonObject   *params)
{
  if (g_str_equal (method, "notifications/progress") && params != NULL)
    on_progress (self, params);
  else if (g_str_equal (method, "notifications/tools/list_changed"))
    prs_mcp_client_tools_list_changed (self);
  else
    g_debug ("MCP server %s: notification %s ignored", self->server_name, method);
}

static void
on_response (PrsMcpClient *self,
             JsonObject   *object)
{
  PrsMcpRequest *request = find_by_id_node (self, json_object_get_member (object, "id"));
  JsonNode *result = json_object_get_member (object, "result");
  JsonNode *error = json_object_get_member (object, "error");

  if (request == NULL)
    {
      g_debug ("MCP server %s: an answer to no pending request", self->server_name);
      return;
    }
  if (error != NULL && JSON_NODE_HOLDS_OBJECT (error))
    {
      JsonObject *e = json_node_get_object (error);
      const char *said = string_member (e, "message");
      g_autofree char *clean = prs_http_clean_text (said, 1000);
      /* Translators: %s is a method such as tools/call, then the server's message and its error code */
      complete (request, NULL, g_error_new (PRS_ERROR, PRS_ERROR_MCP_SERVER, _("The server refused %s: %s (code %d)."),
                                            request->method, clean != NULL ? clean : "", error_code (e)));
    }
  else if (result != NULL && JSON_NODE_HOLDS_OBJECT (result))
    complete (request, json_node_copy (result), NULL);
  else
    /* Translators: %s is a method such as tools/call */
    complete (request, NULL, g_error_new (PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
                                          _("The server answered %s with something that is not a JSON-RPC result."),
                                          request->method));
}

void
prs_mcp_rpc_on_message (PrsMcpTransport *transport,
                        JsonNode        *message,
                        PrsMcpClient    *self)
{
  JsonObject *object = json_node_get_object (message);
  const char *method = string_member (object, "method");
  JsonNode *id = json_object_get_member (object, "id");
  JsonNode *params = json_object_get_member (object, "params");
  JsonObject *params_object = params != NULL && JSON_NODE_HOLDS_OBJECT (params) ? json_node_get_object (params) : NULL;
  g_autoptr(PrsMcpClient) hold = g_object_ref (self);

  if (g_strcmp0 (string_member (object, "jsonrpc"), "2.0") != 0)
    {
      g_debug ("MCP server %s: a message without jsonrpc 2.0 ignored", self->server_name);
      return;
    }

  if (method == NULL)
    on_response (self, object);
  else if (id == NULL || JSON_NODE_HOLDS_NULL (id))
    on_notification (self, method, params_object);
  else if (g_str_equal (method, "ping"))
    answer_server (self, id, json_object_new (), 0, NULL);
  else
    /* Sampling, roots, elicitation: Prosponsive offers none of them */
    answer_server (self, id, NULL, PRS_MCP_RPC_METHOD_NOT_FOUND, "Method not found");
}
