/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call-registry.h: PrsCallbackRegistry, the tool calls waiting for
 * the result a "Respond Immediately" workflow posts back later
 * (docs/workflows.md). */
#pragma once

#include <gio/gio.h>

#include "prs-tool-call-result.h"

G_BEGIN_DECLS

#define PRS_CALLBACK_DEFAULT_TIMEOUT      600   /* seconds: docs/workflows.md 10 minutes */

#define PRS_TYPE_CALLBACK_REGISTRY (prs_callback_registry_get_type ())
G_DECLARE_FINAL_TYPE (PrsCallbackRegistry, prs_callback_registry, PRS, CALLBACK_REGISTRY, GObject)

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
/* The same; a delivered result's @stored_func is called once it is stored
 * (or will not be: the call ended first), on the thread that knows it.
 * Not called when the result is not delivered. Told that it could not be
 * stored (prs_tool_call_result_waits_again ()), the call waits again as
 * before — same secret, same count of wrong ones, its timeout counted from
 * its first wait — before @stored_func hears it, so that the same result
 * posted again is taken (whoever stores it waits for it again). */
PrsCallbackDelivery  prs_callback_registry_deliver_stored (PrsCallbackRegistry   *self,
                                                           const char            *tool_call_id,
                                                           const char            *secret,
                                                           gboolean               success,
                                                           JsonNode              *result,
                                                           const char            *error,
                                                           guint                 *wrong_left,
                                                           PrsToolCallStoredFunc  stored_func,
                                                           gpointer               stored_data);

G_END_DECLS
