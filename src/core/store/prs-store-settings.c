/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-settings.c: the store's own key-value settings (what belongs
 * to the data folder rather than to GSettings: the n8n URL, discovery
 * state kept between runs). */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "prs-store-internal.h"

/* ---- Settings ------------------------------------------------------------ */

char *
prs_store_dup_setting (PrsStore   *self,
                       const char *key)
{
  g_autoptr(PrsStmt) stmt = NULL;

  g_return_val_if_fail (PRS_IS_STORE (self), NULL);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (key != NULL, NULL);

  stmt = prs_store_prepare_cached (self, "SELECT value FROM settings WHERE key = ?1", NULL);
  if (stmt == NULL)
    return NULL;

  prs_store_bind_text (stmt, 1, key);
  if (prs_store_step_row (self, stmt, N_("Could not read a setting"), NULL) != 1)
    return NULL;

  return g_strdup (prs_store_column_text (stmt, 0));
}

gboolean
prs_store_set_setting (PrsStore    *self,
                       const char  *key,
                       const char  *value,
                       GError     **error)
{
  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (key != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!prs_store_begin_immediate (self, error))
    return FALSE;
  if (!prs_store_write_setting (self, key, value, error))
    {
      prs_store_rollback (self);
      return FALSE;
    }
  return prs_store_commit (self, error);
}

gboolean
prs_store_write_setting (PrsStore    *self,
                         const char  *key,
                         const char  *value,
                         GError     **error)
{
  g_autoptr(PrsStmt) stmt = NULL;

  if (value != NULL)
    stmt = prs_store_prepare_cached (self,
                          "INSERT INTO settings (key, value) VALUES (?1, ?2) "
                          "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                          error);
  else
    stmt = prs_store_prepare_cached (self, "DELETE FROM settings WHERE key = ?1", error);
  if (stmt == NULL)
    return FALSE;

  prs_store_bind_text (stmt, 1, key);
  if (value != NULL)
    prs_store_bind_text (stmt, 2, value);
  return prs_store_step_done (self, stmt, N_("Could not save a setting"), error);
}
