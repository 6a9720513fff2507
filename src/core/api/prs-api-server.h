/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-server.h: the local HTTPS API (docs/api.md) on its own thread, with
 * its own GMainContext and SQLite connection (HACKING.md). Signals are emitted
 * on the main context of the thread that created the server. */
#pragma once

#include <gio/gio.h>

#include "prs-runner.h"
#include "prs-secrets.h"

G_BEGIN_DECLS

#define PRS_API_SERVER_DEFAULT_PORT 3100

#define PRS_TYPE_API_SERVER (prs_api_server_get_type ())
G_DECLARE_FINAL_TYPE (PrsApiServer, prs_api_server, PRS, API_SERVER, GObject)

PrsApiServer *prs_api_server_new   (const char    *data_dir,
                                    PrsSecrets    *secrets,
                                    guint          port);
/* Before start: LAN listening (GSettings `lan-listening`) binds 0.0.0.0 and
 * :: instead of 127.0.0.1 and ::1, and admits, besides loopback, only the
 * sources on @allowed_sources (`allowed-sources`: addresses or CIDR
 * networks; invalid entries are skipped with a message). Other peers are
 * closed at accept time, before TLS. Off by default. */
void          prs_api_server_set_lan (PrsApiServer       *self,
                                      gboolean            enabled,
                                      const char * const *allowed_sources);
/* The allowed-origins setting: Origin values a request may carry (any
 * other Origin gets 403). Before start, or while running: the change
 * applies from the next request on. */
void          prs_api_server_set_origins (PrsApiServer       *self,
                                          const char * const *origins);
/* Agent runs for the inference routes (before start). @runner and
 * @providers live on the main thread, where the server was made; the API
 * thread hands them work with g_main_context_invoke. @registry (thread-safe)
 * takes the tool results delivered to /api/ai/agentic-loop-result. */
void          prs_api_server_set_runner (PrsApiServer        *self,
                                         PrsRunner           *runner,
                                         PrsProviders        *providers,
                                         PrsCallbackRegistry *registry);
/* Starts the thread, which opens its store and certificate and binds, and
 * returns at once: the owner goes on with its own start meanwhile, then
 * calls prs_api_server_start () for the outcome. Optional. */
void          prs_api_server_launch (PrsApiServer  *self);
/* Starts the thread (unless launched); returns once both loopback
 * addresses are bound (or binding failed: PRS_ERROR_FAILED naming the port
 * when it is in use). The token is then read (made on a first run) by the
 * API thread, before it serves the first connection: the caller never
 * waits on the keyring. */
gboolean      prs_api_server_start  (PrsApiServer  *self,
                                     GError       **error);
/* A window paints on the owner's thread: from now on the API thread is
 * scheduled as a batch thread (SCHED_BATCH), so that requests flooding in
 * do not preempt a frame when both want the cores; its share of the cores
 * stays. For the thread's life and the next ones'. */
void          prs_api_server_give_way (PrsApiServer *self);
/* Closes every connection and joins the thread. Idempotent. */
void          prs_api_server_stop   (PrsApiServer  *self);

G_END_DECLS
