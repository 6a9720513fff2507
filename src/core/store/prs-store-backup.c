/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-backup.c: a consistent copy of the database while the app and
 * prosponsive-ctl use it, through SQLite's online backup API. The copy is
 * written to a new private file beside the destination and renamed over it
 * only once it is complete and checked, so a failed or interrupted backup
 * never leaves half a database under the destination's name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

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

/* What may be at the destination: nothing, or a regular file that is not
 * the live database. A link is refused rather than followed or replaced. */
static gboolean
check_destination (PrsStore    *self,
                   const char  *dest_path,
                   GError     **error)
{
  struct stat st;
  gboolean exists = lstat (dest_path, &st) == 0;

  if (!exists && errno != ENOENT)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not write “%s”: %s"), dest_path, g_strerror (saved_errno));
      return FALSE;
    }

  if (exists && S_ISLNK (st.st_mode))
    g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                 _("“%s” is a symbolic link; a backup is not written through a link. "
                   "Name the file itself."), dest_path);
  else if (exists && !S_ISREG (st.st_mode))
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 _("“%s” is not a regular file; name a file for the backup."), dest_path);
  else if (is_live_database_file (self, dest_path, exists ? &st : NULL))
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 _("“%s” is the live database; a backup cannot replace it. "
                   "Name another file."), dest_path);
  else
    return TRUE;

  return FALSE;
}

static void
remove_partial (const char *tmp_path)
{
  g_autofree char *journal = g_strconcat (tmp_path, "-journal", NULL);

  g_unlink (journal);
  g_unlink (tmp_path);
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

static gboolean
sync_folder (const char  *path,
             GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int saved_errno;

  if (fd >= 0 && fsync (fd) == 0)
    {
      close (fd);
      return TRUE;
    }

  saved_errno = errno;
  if (fd >= 0)
    close (fd);
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("Could not write “%s”: %s"), path, g_strerror (saved_errno));
  return FALSE;
}

gboolean
prs_store_backup (PrsStore    *self,
                  const char  *dest_path,
                  GError     **error)
{
  g_autofree char *tmp_path = NULL;
  sqlite3 *dest = NULL;
  gboolean ok;
  int fd;

  g_return_val_if_fail (PRS_IS_STORE (self), FALSE);
  PRS_ASSERT_OWNER (&self->owner);
  g_return_val_if_fail (dest_path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!check_destination (self, dest_path, error))
    return FALSE;

  /* A new name (O_EXCL: never an existing file or link), private from the
   * start. Closing this descriptor is safe: no SQLite connection has this
   * new file open yet, so there are no locks to lose. */
  tmp_path = g_strconcat (dest_path, ".XXXXXX", NULL);
  fd = g_mkstemp_full (tmp_path, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not write “%s”: %s"), dest_path, g_strerror (saved_errno));
      return FALSE;
    }
  close (fd);

  if (sqlite3_open_v2 (tmp_path, &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_STORE, _("Could not back up to “%s”: %s"),
                   dest_path, dest != NULL ? sqlite3_errmsg (dest) : "out of memory");
      sqlite3_close (dest);
      remove_partial (tmp_path);
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

  if (ok && g_rename (tmp_path, dest_path) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                   _("Could not write “%s”: %s"), dest_path, g_strerror (saved_errno));
      ok = FALSE;
    }
  if (!ok)
    {
      remove_partial (tmp_path);
      return FALSE;
    }

  return sync_folder (dest_path, error);
}
