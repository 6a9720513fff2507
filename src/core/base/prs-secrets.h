/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-secrets.h: secrets in the keyring (libsecret, schema
 * org.prosponsive.App.Secret). When no Secret Service answers, a 0600 file in
 * the data folder, with a warning. Secrets never go to SQLite, GSettings or
 * logs.
 *
 * A secret once read is kept in memory, and dropped as soon as any process
 * changes any secret of the data folder (every write bumps a stamp file
 * there, which each call looks at first): Prosponsive and prosponsive-ctl
 * share the folder. The window reads secrets with the _async calls, which
 * never wait on the keyring (a locked keyring prompts the person, a slow one
 * may take seconds). The _sync calls block until the keyring (or the file)
 * answered, unless the value is in memory: for prosponsive-ctl and for
 * threads of their own (the API thread, discovery's worker). Any thread may
 * call them. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Well-known secret names */
#define PRS_SECRET_N8N_API_KEY "n8n-api-key"
#define PRS_SECRET_API_TOKEN   "api-token"
/* The value of the n8n Header Auth that tool webhooks expect (docs/workflows.md) */
#define PRS_SECRET_WEBHOOK_AUTH "n8n-webhook-auth"
/* The key that deciding tool calls through the API needs (prs-api-control.h) */
#define PRS_SECRET_CONTROL_KEY  "control-key"

/* In the data folder: bumped by every write, so others drop what they kept */
#define PRS_SECRETS_STAMP_FILE "secrets.stamp"

#define PRS_TYPE_SECRETS (prs_secrets_get_type ())
G_DECLARE_FINAL_TYPE (PrsSecrets, prs_secrets, PRS, SECRETS, GObject)

/* Items are scoped to @data_dir (an attribute), so two data folders never
 * share secrets. PROSPONSIVE_SECRETS=file forces the fallback file. */
PrsSecrets *prs_secrets_new               (const char  *data_dir);
/* Whether the fallback file, when there is one, may be used: not a link,
 * not another user's (PRS_ERROR_UNSAFE_PATH naming it otherwise). A file
 * read and no keyring asked, so it can run before the first frame: a file
 * planted to choose the API token stops the start. */
gboolean    prs_secrets_check_file        (PrsSecrets  *self,
                                           GError     **error);

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

/* The same without waiting: the keyring through libsecret's asynchronous
 * calls, the fallback file in a worker thread, the callback on the caller's
 * thread-default main context. A lookup of a secret in memory answers from
 * there (still through the main loop). */
void        prs_secrets_lookup_async      (PrsSecrets          *self,
                                           const char          *name,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
/* NULL without an error when there is no such secret. */
char       *prs_secrets_lookup_finish     (PrsSecrets          *self,
                                           GAsyncResult        *result,
                                           GError             **error);
void        prs_secrets_store_async       (PrsSecrets          *self,
                                           const char          *name,
                                           const char          *label,
                                           const char          *value,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
gboolean    prs_secrets_store_finish      (PrsSecrets          *self,
                                           GAsyncResult        *result,
                                           GError             **error);
void        prs_secrets_clear_async       (PrsSecrets          *self,
                                           const char          *name,
                                           GCancellable        *cancellable,
                                           GAsyncReadyCallback  callback,
                                           gpointer             user_data);
gboolean    prs_secrets_clear_finish      (PrsSecrets          *self,
                                           GAsyncResult        *result,
                                           GError             **error);

/* Zeroes a secret's bytes, frees it and sets *@secret to NULL (NULL is
 * fine): a secret does not stay behind in freed memory. Any thread. */
void        prs_secrets_wipe              (char       **secret);

/* TRUE once the keyring failed and the fallback file is in use. */
gboolean    prs_secrets_is_using_fallback (PrsSecrets  *self);

/* Process-wide. While held, nothing reaches the keyring: asynchronous
 * calls wait (queued, the main loop running), synchronous ones on other
 * threads block until the release (or their cancellable). The window holds
 * it until its first frame is drawn, so that a keyring prompt shows over a
 * window that works. Calls nest. */
void        prs_secrets_hold_keyring      (void);
void        prs_secrets_release_keyring   (void);
/* Process-wide: FALSE makes a synchronous call on the main thread that
 * must ask the keyring (nothing in memory) a programming error (a
 * critical): the window sets it; prosponsive-ctl and the headless program
 * leave it TRUE. */
void        prs_secrets_set_main_thread_may_block (gboolean may_block);

G_END_DECLS
