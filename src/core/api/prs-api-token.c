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
#include "prs-thread.h"

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

/* The API thread and the window may both make the first token at once:
 * one of them does, the other reads it */
static GMutex token_mutex;

static gboolean
rotate_locked (PrsSecrets    *secrets,
               const char    *data_dir,
               char         **new_token,
               GCancellable  *cancellable,
               GError       **error)
{
  g_autofree char *token = NULL;

  token = prs_random_token (error);
  if (token == NULL)
    return FALSE;

  /* The secret first, then the stamp: a server that sees the new stamp
   * always finds the new token. */
  if (!prs_secrets_store_sync (secrets, PRS_SECRET_API_TOKEN, TOKEN_LABEL,
                               token, cancellable, error))
    return FALSE;
  if (!bump_stamp (data_dir, error))
    return FALSE;

  if (new_token != NULL)
    *new_token = g_steal_pointer (&token);
  return TRUE;
}

static gboolean
ensure_full (PrsSecrets    *secrets,
             const char    *data_dir,
             char         **out_token,
             GCancellable  *cancellable,
             GError       **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&token_mutex);
  g_autofree char *token = NULL;
  GError *local_error = NULL;

  token = prs_secrets_lookup_sync (secrets, PRS_SECRET_API_TOKEN, cancellable, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }

  if (token == NULL || token[0] == '\0')
    return rotate_locked (secrets, data_dir, out_token, cancellable, error);

  if (out_token != NULL)
    *out_token = g_steal_pointer (&token);
  return TRUE;
}

gboolean
prs_api_token_ensure (PrsSecrets  *secrets,
                      const char  *data_dir,
                      char       **out_token,
                      GError     **error)
{
  g_return_val_if_fail (PRS_IS_SECRETS (secrets), FALSE);
  g_return_val_if_fail (data_dir != NULL, FALSE);

  return ensure_full (secrets, data_dir, out_token, NULL, error);
}

gboolean
prs_api_token_rotate (PrsSecrets  *secrets,
                      const char  *data_dir,
                      char       **new_token,
                      GError     **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&token_mutex);

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), FALSE);
  g_return_val_if_fail (data_dir != NULL, FALSE);

  return rotate_locked (secrets, data_dir, new_token, NULL, error);
}

/* ---- the same for the window ---- */

typedef struct
{
  char     *data_dir;
  gboolean  rotate;
} TokenJob;

static void
token_job_free (gpointer data)
{
  TokenJob *job = data;

  g_free (job->data_dir);
  g_free (job);
}

/* Making a token is several steps (read, make, store, stamp): they run
 * together in a worker thread, where waiting on the keyring costs no
 * frame */
static void
token_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  TokenJob *job = task_data;
  GError *error = NULL;
  char *token = NULL;
  gboolean ok;

  if (job->rotate)
    {
      g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&token_mutex);

      ok = rotate_locked (source_object, job->data_dir, &token, cancellable, &error);
    }
  else
    ok = ensure_full (source_object, job->data_dir, &token, cancellable, &error);

  if (!ok)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, token, g_free);
}

static void
token_async (PrsSecrets          *secrets,
             const char          *data_dir,
             gboolean             rotate,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (secrets, cancellable, callback, user_data);
  TokenJob *job = g_new0 (TokenJob, 1);

  g_task_set_source_tag (task, token_async);
  job->data_dir = g_strdup (data_dir);
  job->rotate = rotate;
  g_task_set_task_data (task, job, token_job_free);
  prs_task_run_in_thread (task, token_thread);
}

void
prs_api_token_ensure_async (PrsSecrets          *secrets,
                            const char          *data_dir,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (PRS_IS_SECRETS (secrets));
  g_return_if_fail (data_dir != NULL);

  token_async (secrets, data_dir, FALSE, cancellable, callback, user_data);
}

void
prs_api_token_rotate_async (PrsSecrets          *secrets,
                            const char          *data_dir,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_return_if_fail (PRS_IS_SECRETS (secrets));
  g_return_if_fail (data_dir != NULL);

  token_async (secrets, data_dir, TRUE, cancellable, callback, user_data);
}

char *
prs_api_token_finish (GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == token_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
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
prs_api_token_watch_new (PrsSecrets    *secrets,
                         const char    *data_dir,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(PrsApiTokenWatch) watch = g_new0 (PrsApiTokenWatch, 1);
  g_autofree char *token = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (secrets), NULL);

  watch->secrets = g_object_ref (secrets);
  watch->stamp_path = g_build_filename (data_dir, PRS_API_TOKEN_STAMP_FILE, NULL);

  if (!ensure_full (secrets, data_dir, &token, cancellable, error))
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
