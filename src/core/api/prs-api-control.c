/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-control.c: the control key (prs-api-control.h). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "prs-api-control.h"
#include "prs-paths.h"
#include "prs-random.h"

#define CONTROL_LABEL "Prosponsive control key"
/* A key and a newline, with room to spare */
#define CONTROL_MAX_SIZE 256
/* prs_random_token: 256 bits in unpadded base64url are 43 characters; a
 * shorter value is not one the service made */
#define CONTROL_MIN_LENGTH 32

/* The key an older version wrote (checked like every file of the data
 * folder, docs/storage.md): G_FILE_ERROR_NOENT when there is none */
static gboolean
read_old_file (const char  *path,
               char       **out_key,
               GError     **error)
{
  g_autofree char *contents = NULL;

  if (!prs_paths_read_file (path, CONTROL_MAX_SIZE, &contents, NULL, error))
    return FALSE;
  g_strstrip (contents);
  if (strlen (contents) < CONTROL_MIN_LENGTH)
    {
      memset (contents, 0, strlen (contents));
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s holds no key", path);
      return FALSE;
    }
  *out_key = g_steal_pointer (&contents);
  return TRUE;
}

/* Once the key is in PrsSecrets the file has no reader left: a failure
 * only leaves it for the next start to remove */
static void
remove_old_file (const char *path)
{
  if (unlink (path) != 0 && errno != ENOENT)
    g_message ("Could not remove the old control key file %s: %s", path, g_strerror (errno));
}

/* The stored key; NULL without an error when there is none, or a value
 * too short to be one the service made */
static char *
lookup_key (PrsSecrets    *secrets,
            GCancellable  *cancellable,
            GError       **error)
{
  char *key = prs_secrets_lookup_sync (secrets, PRS_SECRET_CONTROL_KEY, cancellable, error);

  if (key != NULL && strlen (key) < CONTROL_MIN_LENGTH)
    prs_secrets_wipe (&key);
  return key;
}

gboolean
prs_api_control_read (PrsSecrets  *secrets,
                      char       **out_key,
                      GError     **error)
{
  GError *local_error = NULL;
  char *key;

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), FALSE);

  key = lookup_key (secrets, NULL, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  if (key == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "No control key is stored");
      return FALSE;
    }
  *out_key = key;
  return TRUE;
}

/* The key to store when none is: an older version's, kept so that the
 * prosponsive-ctl of an upgrade goes on working with the same key, else a
 * new one */
static char *
first_key (const char  *path,
           GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  char *key = NULL;

  if (read_old_file (path, &key, &local_error))
    return key;
  if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  return prs_random_token (error);
}

gboolean
prs_api_control_ensure (PrsSecrets    *secrets,
                        const char    *data_dir,
                        char         **out_key,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autofree char *path = NULL;
  g_autofree char *key = NULL;
  GError *local_error = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), FALSE);
  g_return_val_if_fail (data_dir != NULL, FALSE);

  path = g_build_filename (data_dir, PRS_API_CONTROL_FILE, NULL);
  key = lookup_key (secrets, cancellable, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  if (key == NULL)
    {
      key = first_key (path, error);
      if (key == NULL)
        return FALSE;
      /* Stored before the file goes: a failure here loses nothing */
      if (!prs_secrets_store_sync (secrets, PRS_SECRET_CONTROL_KEY, CONTROL_LABEL, key,
                                   cancellable, error))
        {
          prs_secrets_wipe (&key);
          return FALSE;
        }
    }
  /* Also what a start stopped between the two steps left behind */
  remove_old_file (path);
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
