/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call-registry.c: PrsCallbackRegistry, the tool calls waiting for
 * the result a "Respond Immediately" workflow posts back later,
 * each with the secret only its own webhook was told. Thread-safe: the API
 * thread delivers, the run's thread waits. */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-random.h"
#include "prs-secrets.h"
#include "prs-tool-call-private.h"
#include "prs-tool-call-registry.h"

typedef struct
{
  char     *secret;          /* what a delivery must present; NULL: none can */
  guint     wrong_secrets;
  gboolean  delivered;
  gboolean  success;
  JsonNode *result;
  char     *error;
  PrsToolCallStoredFunc stored_func;   /* the delivery waits for the result to be stored */
  gpointer  stored_data;

  GTask    *task;            /* the waiter, or NULL */
  GSource  *timeout_source;
  GSource  *cancel_source;
  guint     timeout;
  gint64    deadline_us;     /* when the first wait times out (0: no wait yet) */
} Entry;

/* A delivered result whose sender waits to hear that it is stored: what
 * makes the call wait again, as it did, when it could not be */
typedef struct
{
  PrsCallbackRegistry   *registry;
  char                  *tool_call_id;
  char                  *secret;
  guint                  wrong_secrets;
  guint                  timeout;
  gint64                 deadline_us;
  PrsToolCallStoredFunc  func;
  gpointer               data;
} Unconfirmed;

struct _PrsCallbackRegistry
{
  GObject     parent_instance;

  GMutex      lock;
  GHashTable *entries;       /* tool call id → Entry* */
};

G_DEFINE_FINAL_TYPE (PrsCallbackRegistry, prs_callback_registry, G_TYPE_OBJECT)

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  /* A delivered result no one took: its sender hears that it was not stored */
  prs_tool_call_tell_dropped (entry->stored_func, entry->stored_data);
  prs_tool_call_clear_source (&entry->timeout_source);
  prs_tool_call_clear_source (&entry->cancel_source);
  g_clear_object (&entry->task);
  g_clear_pointer (&entry->result, json_node_unref);
  g_free (entry->error);
  prs_secrets_wipe (&entry->secret);
  g_free (entry);
}

static void
prs_callback_registry_finalize (GObject *object)
{
  PrsCallbackRegistry *self = PRS_CALLBACK_REGISTRY (object);

  g_clear_pointer (&self->entries, g_hash_table_unref);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (prs_callback_registry_parent_class)->finalize (object);
}

static void
prs_callback_registry_class_init (PrsCallbackRegistryClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_callback_registry_finalize;
}

static void
prs_callback_registry_init (PrsCallbackRegistry *self)
{
  g_mutex_init (&self->lock);
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
}

PrsCallbackRegistry *
prs_callback_registry_new (void)
{
  return g_object_new (PRS_TYPE_CALLBACK_REGISTRY, NULL);
}

/* Called with the lock held. */
static Entry *
ensure_entry (PrsCallbackRegistry *self,
              const char          *tool_call_id)
{
  Entry *entry = g_hash_table_lookup (self->entries, tool_call_id);

  if (entry == NULL)
    {
      entry = g_new0 (Entry, 1);
      g_hash_table_insert (self->entries, g_strdup (tool_call_id), entry);
    }
  return entry;
}

void
prs_callback_registry_expect (PrsCallbackRegistry *self,
                              const char          *tool_call_id,
                              const char          *secret)
{
  Entry *entry;

  g_return_if_fail (PRS_IS_CALLBACK_REGISTRY (self));
  g_return_if_fail (tool_call_id != NULL);

  g_mutex_lock (&self->lock);
  entry = ensure_entry (self, tool_call_id);
  prs_secrets_wipe (&entry->secret);
  entry->secret = g_strdup (secret);
  entry->wrong_secrets = 0;
  g_mutex_unlock (&self->lock);
}

void
prs_callback_registry_forget (PrsCallbackRegistry *self,
                              const char          *tool_call_id)
{
  Entry *entry;

  g_return_if_fail (PRS_IS_CALLBACK_REGISTRY (self));
  g_return_if_fail (tool_call_id != NULL);

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->entries, tool_call_id);
  if (entry != NULL && entry->task == NULL)
    g_hash_table_remove (self->entries, tool_call_id);
  g_mutex_unlock (&self->lock);
}

gboolean
prs_callback_registry_is_expected (PrsCallbackRegistry *self,
                                   const char          *tool_call_id)
{
  gboolean found;

  g_return_val_if_fail (PRS_IS_CALLBACK_REGISTRY (self), FALSE);
  g_return_val_if_fail (tool_call_id != NULL, FALSE);

  g_mutex_lock (&self->lock);
  found = g_hash_table_contains (self->entries, tool_call_id);
  g_mutex_unlock (&self->lock);
  return found;
}

static PrsToolCallResult *
entry_to_result (Entry *entry)
{
  PrsToolCallResult *result;

  if (entry->success)
    result = prs_tool_call_result_new_success (entry->result);
  else
    result = prs_tool_call_result_new_failure (PRS_ERROR_FAILED,
                                               entry->error != NULL ? entry->error
                                               : "the workflow reported a failure without an error message");
  /* Whoever stores the result tells its sender */
  result->stored_func = g_steal_pointer (&entry->stored_func);
  result->stored_data = g_steal_pointer (&entry->stored_data);
  return result;
}

/* Removes the entry of @task's id if @task still waits on it, and returns
 * it (the caller frees it). Takes the lock. */
static Entry *
steal_waiting_entry (PrsCallbackRegistry *self,
                     GTask               *task)
{
  const char *id = g_task_get_task_data (task);
  g_autofree char *key = NULL;
  Entry *entry = NULL;

  g_mutex_lock (&self->lock);
  if (g_hash_table_lookup_extended (self->entries, id, (gpointer *) &key, (gpointer *) &entry) &&
      entry->task == task)
    g_hash_table_steal (self->entries, id);
  else
    {
      key = NULL;
      entry = NULL;
    }
  g_mutex_unlock (&self->lock);
  return entry;
}

static gboolean
on_wait_timeout (gpointer user_data)
{
  GTask *task = user_data;
  PrsCallbackRegistry *self = g_task_get_source_object (task);
  Entry *entry = steal_waiting_entry (self, task);
  PrsToolCallResult *res;

  if (entry == NULL)
    return G_SOURCE_REMOVE;

  res = prs_tool_call_result_new_failure_printf (PRS_ERROR_TIMEOUT,
                                                 _("the workflow did not post its result within %u s "
                                                 "(it was started, and may still be running)"), entry->timeout);
  entry_free (entry);
  g_task_return_pointer (task, res, (GDestroyNotify) prs_tool_call_result_free);
  return G_SOURCE_REMOVE;
}

static gboolean
on_wait_cancelled (GCancellable *cancellable,
                   gpointer      user_data)
{
  GTask *task = user_data;
  PrsCallbackRegistry *self = g_task_get_source_object (task);
  Entry *entry = steal_waiting_entry (self, task);

  if (entry == NULL)
    return G_SOURCE_REMOVE;

  entry_free (entry);
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "Waiting for the tool result was cancelled");
  return G_SOURCE_REMOVE;
}

void
prs_callback_registry_wait_async (PrsCallbackRegistry *self,
                                  const char          *tool_call_id,
                                  guint                timeout_seconds,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  Entry *entry;

  g_return_if_fail (PRS_IS_CALLBACK_REGISTRY (self));
  g_return_if_fail (tool_call_id != NULL);
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_callback_registry_wait_async);
  g_task_set_task_data (task, g_strdup (tool_call_id), g_free);
  /* Cancellation is reported by on_wait_cancelled, once. */
  g_task_set_check_cancellable (task, FALSE);

  g_mutex_lock (&self->lock);
  entry = ensure_entry (self, tool_call_id);

  if (entry->task != NULL)
    {
      g_mutex_unlock (&self->lock);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_EXISTS,
                               "Someone already waits for the result of tool call %s", tool_call_id);
      return;
    }

  if (entry->delivered)
    {
      PrsToolCallResult *res = entry_to_result (entry);

      g_hash_table_remove (self->entries, tool_call_id);
      g_mutex_unlock (&self->lock);
      g_task_return_pointer (task, res, (GDestroyNotify) prs_tool_call_result_free);
      return;
    }

  entry->task = g_object_ref (task);
  if (entry->deadline_us == 0)
    {
      entry->timeout = timeout_seconds > 0 ? timeout_seconds : PRS_CALLBACK_DEFAULT_TIMEOUT;
      entry->deadline_us = g_get_monotonic_time () + (gint64) entry->timeout * G_USEC_PER_SEC;
      entry->timeout_source = g_timeout_source_new_seconds (entry->timeout);
    }
  else
    {
      /* Waited for again after its result could not be stored: the
       * timeout still counts from the first wait */
      gint64 left_us = MAX (entry->deadline_us - g_get_monotonic_time (), 0);

      entry->timeout_source = g_timeout_source_new ((guint) MIN (left_us / 1000, G_MAXUINT));
    }
  g_source_set_callback (entry->timeout_source, on_wait_timeout, g_object_ref (task), g_object_unref);
  g_source_set_static_name (entry->timeout_source, "[prosponsive] tool callback timeout");
  g_source_attach (entry->timeout_source, g_task_get_context (task));

  if (cancellable != NULL)
    {
      entry->cancel_source = g_cancellable_source_new (cancellable);
      g_source_set_callback (entry->cancel_source, G_SOURCE_FUNC (on_wait_cancelled),
                             g_object_ref (task), g_object_unref);
      g_source_attach (entry->cancel_source, g_task_get_context (task));
    }
  g_mutex_unlock (&self->lock);
}

PrsToolCallResult *
prs_callback_registry_wait_finish (PrsCallbackRegistry *self,
                                   GAsyncResult        *result,
                                   GError             **error)
{
  g_return_val_if_fail (PRS_IS_CALLBACK_REGISTRY (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == prs_callback_registry_wait_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static Unconfirmed *
unconfirmed_new (PrsCallbackRegistry   *self,
                 const char            *tool_call_id,
                 Entry                 *entry,
                 PrsToolCallStoredFunc  func,
                 gpointer               data)
{
  Unconfirmed *unconfirmed = g_new0 (Unconfirmed, 1);

  unconfirmed->registry = g_object_ref (self);
  unconfirmed->tool_call_id = g_strdup (tool_call_id);
  unconfirmed->secret = g_strdup (entry->secret);
  unconfirmed->wrong_secrets = entry->wrong_secrets;
  unconfirmed->timeout = entry->timeout;
  unconfirmed->deadline_us = entry->deadline_us;
  unconfirmed->func = func;
  unconfirmed->data = data;
  return unconfirmed;
}

/* The result was stored, or the call ended without it: the sender hears
 * it. Else (prs_tool_call_result_waits_again ()) the call waits again
 * exactly as before — same secret, same count of wrong ones, its timeout
 * counted from the first wait — before the sender hears that nothing was
 * taken, so that its retry finds the call (docs/api.md) */
static void
on_unconfirmed_told (const GError *error,
                     guint64       commit,
                     gpointer      data)
{
  Unconfirmed *unconfirmed = data;
  PrsCallbackRegistry *self = unconfirmed->registry;

  if (prs_tool_call_result_waits_again (error))
    {
      Entry *entry;

      g_mutex_lock (&self->lock);
      entry = ensure_entry (self, unconfirmed->tool_call_id);
      if (entry->secret == NULL && !entry->delivered)
        {
          entry->secret = g_steal_pointer (&unconfirmed->secret);
          entry->wrong_secrets = unconfirmed->wrong_secrets;
          entry->timeout = unconfirmed->timeout;
          entry->deadline_us = unconfirmed->deadline_us;
        }
      g_mutex_unlock (&self->lock);
    }
  unconfirmed->func (error, commit, unconfirmed->data);

  prs_secrets_wipe (&unconfirmed->secret);
  g_free (unconfirmed->tool_call_id);
  g_object_unref (unconfirmed->registry);
  g_free (unconfirmed);
}

/* Called with the lock held: records the result and, when someone waits,
 * steals the entry and returns it for the caller to complete, unlocked. */
static Entry *
entry_settle (PrsCallbackRegistry *self,
              const char          *tool_call_id,
              Entry               *entry,
              gboolean             success,
              JsonNode            *result,
              const char          *error)
{
  g_autofree char *key = NULL;

  entry->delivered = TRUE;
  entry->success = success;
  entry->result = result != NULL ? json_node_ref (result) : NULL;
  entry->error = g_strdup (error);

  /* Without a waiter it is kept until someone waits */
  if (entry->task == NULL)
    return NULL;

  g_hash_table_steal_extended (self->entries, tool_call_id, (gpointer *) &key, NULL);
  return entry;
}

/* Called with the lock held. A wrong secret counts; the last allowed one
 * ends the call as failed, so a guesser never gets another try and the
 * person sees why the result never came. */
static PrsCallbackDelivery
check_secret (PrsCallbackRegistry  *self,
              const char           *tool_call_id,
              Entry                *entry,
              const char           *secret,
              Entry               **settled)
{
  if (secret == NULL || *secret == '\0')
    {
      /* Likely a workflow posting to a URL of its own: say so where its
       * author may look */
      g_message ("A result for tool call %s was refused: it came without the call's callback secret "
                 "(the workflow should post to prosponsive.callbackUrl as it received it)", tool_call_id);
      return PRS_CALLBACK_SECRET_MISSING;
    }
  if (prs_random_token_equal (entry->secret, secret, strlen (secret)))
    return PRS_CALLBACK_DELIVERED;

  entry->wrong_secrets++;
  g_message ("A result for tool call %s was refused: wrong callback secret (%u of %u)",
             tool_call_id, entry->wrong_secrets, PRS_CALLBACK_MAX_WRONG_SECRETS);
  if (entry->wrong_secrets < PRS_CALLBACK_MAX_WRONG_SECRETS)
    return PRS_CALLBACK_SECRET_WRONG;

  *settled = entry_settle (self, tool_call_id, entry, FALSE, NULL,
                           "the workflow's result was refused: " G_STRINGIFY (PRS_CALLBACK_MAX_WRONG_SECRETS)
                           " results for this call came with a wrong callback secret (a workflow must "
                           "post to prosponsive.callbackUrl exactly as its webhook received it)");
  return PRS_CALLBACK_LOCKED;
}

PrsCallbackDelivery
prs_callback_registry_deliver (PrsCallbackRegistry *self,
                               const char          *tool_call_id,
                               const char          *secret,
                               gboolean             success,
                               JsonNode            *result,
                               const char          *error,
                               guint               *wrong_left)
{
  return prs_callback_registry_deliver_stored (self, tool_call_id, secret, success, result, error, wrong_left,
                                               NULL, NULL);
}

PrsCallbackDelivery
prs_callback_registry_deliver_stored (PrsCallbackRegistry   *self,
                                      const char            *tool_call_id,
                                      const char            *secret,
                                      gboolean               success,
                                      JsonNode              *result,
                                      const char            *error,
                                      guint                 *wrong_left,
                                      PrsToolCallStoredFunc  stored_func,
                                      gpointer               stored_data)
{
  Entry *entry = NULL;
  Entry *settled = NULL;
  PrsCallbackDelivery outcome;
  g_autoptr(GTask) task = NULL;
  PrsToolCallResult *res;

  g_return_val_if_fail (PRS_IS_CALLBACK_REGISTRY (self), PRS_CALLBACK_UNKNOWN);

  if (wrong_left != NULL)
    *wrong_left = 0;
  if (tool_call_id == NULL)
    return PRS_CALLBACK_UNKNOWN;

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->entries, tool_call_id);
  if (entry == NULL || entry->delivered || entry->secret == NULL)
    {
      g_mutex_unlock (&self->lock);
      return PRS_CALLBACK_UNKNOWN;
    }

  outcome = check_secret (self, tool_call_id, entry, secret, &settled);
  if (wrong_left != NULL)
    *wrong_left = PRS_CALLBACK_MAX_WRONG_SECRETS - entry->wrong_secrets;
  if (outcome == PRS_CALLBACK_DELIVERED)
    {
      entry->stored_func = stored_func != NULL ? on_unconfirmed_told : NULL;
      entry->stored_data = stored_func != NULL ? unconfirmed_new (self, tool_call_id, entry, stored_func, stored_data)
                                               : NULL;
      settled = entry_settle (self, tool_call_id, entry, success, result, error);
    }
  if (settled != NULL)
    task = g_steal_pointer (&settled->task);
  g_mutex_unlock (&self->lock);

  if (settled == NULL)
    return outcome;

  /* g_source_destroy is thread-safe; a timeout or cancellation already
   * being dispatched finds the entry gone and does nothing. */
  res = entry_to_result (settled);
  entry_free (settled);
  /* From another thread, GTask completes in an idle source on the
   * waiter's context. */
  g_task_return_pointer (task, res, (GDestroyNotify) prs_tool_call_result_free);
  return outcome;
}
