/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-paths.c: the data folder, from --data-dir, PROSPONSIVE_DATA_DIR, or XDG,
 * and the rules for using it: the folder is the user's own and private, and
 * its files are opened without following links, checked for owner and mode.
 * A folder other users can write would let them swap secrets.json, the
 * token stamp or the database under the app. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#include "prs-error.h"
#include "prs-paths.h"

/* The precedence is the one of docs/storage.md: the command line, then the
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

/* A folder above the data folder that anyone may change (and not sticky,
 * like /tmp is) lets anyone rename the data folder away and put their own
 * in its place. Owners are not compared: in a Flatpak sandbox the system's
 * folders belong to an unmapped user. */
static gboolean
check_from (const char  *real_dir,
            GError     **error)
{
  g_autofree char *dir = g_strdup (real_dir);

  for (;;)
    {
      struct stat st;
      char *parent;

      if (stat (dir, &st) == 0 && (st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0)
        {
          g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                       _("The folder “%s” above the data folder can be changed by every user of this "
                         "computer, who could swap the data folder. Choose a data folder elsewhere."),
                       dir);
          return FALSE;
        }

      parent = g_path_get_dirname (dir);
      if (g_str_equal (parent, dir))
        {
          g_free (parent);
          return TRUE;
        }
      g_free (dir);
      dir = parent;
    }
}

static gboolean
check_ancestors (const char  *data_dir,
                 GError     **error)
{
  g_autofree char *real = realpath (data_dir, NULL);
  g_autofree char *dir = NULL;

  if (real == NULL)
    {
      set_errno_error (error, errno, data_dir);
      return FALSE;
    }
  dir = g_path_get_dirname (real);
  return check_from (dir, error);
}

/* Before a data folder is made: the nearest folder above it that is there
 * already, and those above that, so that a refusal leaves nothing made */
static gboolean
check_above_new (const char  *data_dir,
                 GError     **error)
{
  g_autofree char *dir = g_path_get_dirname (data_dir);
  g_autofree char *real = NULL;

  while (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      char *parent = g_path_get_dirname (dir);

      if (g_str_equal (parent, dir))
        {
          g_free (parent);
          break;
        }
      g_free (dir);
      dir = parent;
    }
  /* Not to be resolved: mkdir says why */
  real = realpath (dir, NULL);
  return real == NULL || check_from (real, error);
}

/* The data folder must be the user's own; one that others may read or
 * change is made private (its files are private already, but a folder
 * others can write lets them replace those files). */
static gboolean
check_data_dir (const char  *data_dir,
                GError     **error)
{
  struct stat st;
  int fd;

  /* Through a descriptor, so that the folder checked is the one changed */
  fd = open (data_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    {
      set_errno_error (error, errno, data_dir);
      if (fd >= 0)
        close (fd);
      return FALSE;
    }

  if (st.st_uid != geteuid ())
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                   _("The data folder “%s” belongs to another user (user id %u). Prosponsive keeps "
                     "its data only in a folder of your own; choose another with --data-dir."),
                   data_dir, (guint) st.st_uid);
      close (fd);
      return FALSE;
    }

  if ((st.st_mode & 077) != 0)
    {
      if (fchmod (fd, 0700) != 0)
        {
          int saved_errno = errno;

          g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                       _("The data folder “%s” is open to other users and could not be made "
                         "private: %s"), data_dir, g_strerror (saved_errno));
          close (fd);
          return FALSE;
        }
      g_message ("The data folder %s was open to other users (mode %04o); it is now private to you (0700)",
                 data_dir, (guint) (st.st_mode & 07777));
    }

  close (fd);
  return TRUE;
}

gboolean
prs_paths_ensure_data_dir (const char  *data_dir,
                           GError     **error)
{
  g_return_val_if_fail (data_dir != NULL, FALSE);

  /* The folders above first: a refusal leaves nothing made */
  if (g_file_test (data_dir, G_FILE_TEST_EXISTS) ? !check_ancestors (data_dir, error)
                                                 : !check_above_new (data_dir, error))
    return FALSE;
  if (g_mkdir_with_parents (data_dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                   _("Could not create the data folder “%s”: %s"),
                   data_dir, g_strerror (saved_errno));
      return FALSE;
    }

  return check_data_dir (data_dir, error);
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

char *
prs_paths_real_folder_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *real = realpath (dir, NULL);

  return real != NULL ? g_build_filename (real, base, NULL) : NULL;
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

int
prs_paths_open_file (const char  *path,
                     int          flags,
                     GError     **error)
{
  struct stat st;
  int fd;

  g_return_val_if_fail (path != NULL, -1);

  /* O_NONBLOCK: a planted FIFO must not hang the open; a regular file
   * ignores it */
  fd = open (path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ELOOP && lstat (path, &st) == 0)
        check_file_stat (path, &st, error);
      else
        set_errno_error (error, saved_errno, path);
      return -1;
    }

  if (fstat (fd, &st) != 0 || !check_file_stat (path, &st, error) ||
      ((st.st_mode & 077) != 0 && fchmod (fd, 0600) != 0))
    {
      if (error != NULL && *error == NULL)
        set_errno_error (error, errno, path);
      close (fd);
      return -1;
    }
  if ((st.st_mode & 077) != 0)
    log_tightened (path, &st);

  return fd;
}

gboolean
prs_paths_read_file (const char  *path,
                     gsize        max_bytes,
                     char       **out_contents,
                     gsize       *out_length,
                     GError     **error)
{
  g_autoptr(GByteArray) buffer = g_byte_array_new ();
  guint8 chunk[4096];
  gssize n;
  int fd;

  g_return_val_if_fail (out_contents != NULL, FALSE);

  fd = prs_paths_open_file (path, O_RDONLY, error);
  if (fd < 0)
    return FALSE;

  while ((n = read (fd, chunk, sizeof chunk)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 || buffer->len + (gsize) n > max_bytes)
        {
          int saved_errno = errno;

          if (n < 0)
            g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                         _("Could not read “%s”: %s"), path, g_strerror (saved_errno));
          else
            g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                         _("“%s” is larger than such a file can be; remove it if you did not make it."),
                         path);
          memset (chunk, 0, sizeof chunk);
          close (fd);
          return FALSE;
        }
      g_byte_array_append (buffer, chunk, n);
    }
  memset (chunk, 0, sizeof chunk);
  close (fd);

  if (out_length != NULL)
    *out_length = buffer->len;
  g_byte_array_append (buffer, (const guint8 *) "", 1);
  *out_contents = (char *) g_byte_array_free (g_steal_pointer (&buffer), FALSE);
  return TRUE;
}
