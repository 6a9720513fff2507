/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-token.h: the local API's bearer token (docs/api.md): 256 random bits,
 * kept through PrsSecrets, compared in constant time. A rotation rewrites
 * DATA_DIR/api-token.stamp so a running server (another process, perhaps)
 * sees the new token from its next request on. */
#pragma once

#include <gio/gio.h>

#include "prs-secrets.h"

G_BEGIN_DECLS

#define PRS_API_TOKEN_STAMP_FILE "api-token.stamp"

/* Returns the token, making and storing one when there is none yet. */
gboolean  prs_api_token_ensure  (PrsSecrets  *secrets,
                                 const char  *data_dir,
                                 char       **out_token,
                                 GError     **error);
/* Replaces the token and bumps the stamp file; @new_token may be NULL. */
gboolean  prs_api_token_rotate  (PrsSecrets  *secrets,
                                 const char  *data_dir,
                                 char       **new_token,
                                 GError     **error);
/* The same for the window: the steps run in a worker thread, the keyring
 * never waited on by the caller's main loop. Both finish with
 * prs_api_token_finish (): the token. */
void      prs_api_token_ensure_async (PrsSecrets          *secrets,
                                      const char          *data_dir,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
void      prs_api_token_rotate_async (PrsSecrets          *secrets,
                                      const char          *data_dir,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
char     *prs_api_token_finish       (GAsyncResult        *result,
                                      GError             **error);
/* Constant-time comparison: the time taken depends only on @presented_len. */
gboolean  prs_api_token_equal   (const char  *expected,
                                 const char  *presented,
                                 gsize        presented_len);

/* The server's view of the token: reloaded when the stamp file changes. */
typedef struct _PrsApiTokenWatch PrsApiTokenWatch;

/* Makes the token when there is none; blocks on the keyring (the API
 * thread's), unless @cancellable is cancelled. */
PrsApiTokenWatch *prs_api_token_watch_new   (PrsSecrets        *secrets,
                                             const char        *data_dir,
                                             GCancellable      *cancellable,
                                             GError           **error);
void              prs_api_token_watch_free  (PrsApiTokenWatch  *watch);
/* Checks the stamp (one stat()), reloading if it changed, then compares. */
gboolean          prs_api_token_watch_check (PrsApiTokenWatch  *watch,
                                             const char        *presented,
                                             gsize              presented_len);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsApiTokenWatch, prs_api_token_watch_free)

G_END_DECLS
