/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-secrets-async.c: the asynchronous calls of PrsSecrets (prs-secrets.h).
 * The keyring is asked through libsecret's asynchronous calls, on the
 * caller's main loop; the fallback file, and the stamp a write bumps, are
 * read and written in a worker thread. Nothing here waits: a locked
 * keyring's prompt or a slow Secret Service costs the caller's main loop
 * nothing. */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-secrets-private.h"
#include "prs-thread.h"

typedef enum
{
  OP_LOOKUP,
  OP_STORE,
  OP_CLEAR,
} OpKind;

typedef struct
{
  OpKind           kind;
  char            *name;
  char            *label;
  char            *value;    /* OP_STORE's, or what OP_LOOKUP found */
  PrsSecretsTicket ticket;   /* OP_LOOKUP: what it saw when it began */
} Op;

static void
op_free (gpointer data)
{
  Op *op = data;

  g_free (op->name);
  g_free (op->label);
  _prs_secrets_value_free (op->value);
  g_free (op);
}

static GTask *
op_task_new (PrsSecrets          *self,
             OpKind               kind,
             const char          *name,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data,
             gpointer             source_tag)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  Op *op = g_new0 (Op, 1);

  g_task_set_source_tag (task, source_tag);
  g_task_set_name (task, "prs-secrets");
  op->kind = kind;
  op->name = g_strdup (name);
  g_task_set_task_data (task, op, op_free);
  return task;
}

/* ---- the fallback file, and what follows a write, in a worker thread ---- */

static void
file_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  PrsSecrets *self = source_object;
  Op *op = task_data;
  GError *error = NULL;
  char *value;

  switch (op->kind)
    {
    case OP_LOOKUP:
      value = _prs_secrets_fallback_lookup (self, op->name, &error);
      if (error != NULL)
        {
          g_task_return_error (task, error);
          return;
        }
      _prs_secrets_cache_put (self, &op->ticket, op->name, value);
      g_task_return_pointer (task, value, _prs_secrets_value_free);
      return;

    case OP_STORE:
      if (!_prs_secrets_fallback_store (self, op->name, op->value, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      break;

    case OP_CLEAR:
    default:
      if (!_prs_secrets_fallback_clear (self, op->name, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      break;
    }

  _prs_secrets_written (self, op->name, op->kind == OP_STORE ? op->value : NULL);
  g_task_return_boolean (task, TRUE);
}

/* The keyring stored or cleared: the stamp and memory, off the main loop */
static void
written_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  Op *op = task_data;

  _prs_secrets_written (source_object, op->name, op->kind == OP_STORE ? op->value : NULL);
  g_task_return_boolean (task, TRUE);
}

/* A keyring call failed: the file from now on, or the keyring's refusal */
static void
keyring_failed (GTask  *task,
                GError *keyring_error)
{
  PrsSecrets *self = g_task_get_source_object (task);
  GError *error = NULL;

  if (!_prs_secrets_switch_to_fallback (self, &error, keyring_error))
    {
      g_task_return_error (task, error);
      return;
    }
  prs_task_run_in_thread (task, file_thread);
}

/* ---- the keyring ---- */

static void
on_lookup (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsSecrets *self = g_task_get_source_object (task);
  Op *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  char *found = secret_password_lookup_finish (result, &error);
  char *value;

  if (error != NULL)
    {
      keyring_failed (task, error);
      return;
    }
  /* Plain memory for the caller (g_free) */
  value = g_strdup (found);
  secret_password_free (found);
  _prs_secrets_cache_put (self, &op->ticket, op->name, value);
  g_task_return_pointer (task, value, _prs_secrets_value_free);
}

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  Op *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (op->kind == OP_STORE)
    secret_password_store_finish (result, &error);
  else
    secret_password_clear_finish (result, &error);  /* FALSE without an error: nothing to clear */

  if (error != NULL)
    {
      keyring_failed (task, error);
      return;
    }
  prs_task_run_in_thread (task, written_thread);
}

static gboolean
start (gpointer data)
{
  GTask *task = data;
  PrsSecrets *self = g_task_get_source_object (task);
  Op *op = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (g_task_return_error_if_cancelled (task))
    return G_SOURCE_REMOVE;
  if (g_atomic_int_get (&self->using_fallback))
    {
      prs_task_run_in_thread (task, file_thread);
      return G_SOURCE_REMOVE;
    }

  switch (op->kind)
    {
    case OP_LOOKUP:
      secret_password_lookup (_prs_secrets_schema (), cancellable, on_lookup, g_object_ref (task),
                              "name", op->name, "data-dir", self->data_dir, NULL);
      break;
    case OP_STORE:
      secret_password_store (_prs_secrets_schema (), SECRET_COLLECTION_DEFAULT, op->label, op->value,
                             cancellable, on_written, g_object_ref (task),
                             "name", op->name, "data-dir", self->data_dir, NULL);
      break;
    case OP_CLEAR:
    default:
      secret_password_clear (_prs_secrets_schema (), cancellable, on_written, g_object_ref (task),
                             "name", op->name, "data-dir", self->data_dir, NULL);
      break;
    }
  return G_SOURCE_REMOVE;
}

/* Now, or at the release of the keyring when it is held */
static void
start_or_queue (GTask *task)
{
  if (!_prs_secrets_queue_if_held (task, start))
    start (task);
}

/* ---- the calls ---- */

void
prs_secrets_lookup_async (PrsSecrets          *self,
                          const char          *name,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  char *value = NULL;
  Op *op;

  g_return_if_fail (PRS_IS_SECRETS (self));

  task = op_task_new (self, OP_LOOKUP, name, cancellable, callback, user_data, prs_secrets_lookup_async);
  if (!_prs_secrets_check_name (name, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  op = g_task_get_task_data (task);
  if (_prs_secrets_cache_get (self, name, &value, &op->ticket))
    {
      g_task_return_pointer (task, value, _prs_secrets_value_free);
      return;
    }
  start_or_queue (task);
}

char *
prs_secrets_lookup_finish (PrsSecrets    *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

void
prs_secrets_store_async (PrsSecrets          *self,
                         const char          *name,
                         const char          *label,
                         const char          *value,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;
  Op *op;

  g_return_if_fail (PRS_IS_SECRETS (self));
  g_return_if_fail (value != NULL);

  task = op_task_new (self, OP_STORE, name, cancellable, callback, user_data, prs_secrets_store_async);
  if (!_prs_secrets_check_name (name, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  op = g_task_get_task_data (task);
  op->value = g_strdup (value);
  op->label = label != NULL ? g_strdup (label) : g_strdup_printf ("Prosponsive: %s", name);
  start_or_queue (task);
}

gboolean
prs_secrets_store_finish (PrsSecrets    *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
prs_secrets_clear_async (PrsSecrets          *self,
                         const char          *name,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  GError *error = NULL;

  g_return_if_fail (PRS_IS_SECRETS (self));

  task = op_task_new (self, OP_CLEAR, name, cancellable, callback, user_data, prs_secrets_clear_async);
  if (!_prs_secrets_check_name (name, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  start_or_queue (task);
}

gboolean
prs_secrets_clear_finish (PrsSecrets    *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
