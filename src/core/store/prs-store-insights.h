/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-store-insights.h: what runs cost and how they fare, in the store
 * (docs/insights.md): each attempt at a model as a row of its own, and the
 * figures of a period read from daily totals that triggers keep with every
 * run, model call and tool call written (prs-store-insights.c). */
#pragma once

#include "prs-insights.h"
#include "prs-store.h"

G_BEGIN_DECLS

#define PRS_MODEL_CALL_ANSWERED    "answered"
#define PRS_MODEL_CALL_FAILED      "failed"
#define PRS_MODEL_CALL_FAILED_OVER "failed-over"

/* One attempt at a model within a run */
typedef struct
{
  const char *run_id;
  const char *agent_id;
  const char *provider_id;
  const char *provider_name;
  const char *model;
  const char *outcome;          /* PRS_MODEL_CALL_* */
  gint64      first_token_ms;   /* < 0: no text was streamed */
  gint64      total_ms;         /* < 0: not measured */
  gint64      input_tokens;
  gint64      output_tokens;
  const char *created_at;       /* ISO 8601 UTC; NULL: now */
} PrsModelCallInsert;

/* Stores @n_calls attempts in one transaction */
gboolean     prs_store_add_model_calls      (PrsStore                 *self,
                                             const PrsModelCallInsert *calls,
                                             guint                     n_calls,
                                             GError                  **error);

/* The figures of @period, its local days counted from @now (local time;
 * NULL: now) */
PrsInsights *prs_store_read_insights        (PrsStore                 *self,
                                             PrsInsightsPeriod         period,
                                             GDateTime                *now,
                                             GError                  **error);

/* The same, on a connection of its own in a worker thread: callable from
 * any thread, answered on the caller's thread-default context */
void         prs_store_read_insights_async  (const char               *data_dir,
                                             PrsInsightsPeriod         period,
                                             GCancellable             *cancellable,
                                             GAsyncReadyCallback       callback,
                                             gpointer                  user_data);
PrsInsights *prs_store_read_insights_finish (GAsyncResult             *result,
                                             GError                  **error);

G_END_DECLS
