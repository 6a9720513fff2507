/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-mcp.c: the routes behind `prosponsive-ctl mcp serve` (docs/api.md,
 * docs/mcp.md): the tools offered to other MCP clients, a call made for one
 * (an MCP-client run in the "MCP clients" conversation, decided like an
 * agent's call), its state while it waits and runs, and a decision on it.
 * Bodies and ids are checked here, on the API thread; the tools and the
 * runner are the main thread's, reached through prs_api_defer. */
#include "config.h"

#include <string.h>

#include "prs-api-routes-private.h"
#include "prs-error.h"
#include "prs-json.h"
#include "prs-run.h"
#include "prs-tool-invoke.h"

#define MAX_TOOL_NAME_CHARS         256
#define MAX_APPROVAL_TIMEOUT        86400

static JsonNode *
success_node (JsonObject *object)
{
  json_object_set_boolean_member (object, "success", TRUE);
  return json_node_init_object (json_node_alloc (), object);
}

static JsonNode *
error_node (const char *code,
            const char *message)
{
  g_autoptr(JsonObject) object = prs_api_error_object (code, message);

  return json_node_init_object (json_node_alloc (), object);
}

/* ---- GET /api/mcp/tools ---- */

static JsonObject *
tool_object (const PrsTool *tool)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "name", tool->name);
  json_object_set_string_member (object, "description", tool->description != NULL ? tool->description : "");
  json_object_set_member (object, "inputSchema", prs_tool_build_input_schema (tool));
  json_object_set_string_member (object, "source", prs_tool_is_mcp (tool) ? "mcp" : "n8n");
  if (prs_tool_is_mcp (tool))
    json_object_set_string_member (object, "server", tool->mcp_server);
  return object;
}

static gboolean
list_tools_on_main (gpointer user_data)
{
  GTask *task = user_data;
  PrsRunner *runner = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = prs_tool_list_exposed (prs_runner_get_env (runner), &error);
  g_autoptr(JsonObject) answer = json_object_new ();
  JsonArray *array;

  if (tools == NULL)
    {
      g_message ("Could not list the tools for MCP clients: %s", error->message);
      prs_api_task_return_answer (task, SOUP_STATUS_INTERNAL_SERVER_ERROR,
                                  error_node ("internal-error", "The tools could not be read."));
      g_object_unref (task);
      return G_SOURCE_REMOVE;
    }
  array = json_array_sized_new (tools->len);
  for (guint i = 0; i < tools->len; i++)
    json_array_add_object_element (array, tool_object (g_ptr_array_index (tools, i)));
  json_object_set_array_member (answer, "tools", array);
  prs_api_task_return_answer (task, SOUP_STATUS_OK, success_node (answer));
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static void
handle_tools (PrsApiRoutes      *routes,
              SoupServerMessage *msg)
{
  GTask *task = prs_api_defer (routes, msg);

  g_task_set_task_data (task, g_object_ref (routes->runner), g_object_unref);
  g_main_context_invoke (routes->main_context, list_tools_on_main, task);
}

/* ---- POST /api/mcp/tools/call ---- */

typedef struct
{
  PrsRunner  *runner;
  char       *conversation_id;
  char       *tool_name;
  JsonObject *arguments;
  guint       timeout;
} CallRequest;

static void
call_request_free (CallRequest *request)
{
  g_clear_object (&request->runner);
  g_free (request->conversation_id);
  g_free (request->tool_name);
  g_clear_pointer (&request->arguments, json_object_unref);
  g_free (request);
}

static gboolean
call_on_main (gpointer user_data)
{
  GTask *task = user_data;
  CallRequest *request = g_task_get_task_data (task);
  PrsRunOptions options = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  g_autoptr(JsonObject) answer = json_object_new ();

  /* Nothing the user has not discovered or shared is called */
  if (!prs_tool_is_exposed (prs_runner_get_env (request->runner), request->tool_name))
    {
      prs_api_task_return_answer (task, SOUP_STATUS_NOT_FOUND,
                                  error_node ("tool-not-found", "No tool of this name is offered to MCP clients."));
      g_object_unref (task);
      return G_SOURCE_REMOVE;
    }

  options.origin = PRS_RUN_ORIGIN_MCP_CLIENT;
  options.conversation_id = request->conversation_id;
  options.temperature = -1;
  options.tool_name = request->tool_name;
  options.arguments = request->arguments;
  options.approval_timeout = request->timeout;
  run = prs_runner_start (request->runner, &options, FALSE, &error);
  if (run == NULL)
    {
      g_message ("Could not start an MCP client's tool call: %s", error->message);
      prs_api_task_return_answer (task, SOUP_STATUS_INTERNAL_SERVER_ERROR,
                                  error_node ("internal-error", "The tool call could not be started."));
      g_object_unref (task);
      return G_SOURCE_REMOVE;
    }

  prs_runner_expire_calls_after (request->runner, prs_run_get_id (run), request->timeout, request->timeout);

  json_object_set_string_member (answer, "callId", prs_run_get_id (run));
  json_object_set_string_member (answer, "conversationId", request->conversation_id);
  /* The call's run was stored without waiting for the disk (it may wait
   * for a free slot before anything else is written): there first */
  prs_api_task_return_answer_after (task, SOUP_STATUS_ACCEPTED, success_node (answer),
                                    prs_store_get_last_commit (prs_runner_get_env (request->runner)->store));
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* approvalTimeoutSeconds: an optional integer, 1 to a day */
static gboolean
get_timeout (SoupServerMessage *msg,
             JsonObject        *object,
             guint             *out)
{
  JsonNode *node = json_object_get_member (object, "approvalTimeoutSeconds");
  gint64 value;

  *out = PRS_RUN_DEFAULT_APPROVAL_TIMEOUT;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      (value = json_node_get_int (node)) < 1 || value > MAX_APPROVAL_TIMEOUT)
    return prs_api_field_error (msg, "approvalTimeoutSeconds", "must be an integer from 1 to 86400");
  *out = (guint) value;
  return TRUE;
}

static void
handle_call (PrsApiRoutes      *routes,
             SoupServerMessage *msg)
{
  g_autoptr(JsonNode) body = prs_api_parse_body (msg);
  g_autoptr(GError) error = NULL;
  g_autofree char *conversation_id = NULL;
  const char *name;
  JsonNode *arguments;
  gboolean created = FALSE;
  CallRequest *request;
  guint timeout;
  GTask *task;

  if (body == NULL ||
      !prs_api_get_string (msg, json_node_get_object (body), "name", "name", TRUE, TRUE, MAX_TOOL_NAME_CHARS, &name) ||
      !prs_api_get_object (msg, json_node_get_object (body), "arguments", "arguments", FALSE, &arguments) ||
      !get_timeout (msg, json_node_get_object (body), &timeout))
    return;

  /* Made like resolve makes a conversation, once */
  if (!prs_store_resolve_conversation (routes->store, PRS_MCP_CLIENTS_CONVERSATION, &conversation_id, &created, &error))
    {
      prs_api_internal_error (msg, error);
      return;
    }
  if (created && routes->conversation_created != NULL)
    routes->conversation_created (routes->notify_data, conversation_id);

  request = g_new0 (CallRequest, 1);
  request->runner = g_object_ref (routes->runner);
  request->conversation_id = g_steal_pointer (&conversation_id);
  request->tool_name = g_strdup (name);
  request->arguments = arguments != NULL ? json_object_ref (json_node_get_object (arguments)) : NULL;
  request->timeout = timeout;
  task = prs_api_defer (routes, msg);
  g_task_set_task_data (task, request, (GDestroyNotify) call_request_free);
  g_main_context_invoke (routes->main_context, call_on_main, task);
}

/* ---- GET /api/mcp/tools/calls/{id} ---- */

/* A long poll's longest hold: the answer then says the state as it is */
#define MAX_WAIT_SECONDS  60
#define REVISION_CHARS    16

/* The call's state in the API's words */
static const char *
state_of (PrsRunRow      *run,
          PrsToolCallRow *call,
          JsonObject     *extra)
{
  const char *status = call != NULL ? call->status : NULL;

  if (call == NULL)
    return g_strcmp0 (run->status, PRS_RUN_RUNNING) == 0 ? "queued" : "failed";
  if (g_strcmp0 (status, "proposed") == 0)
    return "awaiting_approval";
  if (g_strcmp0 (status, "denied") == 0 && extra != NULL &&
      json_object_get_boolean_member_with_default (extra, "cancelledByClient", FALSE))
    return "cancelled";
  if (g_strcmp0 (status, "denied") == 0)
    return extra != NULL && json_object_get_boolean_member_with_default (extra, "timedOut", FALSE)
           ? "timed_out" : "denied";
  if (g_strcmp0 (status, "succeeded") == 0 || g_strcmp0 (status, "failed") == 0 ||
      g_strcmp0 (status, "cancelled") == 0)
    return status;
  if (g_strcmp0 (status, "interrupted") == 0)
    return "failed";
  return "running";
}

static void
copy_member (JsonObject *from,
             JsonObject *to,
             const char *name)
{
  JsonNode *node = from != NULL ? json_object_get_member (from, name) : NULL;

  if (node != NULL && !JSON_NODE_HOLDS_NULL (node))
    json_object_set_member (to, name, json_node_copy (node));
}

/* A short text that changes whenever the answer does: what a long poll
 * compares */
static char *
revision_of (JsonObject *answer)
{
  g_autofree char *text = prs_json_object_to_string (answer, FALSE);
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);

  return g_strndup (digest, REVISION_CHARS);
}

/* The route's answer about @run_id, read from @store (the API thread's,
 * or the main thread's while a long poll waits), with its status (404 for
 * no MCP client's call); NULL with @error when the store failed.
 * *@out_settled: the call has ended, nothing of it changes any more. */
static JsonNode *
build_call_state (PrsStore    *store,
                  const char  *run_id,
                  guint       *out_status,
                  gboolean    *out_settled,
                  char       **out_revision,
                  GError     **error)
{
  g_autoptr(PrsRunRow) run = prs_store_lookup_run (store, run_id, error);
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(JsonNode) message = NULL;
  g_autoptr(JsonObject) answer = json_object_new ();
  PrsToolCallRow *call = NULL;
  JsonObject *extra = NULL;
  const char *state;

  *out_settled = TRUE;
  *out_revision = NULL;
  if (run == NULL && error != NULL && *error != NULL)
    return NULL;
  if (run == NULL || g_strcmp0 (run->origin, PRS_RUN_ORIGIN_MCP_CLIENT) != 0)
    {
      *out_status = SOUP_STATUS_NOT_FOUND;
      return error_node ("call-not-found", "There is no MCP client's call with this id.");
    }
  calls = prs_store_list_tool_calls (store, run_id, error);
  if (calls == NULL)
    return NULL;
  call = calls->len > 0 ? g_ptr_array_index (calls, 0) : NULL;
  if (call != NULL && (message = prs_store_get_message (store, call->message_id, NULL)) != NULL &&
      json_object_has_member (json_node_get_object (message), "extra"))
    extra = prs_json_object_get_object (json_node_get_object (message), "extra");
  state = state_of (run, call, extra);

  json_object_set_string_member (answer, "callId", run_id);
  json_object_set_string_member (answer, "status", state);
  if (call != NULL)
    {
      json_object_set_string_member (answer, "name", call->name);
      json_object_set_string_member (answer, "messageId", call->message_id);
    }
  copy_member (extra, answer, "progress");
  copy_member (extra, answer, "result");
  copy_member (extra, answer, "error");
  if (call == NULL && run->error != NULL)
    json_object_set_string_member (answer, "error", run->error);
  *out_settled = g_strcmp0 (state, "queued") != 0 && g_strcmp0 (state, "awaiting_approval") != 0 &&
                 g_strcmp0 (state, "running") != 0;
  *out_revision = revision_of (answer);
  json_object_set_string_member (answer, "revision", *out_revision);
  *out_status = SOUP_STATUS_OK;
  return success_node (answer);
}

/* A long poll held on the main thread, where the runner says what
 * changes: answered when the call's state differs from what the client
 * saw or when the wait is over, and dropped when its connection ends
 * first (libsoup says so when the connection is closed, its deadline or
 * the service's stop; a client that left meanwhile costs at most the
 * wait). The API thread never waits for it. */
typedef struct
{
  GTask        *task;
  PrsRunner    *runner;
  GMainContext *context;
  char         *run_id;
  char         *conversation_id;
  char         *revision;        /* what the client saw */
  guint         wait;
  GSource      *timeout;
  GSource      *gone;
  GSource      *recheck;
} CallWatch;

static void
drop_source (GSource **source)
{
  if (*source == NULL)
    return;
  g_source_destroy (*source);
  g_clear_pointer (source, g_source_unref);
}

static void
call_watch_free (CallWatch *watch)
{
  g_signal_handlers_disconnect_by_data (watch->runner, watch);
  drop_source (&watch->timeout);
  drop_source (&watch->gone);
  drop_source (&watch->recheck);
  g_clear_object (&watch->task);
  g_clear_object (&watch->runner);
  g_free (watch->run_id);
  g_free (watch->conversation_id);
  g_free (watch->revision);
  g_free (watch);
}

/* Answers with the state now if it changed (@always: whatever it is);
 * TRUE when the watch is over (and freed) */
static gboolean
watch_answer (CallWatch *watch,
              gboolean   always)
{
  PrsStore *store = prs_runner_get_env (watch->runner)->store;
  g_autoptr(GError) error = NULL;
  g_autofree char *revision = NULL;
  gboolean settled = FALSE;
  guint status = SOUP_STATUS_OK;
  JsonNode *node = build_call_state (store, watch->run_id, &status, &settled, &revision, &error);

  if (node == NULL)
    {
      g_message ("Could not read the state of the MCP client's call %s: %s", watch->run_id, error->message);
      status = SOUP_STATUS_INTERNAL_SERVER_ERROR;
      node = error_node ("internal-error", "The call's state could not be read.");
    }
  else if (!always && status == SOUP_STATUS_OK && !settled && g_strcmp0 (revision, watch->revision) == 0)
    {
      json_node_unref (node);
      return FALSE;
    }
  /* What was read, whichever commit wrote it, is on the disk first */
  prs_api_task_return_answer_after (watch->task, status, node, PRS_STORE_ALL_COMMITS);
  call_watch_free (watch);
  return TRUE;
}

static gboolean
on_watch_recheck (gpointer data)
{
  CallWatch *watch = data;

  g_clear_pointer (&watch->recheck, g_source_unref);
  watch_answer (watch, FALSE);
  return G_SOURCE_REMOVE;
}

/* Something of the call may have changed: looked at once the change is
 * written (a run writes in batches within one turn of the loop), however
 * many signals said it */
static void
watch_recheck_soon (CallWatch *watch)
{
  if (watch->recheck != NULL)
    return;
  watch->recheck = g_idle_source_new ();
  g_source_set_priority (watch->recheck, G_PRIORITY_DEFAULT);
  g_source_set_callback (watch->recheck, on_watch_recheck, watch, NULL);
  g_source_attach (watch->recheck, watch->context);
}

static void
on_watch_message (PrsRunner  *runner,
                  const char *conversation_id,
                  const char *message_id,
                  CallWatch  *watch)
{
  if (g_strcmp0 (conversation_id, watch->conversation_id) == 0)
    watch_recheck_soon (watch);
}

static void
on_watch_run_changed (PrsRunner *runner,
                      PrsRun    *run,
                      CallWatch *watch)
{
  if (g_strcmp0 (prs_run_get_id (run), watch->run_id) == 0)
    watch_recheck_soon (watch);
}

static gboolean
on_watch_timeout (gpointer data)
{
  CallWatch *watch = data;

  g_clear_pointer (&watch->timeout, g_source_unref);
  watch_answer (watch, TRUE);
  return G_SOURCE_REMOVE;
}

static gboolean
on_watch_gone (GCancellable *cancellable,
               gpointer      data)
{
  CallWatch *watch = data;

  g_debug ("A look at MCP client's call %s was dropped: its client went away", watch->run_id);
  g_clear_pointer (&watch->gone, g_source_unref);
  g_task_return_pointer (watch->task, NULL, NULL);
  call_watch_free (watch);
  return G_SOURCE_REMOVE;
}

static gboolean
watch_on_main (gpointer data)
{
  CallWatch *watch = data;
  g_autoptr(PrsRunRow) run = NULL;

  /* It may have changed between the API thread's look and this one */
  if (watch_answer (watch, FALSE))
    return G_SOURCE_REMOVE;
  run = prs_store_lookup_run (prs_runner_get_env (watch->runner)->store, watch->run_id, NULL);
  watch->conversation_id = run != NULL ? g_strdup (run->conversation_id) : NULL;
  g_signal_connect (watch->runner, "message-added", G_CALLBACK (on_watch_message), watch);
  g_signal_connect (watch->runner, "message-changed", G_CALLBACK (on_watch_message), watch);
  g_signal_connect (watch->runner, "run-changed", G_CALLBACK (on_watch_run_changed), watch);
  watch->timeout = g_timeout_source_new (watch->wait * 1000);
  g_source_set_callback (watch->timeout, on_watch_timeout, watch, NULL);
  g_source_attach (watch->timeout, watch->context);
  watch->gone = g_cancellable_source_new (g_task_get_cancellable (watch->task));
  g_source_set_callback (watch->gone, G_SOURCE_FUNC (on_watch_gone), watch, NULL);
  g_source_attach (watch->gone, watch->context);
  return G_SOURCE_REMOVE;
}

/* ?wait=SECONDS: 0 (or none) to answer at once, at most MAX_WAIT_SECONDS */
static gboolean
get_wait (SoupServerMessage *msg,
          GHashTable        *query,
          guint             *out)
{
  const char *text = query != NULL ? g_hash_table_lookup (query, "wait") : NULL;
  guint64 value = 0;

  *out = 0;
  if (text == NULL)
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, 0, MAX_WAIT_SECONDS, &value, NULL))
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-field",
                             "The query parameter “wait” must be a whole number of seconds from 0 to 60.");
      return FALSE;
    }
  *out = (guint) value;
  return TRUE;
}

static void
handle_call_state (PrsApiRoutes      *routes,
                   SoupServerMessage *msg,
                   const char        *run_id,
                   GHashTable        *query)
{
  const char *seen = query != NULL ? g_hash_table_lookup (query, "revision") : NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *revision = NULL;
  gboolean settled = FALSE;
  guint status = SOUP_STATUS_OK;
  guint wait = 0;
  JsonNode *node;
  CallWatch *watch;

  if (!get_wait (msg, query, &wait))
    return;
  node = build_call_state (routes->store, run_id, &status, &settled, &revision, &error);
  if (node == NULL)
    {
      prs_api_internal_error (msg, error);
      return;
    }
  /* At once unless asked to wait for a change the client has not seen */
  if (wait == 0 || settled || status != SOUP_STATUS_OK || g_strcmp0 (seen, revision) != 0)
    {
      if (prs_api_sync_read (routes, msg))
        prs_api_respond_json (msg, status, node);
      else
        json_node_unref (node);
      return;
    }
  json_node_unref (node);

  watch = g_new0 (CallWatch, 1);
  watch->task = prs_api_defer (routes, msg);
  watch->runner = g_object_ref (routes->runner);
  watch->context = routes->main_context;
  watch->run_id = g_strdup (run_id);
  watch->revision = g_steal_pointer (&revision);
  watch->wait = wait;
  routes->deferred_seconds = MAX (routes->deferred_seconds, wait + 15);
  g_main_context_invoke (routes->main_context, watch_on_main, watch);
}

/* ---- POST /api/mcp/tools/calls/{id}/decision ---- */

/* The general decision (prs-api-approvals.c) on an MCP client's call */
static void
handle_decision (PrsApiRoutes      *routes,
                 SoupServerMessage *msg,
                 const char        *run_id)
{
  g_autoptr(JsonNode) body = prs_api_parse_body (msg);
  g_autoptr(PrsRunRow) run = NULL;
  const char *action;

  if (body == NULL ||
      !prs_api_get_string (msg, json_node_get_object (body), "action", "action", TRUE, TRUE, 16, &action))
    return;
  if (strcmp (action, "approve") != 0 && strcmp (action, "deny") != 0)
    {
      prs_api_field_error (msg, "action", "must be “approve” or “deny”");
      return;
    }
  run = prs_store_lookup_run (routes->store, run_id, NULL);
  if (run == NULL || g_strcmp0 (run->origin, PRS_RUN_ORIGIN_MCP_CLIENT) != 0)
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "call-not-found", "There is no MCP client's call with this id.");
      return;
    }
  prs_api_decide_tool_call (routes, msg, run_id, strcmp (action, "approve") == 0);
}

/* ---- POST /api/mcp/tools/calls/{id}/cancel ---- */

typedef struct
{
  PrsRunner *runner;
  char      *run_id;
} CancelRequest;

static void
cancel_request_free (CancelRequest *request)
{
  g_clear_object (&request->runner);
  g_free (request->run_id);
  g_free (request);
}

/* The client no longer wants the call (MCP's notifications/cancelled): one
 * waiting for a person is withdrawn, saying so on its card; one queued or
 * running is stopped, its tool call cancelled with the run */
static gboolean
cancel_on_main (gpointer user_data)
{
  GTask *task = user_data;
  CancelRequest *request = g_task_get_task_data (task);
  PrsRunEnv *env = prs_runner_get_env (request->runner);
  g_autoptr(GPtrArray) calls = prs_store_list_tool_calls (env->store, request->run_id, NULL);
  g_autoptr(JsonObject) answer = json_object_new ();
  gboolean withdrawn = FALSE;

  for (guint i = 0; calls != NULL && i < calls->len; i++)
    {
      PrsToolCallRow *call = g_ptr_array_index (calls, i);
      g_autoptr(GError) error = NULL;

      if (g_strcmp0 (call->status, "proposed") != 0)
        continue;
      if (prs_runner_withdraw_call (request->runner, call->id, &error))
        withdrawn = TRUE;
      else
        g_message ("Could not withdraw the waiting tool call %s: %s", call->id, error->message);
    }
  if (!withdrawn)
    {
      g_autoptr(GError) error = NULL;

      if (!prs_runner_cancel (request->runner, request->run_id, &error))
        g_message ("Could not stop the run of call %s: %s", request->run_id, error->message);
    }

  json_object_set_string_member (answer, "callId", request->run_id);
  prs_api_task_return_answer (task, SOUP_STATUS_OK, success_node (answer));
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

static void
handle_cancel (PrsApiRoutes      *routes,
               SoupServerMessage *msg,
               const char        *run_id)
{
  g_autoptr(PrsRunRow) run = prs_store_lookup_run (routes->store, run_id, NULL);
  CancelRequest *request;
  GTask *task;

  if (run == NULL || g_strcmp0 (run->origin, PRS_RUN_ORIGIN_MCP_CLIENT) != 0)
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "call-not-found", "There is no MCP client's call with this id.");
      return;
    }
  request = g_new0 (CancelRequest, 1);
  request->runner = g_object_ref (routes->runner);
  request->run_id = g_strdup (run_id);
  task = prs_api_defer (routes, msg);
  g_task_set_task_data (task, request, (GDestroyNotify) cancel_request_free);
  g_main_context_invoke (routes->main_context, cancel_on_main, task);
}

/* ---- the routes ---- */

typedef enum
{
  CALL_STATE,
  CALL_DECISION,
  CALL_CANCEL,
} CallRoute;

/* "/api/mcp/tools/calls/{id}", ".../{id}/decision" and ".../{id}/cancel":
 * a copy of {id} */
static char *
match_call_path (const char *path,
                 CallRoute  *out_route)
{
  const char *prefix = "/api/mcp/tools/calls/";
  const char *start, *end;

  if (!g_str_has_prefix (path, prefix))
    return NULL;
  start = path + strlen (prefix);
  end = strchr (start, '/');
  *out_route = CALL_STATE;
  if (end == NULL)
    end = start + strlen (start);
  else if (strcmp (end, "/decision") == 0)
    *out_route = CALL_DECISION;
  else if (strcmp (end, "/cancel") == 0)
    *out_route = CALL_CANCEL;
  else
    return NULL;
  if (end <= start || end - start > PRS_API_MAX_ID_CHARS)
    return NULL;
  return g_strndup (start, (gsize) (end - start));
}

gboolean
prs_api_handle_mcp (PrsApiRoutes      *routes,
                    SoupServerMessage *msg,
                    const char        *path,
                    GHashTable        *query)
{
  const char *method = soup_server_message_get_method (msg);
  gboolean is_get = strcmp (method, SOUP_METHOD_GET) == 0;
  gboolean is_post = strcmp (method, SOUP_METHOD_POST) == 0;
  g_autofree char *call_id = NULL;
  CallRoute route = CALL_STATE;

  if (strcmp (path, "/api/mcp/tools") == 0)
    {
      if (is_get)
        handle_tools (routes, msg);
      else
        prs_api_method_not_allowed (msg, "GET");
    }
  else if (strcmp (path, "/api/mcp/tools/call") == 0)
    {
      if (is_post)
        handle_call (routes, msg);
      else
        prs_api_method_not_allowed (msg, "POST");
    }
  else if ((call_id = match_call_path (path, &route)) != NULL)
    {
      if (route == CALL_DECISION && is_post)
        handle_decision (routes, msg, call_id);
      else if (route == CALL_CANCEL && is_post)
        handle_cancel (routes, msg, call_id);
      else if (route == CALL_STATE && is_get)
        handle_call_state (routes, msg, call_id, query);
      else
        prs_api_method_not_allowed (msg, route == CALL_STATE ? "GET" : "POST");
    }
  else
    return FALSE;
  return TRUE;
}
