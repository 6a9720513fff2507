/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-discovery.c: what discovery found (docs/workflows.md): the
 * tools, every workflow's checklist, and when discovery last ran. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-json.h"
#include "prs-store-internal.h"

/* ---- Discovery ----------------------------------------------------------- */

static gboolean
insert_tool (PrsStore       *self,
             const PrsTool  *tool,
             gint64          when,
             GError        **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonNode) tool_node = NULL;
  g_autoptr(JsonNode) schema_node = NULL;
  g_autofree char *tool_json = NULL;
  g_autofree char *schema_json = NULL;

  if (tool == NULL || tool->name == NULL || tool->workflow_id == NULL ||
      tool->webhook_path == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A discovered tool lacks its name, workflow or webhook path."));
      return FALSE;
    }

  tool_node = prs_tool_to_json (tool);
  schema_node = prs_tool_build_input_schema (tool);
  tool_json = prs_json_to_string (tool_node, FALSE);
  schema_json = prs_json_to_string (schema_node, FALSE);

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO tools (name, workflow_id, webhook_path, webhook_method,"
                        " response_mode, webhook_id, webhook_node_name, created_at,"
                        " tool_json, schema_json, discovered_at)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                        error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, tool->name);
  prs_store_bind_text (stmt, 2, tool->workflow_id);
  prs_store_bind_text (stmt, 3, tool->webhook_path);
  prs_store_bind_text (stmt, 4, tool->webhook_method);
  prs_store_bind_text (stmt, 5, tool->response_mode);
  prs_store_bind_text (stmt, 6, tool->webhook_id);
  prs_store_bind_text (stmt, 7, tool->webhook_node_name);
  prs_store_bind_text (stmt, 8, tool->created_at);
  prs_store_bind_text (stmt, 9, tool_json);
  prs_store_bind_text (stmt, 10, schema_json);
  sqlite3_bind_int64 (stmt, 11, when);

  if (sqlite3_step (stmt) != SQLITE_DONE)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("Could not save the tool “%s”: %s"),
                   tool->name, sqlite3_errmsg (self->db));
      return FALSE;
    }

  return TRUE;
}

static gboolean
insert_workflow_check (PrsStore                 *self,
                       const PrsChecklistInsert *checklist,
                       guint                     position,
                       GError                  **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (checklist->workflow_id == NULL || checklist->json == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A Workflow Checklist is not an object with a workflowId."));
      return FALSE;
    }

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO workflow_checks (workflow_id, workflow_name,"
                        " discoverable, tool_name, checklist_json, position)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                        error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, checklist->workflow_id);
  prs_store_bind_text (stmt, 2, checklist->workflow_name);
  sqlite3_bind_int (stmt, 3, checklist->discoverable);
  prs_store_bind_text (stmt, 4, checklist->tool_name);
  prs_store_bind_text (stmt, 5, checklist->json);
  sqlite3_bind_int64 (stmt, 6, position);

  if (sqlite3_step (stmt) != SQLITE_DONE)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("Could not save the Workflow Checklist of “%s”: %s"),
                   checklist->workflow_id, sqlite3_errmsg (self->db));
      return FALSE;
    }

  return TRUE;
}

gboolean
prs_store_save_discovery (PrsStore   *self,
                          GPtrArray  *tools,
                          GArray     *checklists,
                          gint64      when,
                          GError    **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (!prs_store_exec_cached (self, "DELETE FROM tools", N_("Could not replace the tools"), error))
    goto fail;
  for (guint i = 0; tools != NULL && i < tools->len; i++)
    if (!insert_tool (self, g_ptr_array_index (tools, i), when, error))
      goto fail;

  if (!prs_store_exec_cached (self, "DELETE FROM workflow_checks",
                    N_("Could not replace the Workflow Checklists"), error))
    goto fail;
  for (guint i = 0; checklists != NULL && i < checklists->len; i++)
    if (!insert_workflow_check (self, &g_array_index (checklists, PrsChecklistInsert, i), i, error))
      goto fail;

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO discovery_state (id, last_attempt, last_success, last_error)"
                        " VALUES (1, ?1, ?1, NULL)"
                        " ON CONFLICT (id) DO UPDATE SET last_attempt = excluded.last_attempt,"
                        " last_success = excluded.last_success, last_error = NULL",
                        error);
  if (stmt == NULL)
    goto fail;
  sqlite3_bind_int64 (stmt, 1, when);
  if (!prs_store_step_done (self, stmt, N_("Could not record the discovery"), error) ||
      !prs_store_write_setting (self, PRS_SETTING_DISCOVERY_FAILURE, NULL, error))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

/* PrsDiscoveryFailure by index, as PRS_SETTING_DISCOVERY_FAILURE keeps it:
 * names, so that the enum's order is free to change */
static const char *const failure_names[] = {
  NULL, "not-set-up", "no-key", "key-refused", "unreachable", "bad-answer",
};
G_STATIC_ASSERT (G_N_ELEMENTS (failure_names) == PRS_DISCOVERY_FAILURE_BAD_ANSWER + 1);

gboolean
prs_store_record_discovery_failure (PrsStore            *self,
                                    PrsDiscoveryFailure  kind,
                                    const char          *message,
                                    gint64       when,
                                    GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self,
                        "INSERT INTO discovery_state (id, last_attempt, last_error)"
                        " VALUES (1, ?1, ?2)"
                        " ON CONFLICT (id) DO UPDATE SET last_attempt = excluded.last_attempt,"
                        " last_error = excluded.last_error",
                        error);
  if (stmt == NULL)
    goto fail;
  sqlite3_bind_int64 (stmt, 1, when);
  prs_store_bind_text (stmt, 2, message != NULL ? message : "Discovery failed");
  if (!prs_store_step_done (self, stmt, N_("Could not record the failed discovery"), error) ||
      !prs_store_write_setting (self, PRS_SETTING_DISCOVERY_FAILURE,
                                (guint) kind < G_N_ELEMENTS (failure_names) ? failure_names[kind] : NULL,
                                error))
    goto fail;

  return prs_store_commit (self, error);

fail:
  prs_store_rollback (self);
  return FALSE;
}

/* Columns: tool_json, webhook_id, webhook_node_name, created_at, discovered_at */
static PrsTool *
tool_from_row (sqlite3_stmt  *stmt,
               GError       **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) local_error = NULL;
  PrsTool *tool;

  node = json_from_string (prs_store_column_text (stmt, 0), &local_error);
  if (node == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                   _("A stored tool is damaged: %s"),
                   local_error != NULL ? local_error->message : "empty");
      return NULL;
    }

  tool = prs_tool_new_from_json (node, error);
  if (tool == NULL)
    return NULL;

  tool->webhook_id = g_strdup (prs_store_column_text (stmt, 1));
  tool->webhook_node_name = g_strdup (prs_store_column_text (stmt, 2));
  tool->created_at = g_strdup (prs_store_column_text (stmt, 3));
  tool->discovered_at = sqlite3_column_int64 (stmt, 4);

  return tool;
}

GPtrArray *
prs_store_list_tools (PrsStore  *self,
                      GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT tool_json, webhook_id, webhook_node_name, created_at,"
                        " discovered_at FROM tools ORDER BY name",
                        error);
  if (stmt == NULL)
    return NULL;

  return prs_store_collect_rows (self, stmt, N_("Could not read the tools"),
                                 (PrsStoreReadRow) tool_from_row, (GDestroyNotify) prs_tool_free, error);
}

PrsTool *
prs_store_lookup_tool (PrsStore    *self,
                       const char  *name,
                       GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT tool_json, webhook_id, webhook_node_name, created_at,"
                        " discovered_at FROM tools WHERE name = ?1",
                        error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, name);
  row = prs_store_step_row (self, stmt, N_("Could not read a tool"), error);
  if (row < 0)
    return NULL;
  if (row == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   _("There is no tool named “%s”."), name);
      return NULL;
    }

  return tool_from_row (stmt, error);
}

JsonArray *
prs_store_list_workflow_checks (PrsStore  *self,
                                GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonArray) checks = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                        "SELECT checklist_json FROM workflow_checks ORDER BY position",
                        error);
  if (stmt == NULL)
    return NULL;

  checks = json_array_new ();
  while ((row = prs_store_step_row (self, stmt, N_("Could not read the Workflow Checklists"), error)) == 1)
    {
      g_autoptr(GError) local_error = NULL;
      JsonNode *node = json_from_string (prs_store_column_text (stmt, 0), &local_error);

      if (node == NULL)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                       _("A stored Workflow Checklist is damaged: %s"),
                       local_error != NULL ? local_error->message : "empty");
          return NULL;
        }
      json_array_add_element (checks, node);
    }
  if (row < 0)
    return NULL;

  return g_steal_pointer (&checks);
}

void
prs_store_get_discovery_status (PrsStore  *self,
                                gint64    *last_attempt,
                                gint64    *last_success,
                                char     **last_error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (last_attempt != NULL)
    *last_attempt = 0;
  if (last_success != NULL)
    *last_success = 0;
  if (last_error != NULL)
    *last_error = NULL;

  g_return_if_fail (PRS_IS_STORE (self));
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                        "SELECT last_attempt, last_success, last_error"
                        " FROM discovery_state WHERE id = 1",
                        NULL);
  if (stmt == NULL || prs_store_step_row (self, stmt, N_("Could not read the discovery status"), NULL) != 1)
    return;

  if (last_attempt != NULL)
    *last_attempt = sqlite3_column_int64 (stmt, 0);
  if (last_success != NULL)
    *last_success = sqlite3_column_int64 (stmt, 1);
  if (last_error != NULL)
    *last_error = g_strdup (prs_store_column_text (stmt, 2));
}

PrsDiscoveryFailure
prs_store_get_discovery_failure (PrsStore *self)
{
  g_autofree char *name = prs_store_dup_setting (self, PRS_SETTING_DISCOVERY_FAILURE);

  for (guint i = 1; name != NULL && i < G_N_ELEMENTS (failure_names); i++)
    if (g_str_equal (name, failure_names[i]))
      return i;
  /* None, or a name a newer version wrote */
  return PRS_DISCOVERY_FAILURE_OTHER;
}
