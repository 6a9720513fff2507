/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-secrets.c: secrets in the keyring through libsecret, scoped to the data
 * folder. When no Secret Service answers (a server, a bare container), or
 * when PROSPONSIVE_SECRETS=file, they go to DATA_DIR/secrets.json, which is
 * only ever written 0600 and replaced atomically. Values are never logged. */
#include "config.h"

#include <json-glib/json-glib.h>
#include <libsecret/secret.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-paths.h"
#include "prs-secrets.h"

#define FALLBACK_FILE_NAME "secrets.json"
#define FALLBACK_MAX_SIZE  (1024 * 1024)

struct _PrsSecrets
{
  GObject   parent_instance;

  char     *data_dir;        /* absolute: it is a keyring attribute */
  char     *fallback_path;
  gboolean  forced_file;     /* PROSPONSIVE_SECRETS=file */
  /* Atomic: discovery reads the n8n key on a worker thread while the main
   * thread may use the same object. It only ever turns on. */
  gint      using_fallback;
};

G_DEFINE_FINAL_TYPE (PrsSecrets, prs_secrets, G_TYPE_OBJECT)

/* One process may hold several PrsSecrets for the same folder (one per
 * thread): serialise the read-modify-write of the fallback file. */
static GMutex fallback_mutex;

static const SecretSchema *
get_schema (void)
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

static void
prs_secrets_finalize (GObject *object)
{
  PrsSecrets *self = (PrsSecrets *) object;

  g_clear_pointer (&self->data_dir, g_free);
  g_clear_pointer (&self->fallback_path, g_free);

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
}

PrsSecrets *
prs_secrets_new (const char *data_dir)
{
  PrsSecrets *self;

  g_return_val_if_fail (data_dir != NULL, NULL);

  self = g_object_new (PRS_TYPE_SECRETS, NULL);
  self->data_dir = g_canonicalize_filename (data_dir, NULL);
  self->fallback_path = g_build_filename (self->data_dir, FALLBACK_FILE_NAME, NULL);
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
                   "Could not read the secrets file “%s”: %s",
                   self->fallback_path, local_error->message);
      return NULL;
    }

  root = prs_json_parse_mutable (contents, length, PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      /* Deliberately no parser message: it could quote a secret. */
      g_set_error (error, PRS_ERROR, PRS_ERROR_SECRETS,
                   "The secrets file “%s” is damaged (not a JSON object)",
                   self->fallback_path);
      return NULL;
    }

  return json_object_ref (json_node_get_object (root));
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
                   "Could not write the secrets file “%s”: %s",
                   self->fallback_path, local_error->message);
      return FALSE;
    }

  return TRUE;
}

static gboolean
fallback_store (PrsSecrets  *self,
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

static char *
fallback_lookup (PrsSecrets  *self,
                 const char  *name,
                 GError     **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&fallback_mutex);
  g_autoptr(JsonObject) object = fallback_read (self, error);

  if (object == NULL)
    return NULL;

  return g_strdup (prs_json_object_get_string (object, name));
}

static gboolean
fallback_clear (PrsSecrets  *self,
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

/* Decides, after a failed keyring call, whether to switch to the file. */
static gboolean
switch_to_fallback (PrsSecrets    *self,
                    GError       **error,
                    GError        *keyring_error)
{
  if (!is_no_service_error (keyring_error))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_SECRETS,
                   "The keyring refused: %s", keyring_error->message);
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

static gboolean
check_name (const char  *name,
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

  if (!check_name (name, error))
    return FALSE;

  if (!g_atomic_int_get (&self->using_fallback))
    {
      if (label == NULL)
        label = default_label = g_strdup_printf ("Prosponsive: %s", name);

      if (secret_password_store_sync (get_schema (), SECRET_COLLECTION_DEFAULT,
                                      label, value, cancellable, &local_error,
                                      "name", name,
                                      "data-dir", self->data_dir,
                                      NULL))
        return TRUE;

      if (!switch_to_fallback (self, error, local_error))
        return FALSE;
    }

  return fallback_store (self, name, value, error);
}

char *
prs_secrets_lookup_sync (PrsSecrets    *self,
                         const char    *name,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (PRS_IS_SECRETS (self), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_name (name, error))
    return NULL;

  if (!g_atomic_int_get (&self->using_fallback))
    {
      char *value = secret_password_lookup_sync (get_schema (), cancellable, &local_error,
                                                 "name", name,
                                                 "data-dir", self->data_dir,
                                                 NULL);
      if (local_error == NULL)
        {
          /* Hand out plain memory: callers free with g_free. */
          char *copy = g_strdup (value);

          secret_password_free (value);
          return copy;
        }

      if (!switch_to_fallback (self, error, local_error))
        return NULL;
    }

  return fallback_lookup (self, name, error);
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

  if (!check_name (name, error))
    return FALSE;

  if (!g_atomic_int_get (&self->using_fallback))
    {
      /* FALSE without an error means there was nothing to clear. */
      secret_password_clear_sync (get_schema (), cancellable, &local_error,
                                  "name", name,
                                  "data-dir", self->data_dir,
                                  NULL);
      if (local_error == NULL)
        return TRUE;

      if (!switch_to_fallback (self, error, local_error))
        return FALSE;
    }

  return fallback_clear (self, name, error);
}
