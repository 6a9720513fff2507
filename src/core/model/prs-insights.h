/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-insights.h: the figures of the Insights page and of
 * `prosponsive-ctl insights` (docs/insights.md) for one period — per
 * provider and model, per agent, per tool, per day — as values; the store
 * reads them (prs-store-insights.h), the window and the ctl show them.
 * What each figure means is docs/insights.md's. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

typedef enum
{
  PRS_INSIGHTS_TODAY,
  PRS_INSIGHTS_7_DAYS,
  PRS_INSIGHTS_30_DAYS,
  PRS_INSIGHTS_ALL,
} PrsInsightsPeriod;

/* A time nobody measured (calls recorded before times were, or none in
 * the period), or a rate of nothing */
#define PRS_INSIGHTS_UNKNOWN (-1)

/* p50 and p95 by nearest rank, of times kept to two significant digits:
 * exactly the percentile of the real times, rounded to two digits */
typedef struct
{
  gint64  p50_ms;
  gint64  p95_ms;
  guint64 timed;       /* how many times went into them */
} PrsInsightsLatency;

typedef struct
{
  char               *provider_id;
  char               *provider_name;  /* its name now, or the last it had */
  char               *model;
  guint64             runs;           /* runs whose first call to it fell in the period */
  guint64             calls;          /* attempts: answered, failed or failed over */
  guint64             failures;       /* attempts that failed, failed over or not */
  guint64             failovers;      /* failures after which the next provider was asked */
  guint64             input_tokens;
  guint64             output_tokens;
  PrsInsightsLatency  first_token;    /* of answered calls that streamed text */
  PrsInsightsLatency  total;          /* of answered calls */
} PrsInsightsModel;

typedef struct
{
  char    *agent_id;
  char    *agent_name;   /* its name now, or its id when it is gone */
  guint64  runs;
  guint64  input_tokens;
  guint64  output_tokens;
} PrsInsightsAgent;

typedef struct
{
  char               *tool;
  guint64             calls;      /* proposed by a model */
  guint64             decided;    /* approved or denied, by a person, a rule or the agent's tool list */
  guint64             approved;
  guint64             settled;    /* executions that ended: succeeded or failed */
  guint64             succeeded;
  PrsInsightsLatency  duration;   /* from running to its result */
} PrsInsightsTool;

typedef struct
{
  char    day[11];        /* YYYY-MM-DD, local time */
  guint64 model_calls;
  guint64 tool_calls;
  guint64 input_tokens;
  guint64 output_tokens;
} PrsInsightsDay;

typedef struct
{
  PrsInsightsPeriod  period;
  char              *first_day;  /* the period's first local day; for all, the first with figures (NULL: none) */
  char              *last_day;   /* today, or a later day with figures */
  GPtrArray         *models;     /* PrsInsightsModel*, most calls first */
  GPtrArray         *agents;     /* PrsInsightsAgent*, most runs first */
  GPtrArray         *tools;      /* PrsInsightsTool*, most calls first */
  GArray            *days;       /* PrsInsightsDay, every day from first_day to last_day */
} PrsInsights;

PrsInsights *prs_insights_new    (PrsInsightsPeriod  period);
/* Free a PrsInsightsModel*, PrsInsightsAgent*, PrsInsightsTool* */
void         prs_insights_model_free (gpointer           model);
void         prs_insights_agent_free (gpointer           agent);
void         prs_insights_tool_free  (gpointer           tool);
void         prs_insights_free   (PrsInsights       *insights);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrsInsights, prs_insights_free)

/* "today", "7d", "30d", "all" */
const char  *prs_insights_period_to_string   (PrsInsightsPeriod  period);
gboolean     prs_insights_period_from_string (const char        *text,
                                              PrsInsightsPeriod *out_period);
/* The period's first local day (YYYY-MM-DD) for @now (local time); NULL
 * for all */
char        *prs_insights_period_first_day   (PrsInsightsPeriod  period,
                                              GDateTime         *now);

/* p50 and p95 of @n_buckets (time, count) pairs sorted by time */
void         prs_insights_latency_from_buckets (const gint64       *ms,
                                                const guint64      *counts,
                                                guint               n_buckets,
                                                PrsInsightsLatency *out);

/* The days from @first_day to @last_day (both YYYY-MM-DD), zeros; NULL
 * when either is not a date or @last_day comes first */
GArray      *prs_insights_days_between      (const char        *first_day,
                                             const char        *last_day);

/* The JSON of `prosponsive-ctl insights --json` (docs/insights.md) */
JsonNode    *prs_insights_to_json           (const PrsInsights *insights);

/* For people: "340 ms", "1.2 s", "45 s", "2.5 min", or "—" when unknown */
char        *prs_insights_format_duration   (gint64             ms);
/* "97 %", or "—" when @whole is 0 */
char        *prs_insights_format_rate       (guint64            part,
                                             guint64            whole);
/* With the locale's digit grouping: "12,345" */
char        *prs_insights_format_count      (guint64            count);

G_END_DECLS
