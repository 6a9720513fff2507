/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-secrets.c: secrets in the keyring through libsecret, scoped to the data
 * folder. When no Secret Service answers (a server, a bare container), or
 * when PROSPONSIVE_SECRETS=file, they go to DATA_DIR/secrets.json, which is
 * only ever written 0600 and replaced atomically. Values are never logged.
 *
 * This half: the object, the fallback file, the values kept in memory and
 * the stamp that drops them, the hold on the keyring while the window draws
 * its first frame, and the synchronous calls. The asynchronous ones are in
 * prs-secrets-async.c. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include <string.h>
#include <sys/stat.h>
#include <json-glib/json-glib.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-paths.h"
#include "prs-secrets-private.h"
#include "prs-thread.h"

#define FALLBACK_FILE_NAME "secrets.json"
#define FALLBACK_MAX_SIZE  (1024 * 1024)
/* How often a synchronous call held back re-checks its cancellable */
#define HOLD_POLL_US       (100 * 1000)

const char prs_secrets_absent[] = "";

G_DEFINE_FINAL_TYPE (PrsSecrets, prs_secrets, G_TYPE_OBJECT)

/* One process may hold several PrsSecrets for the same folder (one per
 * thread): serialise the read-modify-write of the fallback file. */
static GMutex fallback_mutex;

/* The hold on the keyring (process-wide) */
static GMutex     hold_mutex;
static GCond      hold_cond;
static guint      hold_count;
static GPtrArray *held_tasks;    /* GTask*, each with its start function */
static gboolean   main_may_block = TRUE;

const SecretSchema *
_prs_secrets_schema (void)
{
  static const SecretSchema schema = {
    "org.prosponsive.App.Secret", SECRET_SCHEMA_NONE,
    {
      { "name", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "data-dir", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  };

  return &schema;
}

void
_prs_secrets_value_free (gpointer value)
{
  if (value == NULL || value == PRS_SECRETS_ABSENT)
    return;
  memset (value, 0, strlen (value));
  g_free (value);
}

void
prs_secrets_wipe (char **secret)
{
  g_return_if_fail (secret != NULL);

  if (*secret != NULL)
    memset (*secret, 0, strlen (*secret));
  g_clear_pointer (secret, g_free);
}

static void
prs_secrets_finalize (GObject *object)
{
  PrsSecrets *self = (PrsSecrets *) object;

  g_clear_pointer (&self->cache, g_hash_table_unref);
  g_mutex_clear (&self->lock);
  g_clear_pointer (&self->data_dir, g_free);
  g_clear_pointer (&self->fallback_path, g_free);
  g_clear_pointer (&self->stamp_path, g_free);

  G_OBJECT_CLASS (prs_secrets_parent_class)->finalize (object);
}

static void
prs_secrets_class_init (PrsSecretsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_secrets_finalize;
}

static void
prs_secrets_init (PrsSecrets *self)
{
  g_mutex_init (&self->lock);
  self->cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, _prs_secrets_value_free);
}

PrsSecrets *
prs_secrets_new (const char *data_dir)
{
  PrsSecrets *self;

  g_return_val_if_fail (data_dir != NULL, NULL);

  self = g_object_new (PRS_TYPE_SECRETS, NULL);
  self->data_dir = g_canonicalize_filename (data_dir, NULL);
  self->fallback_path = g_build_filename (self->data_dir, FALLBACK_FILE_NAME, NULL);
  self->stamp_path = g_build_filename (self->data_dir, PRS_SECRETS_STAMP_FILE, NULL);
  self->forced_file = g_strcmp0 (g_getenv ("PROSPONSIVE_SECRETS"), "file") == 0;

  if (self->forced_file)
    {
      g_atomic_int_set (&self->using_fallback, TRUE);
      g_debug ("PROSPONSIVE_SECRETS=file: secrets are kept in %s", self->fallback_path);
    }

  return self;
}

gboolean
prs_secrets_is_using_fallback (PrsSecrets *self)
{
  g_return_val_if_fail (PRS_IS_SECRETS (self), FALSE);

  return g_atomic_int_get (&self->using_fallback);
}

/* ---- The fallback file ---------------------------------------------------- */

/* The stored object, or an empty one when there is no file yet. */
static JsonObject *
fallback_read (PrsSecrets  *self,
               GError     **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  gsize length;

  /* Never through a link, never another user's file: whoever could put
   * one here would choose the token the API accepts */
  if (!prs_paths_read_file (self->fallback_path, FALLBACK_MAX_SIZE, &contents, &length, &local_error))
    {
      if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return json_object_new ();
      if (local_error->domain == PRS_ERROR)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }

      g_set_error (error, PRS_ERROR, PRS_ERROR_SECRETS,
                   _("Could not read the secrets file “%s”: %s"),
                   self->fallback_path, local_error->message);
      return NULL;
    }

  root = prs_json_parse_mutable (contents, length, PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      /* Deliberately no parser message: it could quote a secret. */
      g_set_error (error, PRS_ERROR, PRS_ERROR_SECRETS,
                   _("The secrets file “%s” is damaged (not a JSON object)"),
                   self->fallback_path);
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
}

gboolean
prs_secrets_check_file (PrsSecrets  *self,
                        GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonObject) object = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (self), FALSE);

  object = fallback_read (self, &local_error);
  /* A damaged file is said when a secret is read; a planted one stops here */
  if (object == NULL && g_error_matches (local_error, PRS_ERROR, PRS_ERROR_UNSAFE_PATH))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  return TRUE;
}

static gboolean
fallback_write (PrsSecrets  *self,
                JsonObject  *object,
                GError     **error)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GError) local_error = NULL;
  g_autofree char *contents = NULL;

  if (!prs_paths_ensure_data_dir (self->data_dir, error))
    return FALSE;

  json_node_set_object (root, object);
  contents = prs_json_to_string (root, TRUE);

  /* A temporary file created 0600, synced, then renamed over the old one. */
  if (!g_file_set_contents_full (self->fallback_path, contents, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                 0600, &local_error))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_SECRETS,
                   _("Could not write the secrets file “%s”: %s"),
                   self->fallback_path, local_error->message);
      return FALSE;
    }

  return TRUE;
}

gboolean
_prs_secrets_fallback_store (PrsSecrets  *self,
                             const char  *name,
                             const char  *value,
                             GError     **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&fallback_mutex);
  g_autoptr(JsonObject) object = fallback_read (self, error);

  if (object == NULL)
    return FALSE;

  json_object_set_string_member (object, name, value);
  return fallback_write (self, object, error);
}

char *
_prs_secrets_fallback_lookup (PrsSecrets  *self,
                              const char  *name,
                              GError     **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&fallback_mutex);
  g_autoptr(JsonObject) object = fallback_read (self, error);

  if (object == NULL)
    return NULL;

  return g_strdup (prs_json_object_get_string (object, name));
}

gboolean
_prs_secrets_fallback_clear (PrsSecrets  *self,
                             const char  *name,
                             GError     **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&fallback_mutex);
  g_autoptr(JsonObject) object = NULL;

  if (!g_file_test (self->fallback_path, G_FILE_TEST_EXISTS))
    return TRUE;

  object = fallback_read (self, error);
  if (object == NULL)
    return FALSE;
  if (!json_object_has_member (object, name))
    return TRUE;

  json_object_remove_member (object, name);
  return fallback_write (self, object, error);
}

/* ---- Kept in memory, dropped when anyone writes --------------------------- */

static void
stat_file (const char       *path,
           PrsSecretsFileId *id)
{
  struct stat st;

  memset (id, 0, sizeof *id);
  /* The name's own identity: a link is never followed in the data folder */
  if (lstat (path, &st) != 0)
    {
      id->size = -1;
      return;
    }
  id->dev = st.st_dev;
  id->ino = st.st_ino;
  id->mtime_ns = (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
  id->size = st.st_size;
}

static void
stat_stamp (PrsSecrets      *self,
            PrsSecretsStamp *stamp)
{
  stat_file (self->stamp_path, &stamp->stamp);
  stat_file (self->fallback_path, &stamp->fallback);
}

static gboolean
file_id_equal (const PrsSecretsFileId *a,
               const PrsSecretsFileId *b)
{
  return a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns && a->size == b->size;
}

static gboolean
stamp_equal (const PrsSecretsStamp *a,
             const PrsSecretsStamp *b)
{
  return file_id_equal (&a->stamp, &b->stamp) && file_id_equal (&a->fallback, &b->fallback);
}

/* Under the lock: drops what is kept when the stamp moved */
static void
validate_locked (PrsSecrets *self)
{
  PrsSecretsStamp now;

  stat_stamp (self, &now);
  if (!stamp_equal (&now, &self->stamp))
    {
      g_hash_table_remove_all (self->cache);
      self->stamp = now;
    }
}

gboolean
_prs_secrets_cache_get (PrsSecrets        *self,
                        const char        *name,
                        char             **out_value,
                        PrsSecretsTicket  *ticket)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);
  gpointer value;

  validate_locked (self);
  if (g_hash_table_lookup_extended (self->cache, name, NULL, &value))
    {
      *out_value = value != PRS_SECRETS_ABSENT ? g_strdup (value) : NULL;
      return TRUE;
    }
  ticket->stamp = self->stamp;
  ticket->generation = self->generation;
  return FALSE;
}

void
_prs_secrets_cache_put (PrsSecrets             *self,
                        const PrsSecretsTicket *ticket,
                        const char             *name,
                        const char             *value)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  validate_locked (self);
  if (!stamp_equal (&self->stamp, &ticket->stamp) || self->generation != ticket->generation)
    return;
  g_hash_table_insert (self->cache, g_strdup (name), value != NULL ? g_strdup (value) : PRS_SECRETS_ABSENT);
}

static void
bump_stamp (PrsSecrets *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = g_strdup_printf ("%" G_GINT64_FORMAT "\n", g_get_real_time ());

  /* A new file renamed over the old one: its identity changes even when
   * the mtime's granularity would hide two writes in a row */
  if (!g_file_set_contents_full (self->stamp_path, contents, -1, G_FILE_SET_CONTENTS_CONSISTENT,
                                 0600, &error))
    g_debug ("Could not mark the secrets as changed: %s", error->message);
}

void
_prs_secrets_written (PrsSecrets *self,
                      const char *name,
                      const char *value)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->lock);

  /* Someone else's change first, then ours */
  validate_locked (self);
  bump_stamp (self);
  stat_stamp (self, &self->stamp);
  self->generation++;
  g_hash_table_insert (self->cache, g_strdup (name), value != NULL ? g_strdup (value) : PRS_SECRETS_ABSENT);
}

/* ---- Keyring, and when to give up on it ----------------------------------- */

/* Errors that mean "there is no Secret Service to talk to" (no session bus,
 * nobody owns org.freedesktop.secrets, it does not answer), as opposed to
 * a cancellation or a refusal by a service that is there. */
static gboolean
is_no_service_error (const GError *error)
{
  if (error == NULL)
    return FALSE;
  if (error->domain == G_DBUS_ERROR)
    return TRUE;
  if (error->domain == G_IO_ERROR)
    return error->code != G_IO_ERROR_CANCELLED;
  if (error->domain == G_SPAWN_ERROR)
    return TRUE;
  return FALSE;
}

gboolean
_prs_secrets_switch_to_fallback (PrsSecrets  *self,
                                 GError     **error,
                                 GError      *keyring_error)
{
  if (g_error_matches (keyring_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_propagate_error (error, g_error_copy (keyring_error));
      return FALSE;
    }
  if (!is_no_service_error (keyring_error))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_SECRETS,
                   _("The keyring refused: %s"), keyring_error->message);
      return FALSE;
    }

  /* Said once, by whichever thread found out first */
  if (g_atomic_int_compare_and_exchange (&self->using_fallback, FALSE, TRUE))
    {
      g_debug ("Secret Service error: %s", keyring_error->message);
      g_message ("No Secret Service answered; secrets are kept in %s (readable only by you)",
                 self->fallback_path);
    }

  return TRUE;
}

gboolean
_prs_secrets_check_name (const char  *name,
                         GError     **error)
{
  if (name == NULL || name[0] == '\0')
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           "A secret needs a name");
      return FALSE;
    }

  return TRUE;
}

/* ---- The hold on the keyring ---------------------------------------------- */

void
prs_secrets_set_main_thread_may_block (gboolean may_block)
{
  g_atomic_int_set (&main_may_block, may_block);
}

void
prs_secrets_hold_keyring (void)
{
  g_mutex_lock (&hold_mutex);
  hold_count++;
  g_mutex_unlock (&hold_mutex);
}

void
prs_secrets_release_keyring (void)
{
  g_autoptr(GPtrArray) tasks = NULL;

  g_mutex_lock (&hold_mutex);
  g_return_if_fail (hold_count > 0);
  if (--hold_count == 0)
    {
      tasks = g_steal_pointer (&held_tasks);
      g_cond_broadcast (&hold_cond);
    }
  g_mutex_unlock (&hold_mutex);

  for (guint i = 0; tasks != NULL && i < tasks->len; i++)
    {
      GTask *task = g_ptr_array_index (tasks, i);
      GSourceFunc start = g_object_get_data (G_OBJECT (task), "prs-secrets-start");

      /* The task's own context: its thread's main loop runs the start */
      g_main_context_invoke_full (g_task_get_context (task), G_PRIORITY_DEFAULT, start,
                                  g_object_ref (task), g_object_unref);
    }
}

gboolean
_prs_secrets_queue_if_held (GTask       *task,
                            GSourceFunc  start)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&hold_mutex);

  if (hold_count == 0)
    return FALSE;
  if (held_tasks == NULL)
    held_tasks = g_ptr_array_new_with_free_func (g_object_unref);
  g_object_set_data (G_OBJECT (task), "prs-secrets-start", start);
  g_ptr_array_add (held_tasks, g_object_ref (task));
  return TRUE;
}

/* Before a synchronous call reaches the keyring: on another thread, wait
 * for the release; on the main thread, say that it blocks when the window
 * asked never to. FALSE when cancelled while waiting. */
static gboolean
wait_for_release (GCancellable  *cancellable,
                  GError       **error)
{
  if (PRS_IS_MAIN_THREAD ())
    {
      if (!g_atomic_int_get (&main_may_block))
        g_critical ("A blocking keyring call on the main thread: use the asynchronous calls of PrsSecrets");
      return TRUE;
    }

  g_mutex_lock (&hold_mutex);
  while (hold_count > 0 && !g_cancellable_is_cancelled (cancellable))
    g_cond_wait_until (&hold_cond, &hold_mutex, g_get_monotonic_time () + HOLD_POLL_US);
  g_mutex_unlock (&hold_mutex);
  return !g_cancellable_set_error_if_cancelled (cancellable, error);
}

/* ---- The synchronous calls ------------------------------------------------ */

gboolean
prs_secrets_store_sync (PrsSecrets    *self,
                        const char    *name,
                        const char    *label,
                        const char    *value,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *default_label = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (self), FALSE);
  g_return_val_if_fail (value != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!_prs_secrets_check_name (name, error))
    return FALSE;

  if (!g_atomic_int_get (&self->using_fallback))
    {
      if (!wait_for_release (cancellable, error))
        return FALSE;
      if (label == NULL)
        label = default_label = g_strdup_printf ("Prosponsive: %s", name);

      if (secret_password_store_sync (_prs_secrets_schema (), SECRET_COLLECTION_DEFAULT,
                                      label, value, cancellable, &local_error,
                                      "name", name,
                                      "data-dir", self->data_dir,
                                      NULL))
        {
          _prs_secrets_written (self, name, value);
          return TRUE;
        }

      if (!_prs_secrets_switch_to_fallback (self, error, local_error))
        return FALSE;
    }

  if (!_prs_secrets_fallback_store (self, name, value, error))
    return FALSE;
  _prs_secrets_written (self, name, value);
  return TRUE;
}

char *
prs_secrets_lookup_sync (PrsSecrets    *self,
                         const char    *name,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  PrsSecretsTicket ticket;
  char *value = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!_prs_secrets_check_name (name, error))
    return NULL;
  if (_prs_secrets_cache_get (self, name, &value, &ticket))
    return value;

  if (!g_atomic_int_get (&self->using_fallback))
    {
      char *found;

      if (!wait_for_release (cancellable, error))
        return NULL;
      found = secret_password_lookup_sync (_prs_secrets_schema (), cancellable, &local_error,
                                           "name", name,
                                           "data-dir", self->data_dir,
                                           NULL);
      if (local_error == NULL)
        {
          /* Hand out plain memory: callers free with g_free. */
          value = g_strdup (found);
          secret_password_free (found);
          _prs_secrets_cache_put (self, &ticket, name, value);
          return value;
        }

      if (!_prs_secrets_switch_to_fallback (self, error, local_error))
        return NULL;
    }

  value = _prs_secrets_fallback_lookup (self, name, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  _prs_secrets_cache_put (self, &ticket, name, value);
  return value;
}

gboolean
prs_secrets_clear_sync (PrsSecrets    *self,
                        const char    *name,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!_prs_secrets_check_name (name, error))
    return FALSE;

  if (!g_atomic_int_get (&self->using_fallback))
    {
      if (!wait_for_release (cancellable, error))
        return FALSE;
      /* FALSE without an error means there was nothing to clear. */
      secret_password_clear_sync (_prs_secrets_schema (), cancellable, &local_error,
                                  "name", name,
                                  "data-dir", self->data_dir,
                                  NULL);
      if (local_error == NULL)
        {
          _prs_secrets_written (self, name, NULL);
          return TRUE;
        }

      if (!_prs_secrets_switch_to_fallback (self, error, local_error))
        return FALSE;
    }

  if (!_prs_secrets_fallback_clear (self, name, error))
    return FALSE;
  _prs_secrets_written (self, name, NULL);
  return TRUE;
}
