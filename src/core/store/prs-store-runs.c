/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-runs.c: the store's agent runs, their tool calls (migration 4)
 * and the auto-approval rules (migration 3). Each write runs in one BEGIN
 * IMMEDIATE transaction, so a run's state on disk is always one of its
 * steps. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-json.h"
#include "prs-store-internal.h"

#define RUN_COLUMNS \
  "id, conversation_id, agent_id, origin, trigger_message_id, status, context_json," \
  " execution_json, options_json, transcript_json, assistant_message_id, stop_reason," \
  " error, round, created_at, updated_at"

#define TOOL_CALL_COLUMNS \
  "id, run_id, message_id, result_message_id, round, position, provider_call_id, name," \
  " arguments_json, status, result_text"

/* ---- runs ---- */

void
prs_run_row_free (PrsRunRow *row)
{
  if (row == NULL)
    return;

  g_free (row->id);
  g_free (row->conversation_id);
  g_free (row->agent_id);
  g_free (row->origin);
  g_free (row->trigger_message_id);
  g_free (row->status);
  g_free (row->context_json);
  g_free (row->execution_json);
  g_free (row->options_json);
  g_free (row->transcript_json);
  g_free (row->assistant_message_id);
  g_free (row->stop_reason);
  g_free (row->error);
  g_free (row->created_at);
  g_free (row->updated_at);
  g_free (row);
}

static PrsRunRow *
read_run (sqlite3_stmt  *stmt,
          GError       **error)
{
  PrsRunRow *row = g_new0 (PrsRunRow, 1);

  row->id = g_strdup (prs_store_column_text (stmt, 0));
  row->conversation_id = g_strdup (prs_store_column_text (stmt, 1));
  row->agent_id = g_strdup (prs_store_column_text (stmt, 2));
  row->origin = g_strdup (prs_store_column_text (stmt, 3));
  row->trigger_message_id = g_strdup (prs_store_column_text (stmt, 4));
  row->status = g_strdup (prs_store_column_text (stmt, 5));
  row->context_json = g_strdup (prs_store_column_text (stmt, 6));
  row->execution_json = g_strdup (prs_store_column_text (stmt, 7));
  row->options_json = g_strdup (prs_store_column_text (stmt, 8));
  row->transcript_json = g_strdup (prs_store_column_text (stmt, 9));
  if (row->transcript_json == NULL)
    row->transcript_json = g_strdup ("[]");
  row->assistant_message_id = g_strdup (prs_store_column_text (stmt, 10));
  row->stop_reason = g_strdup (prs_store_column_text (stmt, 11));
  row->error = g_strdup (prs_store_column_text (stmt, 12));
  row->round = sqlite3_column_int (stmt, 13);
  row->created_at = g_strdup (prs_store_column_text (stmt, 14));
  row->updated_at = g_strdup (prs_store_column_text (stmt, 15));
  return row;
}

gboolean
prs_store_save_run (PrsStore        *self,
                    const PrsRunRow *row,
                    GError         **error)
{
  return prs_store_save_run_and_trigger (self, row, NULL, error);
}

gboolean
prs_store_save_run_and_trigger (PrsStore        *self,
                                const PrsRunRow *row,
                                const char      *trigger_status,
                                GError         **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (row != NULL && row->id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self,
                                   "INSERT INTO runs (" RUN_COLUMNS ") VALUES"
                                   " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15)"
                                   " ON CONFLICT (id) DO UPDATE SET status = ?6, options_json = ?9,"
                                   " transcript_json = ?10, assistant_message_id = ?11,"
                                   " stop_reason = ?12, error = ?13, round = ?14, updated_at = ?15",
                                   error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, row->id);
  prs_store_bind_text (stmt, 2, row->conversation_id);
  prs_store_bind_text (stmt, 3, row->agent_id);
  prs_store_bind_text (stmt, 4, row->origin);
  prs_store_bind_text (stmt, 5, row->trigger_message_id);
  prs_store_bind_text (stmt, 6, row->status);
  prs_store_bind_text (stmt, 7, row->context_json);
  prs_store_bind_text (stmt, 8, row->execution_json);
  prs_store_bind_text (stmt, 9, row->options_json);
  prs_store_bind_text (stmt, 10, row->transcript_json != NULL ? row->transcript_json : "[]");
  prs_store_bind_text (stmt, 11, row->assistant_message_id);
  prs_store_bind_text (stmt, 12, row->stop_reason);
  prs_store_bind_text (stmt, 13, row->error);
  sqlite3_bind_int (stmt, 14, row->round);
  prs_store_bind_text (stmt, 15, now);
  if (!prs_store_step_done (self, stmt, N_("Could not save the agent run"), error))
    goto fail;
  g_clear_pointer (&stmt, prs_stmt_release);

  /* In the same transaction: a crash never leaves a finished run whose
   * request still looks pending */
  if (trigger_status != NULL && row->trigger_message_id != NULL)
    {
      stmt = prs_store_prepare_cached (self, "UPDATE messages SET status = ?2 WHERE id = ?1", error);
      if (stmt == NULL)
        goto fail;
      prs_store_bind_text (stmt, 1, row->trigger_message_id);
      prs_store_bind_text (stmt, 2, trigger_status);
      if (!prs_store_step_done (self, stmt, N_("Could not update the request's status"), error))
        goto fail;
      g_clear_pointer (&stmt, prs_stmt_release);
    }

  return prs_store_commit (self, error);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return FALSE;
}

PrsRunRow *
prs_store_lookup_run (PrsStore    *self,
                      const char  *run_id,
                      GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  if (run_id == NULL)
    return NULL;
  stmt = prs_store_prepare_cached (self, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1", error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, run_id);
  return prs_store_step_row (self, stmt, N_("Could not read the agent run"), error) == 1 ? read_run (stmt, NULL) : NULL;
}

PrsRunRow *
prs_store_lookup_run_by_trigger (PrsStore    *self,
                                 const char  *message_id,
                                 GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  if (message_id == NULL)
    return NULL;
  stmt = prs_store_prepare_cached (self,
                                   "SELECT " RUN_COLUMNS " FROM runs WHERE trigger_message_id = ?1"
                                   " ORDER BY created_at DESC LIMIT 1",
                                   error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, message_id);
  return prs_store_step_row (self, stmt, N_("Could not read the agent run"), error) == 1 ? read_run (stmt, NULL) : NULL;
}

GPtrArray *
prs_store_list_unfinished_runs (PrsStore  *self,
                                GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT " RUN_COLUMNS " FROM runs"
                                   " WHERE status IN ('running', 'awaiting_approval')"
                                   " ORDER BY created_at",
                                   error);
  if (stmt == NULL)
    return NULL;

  return prs_store_collect_rows (self, stmt, N_("Could not read the agent runs"),
                                 (PrsStoreReadRow) read_run, (GDestroyNotify) prs_run_row_free, error);
}

/* ---- tool calls ---- */

void
prs_tool_call_row_free (PrsToolCallRow *row)
{
  if (row == NULL)
    return;

  g_free (row->id);
  g_free (row->run_id);
  g_free (row->message_id);
  g_free (row->result_message_id);
  g_free (row->provider_call_id);
  g_free (row->name);
  g_free (row->arguments_json);
  g_free (row->status);
  g_free (row->result_text);
  g_free (row);
}

static PrsToolCallRow *
read_tool_call (sqlite3_stmt  *stmt,
                GError       **error)
{
  PrsToolCallRow *row = g_new0 (PrsToolCallRow, 1);

  row->id = g_strdup (prs_store_column_text (stmt, 0));
  row->run_id = g_strdup (prs_store_column_text (stmt, 1));
  row->message_id = g_strdup (prs_store_column_text (stmt, 2));
  row->result_message_id = g_strdup (prs_store_column_text (stmt, 3));
  row->round = sqlite3_column_int (stmt, 4);
  row->position = sqlite3_column_int (stmt, 5);
  row->provider_call_id = g_strdup (prs_store_column_text (stmt, 6));
  row->name = g_strdup (prs_store_column_text (stmt, 7));
  row->arguments_json = g_strdup (prs_store_column_text (stmt, 8));
  row->status = g_strdup (prs_store_column_text (stmt, 9));
  row->result_text = g_strdup (prs_store_column_text (stmt, 10));
  return row;
}

gboolean
prs_store_save_tool_call (PrsStore             *self,
                          const PrsToolCallRow *row,
                          const char           *message_status,
                          const char           *message_extra_json,
                          GError              **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (row != NULL && row->id != NULL && row->message_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  stmt = prs_store_prepare_cached (self,
                                   "INSERT INTO tool_calls (" TOOL_CALL_COLUMNS ", created_at, updated_at)"
                                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)"
                                   " ON CONFLICT (id) DO UPDATE SET result_message_id = ?4,"
                                   " arguments_json = ?9, status = ?10, result_text = ?11, updated_at = ?12",
                                   error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, row->id);
  prs_store_bind_text (stmt, 2, row->run_id);
  prs_store_bind_text (stmt, 3, row->message_id);
  prs_store_bind_text (stmt, 4, row->result_message_id);
  sqlite3_bind_int (stmt, 5, row->round);
  sqlite3_bind_int (stmt, 6, row->position);
  prs_store_bind_text (stmt, 7, row->provider_call_id);
  prs_store_bind_text (stmt, 8, row->name);
  prs_store_bind_text (stmt, 9, row->arguments_json != NULL ? row->arguments_json : "{}");
  prs_store_bind_text (stmt, 10, row->status);
  prs_store_bind_text (stmt, 11, row->result_text);
  prs_store_bind_text (stmt, 12, now);
  if (!prs_store_step_done (self, stmt, N_("Could not save the tool call"), error))
    goto fail;
  g_clear_pointer (&stmt, prs_stmt_release);

  if (message_status != NULL || message_extra_json != NULL)
    {
      stmt = prs_store_prepare_cached (self,
                                       "UPDATE messages SET status = COALESCE (?2, status),"
                                       " extra_json = COALESCE (?3, extra_json) WHERE id = ?1",
                                       error);
      if (stmt == NULL)
        goto fail;
      prs_store_bind_text (stmt, 1, row->message_id);
      prs_store_bind_text (stmt, 2, message_status);
      prs_store_bind_text (stmt, 3, message_extra_json);
      if (!prs_store_step_done (self, stmt, N_("Could not update the tool call's message"), error))
        goto fail;
      g_clear_pointer (&stmt, prs_stmt_release);
    }

  return prs_store_commit (self, error);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return FALSE;
}

GPtrArray *
prs_store_list_tool_calls (PrsStore    *self,
                           const char  *run_id,
                           GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT " TOOL_CALL_COLUMNS " FROM tool_calls WHERE run_id = ?1"
                                   " ORDER BY round, position",
                                   error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, run_id);

  return prs_store_collect_rows (self, stmt, N_("Could not read the tool calls"),
                                 (PrsStoreReadRow) read_tool_call, (GDestroyNotify) prs_tool_call_row_free, error);
}

PrsToolCallRow *
prs_store_lookup_tool_call (PrsStore    *self,
                            const char  *id_or_message_id,
                            GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  if (id_or_message_id == NULL)
    return NULL;
  stmt = prs_store_prepare_cached (self,
                                   "SELECT " TOOL_CALL_COLUMNS " FROM tool_calls"
                                   " WHERE id = ?1 OR message_id = ?1 LIMIT 1",
                                   error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, id_or_message_id);
  return prs_store_step_row (self, stmt, N_("Could not read the tool call"), error) == 1 ? read_tool_call (stmt, NULL) : NULL;
}

static void
add_waiting_call (JsonBuilder  *builder,
                  sqlite3_stmt *stmt)
{
  const char *arguments = prs_store_column_text (stmt, 4);
  g_autoptr(JsonNode) parsed = arguments != NULL
                               ? prs_json_parse_strict (arguments, strlen (arguments), 64, NULL) : NULL;

  json_builder_begin_object (builder);
  prs_json_builder_add_string_member (builder, "id", prs_store_column_text (stmt, 0));
  prs_json_builder_add_string_member (builder, "messageId", prs_store_column_text (stmt, 1));
  prs_json_builder_add_string_member (builder, "runId", prs_store_column_text (stmt, 2));
  prs_json_builder_add_string_member (builder, "name", prs_store_column_text (stmt, 3));
  json_builder_set_member_name (builder, "arguments");
  if (parsed != NULL && JSON_NODE_HOLDS_OBJECT (parsed))
    json_builder_add_value (builder, g_steal_pointer (&parsed));
  else
    {
      json_builder_begin_object (builder);
      json_builder_end_object (builder);
    }
  prs_json_builder_add_string_member (builder, "conversationId", prs_store_column_text (stmt, 5));
  prs_json_builder_add_string_member (builder, "conversationSlug", prs_store_column_text (stmt, 6));
  prs_json_builder_add_string_member (builder, "conversationTitle", prs_store_column_text (stmt, 7));
  prs_json_builder_add_string_member (builder, "agentId", prs_store_column_text (stmt, 8));
  prs_json_builder_add_string_member (builder, "origin", prs_store_column_text (stmt, 9));
  prs_json_builder_add_string_member (builder, "createdAt", prs_store_column_text (stmt, 10));
  json_builder_end_object (builder);
}

JsonArray *
prs_store_list_waiting_tool_calls (PrsStore  *self,
                                   GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  int rc;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT t.id, t.message_id, t.run_id, t.name, t.arguments_json,"
                                   "       c.id, c.slug, c.title, r.agent_id, r.origin, t.created_at"
                                   " FROM tool_calls t JOIN runs r ON r.id = t.run_id"
                                   " JOIN conversations c ON c.id = r.conversation_id"
                                   " WHERE t.status = 'proposed'"
                                   "   AND r.status IN ('running', 'awaiting_approval')"
                                   "   AND c.deleted_at IS NULL"
                                   " ORDER BY t.created_at, t.rowid",
                                   error);
  if (stmt == NULL)
    return NULL;

  json_builder_begin_array (builder);
  while ((rc = prs_store_step_row (self, stmt, N_("Could not read the waiting tool calls"), error)) == 1)
    add_waiting_call (builder, stmt);
  if (rc < 0)
    return NULL;
  json_builder_end_array (builder);

  root = json_builder_get_root (builder);
  return json_array_ref (json_node_get_array (root));
}

/* ---- approval rules ---- */

gboolean
prs_store_add_approval_rule (PrsStore    *self,
                             const char  *tool,
                             const char  *agent_id,
                             const char  *conversation_slug,
                             const char  *action,
                             gint64      *out_id,
                             GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (g_strcmp0 (action, "approve") != 0 && g_strcmp0 (action, "deny") != 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("A rule’s action is “approve” or “deny”."));
      return FALSE;
    }
  if (tool == NULL && agent_id == NULL && conversation_slug == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("A rule needs a tool, an agent or a conversation."));
      return FALSE;
    }

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  stmt = prs_store_prepare_cached (self,
                                   "INSERT INTO approval_rules (tool, agent_id, conversation_slug, action, created_at)"
                                   " VALUES (?1, ?2, ?3, ?4, ?5)",
                                   error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, tool);
  prs_store_bind_text (stmt, 2, agent_id);
  prs_store_bind_text (stmt, 3, conversation_slug);
  prs_store_bind_text (stmt, 4, action);
  prs_store_bind_text (stmt, 5, now);
  if (!prs_store_step_done (self, stmt, N_("Could not add the rule"), error))
    goto fail;
  g_clear_pointer (&stmt, prs_stmt_release);
  if (out_id != NULL)
    *out_id = sqlite3_last_insert_rowid (self->db);

  return prs_store_commit (self, error);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return FALSE;
}

JsonArray *
prs_store_list_approval_rules (PrsStore  *self,
                               GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  int rc;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT id, tool, agent_id, conversation_slug, action, created_at"
                                   " FROM approval_rules ORDER BY id",
                                   error);
  if (stmt == NULL)
    return NULL;

  json_builder_begin_array (builder);
  while ((rc = prs_store_step_row (self, stmt, N_("Could not read the auto-approval rules"), error)) == 1)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "id");
      json_builder_add_int_value (builder, sqlite3_column_int64 (stmt, 0));
      prs_json_builder_add_string_member (builder, "tool", prs_store_column_text (stmt, 1));
      prs_json_builder_add_string_member (builder, "agentId", prs_store_column_text (stmt, 2));
      prs_json_builder_add_string_member (builder, "conversationSlug", prs_store_column_text (stmt, 3));
      prs_json_builder_add_string_member (builder, "action", prs_store_column_text (stmt, 4));
      prs_json_builder_add_string_member (builder, "createdAt", prs_store_column_text (stmt, 5));
      json_builder_end_object (builder);
    }
  if (rc < 0)
    return NULL;
  json_builder_end_array (builder);

  root = json_builder_get_root (builder);
  return json_array_ref (json_node_get_array (root));
}

gboolean
prs_store_remove_approval_rule (PrsStore  *self,
                                gint64     id,
                                GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  stmt = prs_store_prepare_cached (self, "DELETE FROM approval_rules WHERE id = ?1", error);
  if (stmt == NULL)
    goto fail;
  sqlite3_bind_int64 (stmt, 1, id);
  if (!prs_store_step_done (self, stmt, N_("Could not remove the rule"), error))
    goto fail;
  if (sqlite3_changes (self->db) == 0)
    {
      g_autofree char *id_text = g_strdup_printf ("%" G_GINT64_FORMAT, id);

      /* Translators: %s is the number of an approval rule */
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no rule %s."), id_text);
      goto fail;
    }
  g_clear_pointer (&stmt, prs_stmt_release);
  return prs_store_commit (self, error);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return FALSE;
}

char *
prs_store_match_approval_rule (PrsStore   *self,
                               const char *tool,
                               const char *agent_id,
                               const char *conversation_slug)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(GError) error = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT action FROM approval_rules"
                                   " WHERE (tool IS NULL OR tool = ?1)"
                                   " AND (agent_id IS NULL OR agent_id = ?2)"
                                   " AND (conversation_slug IS NULL OR conversation_slug = ?3)"
                                   " ORDER BY (tool IS NOT NULL) + (agent_id IS NOT NULL)"
                                   " + (conversation_slug IS NOT NULL) DESC,"
                                   " action = 'deny' DESC LIMIT 1",
                                   &error);
  if (stmt == NULL)
    {
      g_message ("Could not read the approval rules: %s", error->message);
      return NULL;
    }
  prs_store_bind_text (stmt, 1, tool);
  prs_store_bind_text (stmt, 2, agent_id);
  prs_store_bind_text (stmt, 3, conversation_slug);
  if (prs_store_step_row (self, stmt, N_("Could not read the auto-approval rules"), &error) == 1)
    return g_strdup (prs_store_column_text (stmt, 0));
  if (error != NULL)
    g_message ("%s", error->message);
  return NULL;
}

char *
prs_store_dup_conversation_slug (PrsStore   *self,
                                 const char *conversation_id)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);

  stmt = prs_store_prepare_cached (self, "SELECT slug FROM conversations WHERE id = ?1", NULL);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, conversation_id);
  if (prs_store_step_row (self, stmt, N_("Could not read the conversation"), NULL) == 1)
    return g_strdup (prs_store_column_text (stmt, 0));
  return NULL;
}
