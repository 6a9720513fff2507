/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-token.c: making, rotating and checking the local API token. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "prs-api-token.h"
#include "prs-error.h"
#include "prs-paths.h"
#include "prs-random.h"

#define TOKEN_LABEL "Prosponsive API token"
#define STAMP_MAX_SIZE 64

struct _PrsApiTokenWatch
{
  PrsSecrets *secrets;
  char       *stamp_path;
  char       *token;
  /* The stamp file's identity when the token was last loaded */
  dev_t       dev;
  ino_t       ino;
  gint64      mtime_ns;
  off_t       size;
};

static gboolean
bump_stamp (const char  *data_dir,
            GError     **error)
{
  g_autofree char *path = g_build_filename (data_dir, PRS_API_TOKEN_STAMP_FILE, NULL);
  g_autofree char *old = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  guint64 generation = 0;

  if (prs_paths_read_file (path, STAMP_MAX_SIZE, &old, NULL, &local_error))
    generation = g_ascii_strtoull (old, NULL, 10);
  else if (!g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  /* A new file renamed over the old one: its inode changes even when the
   * mtime's granularity would hide two rotations in a row. */
  contents = g_strdup_printf ("%" G_GUINT64_FORMAT "\n", generation + 1);
  return g_file_set_contents_full (path, contents, -1,
                                   G_FILE_SET_CONTENTS_CONSISTENT, 0600, error);
}

gboolean
prs_api_token_ensure (PrsSecrets  *secrets,
                      const char  *data_dir,
                      char       **out_token,
                      GError     **error)
{
  g_autofree char *token = NULL;
  GError *local_error = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), FALSE);
  g_return_val_if_fail (data_dir != NULL, FALSE);

  token = prs_secrets_lookup_sync (secrets, PRS_SECRET_API_TOKEN, NULL, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }

  if (token == NULL || token[0] == '\0')
    {
      g_clear_pointer (&token, g_free);
      return prs_api_token_rotate (secrets, data_dir, out_token, error);
    }

  if (out_token != NULL)
    *out_token = g_steal_pointer (&token);
  return TRUE;
}

gboolean
prs_api_token_rotate (PrsSecrets  *secrets,
                      const char  *data_dir,
                      char       **new_token,
                      GError     **error)
{
  g_autofree char *token = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), FALSE);
  g_return_val_if_fail (data_dir != NULL, FALSE);

  token = prs_random_token (error);
  if (token == NULL)
    return FALSE;

  /* The secret first, then the stamp: a server that sees the new stamp
   * always finds the new token. */
  if (!prs_secrets_store_sync (secrets, PRS_SECRET_API_TOKEN, TOKEN_LABEL,
                               token, NULL, error))
    return FALSE;
  if (!bump_stamp (data_dir, error))
    return FALSE;

  if (new_token != NULL)
    *new_token = g_steal_pointer (&token);
  return TRUE;
}

gboolean
prs_api_token_equal (const char *expected,
                     const char *presented,
                     gsize       presented_len)
{
  return prs_random_token_equal (expected, presented, presented_len);
}

static void
stat_stamp (const char *path,
            dev_t      *dev,
            ino_t      *ino,
            gint64     *mtime_ns,
            off_t      *size)
{
  struct stat st;

  /* The name's own identity: a link is never followed in the data folder */
  if (lstat (path, &st) != 0)
    {
      *dev = 0;
      *ino = 0;
      *mtime_ns = 0;
      *size = -1;
      return;
    }

  *dev = st.st_dev;
  *ino = st.st_ino;
  *mtime_ns = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
  *size = st.st_size;
}

static void
watch_reload (PrsApiTokenWatch *watch)
{
  g_autoptr(GError) error = NULL;
  char *token;

  /* Stat before reading: a rotation between the two is seen next time */
  stat_stamp (watch->stamp_path, &watch->dev, &watch->ino, &watch->mtime_ns, &watch->size);

  token = prs_secrets_lookup_sync (watch->secrets, PRS_SECRET_API_TOKEN, NULL, &error);
  if (token == NULL)
    {
      /* Keep the old token rather than opening the door */
      g_message ("Could not reload the API token: %s",
                 error != NULL ? error->message : "no token stored");
      return;
    }

  if (watch->token != NULL)
    {
      memset (watch->token, 0, strlen (watch->token));
      g_free (watch->token);
    }
  watch->token = token;
}

PrsApiTokenWatch *
prs_api_token_watch_new (PrsSecrets  *secrets,
                         const char  *data_dir,
                         GError     **error)
{
  g_autoptr(PrsApiTokenWatch) watch = g_new0 (PrsApiTokenWatch, 1);
  g_autofree char *token = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), NULL);

  watch->secrets = g_object_ref (secrets);
  watch->stamp_path = g_build_filename (data_dir, PRS_API_TOKEN_STAMP_FILE, NULL);

  if (!prs_api_token_ensure (secrets, data_dir, &token, error))
    return NULL;

  stat_stamp (watch->stamp_path, &watch->dev, &watch->ino, &watch->mtime_ns, &watch->size);
  if (watch->size < 0)
    {
      /* A token made by an older build: start the stamp now */
      if (!bump_stamp (data_dir, error))
        return NULL;
      stat_stamp (watch->stamp_path, &watch->dev, &watch->ino, &watch->mtime_ns, &watch->size);
    }
  watch->token = g_steal_pointer (&token);

  return g_steal_pointer (&watch);
}

void
prs_api_token_watch_free (PrsApiTokenWatch *watch)
{
  if (watch == NULL)
    return;

  if (watch->token != NULL)
    memset (watch->token, 0, strlen (watch->token));
  g_free (watch->token);
  g_free (watch->stamp_path);
  g_clear_object (&watch->secrets);
  g_free (watch);
}

gboolean
prs_api_token_watch_check (PrsApiTokenWatch *watch,
                           const char       *presented,
                           gsize             presented_len)
{
  dev_t dev;
  ino_t ino;
  gint64 mtime_ns;
  off_t size;

  g_return_val_if_fail (watch != NULL, FALSE);

  stat_stamp (watch->stamp_path, &dev, &ino, &mtime_ns, &size);
  if (dev != watch->dev || ino != watch->ino ||
      mtime_ns != watch->mtime_ns || size != watch->size)
    watch_reload (watch);

  return prs_api_token_equal (watch->token, presented, presented_len);
}
