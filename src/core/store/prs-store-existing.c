/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-existing.c: opening the database of a data folder only when it
 * is there. A person who mistypes --data-dir must hear that the folder
 * holds no data, not get an empty list and an empty folder left behind
 * (docs/ctl.md); the open itself stays prs-store.c's. */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "prs-store-internal.h"

gboolean
prs_store_check_existing (const char  *data_dir,
                          GError     **error)
{
  g_autofree char *path = NULL;
  GStatBuf st;

  g_return_val_if_fail (data_dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* By name, opening no descriptor (prs-paths.h: closing one would drop
   * SQLite's locks). Anything there but a regular file of the user's is
   * the open's to refuse. A database deleted between this check and the
   * open would be made anew: the check answers a typo, it does not guard
   * against another program. */
  path = g_build_filename (data_dir, PRS_STORE_DB_FILE_NAME, NULL);
  if (g_lstat (path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
    {
      /* Translators: %s is a folder */
      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                   _("There is no Prosponsive data in “%s”."), data_dir);
      return FALSE;
    }
  return TRUE;
}

PrsStore *
prs_store_new_existing (const char            *data_dir,
                        PrsStoreProgressFunc   progress,
                        gpointer               user_data,
                        GError               **error)
{
  g_return_val_if_fail (data_dir != NULL, NULL);
  g_return_val_if_fail (progress != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!prs_store_check_existing (data_dir, error))
    return NULL;
  return prs_store_new_with_progress (data_dir, progress, user_data, error);
}
