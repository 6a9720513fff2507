/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-busy.c: what a write does while another program writes (the
 * app's other threads, prosponsive-ctl, a person's own sqlite3 shell, a
 * backup tool). Every connection waits PRS_STORE_BUSY_TIMEOUT_MS for the
 * write lock (prs-store.c sets SQLite's busy timeout when it opens one). A
 * write the main thread repeats while a person types — the composer's
 * draft, saved every second (docs/conversations.md "Drafts") — tries once
 * instead: waiting would stop the window, painting and typing included, for
 * the whole timeout at every save, and its caller keeps the text and tries
 * again later. Either way a busy database is PRS_ERROR_STORE_BUSY, in
 * words, apart from PRS_ERROR_STORE's real failures. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-store-internal.h"

/* The person reading the error must learn what happened and that trying
 * again is the answer; a write that did not wait says only the first. */
void
prs_store_set_busy_error (PrsStore  *self,
                          GError   **error)
{
  if (self->no_wait)
    g_set_error (error, PRS_ERROR, PRS_ERROR_STORE_BUSY,
                 _("The database “%s” is in use by another program (Prosponsive or "
                   "prosponsive-ctl) at the moment."),
                 self->path);
  else
    g_set_error (error, PRS_ERROR, PRS_ERROR_STORE_BUSY,
                 _("The database “%s” stayed in use by another program (Prosponsive or "
                   "prosponsive-ctl) for more than %d seconds. Try again in a moment."),
                 self->path, PRS_STORE_BUSY_TIMEOUT_MS / 1000);
}

gboolean
prs_store_begin_immediate_once (PrsStore  *self,
                                GError   **error)
{
  gboolean ok;

  /* Inside a batch the lock is the batch's already: a savepoint never waits */
  if (self->batch_depth > 0)
    return prs_store_begin_immediate (self, error);

  /* The busy handler is this connection's alone, and the connection its
   * thread's (PRS_ASSERT_OWNER in the callers): the other threads' keep
   * waiting. Only BEGIN IMMEDIATE goes without it: with the write lock
   * held, the writes and the COMMIT wait for nobody in WAL mode (a
   * checkpoint at a commit is PASSIVE, prs-store.c). */
  sqlite3_busy_timeout (self->db, 0);
  self->no_wait = TRUE;
  ok = prs_store_begin_immediate (self, error);
  self->no_wait = FALSE;
  sqlite3_busy_timeout (self->db, PRS_STORE_BUSY_TIMEOUT_MS);
  return ok;
}
