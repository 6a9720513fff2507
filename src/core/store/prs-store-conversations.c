/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-conversations.c: keeping conversations in order (docs/conversations.md):
 * pinned, archived, and deleted.
 *
 * A deletion made in the window can be undone for a while, so it happens in
 * steps, each one transaction: marked (deleted_at: gone for everyone — the
 * list, the API, resolve, search — but every row kept), then confirmed
 * (purge, once Undo is no longer offered), then purged (the row and, by
 * the schema's ON DELETE CASCADE, its messages, their search entries,
 * runs, tool calls and context fields). Whatever stops between the steps
 * leaves a state the next start can finish: a mark never confirmed is
 * undone (the person could not undo it), a confirmed one is purged. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-json.h"
#include "prs-store-internal.h"

#define CONVERSATION_COLUMNS \
  "id, slug, title, message_count, unread_count, default_agent, created_at, updated_at," \
  " pinned, archived"

/* Hands each row of @stmt (CONVERSATION_COLUMNS) to @func: the window's list
 * reads every conversation at start, so no JSON in between */
static gboolean
read_rows (PrsStore              *self,
           sqlite3_stmt          *stmt,
           PrsConversationFunc    func,
           gpointer               user_data,
           GError               **error)
{
  int row;

  while ((row = prs_store_step_row (self, stmt, N_("Could not read the conversations"),
                                    error)) == 1)
    {
      PrsConversationFields fields = {
        .id = prs_store_column_text (stmt, 0),
        .slug = prs_store_column_text (stmt, 1),
        .title = prs_store_column_text (stmt, 2),
        .message_count = sqlite3_column_int64 (stmt, 3),
        .unread_count = sqlite3_column_int64 (stmt, 4),
        .default_agent = prs_store_column_text (stmt, 5),
        .created_at = prs_store_column_text (stmt, 6),
        .updated_at = prs_store_column_text (stmt, 7),
        .pinned = sqlite3_column_int (stmt, 8) != 0,
        .archived = sqlite3_column_int (stmt, 9) != 0,
      };

      func (&fields, user_data);
    }
  return row == 0;
}

gboolean
prs_store_read_conversations (PrsStore             *self,
                              const char           *conversation_id,
                              PrsConversationFunc   func,
                              gpointer              user_data,
                              GError              **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (conversation_id == NULL)
    stmt = prs_store_prepare_cached (self,
                                     "SELECT " CONVERSATION_COLUMNS " FROM conversations"
                                     " WHERE deleted_at IS NULL"
                                     " ORDER BY pinned DESC, archived, updated_at DESC, created_at DESC, id",
                                     error);
  else
    stmt = prs_store_prepare_cached (self,
                                     "SELECT " CONVERSATION_COLUMNS " FROM conversations"
                                     " WHERE id = ?1 AND deleted_at IS NULL",
                                     error);
  if (stmt == NULL)
    return FALSE;
  if (conversation_id != NULL)
    prs_store_bind_text (stmt, 1, conversation_id);
  return read_rows (self, stmt, func, user_data, error);
}

/* One conversation as prs_store_list_conversations () describes it */
static void
add_json_row (const PrsConversationFields *fields,
              gpointer                     user_data)
{
  JsonArray *rows = user_data;
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_object (builder);
  prs_json_builder_add_string_member (builder, "id", fields->id);
  prs_json_builder_add_string_member (builder, "slug", fields->slug);
  prs_json_builder_add_string_member (builder, "title", fields->title);
  json_builder_set_member_name (builder, "messageCount");
  json_builder_add_int_value (builder, fields->message_count);
  json_builder_set_member_name (builder, "unreadCount");
  json_builder_add_int_value (builder, fields->unread_count);
  prs_json_builder_add_string_member (builder, "defaultAgent", fields->default_agent);
  prs_json_builder_add_string_member (builder, "createdAt", fields->created_at);
  prs_json_builder_add_string_member (builder, "updatedAt", fields->updated_at);
  json_builder_set_member_name (builder, "pinned");
  json_builder_add_boolean_value (builder, fields->pinned);
  json_builder_set_member_name (builder, "archived");
  json_builder_add_boolean_value (builder, fields->archived);
  json_builder_end_object (builder);

  json_array_add_element (rows, json_builder_get_root (builder));
}

JsonArray *
prs_store_list_conversations (PrsStore  *self,
                              GError   **error)
{
  g_autoptr(JsonArray) rows = json_array_new ();

  if (!prs_store_read_conversations (self, NULL, add_json_row, rows, error))
    return NULL;
  return g_steal_pointer (&rows);
}

JsonObject *
prs_store_get_conversation (PrsStore    *self,
                            const char  *conversation_id,
                            GError     **error)
{
  g_autoptr(JsonArray) rows = json_array_new ();

  if (conversation_id == NULL ||
      !prs_store_read_conversations (self, conversation_id, add_json_row, rows, error) ||
      json_array_get_length (rows) == 0)
    return NULL;
  return json_object_ref (json_array_get_object_element (rows, 0));
}

static void
set_not_found (GError     **error,
               const char  *conversation_id)
{
  g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
               _("There is no conversation “%s”."), conversation_id);
}

/* One of a conversation's flags, by the UPDATE for on or for off */
static gboolean
set_flag (PrsStore    *self,
          const char  *conversation_id,
          const char  *sql,
          GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return prs_store_update_conversation (self, sql, conversation_id, NULL, error);
}

gboolean
prs_store_set_conversation_pinned (PrsStore    *self,
                                   const char  *conversation_id,
                                   gboolean     pinned,
                                   GError     **error)
{
  /* A pinned conversation is one kept in view: never archived too */
  return set_flag (self, conversation_id,
                   pinned ? "UPDATE conversations SET pinned = 1, archived = 0 WHERE id = ?1 AND deleted_at IS NULL"
                          : "UPDATE conversations SET pinned = 0 WHERE id = ?1 AND deleted_at IS NULL",
                   error);
}

gboolean
prs_store_set_conversation_archived (PrsStore    *self,
                                     const char  *conversation_id,
                                     gboolean     archived,
                                     GError     **error)
{
  return set_flag (self, conversation_id,
                   archived ? "UPDATE conversations SET archived = 1, pinned = 0 WHERE id = ?1 AND deleted_at IS NULL"
                            : "UPDATE conversations SET archived = 0 WHERE id = ?1 AND deleted_at IS NULL",
                   error);
}

gboolean
prs_store_confirm_conversation_deletion (PrsStore    *self,
                                         const char  *conversation_id,
                                         GError     **error)
{
  return set_flag (self, conversation_id,
                   "UPDATE conversations SET purge = 1 WHERE id = ?1 AND deleted_at IS NOT NULL", error);
}

gboolean
prs_store_delete_conversation (PrsStore    *self,
                               const char  *conversation_id,
                               GError     **error)
{
  gboolean found = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_delete_one (self, "DELETE FROM conversations WHERE id = ?1 AND deleted_at IS NULL",
                             conversation_id, N_("Could not delete the conversation"), &found, error))
    return FALSE;
  if (!found)
    set_not_found (error, conversation_id);
  return found;
}

gboolean
prs_store_mark_conversation_deleted (PrsStore    *self,
                                     const char  *conversation_id,
                                     GError     **error)
{
  g_autofree char *now = prs_store_now_iso8601 ();

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return prs_store_update_conversation (self,
                                        "UPDATE conversations SET deleted_at = ?2, purge = 0"
                                        " WHERE id = ?1 AND deleted_at IS NULL",
                                        conversation_id, now, error);
}

/* Inside the caller's transaction: runs @sql bound as (?1 = @a, ?2 = @b,
 * ?3 = @n); a statement without one of them ignores it. */
static gboolean
exec2 (PrsStore    *self,
       const char  *sql,
       const char  *a,
       const char  *b,
       gint64       n,
       GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self, sql, error);

  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, a);
  prs_store_bind_text (stmt, 2, b);
  sqlite3_bind_int64 (stmt, 3, n);
  return prs_store_step_done (self, stmt, N_("Could not restore the conversation"), error);
}

/* Inside the caller's transaction: the conversation @fresh, started by a
 * workflow that resolved the slug while @kept was deleted, becomes part of
 * @kept again: its messages follow @kept's (numbered on), its runs and
 * context fields move over, and it goes. What arrived meanwhile is kept,
 * as if the deletion had never happened. */
static gboolean
merge_into (PrsStore    *self,
            const char  *kept,
            const char  *fresh,
            GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint64 last_seq;

  stmt = prs_store_prepare_cached (self,
                                   "SELECT COALESCE (MAX (seq), 0) FROM messages WHERE conversation_id = ?1",
                                   error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, kept);
  if (prs_store_step_row (self, stmt, N_("Could not restore the conversation"), error) != 1)
    return FALSE;
  last_seq = sqlite3_column_int64 (stmt, 0);
  g_clear_pointer (&stmt, prs_stmt_release);

  return exec2 (self, "UPDATE messages SET conversation_id = ?1, seq = seq + ?3 WHERE conversation_id = ?2",
                kept, fresh, last_seq, error) &&
         exec2 (self, "UPDATE runs SET conversation_id = ?1 WHERE conversation_id = ?2",
                kept, fresh, 0, error) &&
         /* A field both saw stays with the older one's record */
         exec2 (self, "UPDATE OR IGNORE context_fields SET conversation_id = ?1 WHERE conversation_id = ?2",
                kept, fresh, 0, error) &&
         exec2 (self,
                "UPDATE conversations SET"
                " message_count = message_count + (SELECT message_count FROM conversations WHERE id = ?2),"
                " unread_count = unread_count + (SELECT unread_count FROM conversations WHERE id = ?2),"
                " updated_at = MAX (updated_at, (SELECT updated_at FROM conversations WHERE id = ?2))"
                " WHERE id = ?1",
                kept, fresh, 0, error) &&
         exec2 (self, "DELETE FROM conversations WHERE id = ?2", kept, fresh, 0, error);
}

/* Inside the caller's transaction */
static gboolean
restore_one (PrsStore    *self,
             const char  *conversation_id,
             char       **out_merged_id,
             GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *fresh = NULL;
  int row;

  stmt = prs_store_prepare_cached (self,
                                   "SELECT f.id FROM conversations d"
                                   " LEFT JOIN conversations f ON f.slug = d.slug AND f.deleted_at IS NULL"
                                   " WHERE d.id = ?1 AND d.deleted_at IS NOT NULL",
                                   error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, conversation_id);
  row = prs_store_step_row (self, stmt, N_("Could not restore the conversation"), error);
  if (row < 0)
    return FALSE;
  if (row == 0)
    {
      set_not_found (error, conversation_id);
      return FALSE;
    }
  fresh = g_strdup (prs_store_column_text (stmt, 0));
  g_clear_pointer (&stmt, prs_stmt_release);

  if (fresh != NULL && !merge_into (self, conversation_id, fresh, error))
    return FALSE;
  if (!exec2 (self, "UPDATE conversations SET deleted_at = NULL, purge = 0 WHERE id = ?1",
              conversation_id, NULL, 0, error))
    return FALSE;

  if (out_merged_id != NULL)
    *out_merged_id = g_steal_pointer (&fresh);
  return TRUE;
}

gboolean
prs_store_restore_conversation (PrsStore    *self,
                                const char  *conversation_id,
                                char       **out_merged_id,
                                GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (out_merged_id != NULL)
    *out_merged_id = NULL;
  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  if (!restore_one (self, conversation_id, out_merged_id, error))
    {
      prs_store_rollback (self);
      return FALSE;
    }
  return prs_store_commit (self, error);
}

gint
prs_store_purge_deleted_conversations (PrsStore  *self,
                                       GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint purged;

  g_return_val_if_fail (PRS_IS_STORE (self), -1);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, -1);

  if (!prs_store_begin_large (self, error))
    return -1;
  stmt = prs_store_prepare_cached (self, "DELETE FROM conversations WHERE purge = 1 AND deleted_at IS NOT NULL",
                                   error);
  if (stmt == NULL || !prs_store_step_done (self, stmt, N_("Could not delete the conversations"),
                                            error))
    {
      g_clear_pointer (&stmt, prs_stmt_release);
      prs_store_rollback (self);
      return -1;
    }
  purged = sqlite3_changes (self->db);
  g_clear_pointer (&stmt, prs_stmt_release);
  if (!prs_store_commit (self, error))
    return -1;
  return purged;
}

GPtrArray *
prs_store_recover_deletions (PrsStore  *self,
                             GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!prs_store_begin_immediate (self, error))
    return NULL;
  stmt = prs_store_prepare_cached (self,
                                   "SELECT id FROM conversations WHERE deleted_at IS NOT NULL AND purge = 0"
                                   " ORDER BY deleted_at",
                                   error);
  if (stmt == NULL)
    goto fail;
  while ((row = prs_store_step_row (self, stmt, N_("Could not read the conversations"),
                                    error)) == 1)
    g_ptr_array_add (ids, g_strdup (prs_store_column_text (stmt, 0)));
  g_clear_pointer (&stmt, prs_stmt_release);
  if (row < 0)
    goto fail;

  for (guint i = 0; i < ids->len; i++)
    if (!restore_one (self, g_ptr_array_index (ids, i), NULL, error))
      goto fail;
  if (!prs_store_commit (self, error))
    return NULL;
  return g_steal_pointer (&ids);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return NULL;
}
