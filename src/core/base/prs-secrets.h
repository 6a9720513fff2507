/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-secrets.h: secrets in the keyring (libsecret, schema
 * org.prosponsive.App.Secret). When no Secret Service answers, a 0600 file in
 * the data folder, with a warning. Secrets never go to SQLite, GSettings or
 * logs. Any thread may call these (discovery reads the n8n key on a worker
 * thread); each call blocks until the keyring (or the file) answered. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Well-known secret names */
#define PRS_SECRET_N8N_API_KEY "n8n-api-key"
#define PRS_SECRET_API_TOKEN   "api-token"
/* The value of the n8n Header Auth that tool webhooks expect (docs/workflows.md) */
#define PRS_SECRET_WEBHOOK_AUTH "n8n-webhook-auth"

#define PRS_TYPE_SECRETS (prs_secrets_get_type ())
G_DECLARE_FINAL_TYPE (PrsSecrets, prs_secrets, PRS, SECRETS, GObject)

/* Items are scoped to @data_dir (an attribute), so two data folders never
 * share secrets. PROSPONSIVE_SECRETS=file forces the fallback file. */
PrsSecrets *prs_secrets_new               (const char  *data_dir);

gboolean    prs_secrets_store_sync        (PrsSecrets  *self,
                                           const char  *name,
                                           const char  *label,
                                           const char  *value,
                                           GCancellable *cancellable,
                                           GError     **error);
/* Returns NULL without an error when there is no such secret. */
char       *prs_secrets_lookup_sync       (PrsSecrets  *self,
                                           const char  *name,
                                           GCancellable *cancellable,
                                           GError     **error);
gboolean    prs_secrets_clear_sync        (PrsSecrets  *self,
                                           const char  *name,
                                           GCancellable *cancellable,
                                           GError     **error);
/* TRUE once the keyring failed and the fallback file is in use. */
gboolean    prs_secrets_is_using_fallback (PrsSecrets  *self);

G_END_DECLS
