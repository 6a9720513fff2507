/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-backup.c: a consistent copy of the database while the app and
 * prosponsive-ctl use it, through SQLite's online backup API. The copy is
 * written to a new private file beside the destination and renamed over it
 * only once it is complete and checked (prs-atomic-file), so a failed or
 * interrupted backup never leaves half a database under the destination's
 * name, and never goes through a link. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "prs-atomic-file.h"
#include "prs-paths.h"
#include "prs-store-internal.h"

/* The live database's own files: a backup never goes over one of them. */
static gboolean
is_live_database_file (PrsStore          *self,
                       const char        *dest_path,
                       const struct stat *dest_st)
{
  g_autofree char *dest_dir = g_path_get_dirname (dest_path);
  g_autofree char *dest_base = g_path_get_basename (dest_path);
  g_autofree char *real_dest_dir = realpath (dest_dir, NULL);
  g_autofree char *live_dir = g_path_get_dirname (self->path);
  g_autofree char *live_base = g_path_get_basename (self->path);
  g_autofree char *real_live_dir = realpath (live_dir, NULL);

  for (guint i = 0; prs_store_file_suffixes[i] != NULL; i++)
    {
      g_autofree char *live = g_strconcat (self->path, prs_store_file_suffixes[i], NULL);
      g_autofree char *name = g_strconcat (live_base, prs_store_file_suffixes[i], NULL);
      struct stat st;

      if (dest_st != NULL && stat (live, &st) == 0 &&
          st.st_dev == dest_st->st_dev && st.st_ino == dest_st->st_ino)
        return TRUE;
      if (real_dest_dir != NULL && real_live_dir != NULL &&
          g_str_equal (real_dest_dir, real_live_dir) && g_str_equal (dest_base, name))
        return TRUE;
    }

  return FALSE;
}

static void
remove_journal (const char *tmp_path)
{
  g_autofree char *journal = g_strconcat (tmp_path, "-journal", NULL);

  g_unlink (journal);
}

/* The copy itself: every page in one step, so in one read transaction of
 * the source (a consistent snapshot; writers carry on meanwhile, WAL). */
static gboolean
copy_pages (PrsStore    *self,
            sqlite3     *dest,
            const char  *dest_path,
            GError     **error)
{
  gint64 deadline = g_get_monotonic_time () + PRS_STORE_BUSY_TIMEOUT_MS * G_TIME_SPAN_MILLISECOND;
  sqlite3_backup *backup = sqlite3_backup_init (dest, "main", self->db, "main");
  int rc;

  if (backup == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("Could not back up to “%s”: %s"),
                   dest_path, sqlite3_errmsg (dest));
      return FALSE;
    }

  while ((rc = sqlite3_backup_step (backup, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED)
    {
      if (g_get_monotonic_time () >= deadline)
        break;
      g_usleep (50 * G_TIME_SPAN_MILLISECOND);
    }
  sqlite3_backup_finish (backup);

  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
    {
      prs_store_set_busy_error (self, error);
      return FALSE;
    }
  if (rc != SQLITE_DONE)
    {
      g_set_error (error, PRS_ERROR,
                   (rc & 0xff) == SQLITE_FULL ? PRS_ERROR_STORE_FULL : PRS_ERROR_STORE,
                   _("Could not back up to “%s”: %s"), dest_path, sqlite3_errstr (rc));
      return FALSE;
    }

  return TRUE;
}

static gboolean
check_copy (sqlite3     *dest,
            const char  *dest_path,
            GError     **error)
{
  sqlite3_stmt *stmt = NULL;
  gboolean ok = FALSE;

  if (sqlite3_prepare_v2 (dest, "PRAGMA quick_check", -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    ok = g_strcmp0 ((const char *) sqlite3_column_text (stmt, 0), "ok") == 0;
  sqlite3_finalize (stmt);

  if (!ok)
    g_set_error (error, PRS_ERROR, PRS_ERROR_STORE,
                 _("The backup written to “%s” did not pass SQLite's check; nothing was kept."),
                 dest_path);
  return ok;
}

gboolean
prs_store_backup (PrsStore    *self,
                  const char  *dest_path,
                  GError     **error)
{
  g_autoptr(PrsAtomicFile) file = NULL;
  g_autofree char *real_tmp_path = NULL;
  const char *tmp_path;
  struct stat st;
  sqlite3 *dest = NULL;
  gboolean ok;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (dest_path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (is_live_database_file (self, dest_path, lstat (dest_path, &st) == 0 ? &st : NULL))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is the live database; a backup cannot replace it. "
                     "Name another file."), dest_path);
      return FALSE;
    }

  /* A new private file beside the destination. Its descriptor is closed
   * before SQLite opens it by name: no SQLite connection has this new
   * file open yet, so there are no locks to lose. */
  file = prs_atomic_file_new (dest_path, error);
  if (file == NULL)
    return FALSE;
  tmp_path = prs_atomic_file_get_temp_path (file);

  /* By its folder's real name, as the database is (store_open ()) */
  real_tmp_path = prs_paths_real_folder_of (tmp_path);
  if (real_tmp_path == NULL)
    {
      int saved_errno = errno;

      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("Could not back up to “%s”: %s"),
                   dest_path, g_strerror (saved_errno));
      return FALSE;
    }
  if (sqlite3_open_v2 (real_tmp_path, &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("Could not back up to “%s”: %s"),
                   dest_path, dest != NULL ? sqlite3_errmsg (dest) : "out of memory");
      sqlite3_close (dest);
      remove_journal (tmp_path);
      return FALSE;
    }

  ok = copy_pages (self, dest, dest_path, error) && check_copy (dest, dest_path, error);
  /* Closed before the rename: nothing renames a database that is open */
  if (sqlite3_close (dest) != SQLITE_OK && ok)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("Could not back up to “%s”: %s"),
                   dest_path, sqlite3_errmsg (dest));
      ok = FALSE;
    }
  remove_journal (tmp_path);

  return ok && prs_atomic_file_commit (file, error);
}
