/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-env.h: everything a run works with, handed to it when it is
 * made — the store, the providers, the keyring, what tool calls need (the
 * callback registry and the callback URL, the MCP servers) and the limits —
 * so that a run asks nobody for them. Immutable once made: a change of
 * settings makes a new one, and runs keep the one they started with (a run
 * resumed after a restart gets the current one). Main thread, like the
 * runs. */
#pragma once

#include "prs-mcp-hub.h"
#include "prs-providers.h"
#include "prs-secrets.h"
#include "prs-store.h"
#include "prs-tool-call.h"

G_BEGIN_DECLS

#define PRS_RUN_DEFAULT_MAX_ROUNDS   8
#define PRS_RUN_DEFAULT_MAX_REPEATS  3
#define PRS_RUN_DEFAULT_HISTORY      0

/* docs/providers.md, inference settings */
typedef struct
{
  guint  max_rounds;        /* rounds of tool calls before the run stops */
  guint  max_repeats;       /* the same call (name and arguments) this often stops the run */
  guint  history_depth;     /* at most this many earlier turns in a chat or inference run; 0: no cap */
  guint  context_tokens;    /* the model's context window; 0: the providers' (prs_providers_get_context_window) */
  guint  max_tokens;        /* 0: the provider's default */
  double temperature;       /* < 0: the provider's default */
  guint  tool_timeout;      /* seconds per webhook attempt; 0: PRS_TOOL_CALL_DEFAULT_TIMEOUT */
  guint  callback_timeout;  /* seconds a tool may take to call back; 0: PRS_CALLBACK_DEFAULT_TIMEOUT */
} PrsRunLimits;

/* The defaults. */
void       prs_run_limits_init          (PrsRunLimits              *limits);

typedef struct
{
  PrsStore            *store;
  PrsProviders        *providers;
  PrsSecrets          *secrets;       /* the webhooks' Header Auth value; may be NULL */
  PrsCallbackRegistry *registry;      /* where tools that answer later deliver */
  char                *callback_url;  /* sent to tools: https://127.0.0.1:PORT/api/ai/agentic-loop-result */
  PrsRunLimits         limits;        /* 0 rounds or repeats: the default */
  PrsMcpHub           *mcp_hub;       /* the MCP servers' tools; NULL: none are offered */
} PrsRunEnv;

/* Read the fields, never write them. @secrets and @callback_url may be NULL. */
PrsRunEnv *prs_run_env_new              (PrsStore                  *store,
                                         PrsProviders              *providers,
                                         PrsSecrets                *secrets,
                                         PrsCallbackRegistry       *registry,
                                         const char                *callback_url,
                                         const PrsRunLimits        *limits);
/* Gives @env the MCP servers: call it once, before any run uses @env.
 * Environments made from it with other limits keep them. */
void       prs_run_env_set_mcp_hub      (PrsRunEnv                 *env,
                                         PrsMcpHub                 *hub);
/* The same services with other limits. */
PrsRunEnv *prs_run_env_new_with_limits  (const PrsRunEnv           *env,
                                         const PrsRunLimits        *limits);
PrsRunEnv *prs_run_env_ref              (PrsRunEnv                 *env);
void       prs_run_env_unref            (PrsRunEnv                 *env);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsRunEnv, prs_run_env_unref)

G_END_DECLS
