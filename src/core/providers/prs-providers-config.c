/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-providers-config.c: adding, changing and removing AI providers
 * (docs/providers.md): the row in the store and the key in PrsSecrets, in
 * that order, so that a provider never exists without the key it was
 * given. The synchronous calls are prosponsive-ctl's; the window uses the
 * asynchronous ones, which never wait on the keyring. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-providers-private.h"

PrsProviderRow *
_prs_providers_lookup (PrsProviders  *self,
                       const char    *id_or_name,
                       GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  PrsProviderRow *row = prs_store_lookup_provider (self->store, id_or_name, &local_error);

  if (row == NULL)
    {
      if (local_error != NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      else
        g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND,
                     _("There is no AI provider named “%s”."), id_or_name);
    }
  return row;
}

static char *
key_label (const char *provider_name)
{
  /* Translators: the keyring item's label; %s is the provider's name. */
  return g_strdup_printf (_("Prosponsive: API key of the AI provider “%s”"), provider_name);
}

static gboolean
has_key (const char *api_key)
{
  return api_key != NULL && api_key[0] != '\0';
}

/* Validates everything, then stores the row: its id, and its clean name */
static char *
add_row (PrsProviders  *self,
         const char    *kind,
         const char    *name,
         const char    *base_url,
         const char    *model,
         int            priority,
         const char    *api_key,
         char         **out_name,
         GError       **error)
{
  g_autoptr(PrsProvider) check = NULL;
  g_autofree char *clean_name = NULL;
  PrsProviderRow row = { 0 };
  char *id = NULL;

  check = prs_provider_new (kind, base_url, model, api_key, error);
  if (check == NULL)
    return NULL;

  clean_name = g_strstrip (g_strdup (name != NULL ? name : ""));
  row.name = clean_name;
  row.kind = (char *) kind;
  row.base_url = base_url != NULL && base_url[0] != '\0' ? (char *) base_url : NULL;
  row.model = (char *) model;
  row.enabled = TRUE;
  row.priority = priority;
  if (!prs_store_add_provider (self->store, &row, &id, error))
    return NULL;
  *out_name = g_steal_pointer (&clean_name);
  return id;
}

gboolean
prs_providers_add (PrsProviders  *self,
                   const char    *kind,
                   const char    *name,
                   const char    *base_url,
                   const char    *model,
                   int            priority,
                   const char    *api_key,
                   char         **out_id,
                   GError       **error)
{
  g_autofree char *id = NULL;
  g_autofree char *clean_name = NULL;

  g_return_val_if_fail (PRS_IS_PROVIDERS (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  id = add_row (self, kind, name, base_url, model, priority, api_key, &clean_name, error);
  if (id == NULL)
    return FALSE;

  if (has_key (api_key))
    {
      g_autofree char *secret = _prs_providers_secret_name (id);
      g_autofree char *label = key_label (clean_name);

      if (!prs_secrets_store_sync (self->secrets, secret, label, api_key, NULL, error))
        {
          /* No provider without the key it was given. */
          prs_store_remove_provider (self->store, id, NULL);
          return FALSE;
        }
    }

  if (out_id != NULL)
    *out_id = g_steal_pointer (&id);
  return TRUE;
}

/* Validates and stores the row; its clean name */
static char *
update_row (PrsProviders          *self,
            const PrsProviderRow  *row,
            const char            *api_key,
            GError               **error)
{
  g_autoptr(PrsProvider) check = NULL;
  g_autofree char *clean_name = NULL;
  PrsProviderRow copy;

  /* The key is checked when a new one is given; the stored one was
   * checked when it was stored */
  check = prs_provider_new (row->kind, row->base_url, row->model, has_key (api_key) ? api_key : NULL, error);
  if (check == NULL)
    return NULL;

  copy = *row;
  clean_name = g_strstrip (g_strdup (row->name != NULL ? row->name : ""));
  copy.name = clean_name;
  if (copy.base_url != NULL && copy.base_url[0] == '\0')
    copy.base_url = NULL;
  if (!prs_store_update_provider (self->store, &copy, error))
    return NULL;
  /* Its last result described the old configuration. */
  g_hash_table_remove (self->states, row->id);
  return g_steal_pointer (&clean_name);
}

gboolean
prs_providers_update (PrsProviders          *self,
                      const PrsProviderRow  *row,
                      const char            *api_key,
                      GError               **error)
{
  g_autofree char *clean_name = NULL;

  g_return_val_if_fail (PRS_IS_PROVIDERS (self), FALSE);
  g_return_val_if_fail (row != NULL && row->id != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  clean_name = update_row (self, row, api_key, error);
  if (clean_name == NULL)
    return FALSE;

  if (has_key (api_key))
    {
      g_autofree char *secret = _prs_providers_secret_name (row->id);
      g_autofree char *label = key_label (clean_name);

      if (!prs_secrets_store_sync (self->secrets, secret, label, api_key, NULL, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
prs_providers_remove (PrsProviders  *self,
                      const char    *id_or_name,
                      GError       **error)
{
  g_autoptr(PrsProviderRow) row = NULL;
  g_autofree char *secret = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (PRS_IS_PROVIDERS (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((row = _prs_providers_lookup (self, id_or_name, error)) == NULL)
    return FALSE;
  if (!prs_store_remove_provider (self->store, row->id, error))
    return FALSE;

  secret = _prs_providers_secret_name (row->id);
  if (!prs_secrets_clear_sync (self->secrets, secret, NULL, &local_error))
    g_message ("Could not remove the key of the AI provider “%s”: %s", row->name, local_error->message);
  g_hash_table_remove (self->states, row->id);
  return TRUE;
}

gboolean
prs_providers_set_enabled (PrsProviders  *self,
                           const char    *id_or_name,
                           gboolean       enabled,
                           GError       **error)
{
  g_autoptr(PrsProviderRow) row = NULL;

  g_return_val_if_fail (PRS_IS_PROVIDERS (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if ((row = _prs_providers_lookup (self, id_or_name, error)) == NULL)
    return FALSE;
  row->enabled = enabled;
  return prs_store_update_provider (self->store, row, error);
}

/* ---- the same without waiting on the keyring ---- */

typedef struct
{
  char     *id;
  char     *name;
  gboolean  added;    /* the row is new: removed again when the key fails */
} KeyWrite;

static void
key_write_free (gpointer data)
{
  KeyWrite *write = data;

  g_free (write->id);
  g_free (write->name);
  g_free (write);
}

static void
on_key_written (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsProviders *self = g_task_get_source_object (task);
  KeyWrite *write = g_task_get_task_data (task);
  GError *error = NULL;
  gboolean ok;

  if (g_task_get_source_tag (task) == prs_providers_remove_async)
    {
      ok = prs_secrets_clear_finish (PRS_SECRETS (source), result, &error);
      if (!ok)
        {
          g_message ("Could not remove the key of the AI provider “%s”: %s", write->name, error->message);
          g_clear_error (&error);
        }
      g_task_return_pointer (task, g_strdup (write->id), g_free);
      return;
    }

  if (!prs_secrets_store_finish (PRS_SECRETS (source), result, &error))
    {
      /* No provider without the key it was given. */
      if (write->added)
        prs_store_remove_provider (self->store, write->id, NULL);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, g_strdup (write->id), g_free);
}

/* The row is stored: the key (when given) follows, then the task returns */
static void
write_key (GTask      *task,
           const char *api_key)
{
  PrsProviders *self = g_task_get_source_object (task);
  KeyWrite *write = g_task_get_task_data (task);
  g_autofree char *secret = _prs_providers_secret_name (write->id);
  g_autofree char *label = key_label (write->name);

  if (!has_key (api_key))
    {
      g_task_return_pointer (task, g_strdup (write->id), g_free);
      return;
    }
  prs_secrets_store_async (self->secrets, secret, label, api_key, g_task_get_cancellable (task),
                           on_key_written, g_object_ref (task));
}

void
prs_providers_add_async (PrsProviders        *self,
                         const char          *kind,
                         const char          *name,
                         const char          *base_url,
                         const char          *model,
                         int                  priority,
                         const char          *api_key,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  KeyWrite *write;

  g_return_if_fail (PRS_IS_PROVIDERS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_providers_add_async);
  write = g_new0 (KeyWrite, 1);
  write->added = TRUE;
  g_task_set_task_data (task, write, key_write_free);

  write->id = add_row (self, kind, name, base_url, model, priority, api_key, &write->name, &error);
  if (write->id == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  write_key (task, api_key);
}

void
prs_providers_update_async (PrsProviders          *self,
                            const PrsProviderRow  *row,
                            const char            *api_key,
                            GCancellable          *cancellable,
                            GAsyncReadyCallback    callback,
                            gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  KeyWrite *write;

  g_return_if_fail (PRS_IS_PROVIDERS (self));
  g_return_if_fail (row != NULL && row->id != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_providers_update_async);
  write = g_new0 (KeyWrite, 1);
  write->id = g_strdup (row->id);
  g_task_set_task_data (task, write, key_write_free);

  write->name = update_row (self, row, api_key, &error);
  if (write->name == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  write_key (task, api_key);
}

void
prs_providers_remove_async (PrsProviders        *self,
                            const char          *id_or_name,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(PrsProviderRow) row = NULL;
  g_autofree char *secret = NULL;
  GError *error = NULL;
  KeyWrite *write;

  g_return_if_fail (PRS_IS_PROVIDERS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_providers_remove_async);
  if ((row = _prs_providers_lookup (self, id_or_name, &error)) == NULL ||
      !prs_store_remove_provider (self->store, row->id, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  g_hash_table_remove (self->states, row->id);

  write = g_new0 (KeyWrite, 1);
  write->id = g_strdup (row->id);
  write->name = g_strdup (row->name);
  g_task_set_task_data (task, write, key_write_free);
  secret = _prs_providers_secret_name (row->id);
  prs_secrets_clear_async (self->secrets, secret, NULL, on_key_written, g_object_ref (task));
}

char *
prs_providers_write_finish (PrsProviders  *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
