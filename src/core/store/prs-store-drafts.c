/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-drafts.c: what the person has written in a conversation's
 * composer and not sent yet (docs/conversations.md "Drafts"). A table of
 * its own, not a column of conversations: saving a draft must not touch
 * the conversation's row (its updatedAt orders the list and the API's
 * answers) nor fire the triggers that keep Insights. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-store-internal.h"

char *
prs_store_dup_draft (PrsStore   *self,
                     const char *conversation_id)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, NULL);

  stmt = prs_store_prepare_cached (self, "SELECT text FROM drafts WHERE conversation_id = ?1", NULL);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, conversation_id);
  if (prs_store_step_row (self, stmt, N_("Could not read a draft"), NULL) != 1)
    return NULL;
  return g_strdup (prs_store_column_text (stmt, 0));
}

gboolean
prs_store_write_draft (PrsStore    *self,
                       const char  *conversation_id,
                       const char  *text,
                       GError     **error)
{
  gboolean keep = text != NULL && text[0] != '\0';
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = NULL;

  if (keep)
    stmt = prs_store_prepare_cached (self,
                                     "INSERT INTO drafts (conversation_id, text, updated_at) VALUES (?1, ?2, ?3)"
                                     " ON CONFLICT (conversation_id) DO UPDATE"
                                     " SET text = excluded.text, updated_at = excluded.updated_at",
                                     error);
  else
    stmt = prs_store_prepare_cached (self, "DELETE FROM drafts WHERE conversation_id = ?1", error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, conversation_id);
  if (keep)
    {
      now = prs_store_now_iso8601 ();
      prs_store_bind_text (stmt, 2, text);
      prs_store_bind_text (stmt, 3, now);
    }
  return prs_store_step_done (self, stmt, N_("Could not save a draft"), error);
}

/* In a transaction of its own; @wait: for another program's write, as
 * every write does, else not at all (prs-store-busy.c) */
static gboolean
set_draft (PrsStore    *self,
           const char  *conversation_id,
           const char  *text,
           gboolean     wait,
           GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (conversation_id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!(wait ? prs_store_begin_immediate (self, error) : prs_store_begin_immediate_once (self, error)))
    return FALSE;
  if (!prs_store_write_draft (self, conversation_id, text, error))
    {
      prs_store_rollback (self);
      return FALSE;
    }
  return prs_store_commit (self, error);
}

gboolean
prs_store_set_draft (PrsStore    *self,
                     const char  *conversation_id,
                     const char  *text,
                     GError     **error)
{
  return set_draft (self, conversation_id, text, TRUE, error);
}

gboolean
prs_store_try_set_draft (PrsStore    *self,
                         const char  *conversation_id,
                         const char  *text,
                         GError     **error)
{
  return set_draft (self, conversation_id, text, FALSE, error);
}
