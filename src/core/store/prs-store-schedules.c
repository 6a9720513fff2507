/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-schedules.c: scheduled prompts and the due times handled, the
 * tables of the schedules migration (docs/schedules.md). Firing is one
 * transaction: the messages, the schedule_fires row and last_fired_at are
 * written together or not at all, so a crash never handles a due time
 * twice. Each write runs in one BEGIN IMMEDIATE transaction. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-store-internal.h"
#include "prs-store-schedules.h"

#define SCHEDULE_COLUMNS "id, name, conversation_slug, conversation_id, agent_id, prompt, context_json," \
                         " recurrence_json, enabled, missed, base_at, last_fired_at, run_requested_at," \
                         " problem, created_at, updated_at"

void
prs_schedule_row_free (PrsScheduleRow *row)
{
  if (row == NULL)
    return;
  g_free (row->id);
  g_free (row->name);
  g_free (row->conversation_slug);
  g_free (row->conversation_id);
  g_free (row->agent_id);
  g_free (row->prompt);
  g_free (row->context_json);
  g_free (row->recurrence_json);
  g_free (row->missed);
  g_free (row->problem);
  g_free (row->created_at);
  g_free (row->updated_at);
  g_free (row);
}

PrsScheduleRow *
prs_schedule_row_copy (const PrsScheduleRow *row)
{
  PrsScheduleRow *copy;

  g_return_val_if_fail (row != NULL, NULL);

  copy = g_memdup2 (row, sizeof *row);
  copy->id = g_strdup (row->id);
  copy->name = g_strdup (row->name);
  copy->conversation_slug = g_strdup (row->conversation_slug);
  copy->conversation_id = g_strdup (row->conversation_id);
  copy->agent_id = g_strdup (row->agent_id);
  copy->prompt = g_strdup (row->prompt);
  copy->context_json = g_strdup (row->context_json);
  copy->recurrence_json = g_strdup (row->recurrence_json);
  copy->missed = g_strdup (row->missed);
  copy->problem = g_strdup (row->problem);
  copy->created_at = g_strdup (row->created_at);
  copy->updated_at = g_strdup (row->updated_at);
  return copy;
}

static PrsScheduleRow *
read_row (sqlite3_stmt  *stmt,
          GError       **error)
{
  PrsScheduleRow *row = g_new0 (PrsScheduleRow, 1);

  row->id = g_strdup (prs_store_column_text (stmt, 0));
  row->name = g_strdup (prs_store_column_text (stmt, 1));
  row->conversation_slug = g_strdup (prs_store_column_text (stmt, 2));
  row->conversation_id = g_strdup (prs_store_column_text (stmt, 3));
  row->agent_id = g_strdup (prs_store_column_text (stmt, 4));
  row->prompt = g_strdup (prs_store_column_text (stmt, 5));
  row->context_json = g_strdup (prs_store_column_text (stmt, 6));
  row->recurrence_json = g_strdup (prs_store_column_text (stmt, 7));
  row->enabled = sqlite3_column_int (stmt, 8) != 0;
  row->missed = g_strdup (prs_store_column_text (stmt, 9));
  row->base_at = sqlite3_column_int64 (stmt, 10);
  row->last_fired_at = sqlite3_column_int64 (stmt, 11);
  row->run_requested_at = sqlite3_column_int64 (stmt, 12);
  row->problem = g_strdup (prs_store_column_text (stmt, 13));
  row->created_at = g_strdup (prs_store_column_text (stmt, 14));
  row->updated_at = g_strdup (prs_store_column_text (stmt, 15));
  return row;
}

GPtrArray *
prs_store_list_schedules (PrsStore  *self,
                          GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self, "SELECT " SCHEDULE_COLUMNS " FROM schedules ORDER BY name", error);
  if (stmt == NULL)
    return NULL;
  return prs_store_collect_rows (self, stmt, N_("Could not read the schedules"),
                                 (PrsStoreReadRow) read_row, (GDestroyNotify) prs_schedule_row_free, error);
}

PrsScheduleRow *
prs_store_lookup_schedule (PrsStore    *self,
                           const char  *id_or_name,
                           GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (id_or_name == NULL)
    return NULL;
  stmt = prs_store_prepare_cached (self,
                                   "SELECT " SCHEDULE_COLUMNS " FROM schedules"
                                   " WHERE id = ?1 OR name = ?1 ORDER BY id = ?1 DESC LIMIT 1",
                                   error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, id_or_name);
  return prs_store_step_row (self, stmt, N_("Could not read the schedule"), error) == 1 ? read_row (stmt, NULL) : NULL;
}

static gboolean
name_taken (PrsStore    *self,
            const char  *name,
            const char  *except_id,
            GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self,
                                                      "SELECT 1 FROM schedules WHERE name = ?1 AND id IS NOT ?2",
                                                      error);
  int rc;

  if (stmt == NULL)
    return TRUE;
  prs_store_bind_text (stmt, 1, name);
  prs_store_bind_text (stmt, 2, except_id);
  rc = prs_store_step_row (self, stmt, N_("Could not read the schedules"), error);
  if (rc == 1)
    /* Translators: %s is a schedule's name */
    g_set_error (error, PRS_ERROR, PRS_ERROR_EXISTS, _("A schedule named “%s” exists already."), name);
  return rc != 0;
}

/* Binds what a person edits (?1 id … ?12 problem) */
static void
bind_row (sqlite3_stmt         *stmt,
          const PrsScheduleRow *row,
          const char           *id)
{
  prs_store_bind_text (stmt, 1, id);
  prs_store_bind_text (stmt, 2, row->name);
  prs_store_bind_text (stmt, 3, row->conversation_slug);
  prs_store_bind_text (stmt, 4, row->conversation_id);
  prs_store_bind_text (stmt, 5, row->agent_id);
  prs_store_bind_text (stmt, 6, row->prompt);
  prs_store_bind_text (stmt, 7, row->context_json);
  prs_store_bind_text (stmt, 8, row->recurrence_json);
  sqlite3_bind_int (stmt, 9, row->enabled ? 1 : 0);
  prs_store_bind_text (stmt, 10, row->missed != NULL ? row->missed : PRS_SCHEDULE_MISSED_RUN);
  sqlite3_bind_int64 (stmt, 11, row->base_at);
  prs_store_bind_text (stmt, 12, row->problem);
}

static gboolean
write_row (PrsStore              *self,
           const char            *sql,
           const PrsScheduleRow  *row,
           const char            *id,
           gboolean               is_new,
           GError               **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();

  if (row->name == NULL || row->conversation_slug == NULL || row->agent_id == NULL ||
      row->prompt == NULL || row->recurrence_json == NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A schedule needs a name, a conversation, an agent, a prompt and a recurrence."));
      return FALSE;
    }
  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  if (name_taken (self, row->name, is_new ? NULL : id, error) ||
      (stmt = prs_store_prepare_cached (self, sql, error)) == NULL)
    goto fail;
  bind_row (stmt, row, id);
  prs_store_bind_text (stmt, 13, now);
  if (!prs_store_step_done (self, stmt, N_("Could not save the schedule"), error))
    goto fail;
  if (!is_new && sqlite3_changes (self->db) == 0)
    {
      /* Translators: %s is a schedule's name */
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no schedule “%s” any more."), row->name);
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
prs_store_add_schedule (PrsStore              *self,
                        const PrsScheduleRow  *row,
                        char                 **out_id,
                        GError               **error)
{
  g_autofree char *id = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (row != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  id = row->id != NULL ? g_strdup (row->id) : g_uuid_string_random ();
  if (!write_row (self,
                  "INSERT INTO schedules (id, name, conversation_slug, conversation_id, agent_id, prompt,"
                  " context_json, recurrence_json, enabled, missed, base_at, problem, created_at, updated_at)"
                  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)",
                  row, id, TRUE, error))
    return FALSE;
  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);
  return TRUE;
}

gboolean
prs_store_update_schedule (PrsStore              *self,
                           const PrsScheduleRow  *row,
                           GError               **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (row != NULL && row->id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return write_row (self,
                    "UPDATE schedules SET name = ?2, conversation_slug = ?3, conversation_id = ?4,"
                    " agent_id = ?5, prompt = ?6, context_json = ?7, recurrence_json = ?8, enabled = ?9,"
                    " missed = ?10, base_at = ?11, problem = ?12, updated_at = ?13 WHERE id = ?1",
                    row, row->id, FALSE, error);
}

/* Runs @sql, an UPDATE of schedule ?1 with ?2 (and ?3 when it names one)
 * bound to @a and @b, in its own transaction; *@out_changed: whether a row
 * changed */
static gboolean
update_one (PrsStore    *self,
            const char  *sql,
            const char  *id,
            gint64       a,
            gint64       b,
            gboolean    *out_changed,
            GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  stmt = prs_store_prepare_cached (self, sql, error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, id);
  sqlite3_bind_int64 (stmt, 2, a);
  if (sqlite3_bind_parameter_count (stmt) >= 3)
    sqlite3_bind_int64 (stmt, 3, b);
  if (!prs_store_step_done (self, stmt, N_("Could not save the schedule"), error))
    goto fail;
  *out_changed = sqlite3_changes (self->db) > 0;
  g_clear_pointer (&stmt, prs_stmt_release);
  return prs_store_commit (self, error);

fail:
  g_clear_pointer (&stmt, prs_stmt_release);
  prs_store_rollback (self);
  return FALSE;
}

static gboolean
not_found (const char  *id,
           GError     **error)
{
  /* Translators: %s is a schedule's id */
  g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no schedule “%s”."), id);
  return FALSE;
}

gboolean
prs_store_set_schedule_enabled (PrsStore    *self,
                                const char  *id,
                                gboolean     enabled,
                                gint64       base_at,
                                GError     **error)
{
  gboolean changed = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  if (!update_one (self,
                   "UPDATE schedules SET enabled = ?2,"
                   " base_at = CASE WHEN ?2 THEN ?3 ELSE base_at END,"
                   " problem = CASE WHEN ?2 THEN NULL ELSE problem END,"
                   " updated_at = strftime ('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
                   id, enabled ? 1 : 0, base_at, &changed, error))
    return FALSE;
  return changed || not_found (id, error);
}

gboolean
prs_store_remove_schedule (PrsStore    *self,
                           const char  *id,
                           GError     **error)
{
  gboolean found = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (id != NULL, FALSE);

  if (!prs_store_delete_one (self, "DELETE FROM schedules WHERE id = ?1", id,
                             N_("Could not remove the schedule"), &found, error))
    return FALSE;
  return found || not_found (id, error);
}

gboolean
prs_store_request_schedule_run (PrsStore    *self,
                                const char  *id,
                                gint64       requested_at,
                                GError     **error)
{
  gboolean changed = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (id != NULL && requested_at > 0, FALSE);

  if (!update_one (self, "UPDATE schedules SET run_requested_at = ?2 WHERE id = ?1",
                   id, requested_at, 0, &changed, error))
    return FALSE;
  return changed || not_found (id, error);
}

gboolean
prs_store_withdraw_schedule_run (PrsStore    *self,
                                 const char  *id,
                                 gint64       requested_at,
                                 gboolean    *out_withdrawn,
                                 GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (id != NULL && out_withdrawn != NULL, FALSE);

  return update_one (self, "UPDATE schedules SET run_requested_at = NULL WHERE id = ?1 AND run_requested_at = ?2",
                     id, requested_at, 0, out_withdrawn, error);
}

/* ---- firing ---- */

/* Whether @fire is still to be handled, read under the write lock */
static gboolean
fire_is_due (PrsStore               *self,
             const PrsScheduleFire  *fire,
             gboolean               *out_due,
             GError                **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int rc;

  stmt = prs_store_prepare_cached (self,
                                   "SELECT enabled, base_at, COALESCE (last_fired_at, 0), COALESCE (run_requested_at, 0)"
                                   " FROM schedules WHERE id = ?1",
                                   error);
  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, fire->schedule_id);
  rc = prs_store_step_row (self, stmt, N_("Could not read the schedule"), error);
  if (rc < 0)
    return FALSE;
  if (rc == 0)
    *out_due = FALSE;
  else if (g_strcmp0 (fire->kind, PRS_SCHEDULE_FIRE_MANUAL) == 0)
    /* Run Now: in the app at once; from the ctl while it is still asked */
    *out_due = fire->run_requested_at == 0 || sqlite3_column_int64 (stmt, 3) == fire->run_requested_at;
  else
    *out_due = sqlite3_column_int (stmt, 0) != 0 &&
               fire->due_at > sqlite3_column_int64 (stmt, 1) &&
               fire->due_at > sqlite3_column_int64 (stmt, 2);
  return TRUE;
}

static gboolean
record_fire (PrsStore               *self,
             const PrsScheduleFire  *fire,
             const char             *message_id,
             GError                **error)
{
  g_autoptr(PrsStmt) insert = NULL;
  g_autoptr(PrsStmt) update = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();
  gboolean manual = g_strcmp0 (fire->kind, PRS_SCHEDULE_FIRE_MANUAL) == 0;

  insert = prs_store_prepare_cached (self,
                                     "INSERT INTO schedule_fires (schedule_id, due_at, kind, message_id, fired_at)"
                                     " VALUES (?1, ?2, ?3, ?4, ?5)",
                                     error);
  if (insert == NULL)
    return FALSE;
  prs_store_bind_text (insert, 1, fire->schedule_id);
  sqlite3_bind_int64 (insert, 2, fire->due_at);
  prs_store_bind_text (insert, 3, fire->kind);
  prs_store_bind_text (insert, 4, message_id);
  prs_store_bind_text (insert, 5, now);
  if (!prs_store_step_done (self, insert, N_("Could not record the schedule’s run"), error))
    return FALSE;

  update = prs_store_prepare_cached (self,
                                     "UPDATE schedules SET"
                                     " last_fired_at = CASE WHEN ?2 THEN last_fired_at ELSE ?3 END,"
                                     " conversation_id = COALESCE (?4, conversation_id),"
                                     " run_requested_at = CASE WHEN ?5 != 0 AND run_requested_at = ?5"
                                     "   THEN NULL ELSE run_requested_at END,"
                                     " enabled = CASE WHEN ?6 IS NULL THEN enabled ELSE 0 END,"
                                     " problem = COALESCE (?6, problem)"
                                     " WHERE id = ?1",
                                     error);
  if (update == NULL)
    return FALSE;
  prs_store_bind_text (update, 1, fire->schedule_id);
  sqlite3_bind_int (update, 2, manual ? 1 : 0);
  sqlite3_bind_int64 (update, 3, fire->due_at);
  prs_store_bind_text (update, 4, fire->conversation_id);
  sqlite3_bind_int64 (update, 5, fire->run_requested_at);
  prs_store_bind_text (update, 6, fire->problem);
  return prs_store_step_done (self, update, N_("Could not record the schedule’s run"), error);
}

gboolean
prs_store_fire_schedule (PrsStore               *self,
                         const PrsScheduleFire  *fire,
                         gboolean               *out_fired,
                         char                  **out_notice_id,
                         char                  **out_message_id,
                         GError                **error)
{
  g_autofree char *notice_id = NULL;
  g_autofree char *message_id = NULL;
  gboolean due = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  g_return_val_if_fail (fire != NULL && fire->schedule_id != NULL && fire->kind != NULL, FALSE);
  g_return_val_if_fail (out_fired != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  *out_fired = FALSE;
  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  if (!fire_is_due (self, fire, &due, error))
    goto fail;
  if (!due)
    {
      prs_store_rollback (self);
      return TRUE;
    }
  if ((fire->notice != NULL && !prs_store_insert_message_locked (self, fire->notice, &notice_id, NULL, error)) ||
      (fire->message != NULL && !prs_store_insert_message_locked (self, fire->message, &message_id, NULL, error)) ||
      !record_fire (self, fire, message_id, error))
    goto fail;
  if (!prs_store_commit (self, error))
    return FALSE;

  /* Field discovery (docs/conversations.md), after the commit like every message's */
  if (fire->message != NULL && fire->message->context_json != NULL)
    prs_store_record_message_context (self, fire->message->conversation_id, message_id,
                                      fire->message->context_json, NULL);
  *out_fired = TRUE;
  if (out_notice_id != NULL)
    *out_notice_id = g_steal_pointer (&notice_id);
  if (out_message_id != NULL)
    *out_message_id = g_steal_pointer (&message_id);
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}

static gpointer
read_text (sqlite3_stmt  *stmt,
           GError       **error)
{
  return g_strdup (prs_store_column_text (stmt, 0));
}

GPtrArray *
prs_store_list_unstarted_schedule_messages (PrsStore  *self,
                                            GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT f.message_id FROM schedule_fires f"
                                   " JOIN messages m ON m.id = f.message_id"
                                   " WHERE m.status = 'pending'"
                                   " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.trigger_message_id = f.message_id)"
                                   " ORDER BY f.id",
                                   error);
  if (stmt == NULL)
    return NULL;
  return prs_store_collect_rows (self, stmt, N_("Could not read the schedules’ runs"), read_text, g_free, error);
}
