/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-providers.c: the configured AI providers, failover across them, and
 * the provider-info answer. See prs-providers.h for the failover decision.
 *
 * Rows come from the store at each call, so a provider added by
 * prosponsive-ctl is used at once; keys are looked up in PrsSecrets when a
 * provider object is made and kept only inside that object. A chat's
 * provider object is kept for the next chat (its session keeps the
 * connection) while its row and key stay the same. What each
 * provider did last (success, error, model list) is remembered in memory
 * for provider-info. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-error.h"
#include "prs-http-request.h"
#include "prs-provider-anthropic.h"
#include "prs-provider-gemini.h"
#include "prs-provider-ollama.h"
#include "prs-provider-openai.h"
#include "prs-providers-private.h"

G_DEFINE_FINAL_TYPE (PrsProviders, prs_providers, G_TYPE_OBJECT)

static void
provider_state_free (gpointer data)
{
  ProviderState *state = data;

  g_clear_error (&state->last_error);
  g_clear_pointer (&state->models, g_ptr_array_unref);
  g_free (state);
}

ProviderState *
_prs_providers_get_state (PrsProviders *self,
                          const char   *id)
{
  ProviderState *state = g_hash_table_lookup (self->states, id);

  if (state == NULL)
    {
      state = g_new0 (ProviderState, 1);
      g_hash_table_insert (self->states, g_strdup (id), state);
    }
  return state;
}

static void
record_result (PrsProviders *self,
               const char   *id,
               const GError *error)
{
  ProviderState *state = _prs_providers_get_state (self, id);

  /* A cancelled call says nothing about the provider. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  state->used = TRUE;
  g_clear_error (&state->last_error);
  if (error != NULL)
    state->last_error = g_error_copy (error);
}

static void
cached_provider_free (gpointer data)
{
  CachedProvider *cached = data;

  g_clear_object (&cached->provider);
  g_free (cached->kind);
  g_free (cached->base_url);
  g_free (cached->model);
  g_free (cached->key_digest);
  g_free (cached);
}

static void
prs_providers_finalize (GObject *object)
{
  PrsProviders *self = PRS_PROVIDERS (object);

  g_clear_object (&self->store);
  g_clear_object (&self->secrets);
  g_clear_pointer (&self->states, g_hash_table_unref);
  g_clear_pointer (&self->cached, g_hash_table_unref);

  G_OBJECT_CLASS (prs_providers_parent_class)->finalize (object);
}

static void
prs_providers_class_init (PrsProvidersClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = prs_providers_finalize;
}

static void
prs_providers_init (PrsProviders *self)
{
  self->timeout = PRS_PROVIDER_DEFAULT_TIMEOUT;
  self->states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, provider_state_free);
  self->cached = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, cached_provider_free);
}

PrsProviders *
prs_providers_new (PrsStore   *store,
                   PrsSecrets *secrets)
{
  PrsProviders *self;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  g_return_val_if_fail (PRS_IS_SECRETS (secrets), NULL);

  self = g_object_new (PRS_TYPE_PROVIDERS, NULL);
  self->store = g_object_ref (store);
  self->secrets = g_object_ref (secrets);
  return self;
}

void
prs_providers_set_timeout (PrsProviders *self,
                           guint         seconds)
{
  g_return_if_fail (PRS_IS_PROVIDERS (self));
  g_return_if_fail (seconds > 0);

  self->timeout = seconds;
}

char *
_prs_providers_secret_name (const char *id)
{
  return g_strconcat (PRS_SECRET_PROVIDER_KEY_PREFIX, id, NULL);
}

/* ---- Making one provider ------------------------------------------------ */

static void
strip_api_suffix (char       *url,
                  const char *suffix)
{
  gsize len = strlen (url);

  if (suffix != NULL && len > strlen (suffix) &&
      g_ascii_strcasecmp (url + len - strlen (suffix), suffix) == 0)
    url[len - strlen (suffix)] = '\0';
  while (url[0] != '\0' && url[strlen (url) - 1] == '/')
    url[strlen (url) - 1] = '\0';
}

PrsProvider *
prs_provider_new (const char  *kind,
                  const char  *base_url,
                  const char  *model,
                  const char  *api_key,
                  GError     **error)
{
  const char *default_url = prs_provider_kind_default_base_url (kind);
  g_autofree char *url = NULL;
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (default_url == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not a provider kind; use openai, ollama, anthropic or gemini."),
                   kind != NULL ? kind : "");
      return NULL;
    }

  url = g_strstrip (g_strdup (base_url != NULL && base_url[0] != '\0' ? base_url : default_url));
  while (url[0] != '\0' && url[strlen (url) - 1] == '/')
    url[strlen (url) - 1] = '\0';

  /* People paste the API root of the documentation; the paths add it. */
  strip_api_suffix (url, g_str_equal (kind, "anthropic") ? "/v1"
                         : g_str_equal (kind, "gemini") ? "/v1beta"
                         : g_str_equal (kind, "ollama") ? "/api" : NULL);

  uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, NULL);
  scheme = uri != NULL ? g_uri_get_scheme (uri) : NULL;
  if (uri == NULL || prs_http_has_control_chars (url) ||
      (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0' ||
      g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                   _("“%s” is not a usable base URL: give an http:// or https:// address "
                     "without a query, for example %s."), url, default_url);
      return NULL;
    }
  if (g_uri_get_userinfo (uri) != NULL)
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The base URL must not contain a user name or password; "
                             "give the API key separately."));
      return NULL;
    }

  if (api_key != NULL && prs_http_has_control_chars (api_key))
    {
      g_set_error_literal (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT,
                           _("The API key contains line breaks or control characters. "
                             "Paste it again as a single line."));
      return NULL;
    }

  if (g_str_equal (kind, "openai"))
    return prs_provider_openai_new (url, model, api_key);
  if (g_str_equal (kind, "ollama"))
    return prs_provider_ollama_new (url, model, api_key);
  if (g_str_equal (kind, "anthropic"))
    return prs_provider_anthropic_new (url, model, api_key);
  return prs_provider_gemini_new (url, model, api_key);
}

char *
prs_providers_dup_key (PrsProviders *self,
                       const char   *provider_id)
{
  g_autofree char *secret = NULL;
  g_autoptr(GError) error = NULL;
  char *key;

  g_return_val_if_fail (PRS_IS_PROVIDERS (self), NULL);
  g_return_val_if_fail (provider_id != NULL, NULL);

  secret = _prs_providers_secret_name (provider_id);
  key = prs_secrets_lookup_sync (self->secrets, secret, NULL, &error);
  if (error != NULL)
    g_debug ("Could not read the key of the AI provider %s: %s", provider_id, error->message);
  return key;
}

void
prs_providers_dup_key_async (PrsProviders        *self,
                             const char          *provider_id,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autofree char *secret = NULL;

  g_return_if_fail (PRS_IS_PROVIDERS (self));
  g_return_if_fail (provider_id != NULL);

  secret = _prs_providers_secret_name (provider_id);
  prs_secrets_lookup_async (self->secrets, secret, cancellable, callback, user_data);
}

char *
prs_providers_dup_key_finish (PrsProviders  *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (PRS_IS_PROVIDERS (self), NULL);

  return prs_secrets_lookup_finish (self->secrets, result, error);
}

/* The provider object for @row with @key (zeroed here; NULL: none stored) */
static PrsProvider *
create_with_key (PrsProviders          *self,
                 const PrsProviderRow  *row,
                 char                  *key,
                 GError               **error)
{
  PrsProvider *provider;

  if (key == NULL && prs_provider_kind_needs_key (row->kind))
    {
      /* The command is one to paste: the name quoted for a shell when it
       * needs it ("LM Studio"). `provider add` would refuse the name as
       * taken, so the advice is set-key (docs/providers.md "Configuring"). */
      g_autofree char *arg = strspn (row->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                "0123456789._-") == strlen (row->name)
                             ? g_strdup (row->name) : g_shell_quote (row->name);

      g_set_error (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED,
                   _("No API key is stored for the AI provider “%s”. Add it in Preferences, "
                     "or with “prosponsive-ctl provider set-key %s”, which reads the key from "
                     "standard input."),
                   row->name, arg);
      return NULL;
    }

  provider = prs_provider_new (row->kind, row->base_url, row->model, key, error);
  if (key != NULL)
    memset (key, 0, strlen (key));
  if (provider != NULL)
    prs_provider_set_timeout (provider, self->timeout);
  return provider;
}

PrsProvider *
prs_providers_create (PrsProviders          *self,
                      const PrsProviderRow  *row,
                      GError               **error)
{
  g_autofree char *key = NULL;

  g_return_val_if_fail (PRS_IS_PROVIDERS (self), NULL);
  g_return_val_if_fail (row != NULL, NULL);

  key = prs_providers_dup_key (self, row->id);
  return create_with_key (self, row, key, error);
}

static PrsProviderRow *
row_copy (const PrsProviderRow *row)
{
  PrsProviderRow *copy = g_new0 (PrsProviderRow, 1);

  *copy = *row;
  copy->id = g_strdup (row->id);
  copy->name = g_strdup (row->name);
  copy->kind = g_strdup (row->kind);
  copy->base_url = g_strdup (row->base_url);
  copy->model = g_strdup (row->model);
  copy->created_at = g_strdup (row->created_at);
  return copy;
}

static void
on_create_key (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsProviders *self = g_task_get_source_object (task);
  PrsProviderRow *row = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autofree char *key = prs_secrets_lookup_finish (PRS_SECRETS (source), result, &error);
  PrsProvider *provider;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* An unreadable keyring is as good as no key: the provider says so */
  if (error != NULL)
    g_debug ("Could not read the key of the AI provider %s: %s", row->id, error->message);
  g_clear_error (&error);
  provider = create_with_key (self, row, key, &error);
  if (provider == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, provider, g_object_unref);
}

void
prs_providers_create_async (PrsProviders          *self,
                            const PrsProviderRow  *row,
                            GCancellable          *cancellable,
                            GAsyncReadyCallback    callback,
                            gpointer               user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autofree char *secret = NULL;

  g_return_if_fail (PRS_IS_PROVIDERS (self));
  g_return_if_fail (row != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_providers_create_async);
  g_task_set_task_data (task, row_copy (row), (GDestroyNotify) prs_provider_row_free);
  secret = _prs_providers_secret_name (row->id);
  prs_secrets_lookup_async (self->secrets, secret, cancellable, on_create_key, g_steal_pointer (&task));
}

PrsProvider *
prs_providers_create_finish (PrsProviders  *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- Failover ----------------------------------------------------------- */

static void
attempt_free (gpointer data)
{
  PrsProviderAttempt *attempt = data;

  g_free (attempt->provider_id);
  g_free (attempt->provider_name);
  g_free (attempt->model);
  g_clear_error (&attempt->error);
  g_free (attempt);
}

typedef struct
{
  PrsChatRequest   *request;
  GPtrArray        *rows;       /* the enabled PrsProviderRow*, in order */
  guint             next;
  PrsProviderRow   *current;    /* borrowed from rows */
  GPtrArray        *attempts;   /* PrsProviderAttempt* */
  gint64            current_started_us;
  gint64            current_first_text_us;

  PrsChatDeltaFunc  delta_func;
  gpointer          delta_data;
  GDestroyNotify    delta_destroy;
} ChatData;

static void
chat_data_free (gpointer data)
{
  ChatData *chat = data;

  g_clear_pointer (&chat->request, prs_chat_request_unref);
  g_clear_pointer (&chat->rows, g_ptr_array_unref);
  g_clear_pointer (&chat->attempts, g_ptr_array_unref);
  if (chat->delta_destroy != NULL)
    chat->delta_destroy (chat->delta_data);
  g_free (chat);
}

static gboolean
should_fail_over (const GError *error)
{
  if (error->domain != PRS_ERROR)
    return FALSE;

  switch (error->code)
    {
    case PRS_ERROR_PROVIDER_AUTH:
    case PRS_ERROR_PROVIDER_RATE_LIMITED:
    case PRS_ERROR_PROVIDER_SERVER:
    case PRS_ERROR_PROVIDER_UNREACHABLE:
    case PRS_ERROR_PROVIDER_UNKNOWN_MODEL:
    case PRS_ERROR_PROVIDER_BAD_RESPONSE:
    case PRS_ERROR_NOT_CONFIGURED:
    case PRS_ERROR_INVALID_INPUT:
      return TRUE;
    default:
      return FALSE;
    }
}

static void
add_attempt (ChatData     *chat,
             GError       *error,
             guint         retry_after)
{
  PrsProviderAttempt *attempt = g_new0 (PrsProviderAttempt, 1);

  attempt->provider_id = g_strdup (chat->current->id);
  attempt->provider_name = g_strdup (chat->current->name);
  attempt->model = g_strdup (chat->current->model);
  attempt->error = error;
  attempt->retry_after = retry_after;
  attempt->finished_us = g_get_monotonic_time ();
  attempt->started_us = chat->current_started_us != 0 ? chat->current_started_us : attempt->finished_us;
  attempt->first_text_us = chat->current_first_text_us;
  g_ptr_array_add (chat->attempts, attempt);
}

/* The last error, its message naming every provider tried. */
static GError *
all_failed_error (ChatData *chat)
{
  PrsProviderAttempt *last = g_ptr_array_index (chat->attempts, chat->attempts->len - 1);
  GString *message;

  if (chat->attempts->len == 1)
    return g_error_new (last->error->domain, last->error->code, "%s: %s",
                        last->provider_name, last->error->message);

  message = g_string_new (_("No AI provider could answer."));
  for (guint i = 0; i < chat->attempts->len; i++)
    {
      PrsProviderAttempt *attempt = g_ptr_array_index (chat->attempts, i);

      g_string_append_printf (message, " %s: %s", attempt->provider_name, attempt->error->message);
    }
  {
    GError *error = g_error_new_literal (last->error->domain, last->error->code, message->str);

    g_string_free (message, TRUE);
    return error;
  }
}

static void try_next (GTask *task);

static void
forward_delta (const char *text,
               gpointer    user_data)
{
  ChatData *chat = user_data;

  if (chat->current_first_text_us == 0)
    chat->current_first_text_us = g_get_monotonic_time ();
  if (chat->delta_func != NULL)
    chat->delta_func (text, chat->delta_data);
}

static void
on_provider_chat (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsProviders *self = g_task_get_source_object (task);
  ChatData *chat = g_task_get_task_data (task);
  GError *error = NULL;
  PrsChatResponse *response;

  response = prs_provider_chat_finish (PRS_PROVIDER (source), result, &error);
  record_result (self, chat->current->id, error);

  if (response != NULL)
    {
      add_attempt (chat, NULL, 0);
      response->provider_id = g_strdup (chat->current->id);
      response->provider_name = g_strdup (chat->current->name);
      g_task_return_pointer (task, response, (GDestroyNotify) prs_chat_response_free);
      return;
    }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      return;
    }

  add_attempt (chat, error, prs_provider_get_retry_after (result));
  g_debug ("AI provider “%s” failed: %s", chat->current->name, error->message);

  if (!should_fail_over (error) || prs_provider_get_streamed_text (result))
    {
      g_task_return_new_error (task, error->domain, error->code, "%s: %s",
                               chat->current->name, error->message);
      return;
    }

  try_next (g_steal_pointer (&task));
}

static gboolean
cached_matches (const CachedProvider *cached,
                const PrsProviderRow *row,
                const char           *key_digest,
                guint                 timeout)
{
  return g_strcmp0 (cached->kind, row->kind) == 0 && g_strcmp0 (cached->base_url, row->base_url) == 0 &&
         g_strcmp0 (cached->model, row->model) == 0 && g_strcmp0 (cached->key_digest, key_digest) == 0 &&
         cached->timeout == timeout;
}

/* The provider that answers a chat for @row with @key (zeroed here): the
 * one the last chat used while nothing it was made from changed, so that
 * its session's connection to the provider stays open between calls. A key
 * changed in the keyring or Preferences arrives here as another key (the
 * keyring's values are re-read when they change: prs-secrets.c) and makes a
 * new provider; only the key's digest is kept beside it. */
static PrsProvider *
chat_provider (PrsProviders          *self,
               const PrsProviderRow  *row,
               char                  *key,
               GError               **error)
{
  g_autofree char *digest = key != NULL ? g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1) : NULL;
  CachedProvider *cached = g_hash_table_lookup (self->cached, row->id);
  PrsProvider *provider;

  if (cached != NULL && cached_matches (cached, row, digest, self->timeout))
    {
      if (key != NULL)
        memset (key, 0, strlen (key));
      return g_object_ref (cached->provider);
    }

  g_hash_table_remove (self->cached, row->id);
  provider = create_with_key (self, row, key, error);
  if (provider == NULL)
    return NULL;

  cached = g_new0 (CachedProvider, 1);
  cached->provider = g_object_ref (provider);
  cached->kind = g_strdup (row->kind);
  cached->base_url = g_strdup (row->base_url);
  cached->model = g_strdup (row->model);
  cached->key_digest = g_steal_pointer (&digest);
  cached->timeout = self->timeout;
  g_hash_table_insert (self->cached, g_strdup (row->id), cached);
  return provider;
}

static void
on_chat_key (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  GTask *task = user_data;
  PrsProviders *self = g_task_get_source_object (task);
  ChatData *chat = g_task_get_task_data (task);
  g_autoptr(PrsProvider) provider = NULL;
  g_autofree char *key = NULL;
  GError *error = NULL;

  key = prs_secrets_lookup_finish (PRS_SECRETS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  /* An unreadable keyring is as good as no key: the provider says so */
  if (error != NULL)
    g_debug ("Could not read the key of the AI provider %s: %s", chat->current->id, error->message);
  g_clear_error (&error);

  provider = chat_provider (self, chat->current, key, &error);
  if (provider == NULL)
    {
      record_result (self, chat->current->id, error);
      add_attempt (chat, error, 0);
      try_next (task);
      return;
    }

  prs_provider_chat_async (provider, chat->request, forward_delta, chat, NULL,
                           g_task_get_cancellable (task), on_provider_chat, task);
}

/* The next enabled provider, its key read without waiting; or the end */
static void
try_next (GTask *task)
{
  PrsProviders *self = g_task_get_source_object (task);
  ChatData *chat = g_task_get_task_data (task);
  g_autofree char *secret = NULL;

  if (chat->next < chat->rows->len)
    {
      chat->current = g_ptr_array_index (chat->rows, chat->next++);
      chat->current_started_us = g_get_monotonic_time ();
      chat->current_first_text_us = 0;
      secret = _prs_providers_secret_name (chat->current->id);
      prs_secrets_lookup_async (self->secrets, secret, g_task_get_cancellable (task), on_chat_key, task);
      return;
    }

  if (chat->attempts->len == 0)
    g_task_return_new_error (task, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED,
                             _("No AI provider is configured and enabled. Add one in Preferences "
                               "or with “prosponsive-ctl provider add”."));
  else
    g_task_return_error (task, all_failed_error (chat));
  g_object_unref (task);
}

static gboolean
is_not_listed (gpointer key,
               gpointer value,
               gpointer user_data)
{
  GPtrArray *rows = user_data;

  for (guint i = 0; i < rows->len; i++)
    if (g_str_equal (((PrsProviderRow *) g_ptr_array_index (rows, i))->id, key))
      return FALSE;
  return TRUE;
}

void
prs_providers_chat_async (PrsProviders        *self,
                          PrsChatRequest      *request,
                          PrsChatDeltaFunc     delta_func,
                          gpointer             delta_data,
                          GDestroyNotify       delta_destroy,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autoptr(GError) error = NULL;
  ChatData *chat;

  g_return_if_fail (PRS_IS_PROVIDERS (self));
  g_return_if_fail (request != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_providers_chat_async);

  chat = g_new0 (ChatData, 1);
  chat->request = prs_chat_request_ref (request);
  chat->attempts = g_ptr_array_new_with_free_func (attempt_free);
  chat->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_provider_row_free);
  chat->delta_func = delta_func;
  chat->delta_data = delta_data;
  chat->delta_destroy = delta_destroy;
  g_task_set_task_data (task, chat, chat_data_free);

  rows = prs_store_list_providers (self->store, &error);
  if (rows == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  for (guint i = 0; i < rows->len; i++)
    {
      PrsProviderRow *row = g_ptr_array_index (rows, i);

      if (row->enabled)
        g_ptr_array_add (chat->rows, g_steal_pointer (&g_ptr_array_index (rows, i)));
    }
  /* A provider removed or switched off closes its connection */
  g_hash_table_foreach_remove (self->cached, is_not_listed, chat->rows);

  try_next (g_steal_pointer (&task));
}

guint
prs_providers_get_context_window (PrsProviders *self)
{
  g_autoptr(GPtrArray) rows = NULL;
  guint smallest = 0;

  g_return_val_if_fail (PRS_IS_PROVIDERS (self), PRS_PROVIDER_DEFAULT_CONTEXT);

  rows = prs_store_list_providers (self->store, NULL);
  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      PrsProviderRow *row = g_ptr_array_index (rows, i);
      guint tokens = prs_provider_kind_context_window (row->kind, row->model);

      if (row->enabled && (smallest == 0 || tokens < smallest))
        smallest = tokens;
    }
  return smallest != 0 ? smallest : PRS_PROVIDER_DEFAULT_CONTEXT;
}

PrsChatResponse *
prs_providers_chat_finish (PrsProviders  *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

GPtrArray *
prs_providers_get_attempts (GAsyncResult *result)
{
  ChatData *chat;

  g_return_val_if_fail (G_IS_TASK (result), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == prs_providers_chat_async, NULL);

  chat = g_task_get_task_data (G_TASK (result));
  return g_ptr_array_ref (chat->attempts);
}

/* ---- Model lists -------------------------------------------------------- */

typedef struct
{
  char *id;
} ModelsData;

static void
models_data_free (gpointer data)
{
  ModelsData *models = data;

  g_free (models->id);
  g_free (models);
}

static void
on_models (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PrsProviders *self = g_task_get_source_object (task);
  ModelsData *data = g_task_get_task_data (task);
  GError *error = NULL;
  GPtrArray *models;

  models = prs_provider_list_models_finish (PRS_PROVIDER (source), result, &error);
  record_result (self, data->id, error);
  if (models == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  g_clear_pointer (&_prs_providers_get_state (self, data->id)->models, g_ptr_array_unref);
  _prs_providers_get_state (self, data->id)->models = g_ptr_array_ref (models);
  g_task_return_pointer (task, models, (GDestroyNotify) g_ptr_array_unref);
}

static void
on_models_provider (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(PrsProvider) provider = NULL;
  GCancellable *cancellable = g_task_get_cancellable (task);
  GError *error = NULL;

  provider = prs_providers_create_finish (PRS_PROVIDERS (source), result, &error);
  if (provider == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  prs_provider_list_models_async (provider, cancellable, on_models, g_steal_pointer (&task));
}

void
prs_providers_list_models_async (PrsProviders        *self,
                                 const char          *id_or_name,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(PrsProviderRow) row = NULL;
  GError *error = NULL;
  ModelsData *data;

  g_return_if_fail (PRS_IS_PROVIDERS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_providers_list_models_async);

  if ((row = _prs_providers_lookup (self, id_or_name, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  data = g_new0 (ModelsData, 1);
  data->id = g_strdup (row->id);
  g_task_set_task_data (task, data, models_data_free);
  prs_providers_create_async (self, row, cancellable, on_models_provider, g_steal_pointer (&task));
}

GPtrArray *
prs_providers_list_models_finish (PrsProviders  *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- provider-info ------------------------------------------------------ */

static gboolean
has_model (GPtrArray  *models,
           const char *id)
{
  for (guint i = 0; models != NULL && i < models->len; i++)
    {
      PrsModelInfo *info = g_ptr_array_index (models, i);

      if (g_strcmp0 (info->id, id) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
add_model (JsonArray  *array,
           const char *id,
           const char *name,
           gboolean    available,
           gboolean    is_default)
{
  JsonObject *model = json_object_new ();

  json_object_set_string_member (model, "id", id);
  json_object_set_string_member (model, "name", name);
  json_object_set_boolean_member (model, "available", available);
  json_object_set_boolean_member (model, "isDefault", is_default);
  json_array_add_object_element (array, model);
}

static JsonObject *
provider_info (PrsProviders         *self,
               const PrsProviderRow *row,
               gboolean              has_key,
               const char          **out_status)
{
  JsonObject *object = json_object_new ();
  ProviderState *state = g_hash_table_lookup (self->states, row->id);
  const char *base_url = row->base_url != NULL ? row->base_url : prs_provider_kind_default_base_url (row->kind);
  g_autofree char *description = NULL;
  g_autofree char *message = NULL;
  const char *status;
  JsonArray *models = json_array_new ();

  if (!row->enabled)
    {
      status = "disabled";
      message = g_strdup (_("Disabled."));
    }
  else if (!has_key && prs_provider_kind_needs_key (row->kind))
    {
      status = "missing-key";
      message = g_strdup (_("No API key is stored for this provider."));
    }
  else if (state != NULL && state->last_error != NULL)
    {
      status = "error";
      message = g_strdup (state->last_error->message);
    }
  else if (state != NULL && state->used)
    {
      status = "ready";
      message = g_strdup (_("The last request worked."));
    }
  else
    {
      status = "unchecked";
      message = g_strdup (_("Not used yet."));
    }

  /* Translators: "OpenAI-compatible at https://api.openai.com/v1" */
  description = g_strdup_printf (_("%s at %s"), prs_provider_kind_get_label (row->kind), base_url);

  json_object_set_string_member (object, "id", row->id);
  json_object_set_string_member (object, "name", row->name);
  json_object_set_string_member (object, "kind", row->kind);
  json_object_set_string_member (object, "description", description);
  json_object_set_string_member (object, "status", status);
  json_object_set_string_member (object, "statusMessage", message);
  json_object_set_boolean_member (object, "isLocal", prs_provider_url_is_local (base_url));
  json_object_set_boolean_member (object, "enabled", row->enabled);
  json_object_set_int_member (object, "priority", row->priority);
  json_object_set_boolean_member (object, "hasKey", has_key);
  json_object_set_string_member (object, "selectedModel", row->model);

  /* The selected model first; it is available when the provider's list
   * has it, or — without a list — unless the provider is failing. */
  if (state != NULL && state->models != NULL)
    add_model (models, row->model, row->model, has_model (state->models, row->model), TRUE);
  else
    add_model (models, row->model, row->model, !g_str_equal (status, "error"), TRUE);
  for (guint i = 0; state != NULL && state->models != NULL && i < state->models->len; i++)
    {
      PrsModelInfo *info = g_ptr_array_index (state->models, i);

      if (!g_str_equal (info->id, row->model))
        add_model (models, info->id, info->name, TRUE, FALSE);
    }
  json_object_set_array_member (object, "models", models);

  *out_status = status;
  return object;
}

/* provider-info from @rows (NULL with @error: the store failed), @keys
 * saying which provider has a key */
static JsonNode *
build_info (PrsProviders *self,
            GPtrArray    *rows,
            GHashTable   *keys,
            GError       *error)
{
  g_autoptr(JsonObject) root = json_object_new ();
  JsonArray *available = json_array_new ();
  JsonObject *active = NULL;
  JsonObject *first_enabled = NULL;
  JsonNode *node;

  if (rows == NULL)
    {
      json_object_set_boolean_member (root, "success", FALSE);
      json_object_set_string_member (root, "error", error->message);
      json_object_set_string_member (root, "code", "store-error");
      json_array_unref (available);
    }
  else
    {
      for (guint i = 0; i < rows->len; i++)
        {
          PrsProviderRow *row = g_ptr_array_index (rows, i);
          const char *status = NULL;
          JsonObject *info = provider_info (self, row, g_hash_table_contains (keys, row->id), &status);

          if (!g_str_equal (status, "disabled"))
            {
              if (first_enabled == NULL)
                first_enabled = info;
              if (active == NULL && !g_str_equal (status, "error") && !g_str_equal (status, "missing-key"))
                active = info;
            }
          json_array_add_object_element (available, info);
        }
      if (active == NULL)
        active = first_enabled;

      json_object_set_boolean_member (root, "success", TRUE);
      if (active != NULL)
        json_object_set_object_member (root, "activeProvider", json_object_ref (active));
      else
        json_object_set_null_member (root, "activeProvider");
      json_object_set_array_member (root, "availableProviders", available);
    }

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_set_object (node, root);
  return node;
}

typedef struct
{
  GPtrArray  *rows;
  GHashTable *keys;     /* ids of the providers that have a key */
  guint       next;
} InfoData;

static void
info_data_free (gpointer data)
{
  InfoData *info = data;

  g_clear_pointer (&info->rows, g_ptr_array_unref);
  g_clear_pointer (&info->keys, g_hash_table_unref);
  g_free (info);
}

static void info_next (GTask *task);

static void
on_info_key (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  InfoData *info = g_task_get_task_data (task);
  PrsProviderRow *row = g_ptr_array_index (info->rows, info->next);
  g_autoptr(GError) error = NULL;
  g_autofree char *key = prs_secrets_lookup_finish (PRS_SECRETS (source), result, &error);

  if (key != NULL)
    {
      memset (key, 0, strlen (key));
      g_hash_table_add (info->keys, g_strdup (row->id));
    }
  info->next++;
  info_next (g_steal_pointer (&task));
}

/* Whether each provider has a key, one after the other, then the answer */
static void
info_next (GTask *task)
{
  PrsProviders *self = g_task_get_source_object (task);
  InfoData *info = g_task_get_task_data (task);

  if (info->next < info->rows->len)
    {
      PrsProviderRow *row = g_ptr_array_index (info->rows, info->next);
      g_autofree char *secret = _prs_providers_secret_name (row->id);

      prs_secrets_lookup_async (self->secrets, secret, g_task_get_cancellable (task), on_info_key, task);
      return;
    }
  g_task_return_pointer (task, build_info (self, info->rows, info->keys, NULL), (GDestroyNotify) json_node_unref);
  g_object_unref (task);
}

void
prs_providers_build_info_async (PrsProviders        *self,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task;
  g_autoptr(GError) error = NULL;
  InfoData *info;

  g_return_if_fail (PRS_IS_PROVIDERS (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, prs_providers_build_info_async);
  info = g_new0 (InfoData, 1);
  info->keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_task_set_task_data (task, info, info_data_free);

  info->rows = prs_store_list_providers (self->store, &error);
  if (info->rows == NULL)
    {
      g_task_return_pointer (task, build_info (self, NULL, info->keys, error), (GDestroyNotify) json_node_unref);
      g_object_unref (task);
      return;
    }
  info_next (task);
}

JsonNode *
prs_providers_build_info_finish (PrsProviders  *self,
                                 GAsyncResult  *result)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), NULL);
}
