/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-invoke.c: listing and calling every kind of tool
 * (prs-tool-invoke.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-thread.h"
#include "prs-tool-invoke.h"

/* ---- Listing ---- */

GPtrArray *
prs_tool_list_all (PrsRunEnv  *env,
                   GError    **error)
{
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) mcp = NULL;
  g_autoptr(GError) mcp_error = NULL;

  g_return_val_if_fail (env != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  tools = prs_store_list_tools (env->store, error);
  if (tools == NULL)
    return NULL;
  if (env->mcp_hub == NULL)
    return g_steal_pointer (&tools);

  /* n8n's tools stay offered when the MCP servers' cannot be read */
  mcp = prs_mcp_hub_list_tools (env->mcp_hub, &mcp_error);
  if (mcp == NULL)
    g_message ("Could not read the MCP tools: %s", mcp_error->message);
  for (guint i = 0; mcp != NULL && i < mcp->len; i++)
    g_ptr_array_add (tools, g_steal_pointer (&g_ptr_array_index (mcp, i)));
  return g_steal_pointer (&tools);
}

PrsTool *
prs_tool_lookup (PrsRunEnv  *env,
                 const char *name)
{
  PrsTool *tool;

  g_return_val_if_fail (env != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (name == NULL)
    return NULL;
  tool = prs_store_lookup_tool (env->store, name, NULL);
  if (tool == NULL && env->mcp_hub != NULL)
    tool = prs_mcp_hub_lookup_tool (env->mcp_hub, name);
  return tool;
}

/* ---- What other MCP clients may call (docs/mcp.md) ---- */

/* The ids of the MCP servers the user shared */
static GHashTable *
shared_servers (PrsStore  *store,
                GError   **error)
{
  g_autoptr(GPtrArray) servers = prs_store_list_mcp_servers (store, error);
  GHashTable *shared;

  if (servers == NULL)
    return NULL;
  shared = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < servers->len; i++)
    {
      PrsMcpServerRow *row = g_ptr_array_index (servers, i);

      if (row->shared && row->enabled)
        g_hash_table_add (shared, g_strdup (row->id));
    }
  return shared;
}

GPtrArray *
prs_tool_list_exposed (PrsRunEnv  *env,
                       GError    **error)
{
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GHashTable) shared = NULL;
  GPtrArray *exposed;

  g_return_val_if_fail (env != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  all = prs_tool_list_all (env, error);
  if (all == NULL || (shared = shared_servers (env->store, error)) == NULL)
    return NULL;
  exposed = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  for (guint i = 0; i < all->len; i++)
    {
      PrsTool *tool = g_ptr_array_index (all, i);

      if (!prs_tool_is_mcp (tool) || g_hash_table_contains (shared, tool->mcp_server_id))
        g_ptr_array_add (exposed, g_steal_pointer (&g_ptr_array_index (all, i)));
    }
  return exposed;
}

gboolean
prs_tool_is_exposed (PrsRunEnv  *env,
                     const char *name)
{
  g_autoptr(PrsTool) tool = NULL;
  g_autoptr(GHashTable) shared = NULL;

  g_return_val_if_fail (env != NULL, FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  tool = prs_tool_lookup (env, name);
  if (tool == NULL)
    return FALSE;
  if (!prs_tool_is_mcp (tool))
    return TRUE;
  shared = shared_servers (env->store, NULL);
  return shared != NULL && g_hash_table_contains (shared, tool->mcp_server_id);
}

/* ---- Calling ---- */

typedef struct
{
  PrsRunEnv           *env;
  char                *tool_call_id;
  PrsToolProgressFunc  progress_func;
  gpointer             progress_data;
  GDestroyNotify       progress_destroy;
} Invocation;

static void
invocation_free (Invocation *invocation)
{
  prs_run_env_unref (invocation->env);
  g_free (invocation->tool_call_id);
  if (invocation->progress_destroy != NULL)
    invocation->progress_destroy (invocation->progress_data);
  g_free (invocation);
}

static void
return_result (GTask             *task,
               PrsToolCallResult *result)
{
  g_task_return_pointer (task, result, (GDestroyNotify) prs_tool_call_result_free);
}

static void
return_failure (GTask      *task,
                int         code,
                const char *message)
{
  return_result (task, prs_tool_call_result_new_failure (code, message));
}

/* -- n8n -- */

static void
on_callback_done (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  PrsToolCallResult *call_result;

  call_result = prs_callback_registry_wait_finish (PRS_CALLBACK_REGISTRY (source), result, &error);
  if (call_result == NULL)
    call_result = prs_tool_call_result_new_failure (PRS_ERROR_FAILED,
                                                    error != NULL ? error->message : _("The call was stopped."));
  return_result (task, call_result);
}

static void
on_webhook_done (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Invocation *invocation = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  PrsToolCallResult *call_result = prs_tool_call_run_finish (result, &error);

  if (call_result == NULL)
    {
      return_failure (task, PRS_ERROR_FAILED, _("The call was stopped."));
      return;
    }
  if (call_result->status == PRS_TOOL_CALL_WAITING_CALLBACK)
    {
      PrsToolProgress progress = { TRUE, -1, -1, NULL };
      /* Read before the task is handed on: arguments have no order */
      GCancellable *cancellable = g_task_get_cancellable (task);

      prs_tool_call_result_free (call_result);
      if (invocation->progress_func != NULL)
        invocation->progress_func (&progress, invocation->progress_data);
      prs_callback_registry_wait_async (invocation->env->registry, invocation->tool_call_id,
                                        invocation->env->limits.callback_timeout,
                                        cancellable, on_callback_done, g_steal_pointer (&task));
      return;
    }
  return_result (task, call_result);
}

typedef struct
{
  GTask              *task;
  PrsToolCallRequest *request;
  char               *header;
} AuthRead;

/* docs/workflows.md: the n8n Header Auth's value came from the keyring
 * (without waiting on it); the call goes out */
static void
on_webhook_auth (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  AuthRead *read = user_data;
  g_autoptr(GError) error = NULL;
  char *value = prs_secrets_lookup_finish (PRS_SECRETS (source), result, &error);

  if (value == NULL)
    g_message ("The webhook Header Auth “%s” has no value stored%s%s", read->header,
               error != NULL ? ": " : "", error != NULL ? error->message : "");
  else
    {
      read->request->auth_header_name = g_steal_pointer (&read->header);
      read->request->auth_header_value = value;
    }
  prs_tool_call_run_async (read->request, g_task_get_cancellable (read->task), on_webhook_done, read->task);
  prs_tool_call_request_free (read->request);
  g_free (read->header);
  g_free (read);
}

/* Sends @request (taken), with the n8n Header Auth when configured: the
 * header's name in the store, its value in the keyring (read only when a
 * name is set, and without waiting on the keyring) */
static void
send_call (PrsRunEnv          *env,
           PrsToolCallRequest *request,
           GTask              *task)
{
  g_autofree char *name = prs_store_dup_setting (env->store, PRS_SETTING_WEBHOOK_AUTH_HEADER);
  AuthRead *read;

  if (name == NULL || name[0] == '\0' || env->secrets == NULL)
    {
      prs_tool_call_run_async (request, g_task_get_cancellable (task), on_webhook_done, task);
      prs_tool_call_request_free (request);
      return;
    }
  read = g_new0 (AuthRead, 1);
  read->task = task;
  read->request = request;
  read->header = g_steal_pointer (&name);
  prs_secrets_lookup_async (env->secrets, PRS_SECRET_WEBHOOK_AUTH, NULL, on_webhook_auth, read);
}

static void
invoke_n8n (GTask                   *task,
            const PrsTool           *tool,
            const PrsToolInvocation *in)
{
  Invocation *invocation = g_task_get_task_data (task);
  PrsRunEnv *env = invocation->env;
  g_autofree char *n8n_url = prs_store_dup_setting (env->store, PRS_SETTING_N8N_URL);
  g_autoptr(PrsToolCallRequest) request = NULL;

  if (n8n_url == NULL)
    {
      return_failure (task, PRS_ERROR_NOT_FOUND, _("n8n is not set up, so no tool can run."));
      g_object_unref (task);
      return;
    }

  request = prs_tool_call_request_new (tool, n8n_url);
  if (in->arguments != NULL)
    {
      g_clear_pointer (&request->arguments, json_object_unref);
      request->arguments = json_object_ref (in->arguments);
    }
  if (in->tool_call_id != NULL)
    {
      g_free (request->tool_call_id);
      request->tool_call_id = g_strdup (in->tool_call_id);
    }
  invocation->tool_call_id = g_strdup (request->tool_call_id);
  request->conversation_id = g_strdup (in->conversation_id);
  request->agent_id = g_strdup (in->agent_id);
  request->callback_url = g_strdup (env->callback_url);
  request->execution = g_strdup (in->execution_id);
  request->timeout_seconds = env->limits.tool_timeout;
  request->callback_registry = g_object_ref (env->registry);
  send_call (env, g_steal_pointer (&request), task);
}

/* -- MCP -- */

/* Forwards an MCP server's progress; @data is the invocation's task, which
 * outlives the call (the client drops this function before it finishes) */
static void
on_mcp_progress (double      progress,
                 double      total,
                 const char *message,
                 gpointer    data)
{
  Invocation *invocation = g_task_get_task_data (G_TASK (data));
  PrsToolProgress event = { FALSE, progress, total, message };

  if (invocation->progress_func != NULL)
    invocation->progress_func (&event, invocation->progress_data);
}

static void
on_mcp_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  JsonNode *node = prs_mcp_hub_call_tool_finish (PRS_MCP_HUB (source), result, &error);

  if (node != NULL)
    {
      return_result (task, prs_tool_call_result_new_success (node));
      json_node_unref (node);
    }
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return_failure (task, PRS_ERROR_FAILED, _("The call was stopped."));
  else
    return_failure (task, error->domain == PRS_ERROR ? error->code : PRS_ERROR_FAILED, error->message);
}

static void
invoke_mcp (GTask                   *task,
            const PrsTool           *tool,
            const PrsToolInvocation *in)
{
  Invocation *invocation = g_task_get_task_data (task);

  prs_mcp_hub_call_tool_async (invocation->env->mcp_hub, tool->name, in->arguments,
                               on_mcp_progress, g_object_ref (task), g_object_unref,
                               g_task_get_cancellable (task), on_mcp_done, task);
}

static GTask *
invocation_task_new (PrsRunEnv           *env,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Invocation *invocation = g_new0 (Invocation, 1);

  invocation->env = prs_run_env_ref (env);
  g_task_set_source_tag (task, prs_tool_invoke_async);
  g_task_set_task_data (task, invocation, (GDestroyNotify) invocation_free);
  /* Every outcome is a result, a stop included */
  g_task_set_check_cancellable (task, FALSE);
  return task;
}

void
prs_tool_invoke_async (PrsRunEnv                *env,
                       const PrsToolInvocation  *in,
                       PrsToolProgressFunc       progress_func,
                       gpointer                  progress_data,
                       GDestroyNotify            progress_destroy,
                       GCancellable             *cancellable,
                       GAsyncReadyCallback       callback,
                       gpointer                  user_data)
{
  GTask *task;
  Invocation *invocation;
  g_autoptr(PrsTool) tool = NULL;

  g_return_if_fail (env != NULL);
  g_return_if_fail (in != NULL && in->tool_name != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  task = invocation_task_new (env, cancellable, callback, user_data);
  invocation = g_task_get_task_data (task);
  invocation->progress_func = progress_func;
  invocation->progress_data = progress_data;
  invocation->progress_destroy = progress_destroy;

  tool = prs_tool_lookup (env, in->tool_name);
  if (tool == NULL)
    {
      g_autofree char *message =
        g_strdup_printf (_("There is no tool “%s” (it is neither discovered on n8n nor listed by an MCP server "
                           "that is switched on)."), in->tool_name);

      /* GTask answers from the main loop, not from inside the caller */
      return_failure (task, PRS_ERROR_NOT_FOUND, message);
      g_object_unref (task);
      return;
    }
  if (prs_tool_is_mcp (tool))
    invoke_mcp (task, tool, in);
  else
    invoke_n8n (task, tool, in);
}

void
prs_tool_invoke_await_result_async (PrsRunEnv           *env,
                                    const char          *tool_call_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;
  Invocation *invocation;

  g_return_if_fail (env != NULL);
  g_return_if_fail (tool_call_id != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  task = invocation_task_new (env, cancellable, callback, user_data);
  invocation = g_task_get_task_data (task);
  invocation->tool_call_id = g_strdup (tool_call_id);
  prs_callback_registry_wait_async (env->registry, tool_call_id, env->limits.callback_timeout, cancellable,
                                    on_callback_done, task);
}

PrsToolCallResult *
prs_tool_invoke_finish (GAsyncResult *result)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), NULL);
}
