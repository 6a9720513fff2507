/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-messages.c: the queries that page a conversation's messages for
 * the window (SPEC §10: long histories are paged, never loaded whole). */
#include "config.h"

#include "prs-store-internal.h"

gboolean
prs_store_count_messages (PrsStore    *self,
                          const char  *conversation_id,
                          guint       *out_count,
                          gint64      *out_min_seq,
                          gint64      *out_max_seq,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* Answered from the (conversation_id, seq) index alone. */
  stmt = prs_store_prepare_cached (self,
                        "SELECT COUNT (*), COALESCE (MIN (seq), 0), COALESCE (MAX (seq), 0)"
                        " FROM messages WHERE conversation_id = ?1",
                        error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, conversation_id);
  row = prs_store_step_row (self, stmt, "Could not count the messages", error);
  if (row != 1)
    {
      if (row == 0)
        g_set_error_literal (error, PRS_ERROR, PRS_ERROR_STORE, "Could not count the messages");
      return FALSE;
    }

  if (out_count != NULL)
    *out_count = (guint) MIN (sqlite3_column_int64 (stmt, 0), G_MAXUINT);
  if (out_min_seq != NULL)
    *out_min_seq = sqlite3_column_int64 (stmt, 1);
  if (out_max_seq != NULL)
    *out_max_seq = sqlite3_column_int64 (stmt, 2);
  return TRUE;
}

JsonArray *
prs_store_list_messages_at (PrsStore    *self,
                            const char  *conversation_id,
                            guint        offset,
                            guint        limit,
                            GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint64 first_seq;
  int row;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (conversation_id != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* OFFSET walks the index only (it selects nothing but seq); the rows
   * themselves are then read by seq. */
  stmt = prs_store_prepare_cached (self,
                        "SELECT seq FROM messages WHERE conversation_id = ?1"
                        " ORDER BY seq LIMIT 1 OFFSET ?2",
                        error);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, conversation_id);
  sqlite3_bind_int64 (stmt, 2, offset);
  row = prs_store_step_row (self, stmt, "Could not read the messages", error);
  if (row < 0)
    return NULL;
  if (row == 0)
    return json_array_new ();

  first_seq = sqlite3_column_int64 (stmt, 0);
  g_clear_pointer (&stmt, prs_stmt_release);
  return prs_store_list_messages (self, conversation_id, first_seq - 1, limit, error);
}
