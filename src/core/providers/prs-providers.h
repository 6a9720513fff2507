/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-providers.h: the configured AI providers (docs/providers.md): rows in the store,
 * keys in PrsSecrets ("provider-key:" + id), and a chat that runs on the
 * first enabled provider by priority and fails over to the next.
 *
 * Failover decision: a provider that cannot answer — unreachable, rate
 * limited, server error, and also a rejected key, an unknown model, a
 * missing key or an unreadable answer — is skipped for the next one; each
 * of these is a fault of that provider's state or configuration, and the
 * next provider may well answer. Not failed over: a request the provider
 * refused as such (PRS_ERROR_PROVIDER_REJECTED, e.g. too long — the next
 * would refuse it too), a cancelled call, and a call that already streamed
 * text to the caller (starting over elsewhere would show the answer twice;
 * the partial text stays with the caller). Every attempt is reported. */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-provider-kinds.h"
#include "prs-secrets.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_SECRET_PROVIDER_KEY_PREFIX "provider-key:"

/* Makes a provider of @kind. @base_url NULL or "" means the kind's default
 * (prs_provider_kind_default_base_url). Fails with PRS_ERROR_INVALID_INPUT
 * for an unknown kind or a URL that is not http(s). */
PrsProvider     *prs_provider_new               (const char           *kind,
                                                 const char           *base_url,
                                                 const char           *model,
                                                 const char           *api_key,
                                                 GError              **error);

typedef struct
{
  char   *provider_id;
  char   *provider_name;
  char   *model;        /* the provider's configured model */
  GError *error;        /* NULL for the attempt that answered */
  guint   retry_after;  /* seconds, for PRS_ERROR_PROVIDER_RATE_LIMITED */
  /* Monotonic times (g_get_monotonic_time ()) of the attempt's request,
   * its first piece of streamed text (0: none came) and its end */
  gint64  started_us;
  gint64  first_text_us;
  gint64  finished_us;
} PrsProviderAttempt;

#define PRS_TYPE_PROVIDERS (prs_providers_get_type ())
G_DECLARE_FINAL_TYPE (PrsProviders, prs_providers, PRS, PROVIDERS, GObject)

PrsProviders    *prs_providers_new            (PrsStore      *store,
                                               PrsSecrets    *secrets);

/* Connect and idle timeout of every provider made from now on. */
void             prs_providers_set_timeout    (PrsProviders  *self,
                                               guint          seconds);

/* Validates (kind, URL, key) and stores a provider; @api_key (may be NULL)
 * goes to the secrets. @priority < 0 puts it after the others. */
gboolean         prs_providers_add            (PrsProviders  *self,
                                               const char    *kind,
                                               const char    *name,
                                               const char    *base_url,
                                               const char    *model,
                                               int            priority,
                                               const char    *api_key,
                                               char         **out_id,
                                               GError       **error);
/* Stores name, kind, base URL, model, enabled and priority of row->id
 * (validated like prs_providers_add); @api_key NULL or "" keeps the stored
 * key. */
gboolean         prs_providers_update         (PrsProviders  *self,
                                               const PrsProviderRow *row,
                                               const char    *api_key,
                                               GError       **error);
/* By id or name; its key is cleared too. */
gboolean         prs_providers_remove         (PrsProviders  *self,
                                               const char    *id_or_name,
                                               GError       **error);
gboolean         prs_providers_set_enabled    (PrsProviders  *self,
                                               const char    *id_or_name,
                                               gboolean       enabled,
                                               GError       **error);
/* NULL when no key is stored (read synchronously: prosponsive-ctl's). */
char            *prs_providers_dup_key        (PrsProviders  *self,
                                               const char    *provider_id);
/* The same without waiting on the keyring (the window's); the callback's
 * source object is the keyring's PrsSecrets: finish with
 * prs_providers_dup_key_finish (). */
void             prs_providers_dup_key_async  (PrsProviders        *self,
                                               const char          *provider_id,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
char            *prs_providers_dup_key_finish (PrsProviders  *self,
                                               GAsyncResult  *result,
                                               GError       **error);
/* A ready provider object for @row, with its key (read synchronously:
 * prosponsive-ctl's). */
PrsProvider     *prs_providers_create         (PrsProviders  *self,
                                               const PrsProviderRow *row,
                                               GError       **error);
/* The same, the key read without waiting on the keyring. */
void             prs_providers_create_async   (PrsProviders          *self,
                                               const PrsProviderRow  *row,
                                               GCancellable          *cancellable,
                                               GAsyncReadyCallback    callback,
                                               gpointer               user_data);
PrsProvider     *prs_providers_create_finish  (PrsProviders  *self,
                                               GAsyncResult  *result,
                                               GError       **error);

/* prs_providers_add, _update and _remove for the window: the row is
 * stored at once, the key without waiting on the keyring (a new provider
 * whose key cannot be stored is removed again). Each finishes with
 * prs_providers_write_finish (): the provider's id. */
void             prs_providers_add_async      (PrsProviders        *self,
                                               const char          *kind,
                                               const char          *name,
                                               const char          *base_url,
                                               const char          *model,
                                               int                  priority,
                                               const char          *api_key,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
void             prs_providers_update_async   (PrsProviders          *self,
                                               const PrsProviderRow  *row,
                                               const char            *api_key,
                                               GCancellable          *cancellable,
                                               GAsyncReadyCallback    callback,
                                               gpointer               user_data);
void             prs_providers_remove_async   (PrsProviders        *self,
                                               const char          *id_or_name,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
char            *prs_providers_write_finish   (PrsProviders  *self,
                                               GAsyncResult  *result,
                                               GError       **error);

/* Runs @request on the enabled providers in priority order (see the
 * decision above). The response names the provider that answered
 * (provider_id, provider_name). With no enabled provider: PRS_ERROR_NOT_CONFIGURED;
 * when all fail: the last error, its message listing every attempt. */
/* The smallest context window (tokens) of the enabled providers' models: a
 * request that fits it fits whichever of them answers after a failover.
 * PRS_PROVIDER_DEFAULT_CONTEXT when none is enabled. */
guint            prs_providers_get_context_window (PrsProviders *self);
void             prs_providers_chat_async     (PrsProviders        *self,
                                               PrsChatRequest      *request,
                                               PrsChatDeltaFunc     delta_func,
                                               gpointer             delta_data,
                                               GDestroyNotify       delta_destroy,
                                               GCancellable        *cancellable,
                                               GAsyncReadyCallback  callback,
                                               gpointer             user_data);
PrsChatResponse *prs_providers_chat_finish    (PrsProviders  *self,
                                               GAsyncResult  *result,
                                               GError       **error);
/* PrsProviderAttempt* of a finished chat, in order (a new reference). */
GPtrArray       *prs_providers_get_attempts   (GAsyncResult  *result);

/* The model list of one provider (by id or name); remembered for
 * provider-info. */
void             prs_providers_list_models_async  (PrsProviders        *self,
                                                   const char          *id_or_name,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
GPtrArray       *prs_providers_list_models_finish (PrsProviders  *self,
                                                   GAsyncResult  *result,
                                                   GError       **error);

/* GET /api/ai/provider-info (docs/api.md): {success, activeProvider, availableProviders}.
 * Each provider: {id, name, kind, description, status, statusMessage,
 * isLocal, enabled, priority, hasKey, selectedModel, models:[{id, name,
 * available, isDefault}]}; status is "ready" (its last call worked),
 * "unchecked" (not used yet), "error" (its last call failed; the message
 * says why), "missing-key" or "disabled". The active provider is the first
 * enabled one not in error (else the first enabled one); null when none.
 * Never a key. */
void             prs_providers_build_info_async  (PrsProviders        *self,
                                                  GCancellable        *cancellable,
                                                  GAsyncReadyCallback  callback,
                                                  gpointer             user_data);
JsonNode        *prs_providers_build_info_finish (PrsProviders  *self,
                                                  GAsyncResult  *result);

G_END_DECLS
