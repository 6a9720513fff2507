/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-mcp.c: the MCP servers the user added, the table of migration
 * 6, and the tools each listed last (migration 11). Lists (arguments,
 * environment, names of secret values) are JSON arrays of strings; secrets
 * themselves are never stored here. Each write runs in one BEGIN IMMEDIATE
 * transaction. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-json.h"
#include "prs-store-internal.h"

#define MCP_COLUMNS "id, name, transport, command, args_json, env_json, secret_env_json, url," \
                    " headers_json, enabled, shared, created_at"
/* The longest server name: it starts every tool name models see. */
#define MAX_NAME_CHARS 64

PrsMcpServerRow *
prs_mcp_server_row_copy (const PrsMcpServerRow *row)
{
  PrsMcpServerRow *copy;

  g_return_val_if_fail (row != NULL, NULL);

  copy = g_new0 (PrsMcpServerRow, 1);
  copy->id = g_strdup (row->id);
  copy->name = g_strdup (row->name);
  copy->transport = g_strdup (row->transport);
  copy->command = g_strdup (row->command);
  copy->args = g_strdupv (row->args);
  copy->env = g_strdupv (row->env);
  copy->secret_env = g_strdupv (row->secret_env);
  copy->url = g_strdup (row->url);
  copy->header_names = g_strdupv (row->header_names);
  copy->enabled = row->enabled;
  copy->shared = row->shared;
  copy->created_at = g_strdup (row->created_at);
  return copy;
}

void
prs_mcp_server_row_free (PrsMcpServerRow *row)
{
  if (row == NULL)
    return;
  g_free (row->id);
  g_free (row->name);
  g_free (row->transport);
  g_free (row->command);
  g_strfreev (row->args);
  g_strfreev (row->env);
  g_strfreev (row->secret_env);
  g_free (row->url);
  g_strfreev (row->header_names);
  g_free (row->created_at);
  g_free (row);
}

static char **
strv_from_json (const char *text)
{
  g_autoptr(JsonNode) node = text != NULL ? json_from_string (text, NULL) : NULL;
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          const char *s = json_array_get_string_element (array, i);

          if (s != NULL)
            g_strv_builder_add (builder, s);
        }
    }
  return g_strv_builder_end (builder);
}

static char *
strv_to_json (char **strv)
{
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

  for (guint i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_add_string_element (array, strv[i]);
  json_node_set_array (node, array);
  return prs_json_to_string (node, FALSE);
}

static PrsMcpServerRow *
read_row (sqlite3_stmt  *stmt,
          GError       **error)
{
  PrsMcpServerRow *row = g_new0 (PrsMcpServerRow, 1);

  row->id = g_strdup (prs_store_column_text (stmt, 0));
  row->name = g_strdup (prs_store_column_text (stmt, 1));
  row->transport = g_strdup (prs_store_column_text (stmt, 2));
  row->command = g_strdup (prs_store_column_text (stmt, 3));
  row->args = strv_from_json (prs_store_column_text (stmt, 4));
  row->env = strv_from_json (prs_store_column_text (stmt, 5));
  row->secret_env = strv_from_json (prs_store_column_text (stmt, 6));
  row->url = g_strdup (prs_store_column_text (stmt, 7));
  row->header_names = strv_from_json (prs_store_column_text (stmt, 8));
  row->enabled = sqlite3_column_int (stmt, 9) != 0;
  row->shared = sqlite3_column_int (stmt, 10) != 0;
  row->created_at = g_strdup (prs_store_column_text (stmt, 11));
  return row;
}

GPtrArray *
prs_store_list_mcp_servers (PrsStore  *self,
                            GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self, "SELECT " MCP_COLUMNS " FROM mcp_servers ORDER BY name", error);
  if (stmt == NULL)
    return NULL;
  return prs_store_collect_rows (self, stmt, N_("Could not read the MCP servers"),
                                 (PrsStoreReadRow) read_row, (GDestroyNotify) prs_mcp_server_row_free, error);
}

PrsMcpServerRow *
prs_store_lookup_mcp_server (PrsStore    *self,
                             const char  *id_or_name,
                             GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (id_or_name == NULL)
    return NULL;
  stmt = prs_store_prepare_cached (self,
                                   "SELECT " MCP_COLUMNS " FROM mcp_servers"
                                   " WHERE id = ?1 OR name = ?1 ORDER BY id = ?1 DESC LIMIT 1",
                                   error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, id_or_name);
  return prs_store_step_row (self, stmt, N_("Could not read the MCP server"), error) == 1 ? read_row (stmt, NULL) : NULL;
}

static gboolean
check_row (const PrsMcpServerRow  *row,
           GError                **error)
{
  const char *name = row->name != NULL ? row->name : "";
  gboolean stdio = g_strcmp0 (row->transport, "stdio") == 0;
  gboolean http = g_strcmp0 (row->transport, "http") == 0;

  if (name[0] == '\0' || g_ascii_isspace (name[0]) || g_ascii_isspace (name[strlen (name) - 1]) ||
      !g_utf8_validate (name, -1, NULL) || g_utf8_strlen (name, -1) > MAX_NAME_CHARS)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   /* Translators: %d is a number of characters such as 64 */
                   _("An MCP server needs a name of 1 to %d characters, without spaces at either end."),
                   MAX_NAME_CHARS);
      return FALSE;
    }
  for (const char *p = name; *p != '\0'; p++)
    {
      if ((guchar) *p < 0x20 || *p == 0x7f)
        {
          g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                               _("An MCP server's name cannot contain control characters."));
          return FALSE;
        }
    }
  if ((stdio && (row->command == NULL || row->command[0] == '\0' || row->url != NULL)) ||
      (http && (row->url == NULL || row->url[0] == '\0' || row->command != NULL)) || (!stdio && !http))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("An MCP server needs either a command (stdio) or an address (HTTP)."));
      return FALSE;
    }
  return TRUE;
}

static gboolean
name_taken (PrsStore    *self,
            const char  *name,
            const char  *except_id,
            GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self,
                                                      "SELECT 1 FROM mcp_servers WHERE name = ?1 AND id IS NOT ?2",
                                                      error);
  int rc;

  if (stmt == NULL)
    return TRUE;
  prs_store_bind_text (stmt, 1, name);
  prs_store_bind_text (stmt, 2, except_id);
  rc = prs_store_step_row (self, stmt, N_("Could not read the MCP servers"), error);
  if (rc == 1)
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 _("An MCP server named “%s” exists already."), name);
  return rc != 0;
}

/* Binds every column but created_at in MCP_COLUMNS order (?1…?11). */
static void
bind_row (sqlite3_stmt          *stmt,
          const PrsMcpServerRow *row,
          const char            *id)
{
  g_autofree char *args = strv_to_json (row->args);
  g_autofree char *env = strv_to_json (row->env);
  g_autofree char *secret_env = strv_to_json (row->secret_env);
  g_autofree char *headers = strv_to_json (row->header_names);

  prs_store_bind_text (stmt, 1, id);
  prs_store_bind_text (stmt, 2, row->name);
  prs_store_bind_text (stmt, 3, row->transport);
  prs_store_bind_text (stmt, 4, row->command);
  prs_store_bind_text (stmt, 5, args);
  prs_store_bind_text (stmt, 6, env);
  prs_store_bind_text (stmt, 7, secret_env);
  prs_store_bind_text (stmt, 8, row->url);
  prs_store_bind_text (stmt, 9, headers);
  sqlite3_bind_int (stmt, 10, row->enabled ? 1 : 0);
  sqlite3_bind_int (stmt, 11, row->shared ? 1 : 0);
}

/* Runs @sql (an insert or an update of @id) in one transaction after the
 * checks that both share. */
static gboolean
write_row (PrsStore               *self,
           const char             *sql,
           const PrsMcpServerRow  *row,
           const char             *id,
           gboolean                is_new,
           GError                **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();

  if (!check_row (row, error) || !prs_store_begin_immediate (self, error))
    return FALSE;
  if (name_taken (self, row->name, is_new ? NULL : id, error))
    goto fail;
  /* A new name gives its tools new names: the ones kept are no longer true */
  if (!is_new)
    {
      stmt = prs_store_prepare_cached (self,
                                       "DELETE FROM mcp_tools WHERE server_id = ?1"
                                       " AND (SELECT name FROM mcp_servers WHERE id = ?1) IS NOT ?2",
                                       error);
      if (stmt == NULL)
        goto fail;
      prs_store_bind_text (stmt, 1, id);
      prs_store_bind_text (stmt, 2, row->name);
      if (!prs_store_step_done (self, stmt, N_("Could not save the MCP server"), error))
        goto fail;
      g_clear_pointer (&stmt, prs_stmt_release);
    }
  if ((stmt = prs_store_prepare_cached (self, sql, error)) == NULL)
    goto fail;
  bind_row (stmt, row, id);
  if (is_new)
    prs_store_bind_text (stmt, 12, now);
  if (!prs_store_step_done (self, stmt, N_("Could not save the MCP server"), error))
    goto fail;
  if (!is_new && sqlite3_changes (self->db) == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no MCP server “%s”."), id);
      goto fail;
    }
  g_clear_pointer (&stmt, prs_stmt_release);
  return prs_store_commit (self, error);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_add_mcp_server (PrsStore               *self,
                          const PrsMcpServerRow  *row,
                          char                  **out_id,
                          GError                **error)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (row != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  id = row->id != NULL ? g_strdup (row->id) : g_uuid_string_random ();
  if (!write_row (self, "INSERT INTO mcp_servers (" MCP_COLUMNS ")"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                  row, id, TRUE, error))
    return FALSE;
  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);
  return TRUE;
}

gboolean
prs_store_update_mcp_server (PrsStore               *self,
                             const PrsMcpServerRow  *row,
                             GError                **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (row != NULL && row->id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return write_row (self, "UPDATE mcp_servers SET name = ?2, transport = ?3, command = ?4, args_json = ?5,"
                    " env_json = ?6, secret_env_json = ?7, url = ?8, headers_json = ?9, enabled = ?10,"
                    " shared = ?11 WHERE id = ?1",
                    row, row->id, FALSE, error);
}

gboolean
prs_store_remove_mcp_server (PrsStore    *self,
                             const char  *id,
                             GError     **error)
{
  gboolean found = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_delete_one (self, "DELETE FROM mcp_servers WHERE id = ?1", id,
                             N_("Could not remove the MCP server"), &found, error))
    return FALSE;
  if (!found)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no MCP server “%s”."), id);
      return FALSE;
    }
  return TRUE;
}

/* ---- The tools each server listed last (migration 11) ---- */

gboolean
prs_store_save_mcp_tools (PrsStore    *self,
                          const char  *server_id,
                          JsonArray   *tools,
                          gint64       when,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (server_id != NULL && tools != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonObject *tool = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      g_return_val_if_fail (tool != NULL && json_object_get_string_member_with_default (tool, "name", NULL) != NULL &&
                            json_object_get_string_member_with_default (tool, "exposedName", NULL) != NULL,
                            FALSE);
    }

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  stmt = prs_store_prepare_cached (self, "UPDATE mcp_servers SET tools_listed_at = ?2 WHERE id = ?1", error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, server_id);
  sqlite3_bind_int64 (stmt, 2, when);
  if (!prs_store_step_done (self, stmt, N_("Could not save the MCP server's tools"), error))
    goto fail;
  /* A server removed meanwhile keeps no tools */
  if (sqlite3_changes (self->db) == 0)
    {
      g_clear_pointer (&stmt, prs_stmt_release);
      return prs_store_commit (self, error);
    }
  g_clear_pointer (&stmt, prs_stmt_release);

  stmt = prs_store_prepare_cached (self, "DELETE FROM mcp_tools WHERE server_id = ?1", error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, server_id);
  if (!prs_store_step_done (self, stmt, N_("Could not save the MCP server's tools"), error))
    goto fail;
  g_clear_pointer (&stmt, prs_stmt_release);

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *node = json_array_get_element (tools, i);
      JsonObject *tool = json_node_get_object (node);
      const char *name = json_object_get_string_member (tool, "name");
      const char *exposed = json_object_get_string_member (tool, "exposedName");
      g_autofree char *text = prs_json_to_string (node, FALSE);

      stmt = prs_store_prepare_cached (self,
                                       "INSERT INTO mcp_tools (server_id, position, name, exposed_name, tool_json)"
                                       " VALUES (?1, ?2, ?3, ?4, ?5)",
                                       error);
      if (stmt == NULL)
        goto fail;
      prs_store_bind_text (stmt, 1, server_id);
      sqlite3_bind_int (stmt, 2, (int) i);
      prs_store_bind_text (stmt, 3, name);
      prs_store_bind_text (stmt, 4, exposed);
      prs_store_bind_text (stmt, 5, text);
      if (!prs_store_step_done (self, stmt, N_("Could not save the MCP server's tools"), error))
        goto fail;
      g_clear_pointer (&stmt, prs_stmt_release);
    }
  return prs_store_commit (self, error);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return FALSE;
}

JsonArray *
prs_store_list_mcp_tools (PrsStore    *self,
                          const char  *server_id,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonArray) out = json_array_new ();
  int rc;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT s.id, s.name, s.enabled, s.shared, s.tools_listed_at, t.tool_json"
                                   " FROM mcp_tools t JOIN mcp_servers s ON s.id = t.server_id"
                                   " WHERE ?1 IS NULL OR s.id = ?1"
                                   " ORDER BY s.name, t.position",
                                   error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, server_id);
  while ((rc = prs_store_step_row (self, stmt, N_("Could not read the MCP servers' tools"), error)) == 1)
    {
      JsonObject *entry = json_object_new ();
      JsonNode *tool = json_from_string (prs_store_column_text (stmt, 5), NULL);

      json_object_set_string_member (entry, "serverId", prs_store_column_text (stmt, 0));
      json_object_set_string_member (entry, "serverName", prs_store_column_text (stmt, 1));
      json_object_set_boolean_member (entry, "enabled", sqlite3_column_int (stmt, 2) != 0);
      json_object_set_boolean_member (entry, "shared", sqlite3_column_int (stmt, 3) != 0);
      json_object_set_int_member (entry, "listedAt", sqlite3_column_int64 (stmt, 4));
      json_object_set_member (entry, "tool", tool != NULL ? tool : json_node_new (JSON_NODE_NULL));
      json_array_add_object_element (out, entry);
    }
  if (rc < 0)
    return NULL;
  return g_steal_pointer (&out);
}
