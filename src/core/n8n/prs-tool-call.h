/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call.h: calling a tool, that is POSTing to an n8n workflow's
 * webhook (docs/workflows.md), and waiting for the results that "Respond Immediately"
 * workflows post back later (PrsCallbackRegistry). */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "prs-tool.h"

G_BEGIN_DECLS

#define PRS_TOOL_CALL_DEFAULT_TIMEOUT     120   /* seconds, one HTTP attempt */
#define PRS_TOOL_CALL_MAX_MODEL_BYTES     ((gsize) 64 * 1024)
#define PRS_CALLBACK_DEFAULT_TIMEOUT      600   /* seconds: docs/workflows.md 10 minutes */

/* ------------------------------------------------------------------ registry */

#define PRS_TYPE_CALLBACK_REGISTRY (prs_callback_registry_get_type ())
G_DECLARE_FINAL_TYPE (PrsCallbackRegistry, prs_callback_registry, PRS, CALLBACK_REGISTRY, GObject)

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

/* ------------------------------------------------------------------ result */

typedef enum
{
  PRS_TOOL_CALL_SUCCEEDED,
  PRS_TOOL_CALL_FAILED,
  PRS_TOOL_CALL_WAITING_CALLBACK,   /* "Workflow was started": see PrsCallbackRegistry */
} PrsToolCallStatus;

typedef struct
{
  PrsToolCallStatus  status;
  JsonNode          *result;       /* SUCCEEDED: the workflow's JSON (text that is not JSON becomes a string) */
  char              *error;        /* FAILED: a sentence for the model and the person */
  int                error_code;   /* FAILED: a PrsError code (PRS_ERROR_FAILED when the workflow reported it) */
  gboolean           rediscover;   /* 404: the webhook is gone, tools should be rediscovered */
  guint              http_status;  /* 0 when no answer arrived */
  guint              attempts;     /* connection attempts made (1 + retries) */
  char              *url;          /* the webhook URL called */
} PrsToolCallResult;

PrsToolCallResult  *prs_tool_call_result_new_success (JsonNode                *result);
PrsToolCallResult  *prs_tool_call_result_new_failure (int                      error_code,
                                                      const char              *error);
PrsToolCallResult  *prs_tool_call_result_copy        (const PrsToolCallResult *result);
void                prs_tool_call_result_free        (PrsToolCallResult       *result);
const char         *prs_tool_call_status_to_string   (PrsToolCallStatus        status);

/* What the model receives: for a success, the result's JSON text; for a
 * failure, {"success":false,"error":"…"}; while waiting,
 * {"status":"running",…}. Text longer than PRS_TOOL_CALL_MAX_MODEL_BYTES is
 * cut on a UTF-8 character boundary at or below that size and followed by
 * "\n[result truncated: TOTAL bytes, showing the first SHOWN]". */
char               *prs_tool_call_result_for_model   (const PrsToolCallResult *result);

/* The same cut on any text (exposed for tests and other callers). */
char               *prs_tool_call_cut_for_model      (const char              *text,
                                                      gsize                    max_bytes);

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

/* ------------------------------------------------------------------ callbacks */

/* Results that workflows post to /api/ai/agentic-loop-result, matched to the
 * waiting call by toolCallId. Thread-safe: the API server thread delivers,
 * the waiter's thread receives its result on the GMainContext that was the
 * thread-default one when it called _wait_async. */
PrsCallbackRegistry *prs_callback_registry_new         (void);

/* Results with a wrong secret allowed per call: the next one ends it */
#define PRS_CALLBACK_MAX_WRONG_SECRETS 5

typedef enum
{
  PRS_CALLBACK_DELIVERED,
  PRS_CALLBACK_UNKNOWN,          /* no call waits for this id (or its wait has ended) */
  PRS_CALLBACK_SECRET_MISSING,   /* no secret presented: nothing counted */
  PRS_CALLBACK_SECRET_WRONG,     /* counted */
  PRS_CALLBACK_LOCKED,           /* the last wrong secret allowed: the call has failed */
} PrsCallbackDelivery;

/* Makes @tool_call_id known with the @secret a delivery must present
 * (replacing any earlier one, and its count of wrong ones), so a delivery
 * that arrives before _wait_async is kept for it. An id waited for without
 * being expected has no secret and accepts no delivery. */
void                 prs_callback_registry_expect      (PrsCallbackRegistry *self,
                                                        const char          *tool_call_id,
                                                        const char          *secret);
/* Drops an expected id and whatever was delivered for it. A waiter, if any,
 * is left alone (it ends by its timeout or cancellable). */
void                 prs_callback_registry_forget      (PrsCallbackRegistry *self,
                                                        const char          *tool_call_id);
gboolean             prs_callback_registry_is_expected (PrsCallbackRegistry *self,
                                                        const char          *tool_call_id);

/* Waits for the result of @tool_call_id for at most @timeout_seconds
 * (0 = PRS_CALLBACK_DEFAULT_TIMEOUT). _finish returns a SUCCEEDED or FAILED
 * result, FAILED with PRS_ERROR_TIMEOUT when nothing arrived in time; it
 * fails only with G_IO_ERROR_CANCELLED, or G_IO_ERROR_EXISTS when someone
 * already waits for that id. */
void                 prs_callback_registry_wait_async  (PrsCallbackRegistry *self,
                                                        const char          *tool_call_id,
                                                        guint                timeout_seconds,
                                                        GCancellable        *cancellable,
                                                        GAsyncReadyCallback  callback,
                                                        gpointer             user_data);
PrsToolCallResult   *prs_callback_registry_wait_finish (PrsCallbackRegistry *self,
                                                        GAsyncResult        *result,
                                                        GError             **error);

/* Called from any thread. When @secret is the one expected (compared in
 * constant time), hands the result to the waiter of @tool_call_id (or
 * keeps it until someone waits): PRS_CALLBACK_DELIVERED. Else nothing is
 * delivered: UNKNOWN when no call waits for the id (or a result was
 * already delivered), SECRET_MISSING, SECRET_WRONG, or LOCKED when that
 * was the PRS_CALLBACK_MAX_WRONG_SECRETS-th wrong secret and the call has
 * now failed with a sentence saying so. @wrong_left (may be NULL) gets
 * how many more wrong secrets the call takes. @result (may be NULL) is
 * referenced, not copied: do not change it afterwards. @error is used when
 * @success is FALSE (NULL gives a generic sentence). */
PrsCallbackDelivery  prs_callback_registry_deliver     (PrsCallbackRegistry *self,
                                                        const char          *tool_call_id,
                                                        const char          *secret,
                                                        gboolean             success,
                                                        JsonNode            *result,
                                                        const char          *error,
                                                        guint               *wrong_left);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsToolCallRequest, prs_tool_call_request_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsToolCallResult, prs_tool_call_result_free)

G_END_DECLS
