/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-providers.c: the store's AI providers (docs/providers.md), the table of
 * migration 3. Each write runs in one BEGIN IMMEDIATE transaction; keys are
 * never stored here. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-store-internal.h"

#define PROVIDER_COLUMNS "id, name, kind, base_url, model, enabled, priority, created_at"

void
prs_provider_row_free (PrsProviderRow *row)
{
  if (row == NULL)
    return;

  g_free (row->id);
  g_free (row->name);
  g_free (row->kind);
  g_free (row->base_url);
  g_free (row->model);
  g_free (row->created_at);
  g_free (row);
}

static PrsProviderRow *
read_row (sqlite3_stmt  *stmt,
          GError       **error)
{
  PrsProviderRow *row = g_new0 (PrsProviderRow, 1);

  row->id = g_strdup (prs_store_column_text (stmt, 0));
  row->name = g_strdup (prs_store_column_text (stmt, 1));
  row->kind = g_strdup (prs_store_column_text (stmt, 2));
  row->base_url = g_strdup (prs_store_column_text (stmt, 3));
  row->model = g_strdup (prs_store_column_text (stmt, 4));
  row->enabled = sqlite3_column_int (stmt, 5) != 0;
  row->priority = sqlite3_column_int (stmt, 6);
  row->created_at = g_strdup (prs_store_column_text (stmt, 7));
  return row;
}

GPtrArray *
prs_store_list_providers (PrsStore  *self,
                          GError   **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  stmt = prs_store_prepare_cached (self,
                                   "SELECT " PROVIDER_COLUMNS " FROM providers"
                                   " ORDER BY priority, created_at, name",
                                   error);
  if (stmt == NULL)
    return NULL;

  return prs_store_collect_rows (self, stmt, N_("Could not read the AI providers"),
                                 (PrsStoreReadRow) read_row, (GDestroyNotify) prs_provider_row_free, error);
}

PrsProviderRow *
prs_store_lookup_provider (PrsStore    *self,
                           const char  *id_or_name,
                           GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  int rc;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (id_or_name == NULL)
    return NULL;

  stmt = prs_store_prepare_cached (self,
                                   "SELECT " PROVIDER_COLUMNS " FROM providers"
                                   " WHERE id = ?1 OR name = ?1 ORDER BY id = ?1 DESC LIMIT 1",
                                   error);
  if (stmt == NULL)
    return NULL;
  prs_store_bind_text (stmt, 1, id_or_name);

  rc = prs_store_step_row (self, stmt, N_("Could not read the AI provider"), error);
  return rc == 1 ? read_row (stmt, NULL) : NULL;
}

static gboolean
name_taken (PrsStore    *self,
            const char  *name,
            const char  *except_id,
            gboolean    *out_taken,
            GError     **error)
{
  g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self,
                                                      "SELECT 1 FROM providers WHERE name = ?1 AND id IS NOT ?2",
                                                      error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  prs_store_bind_text (stmt, 1, name);
  prs_store_bind_text (stmt, 2, except_id);
  rc = prs_store_step_row (self, stmt, N_("Could not read the AI providers"), error);
  if (rc < 0)
    return FALSE;
  *out_taken = rc == 1;
  return TRUE;
}

static gboolean
check_row (const PrsProviderRow  *row,
           GError               **error)
{
  g_autofree char *name = g_strstrip (g_strdup (row->name != NULL ? row->name : ""));

  if (name[0] == '\0' || row->kind == NULL || row->model == NULL || row->model[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("A provider needs a name, a kind and a model."));
      return FALSE;
    }
  return TRUE;
}

gboolean
prs_store_add_provider (PrsStore              *self,
                        const PrsProviderRow  *row,
                        char                 **out_id,
                        GError               **error)
{
  g_autofree char *id = NULL;
  g_autofree char *now = prs_store_now_iso8601 ();
  gboolean taken = FALSE;
  int priority = row->priority;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (row != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_row (row, error))
    return FALSE;

  id = row->id != NULL ? g_strdup (row->id) : g_uuid_string_random ();

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (!name_taken (self, row->name, NULL, &taken, error))
    goto fail;
  if (taken)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("A provider named “%s” exists already."), row->name);
      goto fail;
    }

  if (priority < 0)
    {
      g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self,
                                                          "SELECT COALESCE (MAX (priority) + 1, 0) FROM providers",
                                                          error);

      if (stmt == NULL || prs_store_step_row (self, stmt, N_("Could not read the AI providers"), error) != 1)
        goto fail;
      priority = sqlite3_column_int (stmt, 0);
    }

  {
    g_autoptr(PrsStmt) stmt = prs_store_prepare_cached (self,
                                                        "INSERT INTO providers (" PROVIDER_COLUMNS ")"
                                                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                                                        error);

    if (stmt == NULL)
      goto fail;
    prs_store_bind_text (stmt, 1, id);
    prs_store_bind_text (stmt, 2, row->name);
    prs_store_bind_text (stmt, 3, row->kind);
    prs_store_bind_text (stmt, 4, row->base_url);
    prs_store_bind_text (stmt, 5, row->model);
    sqlite3_bind_int (stmt, 6, row->enabled ? 1 : 0);
    sqlite3_bind_int (stmt, 7, priority);
    prs_store_bind_text (stmt, 8, now);
    if (!prs_store_step_done (self, stmt, N_("Could not save the AI provider"), error))
      goto fail;
  }

  if (!prs_store_commit (self, error))
    return FALSE;

  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);
  return TRUE;

fail:
  prs_store_rollback (self);
  return FALSE;
}

gboolean
prs_store_update_provider (PrsStore              *self,
                           const PrsProviderRow  *row,
                           GError               **error)
{
  g_autoptr(PrsStmt) stmt = NULL;
  gboolean taken = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (row != NULL && row->id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_row (row, error))
    return FALSE;

  if (!prs_store_begin_immediate (self, error))
    return FALSE;

  if (!name_taken (self, row->name, row->id, &taken, error))
    goto fail;
  if (taken)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("A provider named “%s” exists already."), row->name);
      goto fail;
    }

  stmt = prs_store_prepare_cached (self,
                                   "UPDATE providers SET name = ?2, kind = ?3, base_url = ?4, model = ?5,"
                                   " enabled = ?6, priority = ?7 WHERE id = ?1",
                                   error);
  if (stmt == NULL)
    goto fail;
  prs_store_bind_text (stmt, 1, row->id);
  prs_store_bind_text (stmt, 2, row->name);
  prs_store_bind_text (stmt, 3, row->kind);
  prs_store_bind_text (stmt, 4, row->base_url);
  prs_store_bind_text (stmt, 5, row->model);
  sqlite3_bind_int (stmt, 6, row->enabled ? 1 : 0);
  sqlite3_bind_int (stmt, 7, row->priority);
  if (!prs_store_step_done (self, stmt, N_("Could not save the AI provider"), error))
    goto fail;
  if (sqlite3_changes (self->db) == 0)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no provider “%s”."), row->id);
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
prs_store_remove_provider (PrsStore    *self,
                           const char  *id,
                           GError     **error)
{
  gboolean found = FALSE;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_delete_one (self, "DELETE FROM providers WHERE id = ?1", id,
                             N_("Could not remove the AI provider"), &found, error))
    return FALSE;
  if (!found)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND, _("There is no provider “%s”."), id);
      return FALSE;
    }
  return TRUE;
}
