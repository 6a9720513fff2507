/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-control.c: the control key (prs-api-control.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "prs-api-control.h"
#include "prs-paths.h"
#include "prs-random.h"

/* A key and a newline, with room to spare */
#define CONTROL_MAX_SIZE 256

gboolean
prs_api_control_read (const char  *data_dir,
                      char       **out_key,
                      GError     **error)
{
  g_autofree char *path = g_build_filename (data_dir, PRS_API_CONTROL_FILE, NULL);
  g_autofree char *contents = NULL;

  if (!prs_paths_read_file (path, CONTROL_MAX_SIZE, &contents, NULL, error))
    return FALSE;
  g_strstrip (contents);
  if (strlen (contents) < 32)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s holds no key", path);
      return FALSE;
    }
  *out_key = g_steal_pointer (&contents);
  return TRUE;
}

/* A new file only (O_EXCL): two starts never overwrite each other's key */
static gboolean
write_new (const char  *path,
           const char  *key,
           GError     **error)
{
  g_autofree char *line = g_strconcat (key, "\n", NULL);
  gsize len = strlen (line);
  int fd = prs_paths_open_file (path, O_WRONLY | O_CREAT | O_EXCL, error);
  gboolean ok;
  int saved_errno;

  if (fd < 0)
    return FALSE;
  ok = write (fd, line, len) == (gssize) len && fsync (fd) == 0;
  saved_errno = errno;
  if (!ok)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
                 "Could not write %s: %s", path, g_strerror (saved_errno));
  close (fd);
  if (!ok)
    unlink (path);
  memset (line, 0, len);
  return ok;
}

gboolean
prs_api_control_ensure (const char  *data_dir,
                        char       **out_key,
                        GError     **error)
{
  g_autofree char *path = g_build_filename (data_dir, PRS_API_CONTROL_FILE, NULL);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *key = NULL;

  if (prs_api_control_read (data_dir, out_key, &local_error))
    return TRUE;
  if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  g_clear_error (&local_error);
  key = prs_random_token (error);
  if (key == NULL)
    return FALSE;
  if (!write_new (path, key, &local_error))
    {
      /* Made by someone else meanwhile: theirs is the key */
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_EXIST))
        return prs_api_control_read (data_dir, out_key, error);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  *out_key = g_steal_pointer (&key);
  return TRUE;
}

gboolean
prs_api_control_required (const char *path)
{
  if (path == NULL)
    return FALSE;
  if (strcmp (path, "/api/tool-calls") == 0 || g_str_has_prefix (path, "/api/tool-calls/"))
    return TRUE;
  /* The MCP clients' decision: the same decision, under its older address */
  return g_str_has_prefix (path, "/api/mcp/tools/calls/") && g_str_has_suffix (path, "/decision");
}
