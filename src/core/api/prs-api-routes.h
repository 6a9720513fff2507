/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-routes.h: the handlers of docs/api.md endpoints. They run on the
 * API thread, with that thread's PrsStore. */
#pragma once

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "prs-rate-limit.h"
#include "prs-runner.h"
#include "prs-store.h"
#include "prs-thread.h"

G_BEGIN_DECLS

/* New conversations an API client may create through resolve: a burst of
 * 120, then 60 a minute. An n8n workflow names a handful of conversations
 * (a mailbox, a channel, one per customer or ticket), so even a first run
 * over a backlog stays far below, and a steady 60 a minute is 86,400 a
 * day; a runaway loop that names a new slug per call is stopped at a pace
 * the store and the sidebar take in their stride, with 429 and a
 * Retry-After. Resolving a slug that exists is never limited. */
#define PRS_API_NEW_CONVERSATIONS_BURST      120
#define PRS_API_NEW_CONVERSATIONS_PER_MINUTE 60

/* The routes' state belongs to the API thread (its owner, claimed when the
 * thread starts); prs_api_routes_handle () checks it in debug builds. */
typedef struct
{
  PrsThreadOwner owner;
  PrsStore *store;
  /* resolve's new conversations (PRS_API_NEW_CONVERSATIONS_*) */
  PrsRateLimit new_conversations;
  /* Called on the API thread; the server forwards it to the main context.
   * (An inference call's inbound message is stored and announced on the
   * main thread: prs_runner_add_inbound ().) */
  void    (*conversation_created) (gpointer    data,
                                   const char *conversation_id);
  gpointer  notify_data;

  /* Agent runs (always set: the server refuses to start without a
   * runner). The runner and the providers live on the main thread: only
   * their thread-safe
   * functions are called here; everything else goes through
   * @main_context with g_main_context_invoke and a GTask back. */
  PrsRunner           *runner;
  PrsProviders        *providers;
  PrsCallbackRegistry *registry;
  GMainContext        *main_context;
  guint                wait_seconds;      /* 110, or PROSPONSIVE_INFERENCE_WAIT_SECONDS */
  /* Set by a handler that paused its message: the server gives the
   * connection this many seconds more */
  guint                deferred_seconds;
} PrsApiRoutes;

#define PRS_API_INFERENCE_WAIT_SECONDS 110

void prs_api_routes_handle   (PrsApiRoutes       *routes,
                              SoupServerMessage  *msg,
                              const char         *path,
                              GHashTable         *query);

/* {"success": false, "error": @message, "code": @code} with @status */
void prs_api_respond_error   (SoupServerMessage  *msg,
                              guint               status,
                              const char         *code,
                              const char         *message);
/* Takes @node */
void prs_api_respond_json    (SoupServerMessage  *msg,
                              guint               status,
                              JsonNode           *node);
/* Takes @json, JSON text already written (prs_json_append and its kin) */
void prs_api_respond_text    (SoupServerMessage  *msg,
                              guint               status,
                              GString            *json);

G_END_DECLS
