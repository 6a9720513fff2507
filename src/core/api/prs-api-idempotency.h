/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-api-idempotency.h: which inference requests are the same request
 * (the API's duplicates), as the key stored with the inbound message. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef struct
{
  const char *route;             /* "agent-inference" or "inference" */
  const char *conversation_id;   /* a stored conversation's id */
  const char *agent_id;          /* a stored agent's id */
  const char *idempotency_key;   /* may be NULL */
  const char *workflow_id;       /* execution.workflowId, may be NULL */
  const char *execution_id;      /* execution.executionId, may be NULL */
  const char *prompt;
  JsonNode   *context;           /* may be NULL */
} PrsApiRequestIdentity;

/* The duplicate key of a request, or NULL when nothing can tell its retry
 * from a new call (no idempotencyKey, no execution ids). Always scoped to
 * the route, the conversation and the agent: a key seen in one conversation
 * means nothing in another.
 *
 *   idem:ROUTE:CONVERSATION:AGENT:IDEMPOTENCY-KEY
 *   exec:ROUTE:CONVERSATION:AGENT:SHA-256 (workflow id, execution id, prompt, context)
 *
 * Routes, conversation ids (UUIDs) and agent ids ([a-z0-9-]) hold no ':',
 * so the parts cannot run into each other. Migration 5 (prs-store.c) gave
 * the keys stored before scoping this form. */
char     *prs_api_request_dedup_key        (const PrsApiRequestIdentity *request);

/* TRUE when the key came from an idempotencyKey: the one kind of key two
 * different requests can share. */
gboolean  prs_api_dedup_key_is_idempotency (const char                  *dedup_key);

/* Whether @message (a stored message, as prs_store_get_message gives it)
 * says what @request says: the same prompt and the same context (members
 * in any order, numbers by value). The execution ids are not compared: a
 * re-sent batch comes under new ones. */
gboolean  prs_api_request_matches_message  (const PrsApiRequestIdentity *request,
                                            JsonNode                    *message);

G_END_DECLS
