/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-client.c: one MCP server's connection, tools and calls
 * (prs-mcp-client.h); the JSON-RPC underneath is prs-mcp-rpc.c. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-mcp-client-private.h"
#include "prs-mcp-names.h"
#include "prs-mcp-stdio.h"

/* The longest pause between restarts. */
#define MAX_RESTART_MS   (60 * 1000)
/* A server that ran this long before stopping starts again after the
 * first, short pause. */
#define STABLE_US        (60 * G_USEC_PER_SEC)
/* The longest name, version or title of a server that is shown. */
#define SERVER_INFO_CHARS 200

const char * const prs_mcp_supported_versions[] = {
  PRS_MCP_PROTOCOL_VERSION, "2025-03-26", "2024-11-05", NULL
};

G_DEFINE_FINAL_TYPE (PrsMcpClient, prs_mcp_client, G_TYPE_OBJECT)

enum
{
  SIGNAL_TOOLS_CHANGED,
  N_SIGNALS
};

enum
{
  PROP_0,
  PROP_STATE,
  N_PROPS
};

static guint signals[N_SIGNALS];
static GParamSpec *properties[N_PROPS];

static void start_connect (PrsMcpClient *self);

/* ---- State ---- */

static void
set_state (PrsMcpClient      *self,
           PrsMcpClientState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  if (state == PRS_MCP_CLIENT_READY)
    {
      self->ready_since = g_get_monotonic_time ();
      g_clear_error (&self->last_error);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

/* Errors the caller sees name the server; a tool's own failure is the
 * tool's text, which the model reads as it is. */
static void
prefix_error (PrsMcpClient  *self,
              GError       **error)
{
  if (error == NULL || *error == NULL ||
      g_error_matches (*error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (*error, PRS_ERROR, PRS_ERROR_MCP_TOOL_FAILED))
    return;
  /* Translators: %s is the name the user gave an MCP server */
  g_prefix_error (error, _("MCP server “%s”: "), self->server_name);
}

static gboolean
on_restart_timer (gpointer data)
{
  PrsMcpClient *self = data;

  g_clear_pointer (&self->restart_source, g_source_unref);
  self->waiting_ms = 0;
  if (self->state == PRS_MCP_CLIENT_RESTARTING)
    start_connect (self);
  return G_SOURCE_REMOVE;
}

static void
schedule_restart (PrsMcpClient *self)
{
  guint delay = self->restart_ms;

  g_return_if_fail (self->restart_source == NULL);

  self->restart_ms = MIN (self->restart_ms * 2, MAX_RESTART_MS);
  self->waiting_ms = delay;
  set_state (self, PRS_MCP_CLIENT_RESTARTING);
  g_debug ("MCP server %s: starting again in %u ms", self->server_name, delay);
  self->restart_source = g_timeout_source_new (delay);
  g_source_set_callback (self->restart_source, on_restart_timer, self, NULL);
  g_source_set_static_name (self->restart_source, "[prosponsive] MCP restart");
  g_source_attach (self->restart_source, self->context);
}

static gboolean
can_restart (PrsMcpClient *self)
{
  return self->auto_restart && PRS_IS_MCP_STDIO (self->transport);
}

/* The connection ended or could not be made: pending work fails with
 * @error, and a stdio server is started again later. */
static void
connection_failed (PrsMcpClient *self,
                   const GError *error)
{
  GList *waiters = g_steal_pointer (&self->connect_waiters);

  g_clear_error (&self->last_error);
  self->last_error = g_error_copy (error);

  /* The state first: failing the requests below runs their callbacks,
   * which must see that the connection is over */
  if (can_restart (self))
    schedule_restart (self);
  else
    set_state (self, PRS_MCP_CLIENT_FAILED);
  prs_mcp_transport_close (self->transport);
  prs_mcp_rpc_fail_all (self, error);

  for (GList *l = waiters; l != NULL; l = l->next)
    {
      g_task_return_error (l->data, g_error_copy (error));
      g_object_unref (l->data);
    }
  g_list_free (waiters);
}

static void
on_transport_closed (PrsMcpTransport *transport,
                     const GError    *error,
                     PrsMcpClient    *self)
{
  g_autoptr(PrsMcpClient) hold = g_object_ref (self);

  if (self->state == PRS_MCP_CLIENT_READY && g_get_monotonic_time () - self->ready_since > STABLE_US)
    self->restart_ms = self->first_restart_ms;
  if (self->state == PRS_MCP_CLIENT_READY || self->state == PRS_MCP_CLIENT_CONNECTING)
    connection_failed (self, error);
}

void
prs_mcp_client_connection_lost (PrsMcpClient *self,
                                const GError *error)
{
  if (self->state != PRS_MCP_CLIENT_READY)
    return;
  g_clear_error (&self->last_error);
  self->last_error = g_error_copy (error);
  set_state (self, PRS_MCP_CLIENT_IDLE);
}

/* ---- Tools ---- */

typedef struct
{
  GPtrArray  *tools;          /* PrsMcpTool* */
  GHashTable *names;          /* the server's tool names seen */
  GHashTable *cursors;
  guint       pages;
  gboolean    truncated;
} Listing;

static void
listing_free (Listing *listing)
{
  g_ptr_array_unref (listing->tools);
  g_hash_table_unref (listing->names);
  g_hash_table_unref (listing->cursors);
  g_free (listing);
}

static void list_page (GTask *task, const char *cursor);

static gboolean
take_page (Listing     *listing,
           JsonObject  *result,
           const char **out_cursor,
           GError     **error)
{
  JsonNode *tools = json_object_get_member (result, "tools");
  JsonNode *cursor = json_object_get_member (result, "nextCursor");
  JsonArray *array;

  if (tools == NULL || !JSON_NODE_HOLDS_ARRAY (tools))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
                           _("The server's tools/list answer has no list of tools."));
      return FALSE;
    }
  array = json_node_get_array (tools);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autoptr(GError) skip = NULL;
      PrsMcpTool *tool;

      if (listing->tools->len >= PRS_MCP_MAX_TOOLS)
        {
          listing->truncated = TRUE;
          break;
        }
      tool = JSON_NODE_HOLDS_OBJECT (element) ? prs_mcp_tool_new_from_json (json_node_get_object (element), &skip)
                                              : NULL;
      if (tool == NULL || g_hash_table_contains (listing->names, tool->name))
        {
          /* A nameless or repeated entry cannot be called: leave it out */
          g_debug ("MCP tools/list: an entry left out (%s)", skip != NULL ? skip->message : "repeated");
          g_clear_pointer (&tool, prs_mcp_tool_free);
          continue;
        }
      g_hash_table_add (listing->names, tool->name);
      g_ptr_array_add (listing->tools, tool);
    }

  *out_cursor = NULL;
  if (cursor != NULL && JSON_NODE_HOLDS_VALUE (cursor) && json_node_get_value_type (cursor) == G_TYPE_STRING &&
      !listing->truncated)
    *out_cursor = json_node_get_string (cursor);
  return TRUE;
}

static void
on_page (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsMcpClient *self = PRS_MCP_CLIENT (source);
  Listing *listing = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = prs_mcp_rpc_request_finish (self, result, &error);
  const char *cursor = NULL;

  if (answer == NULL || !take_page (listing, json_node_get_object (answer), &cursor, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (cursor == NULL)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (g_hash_table_contains (listing->cursors, cursor))
    {
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL, "%s",
                               _("The server's tool list goes round in circles (a page cursor came back)."));
      return;
    }
  if (listing->pages >= PRS_MCP_MAX_LIST_PAGES)
    {
      /* Translators: %u is a number of pages such as 100 */
      g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
                               _("The server's tool list did not end after %u pages."), listing->pages);
      return;
    }
  g_hash_table_add (listing->cursors, g_strdup (cursor));
  list_page (g_steal_pointer (&task), cursor);
}

static void
list_page (GTask      *task,
           const char *cursor)
{
  PrsMcpClient *self = g_task_get_source_object (task);
  Listing *listing = g_task_get_task_data (task);
  JsonObject *params = json_object_new ();

  listing->pages++;
  if (cursor != NULL)
    json_object_set_string_member (params, "cursor", cursor);
  prs_mcp_rpc_request_async (self, "tools/list", params, self->request_ms, TRUE, NULL, NULL,
                             g_task_get_cancellable (task), on_page, task);
}

/* Every page of tools/list; finishes with a Listing (the task's data). */
static GTask *
list_all (PrsMcpClient        *self,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Listing *listing = g_new0 (Listing, 1);

  listing->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_tool_free);
  listing->names = g_hash_table_new (g_str_hash, g_str_equal);
  listing->cursors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_task_set_task_data (task, listing, (GDestroyNotify) listing_free);
  g_task_set_source_tag (task, list_all);
  list_page (g_object_ref (task), NULL);
  return task;
}

/* Names @tools for models; TRUE when a name changed. */
static gboolean
name_tools (PrsMcpClient *self,
            GPtrArray    *tools)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_name_entry_free);
  gboolean changed = FALSE;

  for (guint i = 0; i < tools->len; i++)
    {
      PrsMcpTool *tool = g_ptr_array_index (tools, i);

      g_ptr_array_add (entries, prs_mcp_name_entry_new (self->server_name, tool->name));
    }
  prs_mcp_assign_tool_names (entries, (const char * const *) self->reserved);
  for (guint i = 0; i < tools->len; i++)
    {
      PrsMcpTool *tool = g_ptr_array_index (tools, i);
      PrsMcpNameEntry *entry = g_ptr_array_index (entries, i);

      changed = changed || g_strcmp0 (tool->exposed_name, entry->exposed_name) != 0;
      g_free (tool->exposed_name);
      tool->exposed_name = g_steal_pointer (&entry->exposed_name);
      g_free (tool->name_note);
      tool->name_note = g_steal_pointer (&entry->note);
    }
  return changed;
}

/* Names the listed tools for models and makes them the client's. */
static void
adopt_tools (PrsMcpClient *self,
             Listing      *listing)
{
  name_tools (self, listing->tools);

  g_clear_pointer (&self->tools, g_ptr_array_unref);
  self->tools = g_ptr_array_ref (listing->tools);
  if (listing->truncated && !self->tools_truncated)
    g_message ("MCP server %s lists more than %u tools; the rest are left out",
               self->server_name, PRS_MCP_MAX_TOOLS);
  self->tools_truncated = listing->truncated;
}

static void on_relisted (GObject *source, GAsyncResult *result, gpointer user_data);

static void
relist (PrsMcpClient *self)
{
  g_autoptr(GTask) task = NULL;

  self->listing = TRUE;
  self->relist = FALSE;
  task = list_all (self, NULL, on_relisted, NULL);
}

static void
on_relisted (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  PrsMcpClient *self = PRS_MCP_CLIENT (source);
  g_autoptr(GError) error = NULL;

  self->listing = FALSE;
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    g_message ("MCP server %s: listing its changed tools failed: %s", self->server_name, error->message);
  else if (self->state == PRS_MCP_CLIENT_READY)
    {
      adopt_tools (self, g_task_get_task_data (G_TASK (result)));
      g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
    }
  if (self->relist && self->state == PRS_MCP_CLIENT_READY)
    relist (self);
}

void
prs_mcp_client_tools_list_changed (PrsMcpClient *self)
{
  if (self->state != PRS_MCP_CLIENT_READY)
    return;   /* the connection lists them anyway */
  if (self->listing)
    self->relist = TRUE;
  else
    relist (self);
}

/* ---- Connecting ---- */

static gboolean
version_supported (const char *version)
{
  return version != NULL && g_strv_contains (prs_mcp_supported_versions, version);
}

static void
on_connect_listed (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  PrsMcpClient *self = PRS_MCP_CLIENT (source);
  g_autoptr(GError) error = NULL;
  GList *waiters;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (self->state == PRS_MCP_CLIENT_CONNECTING)
        connection_failed (self, error);
      return;
    }
  if (self->state != PRS_MCP_CLIENT_CONNECTING)
    return;

  adopt_tools (self, g_task_get_task_data (G_TASK (result)));
  set_state (self, PRS_MCP_CLIENT_READY);
  waiters = g_steal_pointer (&self->connect_waiters);
  for (GList *l = waiters; l != NULL; l = l->next)
    {
      g_task_return_boolean (l->data, TRUE);
      g_object_unref (l->data);
    }
  g_list_free (waiters);
  g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
}

/* The server's serverInfo as people are shown it (a terminal by
 * `prosponsive-ctl mcp test`, the server editor): its name, version and
 * title when they are text, control characters made spaces and cut, so
 * its escapes reach no terminal and no reader finds a number or an object
 * where it expects text. */
static JsonNode *
clean_server_info (JsonNode *info)
{
  static const char * const members[] = { "name", "version", "title" };
  JsonObject *out = json_object_new ();
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  for (guint i = 0; info != NULL && JSON_NODE_HOLDS_OBJECT (info) && i < G_N_ELEMENTS (members); i++)
    {
      JsonNode *member = json_object_get_member (json_node_get_object (info), members[i]);
      g_autofree char *clean = NULL;

      if (member != NULL && JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING)
        clean = prs_http_clean_text (json_node_get_string (member), SERVER_INFO_CHARS);
      if (clean != NULL)
        json_object_set_string_member (out, members[i], clean);
    }
  json_node_take_object (node, out);
  return node;
}

static gboolean
take_initialize_result (PrsMcpClient  *self,
                        JsonObject    *result,
                        GError       **error)
{
  JsonNode *version = json_object_get_member (result, "protocolVersion");
  JsonNode *info = json_object_get_member (result, "serverInfo");
  JsonNode *instructions = json_object_get_member (result, "instructions");
  const char *text = NULL;

  if (version != NULL && JSON_NODE_HOLDS_VALUE (version) && json_node_get_value_type (version) == G_TYPE_STRING)
    text = json_node_get_string (version);
  if (!version_supported (text))
    {
      g_autofree char *clean = prs_http_clean_text (text != NULL ? text : "?", 40);

      /* Translators: %s is a protocol revision such as 2024-10-07; the list names the revisions Prosponsive knows */
      g_set_error (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL,
                   _("The server speaks MCP revision %s; Prosponsive supports 2025-06-18, 2025-03-26 and 2024-11-05."),
                   clean != NULL ? clean : "?");
      return FALSE;
    }

  g_free (self->protocol_version);
  self->protocol_version = g_strdup (text);
  g_clear_pointer (&self->server_info, json_node_unref);
  self->server_info = clean_server_info (info);
  g_clear_pointer (&self->instructions, g_free);
  if (instructions != NULL && JSON_NODE_HOLDS_VALUE (instructions) &&
      json_node_get_value_type (instructions) == G_TYPE_STRING)
    self->instructions = prs_http_clean_lines (json_node_get_string (instructions), PRS_MCP_TOOL_DESCRIPTION_MAX);
  return TRUE;
}

static void
on_initialized (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  PrsMcpClient *self = PRS_MCP_CLIENT (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = prs_mcp_rpc_request_finish (self, result, &error);
  g_autoptr(GTask) listing = NULL;

  if (self->state != PRS_MCP_CLIENT_CONNECTING)
    return;
  if (answer == NULL || !take_initialize_result (self, json_node_get_object (answer), &error))
    {
      connection_failed (self, error);
      return;
    }

  prs_mcp_transport_set_protocol_version (self->transport, self->protocol_version);
  prs_mcp_rpc_notify (self, "notifications/initialized", NULL);
  prs_mcp_transport_listen (self->transport);
  listing = list_all (self, NULL, on_connect_listed, NULL);
}

static JsonObject *
initialize_params (void)
{
  JsonObject *params = json_object_new ();
  JsonObject *info = json_object_new ();

  json_object_set_string_member (info, "name", "Prosponsive");
  json_object_set_string_member (info, "version", PACKAGE_VERSION);
  json_object_set_string_member (params, "protocolVersion", PRS_MCP_PROTOCOL_VERSION);
  /* No sampling, roots or elicitation: the server may only offer tools */
  json_object_set_object_member (params, "capabilities", json_object_new ());
  json_object_set_object_member (params, "clientInfo", info);
  return params;
}

static void
on_opened (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(PrsMcpClient) self = user_data;
  g_autoptr(GError) error = NULL;

  if (self->state != PRS_MCP_CLIENT_CONNECTING)
    return;
  if (!prs_mcp_transport_open_finish (PRS_MCP_TRANSPORT (source), result, &error))
    {
      connection_failed (self, error);
      return;
    }
  prs_mcp_transport_set_protocol_version (self->transport, NULL);
  prs_mcp_rpc_request_async (self, "initialize", initialize_params (), self->initialize_ms, FALSE,
                             NULL, NULL, NULL, on_initialized, NULL);
}

static void
start_connect (PrsMcpClient *self)
{
  set_state (self, PRS_MCP_CLIENT_CONNECTING);
  prs_mcp_transport_open_async (self->transport, NULL, on_opened, g_object_ref (self));
}

void
prs_mcp_client_connect_async (PrsMcpClient        *self,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PRS_IS_MCP_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_mcp_client_connect_async);
  if (self->state == PRS_MCP_CLIENT_READY)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }

  self->connect_waiters = g_list_append (self->connect_waiters, g_steal_pointer (&task));
  if (self->state == PRS_MCP_CLIENT_CONNECTING)
    return;
  if (self->restart_source != NULL)
    {
      g_source_destroy (self->restart_source);
      g_clear_pointer (&self->restart_source, g_source_unref);
    }
  start_connect (self);
}

gboolean
prs_mcp_client_connect_finish (PrsMcpClient  *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  if (!g_task_propagate_boolean (G_TASK (result), error))
    {
      prefix_error (self, error);
      return FALSE;
    }
  return TRUE;
}

void
prs_mcp_client_close (PrsMcpClient *self)
{
  g_autoptr(GError) error = NULL;
  GList *waiters;

  g_return_if_fail (PRS_IS_MCP_CLIENT (self));

  error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The connection was closed."));
  if (self->restart_source != NULL)
    {
      g_source_destroy (self->restart_source);
      g_clear_pointer (&self->restart_source, g_source_unref);
    }
  set_state (self, PRS_MCP_CLIENT_IDLE);
  prs_mcp_transport_close (self->transport);
  prs_mcp_rpc_fail_all (self, error);
  waiters = g_steal_pointer (&self->connect_waiters);
  for (GList *l = waiters; l != NULL; l = l->next)
    {
      g_task_return_error (l->data, g_error_copy (error));
      g_object_unref (l->data);
    }
  g_list_free (waiters);
}

/* ---- Listing and calling ---- */

/* Runs @then once the server is connected; fails @task when it cannot be. */
typedef void (*WhenReady) (GTask *task);

static void
on_ready_for (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  WhenReady then = g_object_get_data (G_OBJECT (task), "prs-when-ready");
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  then (g_steal_pointer (&task));
}

static void
when_ready (PrsMcpClient *self,
            GTask        *task,
            WhenReady     then)
{
  if (self->state == PRS_MCP_CLIENT_READY)
    {
      then (task);
      return;
    }
  if (self->state == PRS_MCP_CLIENT_RESTARTING && self->last_error != NULL)
    {
      /* Waiting for the pause to end helps no one: say what happened */
      g_task_return_new_error (task, self->last_error->domain, self->last_error->code,
                               /* Translators: %s says why the server stopped */
                               _("%s Prosponsive starts it again shortly."), self->last_error->message);
      g_object_unref (task);
      return;
    }
  g_object_set_data (G_OBJECT (task), "prs-when-ready", then);
  prs_mcp_client_connect_async (self, g_task_get_cancellable (task), on_ready_for, task);
}

static void
on_listed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsMcpClient *self = PRS_MCP_CLIENT (source);
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  adopt_tools (self, g_task_get_task_data (G_TASK (result)));
  g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
  g_task_return_pointer (task, g_ptr_array_ref (self->tools), (GDestroyNotify) g_ptr_array_unref);
}

static void
list_when_ready (GTask *task)
{
  PrsMcpClient *self = g_task_get_source_object (task);
  g_autoptr(GTask) listing = list_all (self, g_task_get_cancellable (task), on_listed, task);
}

void
prs_mcp_client_list_tools_async (PrsMcpClient        *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (PRS_IS_MCP_CLIENT (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_mcp_client_list_tools_async);
  when_ready (self, task, list_when_ready);
}

GPtrArray *
prs_mcp_client_list_tools_finish (PrsMcpClient  *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  GPtrArray *tools;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  tools = g_task_propagate_pointer (G_TASK (result), error);
  if (tools == NULL)
    prefix_error (self, error);
  return tools;
}

typedef struct
{
  char               *tool_name;
  JsonObject         *arguments;
  PrsMcpProgressFunc  progress_func;
  gpointer            progress_data;
  GDestroyNotify      progress_destroy;
} Call;

static void
call_free (Call *call)
{
  g_free (call->tool_name);
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
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = prs_mcp_rpc_request_finish (PRS_MCP_CLIENT (source), result, &error);
  JsonNode *node;

  if (answer == NULL || (node = prs_mcp_call_result_to_json (json_node_get_object (answer), &error)) == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, node, (GDestroyNotify) json_node_unref);
}

static void
call_when_ready (GTask *task)
{
  PrsMcpClient *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "name", call->tool_name);
  json_object_set_object_member (params, "arguments",
                                 call->arguments != NULL ? json_object_ref (call->arguments) : json_object_new ());
  prs_mcp_rpc_request_async (self, "tools/call", params, self->call_ms, TRUE,
                             call->progress_func, call->progress_data,
                             g_task_get_cancellable (task), on_called, task);
}

void
prs_mcp_client_call_tool_async (PrsMcpClient        *self,
                                const char          *tool_name,
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

  g_return_if_fail (PRS_IS_MCP_CLIENT (self));
  g_return_if_fail (tool_name != NULL);

  call = g_new0 (Call, 1);
  call->tool_name = g_strdup (tool_name);
  call->arguments = arguments != NULL ? json_object_ref (arguments) : NULL;
  call->progress_func = progress_func;
  call->progress_data = progress_data;
  call->progress_destroy = progress_destroy;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_mcp_client_call_tool_async);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  when_ready (self, task, call_when_ready);
}

JsonNode *
prs_mcp_client_call_tool_finish (PrsMcpClient  *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  JsonNode *node;

  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  node = g_task_propagate_pointer (G_TASK (result), error);
  if (node == NULL)
    prefix_error (self, error);
  return node;
}

/* ---- Accessors ---- */

const char *
prs_mcp_client_get_server_name (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);
  return self->server_name;
}

PrsMcpTransport *
prs_mcp_client_get_transport (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);
  return self->transport;
}

PrsMcpClientState
prs_mcp_client_get_state (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), PRS_MCP_CLIENT_IDLE);
  return self->state;
}

const GError *
prs_mcp_client_get_last_error (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);
  return self->last_error;
}

void
prs_mcp_client_set_timeouts (PrsMcpClient *self,
                             guint         initialize_ms,
                             guint         request_ms,
                             guint         call_ms)
{
  g_return_if_fail (PRS_IS_MCP_CLIENT (self));

  if (initialize_ms > 0)
    self->initialize_ms = initialize_ms;
  if (request_ms > 0)
    self->request_ms = request_ms;
  if (call_ms > 0)
    self->call_ms = call_ms;
}

void
prs_mcp_client_set_auto_restart (PrsMcpClient *self,
                                 gboolean      auto_restart)
{
  g_return_if_fail (PRS_IS_MCP_CLIENT (self));
  self->auto_restart = auto_restart;
}

void
prs_mcp_client_set_restart_delay (PrsMcpClient *self,
                                  guint         first_ms)
{
  g_return_if_fail (PRS_IS_MCP_CLIENT (self));
  g_return_if_fail (first_ms > 0);

  self->first_restart_ms = self->restart_ms = first_ms;
}

guint
prs_mcp_client_get_restart_pause (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), 0);
  return self->state == PRS_MCP_CLIENT_RESTARTING ? self->waiting_ms : 0;
}

void
prs_mcp_client_set_reserved_names (PrsMcpClient       *self,
                                   const char * const *names)
{
  g_return_if_fail (PRS_IS_MCP_CLIENT (self));

  g_strfreev (self->reserved);
  self->reserved = g_strdupv ((char **) names);
  /* Tools listed already are named again at once (an n8n tool may have
   * taken a name since) */
  if (self->tools->len > 0 && name_tools (self, self->tools))
    g_signal_emit (self, signals[SIGNAL_TOOLS_CHANGED], 0);
}

const char *
prs_mcp_client_get_protocol_version (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);
  return self->protocol_version;
}

JsonNode *
prs_mcp_client_get_server_info (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);
  return self->server_info;
}

const char *
prs_mcp_client_get_instructions (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);
  return self->instructions;
}

GPtrArray *
prs_mcp_client_get_tools (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);
  return self->tools;
}

gboolean
prs_mcp_client_get_tools_truncated (PrsMcpClient *self)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), FALSE);
  return self->tools_truncated;
}

const PrsMcpTool *
prs_mcp_client_find_tool (PrsMcpClient *self,
                          const char   *exposed_name)
{
  g_return_val_if_fail (PRS_IS_MCP_CLIENT (self), NULL);

  for (guint i = 0; exposed_name != NULL && i < self->tools->len; i++)
    {
      const PrsMcpTool *tool = g_ptr_array_index (self->tools, i);

      if (g_strcmp0 (tool->exposed_name, exposed_name) == 0)
        return tool;
    }
  return NULL;
}

/* ---- The object ---- */

static void
prs_mcp_client_dispose (GObject *object)
{
  PrsMcpClient *self = PRS_MCP_CLIENT (object);

  if (self->transport != NULL)
    {
      prs_mcp_client_close (self);
      g_clear_signal_handler (&self->message_handler, self->transport);
      g_clear_signal_handler (&self->closed_handler, self->transport);
      g_clear_object (&self->transport);
    }

  G_OBJECT_CLASS (prs_mcp_client_parent_class)->dispose (object);
}

static void
prs_mcp_client_finalize (GObject *object)
{
  PrsMcpClient *self = PRS_MCP_CLIENT (object);

  g_free (self->server_name);
  g_clear_error (&self->last_error);
  g_hash_table_unref (self->pending);
  g_free (self->protocol_version);
  g_clear_pointer (&self->server_info, json_node_unref);
  g_free (self->instructions);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_strfreev (self->reserved);
  g_main_context_unref (self->context);

  G_OBJECT_CLASS (prs_mcp_client_parent_class)->finalize (object);
}

static void
prs_mcp_client_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PrsMcpClient *self = PRS_MCP_CLIENT (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_uint (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
prs_mcp_client_class_init (PrsMcpClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = prs_mcp_client_dispose;
  object_class->finalize = prs_mcp_client_finalize;
  object_class->get_property = prs_mcp_client_get_property;

  /* A PrsMcpClientState */
  properties[PROP_STATE] =
    g_param_spec_uint ("state", NULL, NULL, 0, PRS_MCP_CLIENT_FAILED, PRS_MCP_CLIENT_IDLE,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* The tools were listed (again): prs_mcp_client_get_tools() has them. */
  signals[SIGNAL_TOOLS_CHANGED] =
    g_signal_new ("tools-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                  NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
prs_mcp_client_init (PrsMcpClient *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                         (GDestroyNotify) prs_mcp_rpc_request_free);
  self->tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_tool_free);
  self->initialize_ms = PRS_MCP_DEFAULT_INITIALIZE_TIMEOUT;
  self->request_ms = PRS_MCP_DEFAULT_REQUEST_TIMEOUT;
  self->call_ms = PRS_MCP_DEFAULT_CALL_TIMEOUT;
  self->auto_restart = TRUE;
  self->first_restart_ms = self->restart_ms = 1000;
}

PrsMcpClient *
prs_mcp_client_new (const char      *server_name,
                    PrsMcpTransport *transport)
{
  PrsMcpClient *self;

  g_return_val_if_fail (server_name != NULL && g_utf8_validate (server_name, -1, NULL), NULL);
  g_return_val_if_fail (PRS_IS_MCP_TRANSPORT (transport), NULL);

  self = g_object_new (PRS_TYPE_MCP_CLIENT, NULL);
  self->server_name = g_strdup (server_name);
  self->transport = g_object_ref (transport);
  self->message_handler = g_signal_connect (transport, "message", G_CALLBACK (prs_mcp_rpc_on_message), self);
  self->closed_handler = g_signal_connect (transport, "closed", G_CALLBACK (on_transport_closed), self);
  return self;
}
