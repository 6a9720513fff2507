/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-messages.c: the queries that page a conversation's messages for
 * the window (docs/storage.md: long histories are paged, never loaded whole). */
#include "config.h"

#include "prs-store-internal.h"

/* Steps a statement that must return one row. */
static gboolean
step_one_row (PrsStore      *self,
              sqlite3_stmt  *stmt,
              GError       **error)
{
  int row = prs_store_step_row (self, stmt, "Could not count the messages", error);

  if (row == 0)
    g_set_error_literal (error, PRS_ERROR, PRS_ERROR_STORE, "Could not count the messages");
  return row == 1;
}

gboolean
prs_store_count_messages (PrsStore    *self,
                          const char  *conversation_id,
                          guint       *out_count,
                          gint64      *out_min_seq,
                          gint64      *out_max_seq,
                          GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gint64 count, min_seq, max_seq;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* COUNT (*) walks every index entry of the conversation (and MIN and MAX
   * together in one query too): 100,000 messages take ~10 ms. MIN and MAX
   * apart are one index seek each, and the conversation's message_count is
   * kept by every insert. seq is unique per conversation, so there are at
   * most MAX - MIN + 1 messages: when message_count says exactly that, the
   * seqs have no gap. Otherwise the messages are counted. */
  stmt = prs_store_prepare_cached (self,
                        "SELECT (SELECT message_count FROM conversations WHERE id = ?1),"
                        " (SELECT MIN (seq) FROM messages WHERE conversation_id = ?1),"
                        " (SELECT MAX (seq) FROM messages WHERE conversation_id = ?1)",
                        error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, conversation_id);
  if (!step_one_row (self, stmt, error))
    return FALSE;

  if (sqlite3_column_type (stmt, 1) == SQLITE_NULL)
    {
      count = min_seq = max_seq = 0;
    }
  else
    {
      count = sqlite3_column_int64 (stmt, 0);
      min_seq = sqlite3_column_int64 (stmt, 1);
      max_seq = sqlite3_column_int64 (stmt, 2);
      if (sqlite3_column_type (stmt, 0) == SQLITE_NULL || count != max_seq - min_seq + 1)
        {
          g_clear_pointer (&stmt, prs_stmt_release);
          /* Answered from the (conversation_id, seq) index alone. */
          stmt = prs_store_prepare_cached (self,
                                "SELECT COUNT (*) FROM messages WHERE conversation_id = ?1",
                                error);
          if (stmt == NULL)
            return FALSE;
          prs_store_bind_text (stmt, 1, conversation_id);
          if (!step_one_row (self, stmt, error))
            return FALSE;
          count = sqlite3_column_int64 (stmt, 0);
        }
    }

  if (out_count != NULL)
    *out_count = (guint) CLAMP (count, 0, G_MAXUINT);
  if (out_min_seq != NULL)
    *out_min_seq = min_seq;
  if (out_max_seq != NULL)
    *out_max_seq = max_seq;
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
