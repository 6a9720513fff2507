/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-atomic-file.c: see prs-atomic-file.h. Exports and backups write
 * through it, so that a crash or a full disk never leaves half a file under
 * the name a person chose, and nothing is written through a link planted
 * there. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gunixoutputstream.h>

#include "prs-atomic-file.h"
#include "prs-error.h"

struct _PrsAtomicFile
{
  char          *path;
  char          *temp_path;
  GOutputStream *stream;   /* owns the descriptor */
  gboolean       committed;
};

static void
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
               _("Could not write “%s”: %s"), path, g_strerror (saved_errno));
}

static gboolean
check_destination (const char  *path,
                   GError     **error)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    {
      if (errno == ENOENT)
        return TRUE;
      set_errno_error (error, errno, path);
      return FALSE;
    }
  if (S_ISLNK (st.st_mode))
    g_set_error (error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH,
                 _("“%s” is a symbolic link; nothing is written through a link. Name the file itself."),
                 path);
  else if (!S_ISREG (st.st_mode))
    g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                 _("“%s” is not a regular file; name a file to write."), path);
  else
    return TRUE;
  return FALSE;
}

PrsAtomicFile *
prs_atomic_file_new (const char  *path,
                     GError     **error)
{
  g_autofree char *temp_path = NULL;
  PrsAtomicFile *self;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_destination (path, error))
    return NULL;

  temp_path = g_strconcat (path, ".XXXXXX", NULL);
  fd = g_mkstemp_full (temp_path, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      set_errno_error (error, errno, path);
      return NULL;
    }

  self = g_new0 (PrsAtomicFile, 1);
  self->path = g_strdup (path);
  self->temp_path = g_steal_pointer (&temp_path);
  self->stream = g_unix_output_stream_new (fd, TRUE);
  return self;
}

GOutputStream *
prs_atomic_file_get_stream (PrsAtomicFile *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->stream;
}

const char *
prs_atomic_file_get_temp_path (PrsAtomicFile *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_output_stream_close (self->stream, NULL, NULL);
  return self->temp_path;
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
  set_errno_error (error, saved_errno, path);
  return FALSE;
}

gboolean
prs_atomic_file_commit (PrsAtomicFile  *self,
                        GError        **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail (!self->committed, FALSE);

  if (!g_output_stream_is_closed (self->stream))
    {
      int fd = g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (self->stream));

      if (!g_output_stream_flush (self->stream, NULL, error))
        return FALSE;
      if (fsync (fd) != 0)
        {
          set_errno_error (error, errno, self->path);
          return FALSE;
        }
      if (!g_output_stream_close (self->stream, NULL, error))
        return FALSE;
    }
  else
    {
      /* Written by name (SQLite): synced through a descriptor of our own */
      int fd = open (self->temp_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

      if (fd < 0 || fsync (fd) != 0)
        {
          set_errno_error (error, errno, self->path);
          if (fd >= 0)
            close (fd);
          return FALSE;
        }
      close (fd);
    }

  /* The destination may have become a link meanwhile: rename replaces the
   * link itself, never what it points to */
  if (g_rename (self->temp_path, self->path) != 0)
    {
      set_errno_error (error, errno, self->path);
      return FALSE;
    }
  self->committed = TRUE;
  return sync_folder (self->path, error);
}

void
prs_atomic_file_free (PrsAtomicFile *self)
{
  if (self == NULL)
    return;
  g_output_stream_close (self->stream, NULL, NULL);
  g_object_unref (self->stream);
  if (!self->committed)
    g_unlink (self->temp_path);
  g_free (self->temp_path);
  g_free (self->path);
  g_free (self);
}
