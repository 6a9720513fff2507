/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-service-conversations.c: what the window asks of a conversation that
 * takes more than one service (docs/conversations.md): finishing deletions
 * (purged off the main thread, a crash between the steps recovered at
 * start), Regenerate, and Edit and Resend (the store marks, the views hear,
 * the runner answers). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-service-private.h"
#include "prs-thread.h"

/* ---- deleting ---- */

static void
purge_thread (GTask        *task,
              gpointer      source,
              gpointer      task_data,
              GCancellable *cancellable)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new_for_path (task_data, &error);
  gint purged = store != NULL ? prs_store_purge_deleted_conversations (store, &error) : -1;

  /* What failed stays confirmed: the next start purges it */
  if (purged < 0)
    g_message ("Could not delete conversations: %s", error->message);
  else if (purged > 0)
    g_debug ("Deleted %d conversations", purged);
  g_task_return_boolean (task, purged >= 0);
}

/* A conversation of thousands of messages takes a while to delete, with
 * its search entries: a worker thread does it, with a connection of its
 * own, so the window never waits. */
static void
purge_later (PrsService *self)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, NULL, NULL);

  g_task_set_source_tag (task, purge_later);
  g_task_set_task_data (task, g_strdup (prs_store_get_path (prs_service_get_store (self))), g_free);
  prs_task_run_in_thread (task, purge_thread);
}

void
prs_service_finish_deletions (PrsService         *self,
                              const char * const *conversation_ids)
{
  g_return_if_fail (PRS_IS_SERVICE (self));
  g_return_if_fail (conversation_ids != NULL);
  PRS_ASSERT_MAIN_THREAD ();

  for (guint i = 0; conversation_ids[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;

      if (!prs_store_confirm_conversation_deletion (prs_service_get_store (self), conversation_ids[i], &error))
        g_message ("Could not delete conversation %s: %s", conversation_ids[i], error->message);
    }
  purge_later (self);
}

void
_prs_service_recover_deletions (PrsService *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) restored = prs_store_recover_deletions (prs_service_get_store (self), &error);

  /* Prosponsive stopped while Undo was offered: nobody could undo, so
   * nothing is lost; the person deletes again if they meant it */
  if (restored == NULL)
    g_message ("Could not look for unfinished deletions: %s", error->message);
  else if (restored->len > 0)
    g_message ("%u conversations whose deletion could still be undone when Prosponsive stopped are kept",
               restored->len);
  purge_later (self);
}

/* ---- Regenerate, Edit and Resend ---- */

static gboolean
check_resting (PrsService  *self,
               const char  *conversation_id,
               GError     **error)
{
  PrsRunner *runner = prs_service_get_runner (self);
  PrsRun *run = runner != NULL ? prs_runner_get_conversation_run (runner, conversation_id) : NULL;

  if (runner == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_FAILED, _("Prosponsive is stopping."));
      return FALSE;
    }
  if (run != NULL && !prs_run_is_finished (run))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The agent is still working on this conversation. Stop it first, or wait for it."));
      return FALSE;
    }
  return TRUE;
}

static void
announce (PrsService  *self,
          const char  *conversation_id,
          GPtrArray   *changed,
          const char  *added)
{
  for (guint i = 0; changed != NULL && i < changed->len; i++)
    g_signal_emit_by_name (self, "message-changed", conversation_id, g_ptr_array_index (changed, i));
  _prs_service_conversation_changed (self, conversation_id);
  if (added != NULL)
    g_signal_emit_by_name (self, "message-added", conversation_id, added);
}

PrsRun *
prs_service_regenerate (PrsService  *self,
                        const char  *conversation_id,
                        GError     **error)
{
  g_autoptr(GPtrArray) superseded = NULL;
  g_autofree char *trigger = NULL;

  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  g_return_val_if_fail (conversation_id != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (!check_resting (self, conversation_id, error) ||
      !prs_store_supersede_last_answer (prs_service_get_store (self), conversation_id, &trigger, &superseded, error))
    return NULL;
  announce (self, conversation_id, superseded, NULL);
  /* The same message of the person, answered again by its agent */
  return prs_runner_start_chat (prs_service_get_runner (self), conversation_id, NULL, error);
}

PrsRun *
prs_service_edit_and_resend (PrsService  *self,
                             const char  *conversation_id,
                             const char  *text,
                             GError     **error)
{
  g_autoptr(GPtrArray) superseded = NULL;
  g_autofree char *message_id = NULL;

  g_return_val_if_fail (PRS_IS_SERVICE (self), NULL);
  g_return_val_if_fail (conversation_id != NULL, NULL);
  PRS_ASSERT_MAIN_THREAD ();

  if (!check_resting (self, conversation_id, error) ||
      !prs_store_replace_last_user_message (prs_service_get_store (self), conversation_id, text, NULL,
                                            &message_id, &superseded, error))
    return NULL;
  announce (self, conversation_id, superseded, message_id);
  return prs_runner_start_chat (prs_service_get_runner (self), conversation_id, NULL, error);
}
