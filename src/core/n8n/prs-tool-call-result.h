/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tool-call-result.h: what a tool call came to (docs/workflows.md) —
 * the workflow's result, a failure in a sentence, or "started, the result
 * comes later" — and the text the model is given for it. Below both the
 * call (prs-tool-call.h) and the callback registry, which make them. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PRS_TOOL_CALL_MAX_MODEL_BYTES     ((gsize) 64 * 1024)

/* Told once whether a result posted back later is stored (@error NULL:
 * stored by commit @commit of a store of this process) or will not be
 * (@error says why), exactly once, on the thread that knows it */
typedef void (*PrsToolCallStoredFunc) (const GError *error,
                                       guint64       commit,
                                       gpointer      data);

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
  /* A result posted back later: its sender hears of it once it is stored
   * (prs_tool_call_result_stored (); freed unstored, it hears that) */
  PrsToolCallStoredFunc stored_func;
  gpointer              stored_data;
} PrsToolCallResult;

PrsToolCallResult  *prs_tool_call_result_new_success (JsonNode                *result);
PrsToolCallResult  *prs_tool_call_result_new_failure (int                      error_code,
                                                      const char              *error);
PrsToolCallResult  *prs_tool_call_result_copy        (const PrsToolCallResult *result);
void                prs_tool_call_result_free        (PrsToolCallResult       *result);
/* Tells the sender of @result (if one waits) that it is stored (@error
 * NULL) or is not */
void                prs_tool_call_result_stored      (PrsToolCallResult       *result,
                                                      const GError            *error,
                                                      guint64                  commit);
/* Whether a result told @error by its storer is still waited for: it
 * could not be stored (the database busy, the disk full), but the call did
 * not end, so its sender may post it again. FALSE for NULL (stored) and
 * for the call that ended before it was stored (PRS_ERROR_NOT_FOUND) */
gboolean            prs_tool_call_result_waits_again (const GError            *error);
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

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsToolCallResult, prs_tool_call_result_free)

G_END_DECLS
