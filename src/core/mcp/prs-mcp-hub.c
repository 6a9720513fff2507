/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-hub.c: the configured MCP servers, connected (prs-mcp-hub.h). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-mcp-catalog.h"
#include "prs-mcp-hub-private.h"
#include "prs-thread.h"

struct _PrsMcpHub
{
  GObject        parent_instance;

  PrsMcpServers *servers;
  PrsStore      *store;
  GListStore    *items;        /* PrsMcpServerItem*, by name */
  char         **reserved;     /* the n8n tools' names */
  guint          tick_id;      /* every second while a server restarts */
  gboolean       started;
  guint          timeouts[3];  /* initialize, request, call (ms; 0: the default) */
};

G_DEFINE_FINAL_TYPE (PrsMcpHub, prs_mcp_hub, G_TYPE_OBJECT)

enum
{
  SIGNAL_TOOLS_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void connect_item (PrsMcpHub *self, PrsMcpServerItem *item);

/* ---- Finding ---- */

PrsMcpServerItem *
prs_mcp_hub_find_server (PrsMcpHub  *self,
                         const char *id_or_name)
{
  guint n;

  g_return_val_if_fail (PRS_IS_MCP_HUB (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; id_or_name != NULL && i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      if (g_strcmp0 (item->row->id, id_or_name) == 0 || g_strcmp0 (item->row->name, id_or_name) == 0)
        return item;   /* the list holds a reference */
    }
  return NULL;
}

static PrsMcpServerItem *
find_by_client (PrsMcpHub    *self,
                PrsMcpClient *client)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->items));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      if (item->client == client)
        return item;
    }
  return NULL;
}

/* ---- The countdown of restarting servers ---- */

static gboolean
on_tick (gpointer data)
{
  PrsMcpHub *self = data;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  gboolean restarting = FALSE;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      if (prs_mcp_server_item_get_state (item) == PRS_MCP_SERVER_RESTARTING)
        {
          restarting = TRUE;
          _prs_mcp_server_item_changed (item);
        }
    }
  if (restarting)
    return G_SOURCE_CONTINUE;
  self->tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
on_client_state (PrsMcpClient *client,
                 GParamSpec   *pspec,
                 PrsMcpHub    *self)
{
  PrsMcpServerItem *item = find_by_client (self, client);

  if (item == NULL)
    return;
  if (prs_mcp_client_get_state (client) == PRS_MCP_CLIENT_RESTARTING)
    {
      item->restart_at = g_get_monotonic_time () +
                         (gint64) prs_mcp_client_get_restart_pause (client) * 1000;
      if (self->tick_id == 0)
        self->tick_id = g_timeout_add_seconds (1, on_tick, self);
    }
  _prs_mcp_server_item_changed (item);
}

/* ---- Tools ---- */

static void
on_client_tools (PrsMcpClient *client,
                 PrsMcpHub    *self)
{
  PrsMcpServerItem *item = find_by_client (self, client);
  g_autoptr(GError) error = NULL;

  if (item == NULL)
    return;
  /* Kept as listed: the tools are there at the next start, and for
   * prosponsive-ctl */
  if (!prs_mcp_catalog_save (self->store, item->row->id, prs_mcp_client_get_tools (client), &error))
    g_message ("Could not keep the tools of the MCP server %s: %s", item->row->name, error->message);
  _prs_mcp_server_item_changed (item);
  g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
}

GPtrArray *
prs_mcp_hub_list_tools (PrsMcpHub  *self,
                        GError    **error)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return prs_mcp_catalog_list (self->store, TRUE, error);
}

PrsTool *
prs_mcp_hub_lookup_tool (PrsMcpHub  *self,
                         const char *exposed_name)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return prs_mcp_catalog_lookup (self->store, exposed_name);
}

void
prs_mcp_hub_set_n8n_names (PrsMcpHub          *self,
                           const char * const *names)
{
  guint n;

  g_return_if_fail (PRS_IS_MCP_HUB (self));
  PRS_ASSERT_MAIN_THREAD ();

  g_strfreev (self->reserved);
  self->reserved = g_strdupv ((char **) names);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      /* A renamed tool is saved through "tools-changed" */
      if (item->client != NULL)
        prs_mcp_client_set_reserved_names (item->client, names);
    }
}

/* ---- Connecting and closing ---- */

/* Every call that waited for the client: on with it, or failed with @error */
static void start_call (PrsMcpServerItem *item, GTask *task);

static void
release_waiting (PrsMcpServerItem *item,
                 const GError     *error)
{
  GList *waiting = g_steal_pointer (&item->waiting);

  for (GList *l = waiting; l != NULL; l = l->next)
    {
      if (error != NULL)
        {
          g_task_return_error (l->data, g_error_copy (error));
          g_object_unref (l->data);
        }
      else
        start_call (item, l->data);
    }
  g_list_free (waiting);
}

static void
stop_item (PrsMcpHub        *self,
           PrsMcpServerItem *item)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                                                 _("The MCP server was switched off or changed."));

  if (item->cancellable != NULL)
    g_cancellable_cancel (item->cancellable);
  g_clear_object (&item->cancellable);
  if (item->client != NULL)
    {
      g_signal_handlers_disconnect_by_data (item->client, self);
      prs_mcp_client_close (item->client);
      g_clear_object (&item->client);
    }
  g_clear_pointer (&item->error, g_free);
  release_waiting (item, error);
  _prs_mcp_server_item_changed (item);
}

typedef struct
{
  PrsMcpHub        *hub;
  PrsMcpServerItem *item;
} Connecting;

static void
connecting_free (Connecting *connecting)
{
  g_object_unref (connecting->hub);
  g_object_unref (connecting->item);
  g_free (connecting);
}

static void
on_connected (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  /* Its state (and its error) says how it went, and a stdio server that
   * could not start is started again on its own */
  if (!prs_mcp_client_connect_finish (PRS_MCP_CLIENT (source), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("%s", error->message);
}

static void
on_client_made (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  Connecting *connecting = user_data;
  PrsMcpHub *self = connecting->hub;
  PrsMcpServerItem *item = connecting->item;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsMcpClient) client = prs_mcp_servers_create_client_finish (PRS_MCP_SERVERS (source), result, &error);

  /* Switched off or changed meanwhile: another connection is its own */
  if (item->cancellable == NULL || g_cancellable_is_cancelled (item->cancellable) ||
      g_task_get_cancellable (G_TASK (result)) != item->cancellable)
    {
      connecting_free (connecting);
      return;
    }
  if (client == NULL)
    {
      g_free (item->error);
      /* Translators: %s is the name of an MCP server, then why it could not start */
      item->error = g_strdup_printf (_("MCP server “%s”: %s"), item->row->name, error->message);
      release_waiting (item, error);
      _prs_mcp_server_item_changed (item);
      connecting_free (connecting);
      return;
    }

  item->client = g_steal_pointer (&client);
  prs_mcp_client_set_timeouts (item->client, self->timeouts[0], self->timeouts[1], self->timeouts[2]);
  g_signal_connect_object (item->client, "notify::state", G_CALLBACK (on_client_state), self, 0);
  g_signal_connect_object (item->client, "tools-changed", G_CALLBACK (on_client_tools), self, 0);
  prs_mcp_client_connect_async (item->client, item->cancellable, on_connected, NULL);
  _prs_mcp_server_item_changed (item);
  release_waiting (item, NULL);
  connecting_free (connecting);
}

static void
connect_item (PrsMcpHub        *self,
              PrsMcpServerItem *item)
{
  Connecting *connecting = g_new0 (Connecting, 1);

  item->cancellable = g_cancellable_new ();
  connecting->hub = g_object_ref (self);
  connecting->item = g_object_ref (item);
  prs_mcp_servers_create_client_async (self->servers, item->row, NULL, NULL,
                                       (const char * const *) self->reserved, item->cancellable,
                                       on_client_made, connecting);
  _prs_mcp_server_item_changed (item);
}

void
prs_mcp_hub_set_timeouts (PrsMcpHub *self,
                          guint      initialize_ms,
                          guint      request_ms,
                          guint      call_ms)
{
  g_return_if_fail (PRS_IS_MCP_HUB (self));

  self->timeouts[0] = initialize_ms;
  self->timeouts[1] = request_ms;
  self->timeouts[2] = call_ms;
}

void
prs_mcp_hub_start (PrsMcpHub *self)
{
  g_return_if_fail (PRS_IS_MCP_HUB (self));
  PRS_ASSERT_MAIN_THREAD ();

  self->started = TRUE;
  prs_mcp_hub_reload (self);
}

void
prs_mcp_hub_stop (PrsMcpHub *self)
{
  guint n;

  g_return_if_fail (PRS_IS_MCP_HUB (self));
  PRS_ASSERT_MAIN_THREAD ();

  self->started = FALSE;
  g_clear_handle_id (&self->tick_id, g_source_remove);
  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);

      stop_item (self, item);
    }
}

/* Whether going from @old to @row needs a new connection (the shared
 * switch only matters to `mcp serve`) */
static gboolean
needs_reconnect (const PrsMcpServerRow *old,
                 const PrsMcpServerRow *row)
{
  return old->enabled != row->enabled ||
         g_strcmp0 (old->name, row->name) != 0 ||
         g_strcmp0 (old->transport, row->transport) != 0 ||
         g_strcmp0 (old->command, row->command) != 0 ||
         g_strcmp0 (old->url, row->url) != 0 ||
         !g_strv_equal ((const char * const *) old->args, (const char * const *) row->args) ||
         !g_strv_equal ((const char * const *) old->env, (const char * const *) row->env) ||
         !g_strv_equal ((const char * const *) old->secret_env, (const char * const *) row->secret_env) ||
         !g_strv_equal ((const char * const *) old->header_names, (const char * const *) row->header_names);
}

/* @row (taken) for an item that exists or a new one; connected when it
 * is on and was not, or changed. *@changed is set when anything did. */
static PrsMcpServerItem *
follow_row (PrsMcpHub       *self,
            PrsMcpServerRow *row,
            const char      *force_id,
            gboolean        *changed)
{
  PrsMcpServerItem *item = prs_mcp_hub_find_server (self, row->id);
  gboolean reconnect;

  if (item == NULL)
    {
      item = _prs_mcp_server_item_new (row);
      if (row->enabled && self->started)
        connect_item (self, item);
      *changed = TRUE;
      return item;
    }

  g_object_ref (item);
  reconnect = needs_reconnect (item->row, row) || g_strcmp0 (force_id, row->id) == 0;
  *changed = *changed || reconnect || item->row->shared != row->shared;
  prs_mcp_server_row_free (item->row);
  item->row = row;
  if (reconnect || !self->started)
    stop_item (self, item);
  if (self->started && row->enabled && item->cancellable == NULL)
    {
      connect_item (self, item);
      *changed = TRUE;
    }
  else if (reconnect)
    _prs_mcp_server_item_changed (item);
  return item;
}

/* Reads the rows; @force_id names a server to connect anew even when its
 * row is the same (its secrets changed) */
static void
reload (PrsMcpHub  *self,
        const char *force_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = prs_store_list_mcp_servers (self->store, &error);
  g_autoptr(GPtrArray) items = NULL;
  gboolean changed = FALSE;
  guint n;

  if (rows == NULL)
    {
      g_message ("Could not read the MCP servers: %s", error->message);
      return;
    }
  items = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < rows->len; i++)
    g_ptr_array_add (items, follow_row (self, g_steal_pointer (&g_ptr_array_index (rows, i)), force_id, &changed));
  g_ptr_array_set_free_func (rows, NULL);

  /* The ones no longer configured close; the same servers in the same
   * order (names may change it) change nothing */
  n = g_list_model_get_n_items (G_LIST_MODEL (self->items));
  changed = changed || n != items->len;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (G_LIST_MODEL (self->items), i);
      guint index = G_MAXUINT;

      if (!g_ptr_array_find (items, item, &index))
        stop_item (self, item);
      changed = changed || index != i;
    }
  if (!changed)
    return;
  g_list_store_splice (self->items, 0, n, items->pdata, items->len);
  g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
}

void
prs_mcp_hub_reload (PrsMcpHub *self)
{
  g_return_if_fail (PRS_IS_MCP_HUB (self));
  PRS_ASSERT_MAIN_THREAD ();

  reload (self, NULL);
}

GListModel *
prs_mcp_hub_get_servers (PrsMcpHub *self)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  return G_LIST_MODEL (self->items);
}

/* ---- Calling ---- */

typedef struct
{
  PrsTool            *tool;
  JsonObject         *arguments;
  PrsMcpProgressFunc  progress_func;
  gpointer            progress_data;
  GDestroyNotify      progress_destroy;
} Call;

static void
call_free (Call *call)
{
  prs_tool_free (call->tool);
  g_clear_pointer (&call->arguments, json_object_unref);
  if (call->progress_destroy != NULL)
    call->progress_destroy (call->progress_data);
  g_free (call);
}

static void
on_called (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  GError *error = NULL;
  JsonNode *node = prs_mcp_client_call_tool_finish (PRS_MCP_CLIENT (source), result, &error);

  if (node == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, node, (GDestroyNotify) json_node_unref);
}

static void
start_call (PrsMcpServerItem *item,
            GTask            *task)
{
  Call *call = g_task_get_task_data (task);
  PrsMcpProgressFunc func = call->progress_func;
  gpointer data = call->progress_data;
  GDestroyNotify destroy = call->progress_destroy;

  /* The progress data goes with the client's call from now on */
  call->progress_destroy = NULL;
  prs_mcp_client_call_tool_async (item->client, call->tool->mcp_tool, call->arguments, func, data, destroy,
                                  g_task_get_cancellable (task), on_called, task);
}

void
prs_mcp_hub_call_tool_async (PrsMcpHub           *self,
                             const char          *exposed_name,
                             JsonObject          *arguments,
                             PrsMcpProgressFunc   progress_func,
                             gpointer             progress_data,
                             GDestroyNotify       progress_destroy,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;
  Call *call;
  PrsMcpServerItem *item = NULL;

  g_return_if_fail (PRS_IS_MCP_HUB (self));
  g_return_if_fail (exposed_name != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  call = g_new0 (Call, 1);
  call->tool = prs_mcp_hub_lookup_tool (self, exposed_name);
  call->arguments = arguments != NULL ? json_object_ref (arguments) : NULL;
  call->progress_func = progress_func;
  call->progress_data = progress_data;
  call->progress_destroy = progress_destroy;
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_mcp_hub_call_tool_async);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);

  if (call->tool != NULL)
    item = prs_mcp_hub_find_server (self, call->tool->mcp_server_id);
  if (item == NULL || !item->row->enabled || !self->started)
    {
      /* Translators: %s is a tool's name */
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                               _("There is no MCP tool “%s”: no MCP server that is switched on lists it."),
                               exposed_name);
      g_object_unref (task);
      return;
    }
  if (item->client == NULL && item->error != NULL)
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE, "%s", item->error);
      g_object_unref (task);
      return;
    }
  if (item->client == NULL)
    {
      /* Its secrets are being read: the call goes once the client is made */
      item->waiting = g_list_append (item->waiting, task);
      return;
    }
  start_call (item, task);
}

JsonNode *
prs_mcp_hub_call_tool_finish (PrsMcpHub     *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Testing a server ---- */

static void
on_test_connected (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsMcpClient *client = PRS_MCP_CLIENT (source);
  GError *error = NULL;
  JsonObject *out;

  if (!prs_mcp_client_connect_finish (client, result, &error))
    {
      prs_mcp_client_close (client);
      g_task_return_error (task, error);
      return;
    }
  out = json_object_new ();
  json_object_set_member (out, "serverInfo", json_node_copy (prs_mcp_client_get_server_info (client)));
  json_object_set_string_member (out, "protocolVersion", prs_mcp_client_get_protocol_version (client));
  json_object_set_int_member (out, "tools", prs_mcp_client_get_tools (client)->len);
  json_object_set_boolean_member (out, "truncated", prs_mcp_client_get_tools_truncated (client));
  if (prs_mcp_client_get_instructions (client) != NULL)
    json_object_set_string_member (out, "instructions", prs_mcp_client_get_instructions (client));
  prs_mcp_client_close (client);
  g_task_return_pointer (task, out, (GDestroyNotify) json_object_unref);
}

static void
on_test_client (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  GTask *task = user_data;
  GError *error = NULL;
  g_autoptr(PrsMcpClient) client = prs_mcp_servers_create_client_finish (PRS_MCP_SERVERS (source), result, &error);

  if (client == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* Once: a test never restarts a server */
  prs_mcp_client_set_auto_restart (client, FALSE);
  g_task_set_task_data (task, g_object_ref (client), g_object_unref);
  prs_mcp_client_connect_async (client, g_task_get_cancellable (task), on_test_connected, task);
}

void
prs_mcp_hub_test_async (PrsMcpHub              *self,
                        const PrsMcpServerRow  *row,
                        const char * const     *header_values,
                        const char * const     *secret_env_values,
                        GCancellable           *cancellable,
                        GAsyncReadyCallback     callback,
                        gpointer                user_data)
{
  GTask *task;
  GError *error = NULL;

  g_return_if_fail (PRS_IS_MCP_HUB (self));
  g_return_if_fail (row != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_mcp_hub_test_async);
  if (!prs_mcp_server_row_validate (row, &error))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  prs_mcp_servers_create_client_async (self->servers, row, header_values, secret_env_values,
                                       (const char * const *) self->reserved, cancellable, on_test_client, task);
}

JsonObject *
prs_mcp_hub_test_finish (PrsMcpHub     *self,
                         GAsyncResult  *result,
                         GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Changing the servers ---- */

gboolean
prs_mcp_hub_add_server (PrsMcpHub              *self,
                        const PrsMcpServerRow  *row,
                        const char * const     *header_values,
                        const char * const     *secret_env_values,
                        char                  **out_id,
                        GError                **error)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_mcp_servers_add (self->servers, row, header_values, secret_env_values, out_id, error))
    return FALSE;
  reload (self, NULL);
  return TRUE;
}

gboolean
prs_mcp_hub_update_server (PrsMcpHub              *self,
                           const PrsMcpServerRow  *row,
                           const char * const     *header_values,
                           const char * const     *secret_env_values,
                           GError                **error)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_mcp_servers_update (self->servers, row, header_values, secret_env_values, error))
    return FALSE;
  reload (self, row->id);
  return TRUE;
}

gboolean
prs_mcp_hub_remove_server (PrsMcpHub   *self,
                           const char  *id,
                           GError     **error)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  if (!prs_mcp_servers_remove (self->servers, id, error))
    return FALSE;
  reload (self, NULL);
  return TRUE;
}

/* Sets one switch of the stored row of @id */
static gboolean
set_switch (PrsMcpHub   *self,
            const char  *id,
            gboolean     shared,
            gboolean     value,
            GError     **error)
{
  g_autoptr(PrsMcpServerRow) row = prs_store_lookup_mcp_server (self->store, id, error);

  if (row == NULL)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no MCP server “%s”."), id);
      return FALSE;
    }
  if (shared)
    row->shared = value;
  else
    row->enabled = value;
  if (!prs_store_update_mcp_server (self->store, row, error))
    return FALSE;
  reload (self, NULL);
  return TRUE;
}

gboolean
prs_mcp_hub_set_enabled (PrsMcpHub   *self,
                         const char  *id,
                         gboolean     enabled,
                         GError     **error)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  return set_switch (self, id, FALSE, enabled, error);
}

gboolean
prs_mcp_hub_set_shared (PrsMcpHub   *self,
                        const char  *id,
                        gboolean     shared,
                        GError     **error)
{
  g_return_val_if_fail (PRS_IS_MCP_HUB (self), FALSE);
  PRS_ASSERT_MAIN_THREAD ();

  return set_switch (self, id, TRUE, shared, error);
}

/* ---- The object ---- */

static void
prs_mcp_hub_dispose (GObject *object)
{
  PrsMcpHub *self = PRS_MCP_HUB (object);

  if (self->items != NULL)
    {
      prs_mcp_hub_stop (self);
      g_list_store_remove_all (self->items);
    }
  g_clear_object (&self->items);
  g_clear_object (&self->servers);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (prs_mcp_hub_parent_class)->dispose (object);
}

static void
prs_mcp_hub_finalize (GObject *object)
{
  PrsMcpHub *self = PRS_MCP_HUB (object);

  g_strfreev (self->reserved);

  G_OBJECT_CLASS (prs_mcp_hub_parent_class)->finalize (object);
}

static void
prs_mcp_hub_class_init (PrsMcpHubClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_mcp_hub_dispose;
  object_class->finalize = prs_mcp_hub_finalize;

  /* The MCP tools agents can be offered may have changed: a server listed
   * its tools (again), or servers came, went or were switched. */
  signals[SIGNAL_TOOLS_CHANGED] =
    g_signal_new ("tools-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
prs_mcp_hub_init (PrsMcpHub *self)
{
  self->items = g_list_store_new (PRS_TYPE_MCP_SERVER_ITEM);
}

PrsMcpHub *
prs_mcp_hub_new (PrsMcpServers *servers,
                 PrsStore      *store)
{
  PrsMcpHub *self;

  g_return_val_if_fail (PRS_IS_MCP_SERVERS (servers), NULL);
  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  PRS_ASSERT_MAIN_THREAD ();

  self = g_object_new (PRS_TYPE_MCP_HUB, NULL);
  self->servers = g_object_ref (servers);
  self->store = g_object_ref (store);
  return self;
}
