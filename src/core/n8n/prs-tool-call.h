/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call.h: calling a tool, that is POSTing to an n8n workflow's
 * webhook (docs/workflows.md), and waiting for the results that "Respond Immediately"
 * workflows post back later (PrsCallbackRegistry). */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-tool.h"
#include "prs-tool-call-registry.h"
#include "prs-tool-call-result.h"

G_BEGIN_DECLS

#define PRS_TOOL_CALL_DEFAULT_TIMEOUT     120   /* seconds, one HTTP attempt */

/* ------------------------------------------------------------------ request */

typedef struct
{
  PrsTool             *tool;                /* owned copy */
  char                *n8n_base_url;        /* e.g. "http://127.0.0.1:5678" */

  /* n8n "Header Auth": sent when both are set. The value never reaches a
   * log line or a message. */
  char                *auth_header_name;
  char                *auth_header_value;

  JsonObject          *arguments;           /* owned reference, NULL = {} */

  /* The "prosponsive" envelope. tool_name and workflow_id start as the
   * tool's; tool_call_id starts as a random UUID. Unset strings are sent as
   * JSON null. */
  char                *tool_name;
  char                *tool_call_id;
  char                *workflow_id;
  char                *conversation_id;
  char                *agent_id;
  char                *callback_url;
  char                *execution;
  /* Drawn from the CSPRNG for each request: sent as "callbackSecret" in the
   * envelope and as the callbackSecret query parameter of "callbackUrl";
   * the result posted back must present it (PrsCallbackRegistry). Never
   * logged or stored. */
  char                *callback_secret;

  guint                timeout_seconds;     /* per attempt; 0 = PRS_TOOL_CALL_DEFAULT_TIMEOUT */

  /* Optional. When set, the call announces its toolCallId to the registry
   * before the request goes out, so that a callback arriving before the
   * caller starts waiting is kept; it is forgotten again unless the answer
   * is "Workflow was started". */
  PrsCallbackRegistry *callback_registry;   /* owned reference */
} PrsToolCallRequest;

PrsToolCallRequest *prs_tool_call_request_new  (const PrsTool            *tool,
                                                const char               *n8n_base_url);
PrsToolCallRequest *prs_tool_call_request_copy (const PrsToolCallRequest *req);
void                prs_tool_call_request_free (PrsToolCallRequest       *req);

/* The request body (docs/workflows.md): every argument as a top-level key, plus
 * "parameters" (all the arguments again, unchanged) and "prosponsive" (the
 * envelope). An argument that is itself named "parameters" or "prosponsive"
 * is therefore only found inside "parameters": at the top level the
 * envelope's member wins. */
JsonNode           *prs_tool_call_request_build_body (const PrsToolCallRequest *req);

/* ------------------------------------------------------------------ the call */

/* One tool call: POST to the webhook, classify the answer (docs/workflows.md).
 * Connection failures before the request was sent (refused, DNS, TLS) are
 * retried 3 times, after 1, 2 and 3 s; a timeout is never retried. Every
 * outcome of the call itself, failures included, is a PrsToolCallResult;
 * _finish fails (G_IO_ERROR_CANCELLED) only when @cancellable was
 * cancelled. */
void                prs_tool_call_run_async  (const PrsToolCallRequest *req,
                                              GCancellable             *cancellable,
                                              GAsyncReadyCallback       callback,
                                              gpointer                  user_data);
PrsToolCallResult  *prs_tool_call_run_finish (GAsyncResult             *result,
                                              GError                  **error);

/* For tests: the pauses before retries 1, 2, 3 in milliseconds (NULL
 * restores 1000, 2000, 3000). */
void                prs_tool_call_set_retry_delays_for_testing (const guint *delays_ms);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsToolCallRequest, prs_tool_call_request_free)

G_END_DECLS
