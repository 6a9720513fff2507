/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-paths.c: the data folder, from --data-dir, PROSPONSIVE_DATA_DIR, or XDG. */
#include "config.h"

#include <errno.h>
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

gboolean
prs_paths_ensure_data_dir (const char  *data_dir,
                           GError     **error)
{
  g_return_val_if_fail (data_dir != NULL, FALSE);

  if (g_mkdir_with_parents (data_dir, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                   "Could not create the data folder “%s”: %s",
                   data_dir, g_strerror (saved_errno));
      return FALSE;
    }

  return TRUE;
}
