/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-call-tool.c: a test helper for the n8n suite (not a user command).
 *
 * Reads a workflow as n8n's public API returns it, turns it into a tool the
 * way discovery does, performs one tool call with prs_tool_call_run_async
 * and prints what happened as one JSON object on standard output:
 *
 *   {"tool":{"name","url"}, "toolCallId", "call":{status, result, error,
 *    errorCode, rediscover, httpStatus, attempts, url, forModel},
 *    "callback":{…the same…}|null, "callbackUrl"}
 *
 * With --callback-server it also plays /api/ai/agentic-loop-result: a
 * SoupServer on its own thread and GMainContext (like the real API server)
 * that hands {toolCallId, success, result?, error?}, with the call's secret
 * from the callbackUrl's query or the body, to a
 * PrsCallbackRegistry, on which the main thread waits when the workflow
 * answered "Workflow was started". The Header Auth value comes from the
 * environment (PRS_WEBHOOK_AUTH_VALUE), never from the command line. */
#include <stdio.h>
#include <string.h>

#include <libsoup/soup.h>

#include "prs-discovery.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-tool-call.h"
#include "prs-workflow.h"

typedef struct
{
  PrsCallbackRegistry *registry;
  GMainContext        *context;
  GMainLoop           *loop;
  GMutex               lock;
  GCond                cond;
  guint                port;
  gboolean             ready;
  guint                deliveries;
} CallbackServer;

static void
respond_json (SoupServerMessage *msg,
              guint              status,
              const char        *body)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
}

static void
on_callback (SoupServer        *server,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  CallbackServer *cb = user_data;
  g_autoptr(GBytes) bytes = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  JsonNode *success;
  const char *id;
  const char *error = NULL;
  const char *secret = NULL;

  if (g_strcmp0 (soup_server_message_get_method (msg), "POST") != 0 ||
      !g_str_equal (path, "/api/ai/agentic-loop-result"))
    {
      respond_json (msg, 404, "{\"error\":\"not found\"}");
      return;
    }

  root = prs_json_parse_bounded (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                 PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      respond_json (msg, 400, "{\"error\":\"the body must be a JSON object\"}");
      return;
    }
  object = json_node_get_object (root);
  id = json_object_has_member (object, "toolCallId") ? json_object_get_string_member (object, "toolCallId") : NULL;
  success = json_object_get_member (object, "success");
  if (id == NULL || success == NULL || json_node_get_value_type (success) != G_TYPE_BOOLEAN)
    {
      respond_json (msg, 400, "{\"error\":\"toolCallId (string) and success (boolean) are required\"}");
      return;
    }
  if (json_object_has_member (object, "error") &&
      json_node_get_value_type (json_object_get_member (object, "error")) == G_TYPE_STRING)
    error = json_object_get_string_member (object, "error");

  /* The secret as the real route takes it: the body's callbackSecret, or
   * the one in the callbackUrl the webhook was given */
  if (json_object_has_member (object, "callbackSecret") &&
      json_node_get_value_type (json_object_get_member (object, "callbackSecret")) == G_TYPE_STRING)
    secret = json_object_get_string_member (object, "callbackSecret");
  else if (query != NULL)
    secret = g_hash_table_lookup (query, "callbackSecret");

  g_atomic_int_inc (&cb->deliveries);
  switch (prs_callback_registry_deliver (cb->registry, id, secret, json_node_get_boolean (success),
                                         json_object_get_member (object, "result"), error, NULL))
    {
    case PRS_CALLBACK_DELIVERED:
      respond_json (msg, 200, "{\"ok\":true}");
      break;
    case PRS_CALLBACK_SECRET_MISSING:
    case PRS_CALLBACK_SECRET_WRONG:
    case PRS_CALLBACK_LOCKED:
      respond_json (msg, 403, "{\"error\":\"missing or wrong callback secret\"}");
      break;
    case PRS_CALLBACK_UNKNOWN:
    default:
      respond_json (msg, 404, "{\"error\":\"no tool call waits for this toolCallId\"}");
      break;
    }
}

static gpointer
callback_server_thread (gpointer data)
{
  CallbackServer *cb = data;
  g_autoptr(SoupServer) server = NULL;
  g_autoptr(GError) error = NULL;
  GSList *uris;

  g_main_context_push_thread_default (cb->context);
  server = soup_server_new (NULL, NULL);
  soup_server_add_handler (server, NULL, on_callback, cb, NULL);
  if (!soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("callback server: %s", error->message);
  uris = soup_server_get_uris (server);

  g_mutex_lock (&cb->lock);
  cb->port = g_uri_get_port (uris->data);
  cb->ready = TRUE;
  g_cond_signal (&cb->cond);
  g_mutex_unlock (&cb->lock);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  g_main_loop_run (cb->loop);
  soup_server_disconnect (server);
  g_main_context_pop_thread_default (cb->context);
  return NULL;
}

static JsonNode *
result_to_json (const PrsToolCallResult *result)
{
  g_autofree char *for_model = prs_tool_call_result_for_model (result);
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "status");
  json_builder_add_string_value (builder, prs_tool_call_status_to_string (result->status));
  json_builder_set_member_name (builder, "result");
  if (result->result != NULL)
    json_builder_add_value (builder, json_node_copy (result->result));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "error");
  if (result->error != NULL)
    json_builder_add_string_value (builder, result->error);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "errorCode");
  json_builder_add_int_value (builder, result->status == PRS_TOOL_CALL_FAILED ? result->error_code : -1);
  json_builder_set_member_name (builder, "rediscover");
  json_builder_add_boolean_value (builder, result->rediscover);
  json_builder_set_member_name (builder, "httpStatus");
  json_builder_add_int_value (builder, result->http_status);
  json_builder_set_member_name (builder, "attempts");
  json_builder_add_int_value (builder, result->attempts);
  json_builder_set_member_name (builder, "url");
  if (result->url != NULL)
    json_builder_add_string_value (builder, result->url);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "forModel");
  json_builder_add_string_value (builder, for_model);
  json_builder_end_object (builder);
  return json_builder_get_root (builder);
}

typedef struct
{
  PrsToolCallResult *result;
  GError            *error;
  gboolean           done;
} Outcome;

static void
on_called (GObject      *source,
           GAsyncResult *res,
           gpointer      user_data)
{
  Outcome *out = user_data;

  out->result = prs_tool_call_run_finish (res, &out->error);
  out->done = TRUE;
}

static void
on_waited (GObject      *source,
           GAsyncResult *res,
           gpointer      user_data)
{
  Outcome *out = user_data;

  out->result = prs_callback_registry_wait_finish (PRS_CALLBACK_REGISTRY (source), res, &out->error);
  out->done = TRUE;
}

/* The callback server on its own thread and context, as the API server
 * runs; returns once it listens */
static GThread *
callback_server_start (CallbackServer      *cb,
                       PrsCallbackRegistry *registry)
{
  GThread *thread;

  g_mutex_init (&cb->lock);
  g_cond_init (&cb->cond);
  cb->registry = registry;
  cb->context = g_main_context_new ();
  cb->loop = g_main_loop_new (cb->context, FALSE);
  thread = g_thread_new ("callback-server", callback_server_thread, cb);
  g_mutex_lock (&cb->lock);
  while (!cb->ready)
    g_cond_wait (&cb->cond, &cb->lock);
  g_mutex_unlock (&cb->lock);
  return thread;
}

static void
callback_server_stop (CallbackServer *cb,
                      GThread        *thread)
{
  g_main_loop_quit (cb->loop);
  g_main_context_wakeup (cb->context);
  g_thread_join (thread);
  g_main_loop_unref (cb->loop);
  g_main_context_unref (cb->context);
  g_mutex_clear (&cb->lock);
  g_cond_clear (&cb->cond);
}

/* What happened, as one JSON object on standard output (the format is in
 * the comment at the top) */
static void
print_outcome (PrsTool            *tool,
               const char         *n8n_url,
               PrsToolCallRequest *req,
               Outcome            *call,
               Outcome            *waited,
               int                 deliveries)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) output = NULL;
  g_autofree char *text = NULL;
  g_autofree char *url = NULL;

  url = prs_tool_dup_webhook_url (tool, n8n_url);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "tool");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, tool->name);
  json_builder_set_member_name (builder, "url");
  json_builder_add_string_value (builder, url);
  json_builder_end_object (builder);
  json_builder_set_member_name (builder, "toolCallId");
  json_builder_add_string_value (builder, req->tool_call_id);
  json_builder_set_member_name (builder, "callbackUrl");
  if (req->callback_url != NULL)
    json_builder_add_string_value (builder, req->callback_url);
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "call");
  json_builder_add_value (builder, result_to_json (call->result));
  json_builder_set_member_name (builder, "callback");
  if (waited->result != NULL)
    json_builder_add_value (builder, result_to_json (waited->result));
  else
    json_builder_add_null_value (builder);
  json_builder_set_member_name (builder, "callbackDeliveries");
  json_builder_add_int_value (builder, deliveries);
  json_builder_end_object (builder);
  output = json_builder_get_root (builder);
  text = prs_json_to_string (output, FALSE);
  printf ("%s\n", text);
  fflush (stdout);
}

/* The call as the run would make it, with what the command line says */
static PrsToolCallRequest *
request_new (PrsTool    *tool,
             const char *n8n_url,
             int         timeout,
             const char *args_json,
             const char *auth_name,
             const char *tool_call_id)
{
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(GError) error = NULL;

  req = prs_tool_call_request_new (tool, n8n_url);
  req->timeout_seconds = timeout > 0 ? (guint) timeout : 0;
  if (args_json != NULL)
    {
      g_autoptr(JsonNode) args_node = NULL;

      args_node = prs_json_parse_bounded (args_json, strlen (args_json), PRS_JSON_DEFAULT_MAX_DEPTH, &error);
      if (args_node == NULL || !JSON_NODE_HOLDS_OBJECT (args_node))
        {
          g_printerr ("prs-call-tool: --args must be a JSON object\n");
          return NULL;
        }
      req->arguments = json_object_ref (json_node_get_object (args_node));
    }
  if (auth_name != NULL)
    {
      req->auth_header_name = g_strdup (auth_name);
      req->auth_header_value = g_strdup (g_getenv ("PRS_WEBHOOK_AUTH_VALUE"));
    }
  if (tool_call_id != NULL)
    {
      g_free (req->tool_call_id);
      req->tool_call_id = g_strdup (tool_call_id);
    }
  req->conversation_id = g_strdup ("n8n-suite-conversation");
  req->agent_id = g_strdup ("prosponsive");
  req->execution = g_strdup ("n8n-suite-execution");
  return g_steal_pointer (&req);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *n8n_url = NULL;
  g_autofree char *workflow_file = NULL;
  g_autofree char *args_json = NULL;
  g_autofree char *auth_name = NULL;
  g_autofree char *tool_call_id = NULL;
  g_autofree char *callback_url = NULL;
  int timeout = 0;
  int callback_timeout = 60;
  gboolean callback_server = FALSE;
  GOptionEntry entries[] = {
    { "n8n", 0, 0, G_OPTION_ARG_STRING, &n8n_url, "n8n base URL", "URL" },
    { "workflow", 0, 0, G_OPTION_ARG_FILENAME, &workflow_file, "workflow JSON (GET /api/v1/workflows/{id})", "FILE" },
    { "args", 0, 0, G_OPTION_ARG_STRING, &args_json, "arguments, a JSON object", "JSON" },
    { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout, "call timeout in seconds", "S" },
    { "auth-name", 0, 0, G_OPTION_ARG_STRING, &auth_name, "Header Auth name (value: $PRS_WEBHOOK_AUTH_VALUE)", "NAME" },
    { "tool-call-id", 0, 0, G_OPTION_ARG_STRING, &tool_call_id, "toolCallId", "ID" },
    { "callback-url", 0, 0, G_OPTION_ARG_STRING, &callback_url, "callbackUrl to send", "URL" },
    { "callback-server", 0, 0, G_OPTION_ARG_NONE, &callback_server, "play agentic-loop-result", NULL },
    { "callback-timeout", 0, 0, G_OPTION_ARG_INT, &callback_timeout, "seconds to wait for the callback", "S" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("- call one n8n tool (test helper)");
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;
  g_autoptr(JsonNode) workflow_node = NULL;
  g_autoptr(PrsAnalysis) analysis = NULL;
  g_autoptr(PrsToolCallRequest) req = NULL;
  g_autoptr(PrsCallbackRegistry) registry = prs_callback_registry_new ();
  CallbackServer cb = { 0 };
  GThread *thread = NULL;
  Outcome call = { 0 };
  Outcome waited = { 0 };
  PrsWorkflow *workflow;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || n8n_url == NULL || workflow_file == NULL)
    {
      g_printerr ("prs-call-tool: %s\n", error != NULL ? error->message : "--n8n and --workflow are required");
      return 2;
    }

  if (!g_file_get_contents (workflow_file, &contents, &length, &error) ||
      (workflow_node = prs_json_parse_bounded (contents, length, PRS_JSON_DEFAULT_MAX_DEPTH, &error)) == NULL ||
      (workflow = prs_workflow_new_from_json (workflow_node, &error)) == NULL)
    {
      g_printerr ("prs-call-tool: %s: %s\n", workflow_file, error->message);
      return 2;
    }
  analysis = prs_analysis_new (workflow);
  if (analysis->tool->webhook_path == NULL)
    {
      g_printerr ("prs-call-tool: %s has no POST webhook\n", workflow_file);
      return 2;
    }

  req = request_new (analysis->tool, n8n_url, timeout, args_json, auth_name, tool_call_id);
  if (req == NULL)
    return 2;

  if (callback_server)
    {
      thread = callback_server_start (&cb, registry);
      g_free (callback_url);
      callback_url = g_strdup_printf ("http://127.0.0.1:%u/api/ai/agentic-loop-result", cb.port);
      req->callback_registry = g_object_ref (registry);
    }
  req->callback_url = g_strdup (callback_url);

  prs_tool_call_run_async (req, NULL, on_called, &call);
  while (!call.done)
    g_main_context_iteration (NULL, TRUE);
  if (call.result == NULL)
    {
      g_printerr ("prs-call-tool: %s\n", call.error->message);
      return 1;
    }

  if (callback_server && call.result->status == PRS_TOOL_CALL_WAITING_CALLBACK)
    {
      prs_callback_registry_wait_async (registry, req->tool_call_id, (guint) callback_timeout,
                                        NULL, on_waited, &waited);
      while (!waited.done)
        g_main_context_iteration (NULL, TRUE);
    }

  print_outcome (analysis->tool, n8n_url, req, &call, &waited, g_atomic_int_get (&cb.deliveries));

  if (thread != NULL)
    callback_server_stop (&cb, thread);
  g_clear_pointer (&call.result, prs_tool_call_result_free);
  g_clear_pointer (&waited.result, prs_tool_call_result_free);
  g_clear_error (&waited.error);
  return 0;
}
