/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-approvals.c: the tool calls that wait for a person, and a
 * person's decision on one (docs/api.md#deciding-tool-calls) — any call:
 * an agent's (from a chat, an inference request, a schedule) or an MCP
 * client's. The guard lets these routes through only with the control key
 * (prs-api-control.h), never with the token alone. The lookups are the API
 * thread's store; the decision is the runner's, on the main thread. */
#include "config.h"

#include <string.h>

#include "prs-api-routes-private.h"
#include "prs-run.h"

#define TOOL_CALLS_PATH "/api/tool-calls"

/* ---- GET /api/tool-calls?status=proposed ---- */

static void
handle_list (PrsApiRoutes      *routes,
             SoupServerMessage *msg,
             GHashTable        *query)
{
  const char *status = query != NULL ? g_hash_table_lookup (query, "status") : NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) calls = NULL;
  g_autoptr(JsonObject) answer = NULL;

  /* Only the waiting ones are listed; the parameter says so explicitly */
  if (status != NULL && strcmp (status, "proposed") != 0)
    {
      prs_api_respond_error (msg, SOUP_STATUS_BAD_REQUEST, "invalid-field",
                             "The query parameter “status” must be “proposed”.");
      return;
    }
  calls = prs_store_list_waiting_tool_calls (routes->store, &error);
  if (calls == NULL)
    {
      prs_api_internal_error (msg, error);
      return;
    }
  answer = json_object_new ();
  json_object_set_boolean_member (answer, "success", TRUE);
  json_object_set_array_member (answer, "toolCalls", g_steal_pointer (&calls));
  prs_api_respond_json (msg, SOUP_STATUS_OK, json_node_init_object (json_node_alloc (), answer));
}

/* ---- POST /api/tool-calls/{id}/decision ---- */

typedef struct
{
  PrsRunner *runner;
  char      *id;
  char      *message_id;
  gboolean   approve;
} Decision;

static void
decision_free (Decision *decision)
{
  g_clear_object (&decision->runner);
  g_free (decision->id);
  g_free (decision->message_id);
  g_free (decision);
}

static gboolean
decide_on_main (gpointer user_data)
{
  GTask *task = user_data;
  Decision *decision = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = json_object_new ();
  gboolean ok = decision->approve ? prs_runner_approve (decision->runner, decision->message_id, NULL, &error)
                                  : prs_runner_deny (decision->runner, decision->message_id, &error);

  /* Not stored (another program kept the database busy, a full disk):
   * said as any failed write is; the call still waits */
  if (!ok && prs_api_is_store_error (error))
    g_task_return_error (task, g_steal_pointer (&error));
  else if (!ok)
    {
      /* Decided meanwhile (the window, a notification), or its run ended */
      g_autoptr(JsonObject) object = prs_api_error_object ("already-decided", error->message);

      prs_api_task_return_answer (task, SOUP_STATUS_CONFLICT, json_node_init_object (json_node_alloc (), object));
    }
  else
    {
      json_object_set_boolean_member (answer, "success", TRUE);
      json_object_set_string_member (answer, "id", decision->id);
      json_object_set_string_member (answer, "decision", decision->approve ? "approve" : "deny");
      prs_api_task_return_answer (task, SOUP_STATUS_OK, json_node_init_object (json_node_alloc (), answer));
    }
  g_object_unref (task);
  return G_SOURCE_REMOVE;
}

/* @id: the call's id, its tool-call message's id, or an MCP client's
 * callId (the run made for it) */
static PrsToolCallRow *
lookup_call (PrsStore    *store,
             const char  *id,
             GError     **error)
{
  PrsToolCallRow *call = prs_store_lookup_tool_call (store, id, error);
  g_autoptr(PrsRunRow) run = NULL;
  g_autoptr(GPtrArray) calls = NULL;

  if (call != NULL || (error != NULL && *error != NULL))
    return call;
  run = prs_store_lookup_run (store, id, error);
  if (run == NULL || g_strcmp0 (run->origin, PRS_RUN_ORIGIN_MCP_CLIENT) != 0)
    return NULL;
  calls = prs_store_list_tool_calls (store, id, error);
  if (calls == NULL || calls->len == 0)
    return NULL;
  return g_ptr_array_steal_index (calls, 0);
}

void
prs_api_decide_tool_call (PrsApiRoutes      *routes,
                          SoupServerMessage *msg,
                          const char        *id,
                          gboolean           approve)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsToolCallRow) call = lookup_call (routes->store, id, &error);
  Decision *decision;
  GTask *task;

  if (call == NULL && error != NULL)
    {
      prs_api_internal_error (msg, error);
      return;
    }
  if (call == NULL)
    {
      prs_api_respond_error (msg, SOUP_STATUS_NOT_FOUND, "tool-call-not-found",
                             "There is no tool call with this id.");
      return;
    }
  if (g_strcmp0 (call->status, "proposed") != 0)
    {
      g_autofree char *message = g_strdup_printf ("This tool call was already decided: it is %s.", call->status);

      prs_api_respond_error (msg, SOUP_STATUS_CONFLICT, "already-decided", message);
      return;
    }

  decision = g_new0 (Decision, 1);
  decision->runner = g_object_ref (routes->runner);
  decision->id = g_strdup (id);
  decision->message_id = g_strdup (call->message_id);
  decision->approve = approve;
  task = prs_api_defer (routes, msg);
  g_task_set_task_data (task, decision, (GDestroyNotify) decision_free);
  g_main_context_invoke (routes->main_context, decide_on_main, task);
}

static void
handle_decision (PrsApiRoutes      *routes,
                 SoupServerMessage *msg,
                 const char        *id)
{
  g_autoptr(JsonNode) body = prs_api_parse_body (msg);
  const char *word;

  if (body == NULL ||
      !prs_api_get_string (msg, json_node_get_object (body), "decision", "decision", TRUE, TRUE, 16, &word))
    return;
  if (strcmp (word, "approve") != 0 && strcmp (word, "deny") != 0)
    {
      prs_api_field_error (msg, "decision", "must be “approve” or “deny”");
      return;
    }
  prs_api_decide_tool_call (routes, msg, id, strcmp (word, "approve") == 0);
}

/* ".../{id}/decision": a copy of {id} */
static char *
match_decision_path (const char *path)
{
  const char *start = path + strlen (TOOL_CALLS_PATH "/");
  const char *end = strchr (start, '/');

  if (end == NULL || strcmp (end, "/decision") != 0 || end <= start || end - start > PRS_API_MAX_ID_CHARS)
    return NULL;
  return g_strndup (start, (gsize) (end - start));
}

gboolean
prs_api_handle_tool_calls (PrsApiRoutes      *routes,
                           SoupServerMessage *msg,
                           const char        *path,
                           GHashTable        *query)
{
  const char *method = soup_server_message_get_method (msg);
  g_autofree char *id = NULL;

  if (strcmp (path, TOOL_CALLS_PATH) == 0)
    {
      if (strcmp (method, SOUP_METHOD_GET) == 0)
        handle_list (routes, msg, query);
      else
        prs_api_method_not_allowed (msg, "GET");
      return TRUE;
    }
  if (!g_str_has_prefix (path, TOOL_CALLS_PATH "/") || (id = match_decision_path (path)) == NULL)
    return FALSE;
  if (strcmp (method, SOUP_METHOD_POST) == 0)
    handle_decision (routes, msg, id);
  else
    prs_api_method_not_allowed (msg, "POST");
  return TRUE;
}
