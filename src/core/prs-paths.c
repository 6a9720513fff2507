/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-paths.c: the data folder, from --data-dir, PROSPONSIVE_DATA_DIR, or XDG,
 * and how its files are checked. */
#include "config.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#include "prs-error.h"
#include "prs-paths.h"

/* The precedence is the one of SPEC §10: the command line, then the
 * environment (tests), then $XDG_DATA_HOME/prosponsive. The result is
 * always absolute, because it also scopes keyring items. */
char *
prs_paths_resolve_data_dir (const char *explicit_dir)
{
  const char *env;
  g_autofree char *dir = NULL;

  if (explicit_dir != NULL && explicit_dir[0] != '\0')
    dir = g_strdup (explicit_dir);
  else if ((env = g_getenv ("PROSPONSIVE_DATA_DIR")) != NULL && env[0] != '\0')
    dir = g_strdup (env);
  else
    dir = g_build_filename (g_get_user_data_dir (), "prosponsive", NULL);

  if (!g_path_is_absolute (dir))
    {
      g_autofree char *cwd = g_get_current_dir ();
      g_autofree char *joined = g_build_filename (cwd, dir, NULL);
      g_autoptr(GFile) file = g_file_new_for_path (joined);

      /* GFile canonicalises "." and ".." */
      return g_file_get_path (file);
    }

  return g_steal_pointer (&dir);
}

static void
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("Could not open “%s”: %s"), path, g_strerror (saved_errno));
}

gboolean
prs_paths_ensure_data_dir (const char  *data_dir,
                           GError     **error)
{
  g_return_val_if_fail (data_dir != NULL, FALSE);

  if (g_mkdir_with_parents (data_dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                   _("Could not create the data folder “%s”: %s"),
                   data_dir, g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}

/* What makes a file of the data folder one not to use, from lstat or from
 * fstat on a descriptor opened without following links. */
static gboolean
check_file_stat (const char         *path,
                 const struct stat  *st,
                 GError            **error)
{
  if (S_ISLNK (st->st_mode))
    g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                 _("“%s” is a symbolic link. Prosponsive does not follow links in its data folder; "
                   "remove it if you did not make it."), path);
  else if (!S_ISREG (st->st_mode))
    g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                 _("“%s” is not a regular file; remove it if you did not make it."), path);
  else if (st->st_uid != geteuid ())
    g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                 _("“%s” belongs to another user (user id %u); Prosponsive does not use it. "
                   "Remove it if you did not put it there."), path, (guint) st->st_uid);
  else if (st->st_nlink > 1)
    g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                 _("“%s” has other names (hard links); Prosponsive does not use it. "
                   "Remove them if you did not make them."), path);
  else
    return TRUE;

  return FALSE;
}

static void
log_tightened (const char        *path,
               const struct stat *st)
{
  /* A file SQLite has only just created is empty: nothing was exposed */
  if (st->st_size > 0)
    g_message ("%s was open to other users (mode %04o); it is now private to you (0600)",
               path, (guint) (st->st_mode & 07777));
}

gboolean
prs_paths_check_file (const char  *path,
                      GError     **error)
{
  struct stat st;

  g_return_val_if_fail (path != NULL, FALSE);

  if (lstat (path, &st) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      set_errno_error (error, errno, path);
      return FALSE;
    }

  if (!check_file_stat (path, &st, error))
    return FALSE;

  if ((st.st_mode & 077) != 0)
    {
      /* By name: opening and closing a descriptor of a database file would
       * drop every POSIX lock this process's SQLite connections hold on it.
       * The name cannot have changed since lstat: only the user can write
       * the data folder (prs_paths_ensure_data_dir). */
      if (chmod (path, 0600) != 0)
        {
          set_errno_error (error, errno, path);
          return FALSE;
        }
      log_tightened (path, &st);
    }

  return TRUE;
}
