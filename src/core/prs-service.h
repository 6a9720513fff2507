/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-service.h: the context object. It creates and holds every core
 * service (store, secrets, discovery, API server); the window and the
 * headless mode start the same one. It lives on the main thread (asserted
 * in debug builds); HACKING.md "Threads" says what crosses to the API
 * thread and how. */
#pragma once

#include <gio/gio.h>

#include "prs-conversation-list.h"
#include "prs-discovery.h"
#include "prs-mcp-hub.h"
#include "prs-n8n-client.h"
#include "prs-providers.h"
#include "prs-runner.h"
#include "prs-scheduler.h"
#include "prs-secrets.h"
#include "prs-settings.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_TYPE_SERVICE (prs_service_get_type ())
G_DECLARE_FINAL_TYPE (PrsService, prs_service, PRS, SERVICE, GObject)

/* @port 0 means the api-port setting (3100 by default). */
PrsService *prs_service_new          (const char  *data_dir,
                                      guint        port);
/* Before start: a local API that cannot start (its port taken) does not
 * stop the service; prs_service_get_api_error () says why. The window's
 * choice: Preferences then show it and let the port be changed. */
void        prs_service_set_api_optional (PrsService *self,
                                          gboolean    optional);
/* Before start: a window will show the conversation list, so it is read
 * while the API thread starts rather than when first asked for. */
void        prs_service_set_windowed (PrsService *self,
                                      gboolean    windowed);
/* Why the local API did not start, or NULL. */
const GError *prs_service_get_api_error  (PrsService *self);
/* A window paints on the main thread: the API thread's wake-ups no longer
 * preempt it (prs_api_server_give_way ()). */
void        prs_service_give_way_to_window (PrsService *self);
/* Before start, once: takes the data folder (its lock: one instance) and
 * opens its database. With @out_outdated, a database an older version
 * wrote is left closed and untouched (*@out_outdated TRUE): the caller
 * migrates it with prs_store_migrate_async (), showing how far it has
 * come, before start; without, it is migrated here (docs/storage.md
 * "Migrations"). */
gboolean    prs_service_open         (PrsService  *self,
                                      gboolean    *out_outdated,
                                      GError     **error);
/* Opens the store (prs_service_open () unless called), then starts
 * discovery's schedule and the API server. */
gboolean    prs_service_start        (PrsService  *self,
                                      GError     **error);
void        prs_service_stop         (PrsService  *self);

const char *prs_service_get_data_dir (PrsService  *self);
guint       prs_service_get_port     (PrsService  *self);
PrsStore   *prs_service_get_store    (PrsService  *self);
PrsSecrets *prs_service_get_secrets  (PrsService  *self);
PrsDiscovery *prs_service_get_discovery (PrsService *self);
/* The settings (never NULL, also before start); read them here, not from
 * GSettings. */
PrsSettings  *prs_service_get_settings  (PrsService *self);
/* The configured AI providers (NULL before start). */
PrsProviders *prs_service_get_providers (PrsService *self);
/* Agent runs (NULL before start): PrsRunner on the main thread. */
PrsRunner    *prs_service_get_runner    (PrsService *self);
/* Scheduled prompts (NULL before start). */
PrsScheduler *prs_service_get_scheduler (PrsService *self);
/* The MCP servers, connected, and their tools (NULL before start). */
PrsMcpHub    *prs_service_get_mcp_hub   (PrsService *self);
/* The conversations, newest first, kept current from the first call on
 * (NULL before start). */
PrsConversationList *prs_service_get_conversations (PrsService *self);
/* Stores a message made in the app (prs_store_insert_message ()), refreshes
 * the conversations and emits PrsService::message-added. */
gboolean    prs_service_add_message  (PrsService              *self,
                                      const PrsMessageInsert  *message,
                                      char                   **out_message_id,
                                      GError                 **error);

/* prs-service-conversations.c */
/* The deletions of @conversation_ids can no longer be undone: confirmed
 * now, purged in a worker thread. */
void        prs_service_finish_deletions (PrsService         *self,
                                          const char * const *conversation_ids);
/* Regenerate: the conversation's last reply is superseded (kept, folded)
 * and the person's last message answered again (a new reference to the
 * run). Refused while a run of the conversation is unfinished. */
PrsRun     *prs_service_regenerate       (PrsService  *self,
                                          const char  *conversation_id,
                                          GError     **error);
/* Edit and Resend: the person's last message and its answer are
 * superseded, @text is stored as a new message and answered. */
PrsRun     *prs_service_edit_and_resend  (PrsService  *self,
                                          const char  *conversation_id,
                                          const char  *text,
                                          GError     **error);

/* A client for the configured n8n (URL from the store, API key from the
 * keyring, read without waiting on it), or NULL: PRS_ERROR_NOT_CONFIGURED
 * with @not_configured when either is missing, or the keyring's error. */
void          prs_service_dup_n8n_client_async  (PrsService          *self,
                                                 const char          *not_configured,
                                                 GCancellable        *cancellable,
                                                 GAsyncReadyCallback  callback,
                                                 gpointer             user_data);
PrsN8nClient *prs_service_dup_n8n_client_finish (PrsService    *self,
                                                 GAsyncResult  *result,
                                                 GError       **error);
/* Whether the disk holding the data folder is full (the
 * PrsService:storage-full property). */
gboolean    prs_service_get_storage_full (PrsService *self);
/* Looks again now whether there is room (free space, then a small real
 * write); returns TRUE when saving works. */
gboolean    prs_service_check_storage    (PrsService *self);

G_END_DECLS
