/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-insights.c: the Insights figures as values — periods in local days,
 * percentiles out of stored time buckets, the ctl's JSON and the words
 * people read (docs/insights.md). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "prs-insights.h"

void
prs_insights_model_free (gpointer data)
{
  PrsInsightsModel *model = data;

  g_free (model->provider_id);
  g_free (model->provider_name);
  g_free (model->model);
  g_free (model);
}

void
prs_insights_agent_free (gpointer data)
{
  PrsInsightsAgent *agent = data;

  g_free (agent->agent_id);
  g_free (agent->agent_name);
  g_free (agent);
}

void
prs_insights_tool_free (gpointer data)
{
  PrsInsightsTool *tool = data;

  g_free (tool->tool);
  g_free (tool);
}

PrsInsights *
prs_insights_new (PrsInsightsPeriod period)
{
  PrsInsights *insights = g_new0 (PrsInsights, 1);

  insights->period = period;
  insights->models = g_ptr_array_new_with_free_func (prs_insights_model_free);
  insights->agents = g_ptr_array_new_with_free_func (prs_insights_agent_free);
  insights->tools = g_ptr_array_new_with_free_func (prs_insights_tool_free);
  insights->days = g_array_new (FALSE, TRUE, sizeof (PrsInsightsDay));
  return insights;
}

void
prs_insights_free (PrsInsights *insights)
{
  if (insights == NULL)
    return;

  g_free (insights->first_day);
  g_free (insights->last_day);
  g_ptr_array_unref (insights->models);
  g_ptr_array_unref (insights->agents);
  g_ptr_array_unref (insights->tools);
  g_array_unref (insights->days);
  g_free (insights);
}

/* ---- periods ---- */

static const char * const period_names[] = { "today", "7d", "30d", "all" };

const char *
prs_insights_period_to_string (PrsInsightsPeriod period)
{
  g_return_val_if_fail (period <= PRS_INSIGHTS_ALL, NULL);
  return period_names[period];
}

gboolean
prs_insights_period_from_string (const char        *text,
                                 PrsInsightsPeriod *out_period)
{
  for (guint i = 0; i < G_N_ELEMENTS (period_names); i++)
    if (g_strcmp0 (text, period_names[i]) == 0)
      {
        *out_period = (PrsInsightsPeriod) i;
        return TRUE;
      }
  return FALSE;
}

char *
prs_insights_period_first_day (PrsInsightsPeriod  period,
                               GDateTime         *now)
{
  static const int days[] = { 1, 7, 30 };
  g_autoptr(GDateTime) first = NULL;

  g_return_val_if_fail (now != NULL, NULL);

  if (period >= PRS_INSIGHTS_ALL)
    return NULL;
  /* Calendar days, not 24-hour steps: a day of a daylight-saving change
   * is 23 or 25 hours long */
  first = g_date_time_add_days (now, 1 - days[period]);
  return g_date_time_format (first, "%Y-%m-%d");
}

static GDate *
parse_day (const char *text)
{
  int year, month, day;
  GDate *date;

  if (text == NULL || strlen (text) != 10 || sscanf (text, "%4d-%2d-%2d", &year, &month, &day) != 3 ||
      !g_date_valid_dmy (day, month, year))
    return NULL;
  date = g_date_new_dmy (day, month, year);
  return date;
}

GArray *
prs_insights_days_between (const char *first_day,
                           const char *last_day)
{
  g_autoptr(GDate) first = parse_day (first_day);
  g_autoptr(GDate) last = parse_day (last_day);
  GArray *days;

  if (first == NULL || last == NULL || g_date_compare (first, last) > 0)
    return NULL;

  days = g_array_new (FALSE, TRUE, sizeof (PrsInsightsDay));
  while (g_date_compare (first, last) <= 0)
    {
      PrsInsightsDay day = { { 0 }, 0, 0, 0, 0 };

      g_date_strftime (day.day, sizeof day.day, "%Y-%m-%d", first);
      g_array_append_val (days, day);
      g_date_add_days (first, 1);
    }
  return days;
}

/* ---- percentiles ---- */

/* The time of rank @rank (1-based) in the buckets */
static gint64
time_at_rank (const gint64  *ms,
              const guint64 *counts,
              guint          n_buckets,
              guint64        rank)
{
  guint64 seen = 0;

  for (guint i = 0; i < n_buckets; i++)
    {
      seen += counts[i];
      if (seen >= rank)
        return ms[i];
    }
  return PRS_INSIGHTS_UNKNOWN;
}

void
prs_insights_latency_from_buckets (const gint64       *ms,
                                   const guint64      *counts,
                                   guint               n_buckets,
                                   PrsInsightsLatency *out)
{
  guint64 n = 0;

  for (guint i = 0; i < n_buckets; i++)
    n += counts[i];
  out->timed = n;
  if (n == 0)
    {
      out->p50_ms = out->p95_ms = PRS_INSIGHTS_UNKNOWN;
      return;
    }
  /* Nearest rank: the smallest time at least p of the times reach,
   * ceil (p × n), in integers */
  out->p50_ms = time_at_rank (ms, counts, n_buckets, (n + 1) / 2);
  out->p95_ms = time_at_rank (ms, counts, n_buckets, (95 * n + 99) / 100);
}

/* ---- JSON ---- */

static void
set_ms (JsonObject *object,
        const char *name,
        gint64      ms)
{
  if (ms == PRS_INSIGHTS_UNKNOWN)
    json_object_set_null_member (object, name);
  else
    json_object_set_int_member (object, name, ms);
}

static void
set_rate (JsonObject *object,
          const char *name,
          guint64     part,
          guint64     whole)
{
  if (whole == 0)
    json_object_set_null_member (object, name);
  else
    /* Four decimals, rounded half up: a rate, not a measurement to the last bit */
    json_object_set_double_member (object, name, (double) ((part * 20000 + whole) / (2 * whole)) / 10000.0);
}

static JsonObject *
model_to_json (const PrsInsightsModel *model)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "providerId", model->provider_id);
  json_object_set_string_member (object, "provider", model->provider_name);
  json_object_set_string_member (object, "model", model->model);
  json_object_set_int_member (object, "runs", (gint64) model->runs);
  json_object_set_int_member (object, "calls", (gint64) model->calls);
  json_object_set_int_member (object, "inputTokens", (gint64) model->input_tokens);
  json_object_set_int_member (object, "outputTokens", (gint64) model->output_tokens);
  set_ms (object, "firstTokenP50Ms", model->first_token.p50_ms);
  set_ms (object, "firstTokenP95Ms", model->first_token.p95_ms);
  set_ms (object, "totalP50Ms", model->total.p50_ms);
  set_ms (object, "totalP95Ms", model->total.p95_ms);
  json_object_set_int_member (object, "failures", (gint64) model->failures);
  json_object_set_int_member (object, "failovers", (gint64) model->failovers);
  return object;
}

static JsonObject *
agent_to_json (const PrsInsightsAgent *agent)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "agentId", agent->agent_id);
  json_object_set_string_member (object, "agent", agent->agent_name);
  json_object_set_int_member (object, "runs", (gint64) agent->runs);
  json_object_set_int_member (object, "inputTokens", (gint64) agent->input_tokens);
  json_object_set_int_member (object, "outputTokens", (gint64) agent->output_tokens);
  return object;
}

static JsonObject *
tool_to_json (const PrsInsightsTool *tool)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "tool", tool->tool);
  json_object_set_int_member (object, "calls", (gint64) tool->calls);
  json_object_set_int_member (object, "decided", (gint64) tool->decided);
  json_object_set_int_member (object, "approved", (gint64) tool->approved);
  set_rate (object, "approvalRate", tool->approved, tool->decided);
  json_object_set_int_member (object, "settled", (gint64) tool->settled);
  json_object_set_int_member (object, "succeeded", (gint64) tool->succeeded);
  set_rate (object, "successRate", tool->succeeded, tool->settled);
  set_ms (object, "durationP50Ms", tool->duration.p50_ms);
  set_ms (object, "durationP95Ms", tool->duration.p95_ms);
  return object;
}

static JsonObject *
day_to_json (const PrsInsightsDay *day)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "day", day->day);
  json_object_set_int_member (object, "modelCalls", (gint64) day->model_calls);
  json_object_set_int_member (object, "toolCalls", (gint64) day->tool_calls);
  json_object_set_int_member (object, "inputTokens", (gint64) day->input_tokens);
  json_object_set_int_member (object, "outputTokens", (gint64) day->output_tokens);
  return object;
}

JsonNode *
prs_insights_to_json (const PrsInsights *insights)
{
  g_autoptr(JsonObject) root = json_object_new ();
  JsonArray *array;

  g_return_val_if_fail (insights != NULL, NULL);

  json_object_set_string_member (root, "period", prs_insights_period_to_string (insights->period));
  if (insights->first_day != NULL)
    json_object_set_string_member (root, "from", insights->first_day);
  else
    json_object_set_null_member (root, "from");
  json_object_set_string_member (root, "to", insights->last_day);

  array = json_array_new ();
  for (guint i = 0; i < insights->models->len; i++)
    json_array_add_object_element (array, model_to_json (g_ptr_array_index (insights->models, i)));
  json_object_set_array_member (root, "models", array);
  array = json_array_new ();
  for (guint i = 0; i < insights->agents->len; i++)
    json_array_add_object_element (array, agent_to_json (g_ptr_array_index (insights->agents, i)));
  json_object_set_array_member (root, "agents", array);
  array = json_array_new ();
  for (guint i = 0; i < insights->tools->len; i++)
    json_array_add_object_element (array, tool_to_json (g_ptr_array_index (insights->tools, i)));
  json_object_set_array_member (root, "tools", array);
  array = json_array_new ();
  for (guint i = 0; i < insights->days->len; i++)
    json_array_add_object_element (array, day_to_json (&g_array_index (insights->days, PrsInsightsDay, i)));
  json_object_set_array_member (root, "days", array);

  return json_node_init_object (json_node_alloc (), root);
}

/* ---- words ---- */

char *
prs_insights_format_duration (gint64 ms)
{
  if (ms < 0)
    return g_strdup ("—");
  /* The times are kept to two significant digits; shown with as many */
  if (ms < 1000)
    /* Translators: a duration in milliseconds */
    return g_strdup_printf (_("%d ms"), (int) ms);
  if (ms < 10000)
    /* Translators: a duration in seconds, with one decimal */
    return g_strdup_printf (_("%.1f s"), ms / 1000.0);
  if (ms < 100000)
    /* Translators: a duration in whole seconds */
    return g_strdup_printf (_("%.0f s"), ms / 1000.0);
  if (ms < 600000)
    /* Translators: a duration in minutes, with one decimal */
    return g_strdup_printf (_("%.1f min"), ms / 60000.0);
  /* Translators: a duration in whole minutes */
  return g_strdup_printf (_("%.0f min"), ms / 60000.0);
}

char *
prs_insights_format_rate (guint64 part,
                          guint64 whole)
{
  if (whole == 0)
    return g_strdup ("—");
  /* Rounded down: 99.6 % of calls is not all of them */
  /* Translators: a percentage; French, for one, writes "%d %%" */
  return g_strdup_printf (_("%d%%"), (int) (MIN (part, whole) * 100 / whole));
}

char *
prs_insights_format_count (guint64 count)
{
  return g_strdup_printf ("%'" G_GUINT64_FORMAT, count);
}
