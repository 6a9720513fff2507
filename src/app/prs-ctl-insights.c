/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-ctl-insights.c: `prosponsive-ctl insights [--since today|7d|30d|all]
 * [--json]` — the figures of the Insights page (docs/insights.md) as
 * tables, or as JSON for scripts. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-ctl.h"
#include "prs-insights.h"
#include "prs-store-insights.h"

/* ---- a plain text table ---- */

typedef struct
{
  guint      n_columns;
  guint      text_columns;   /* the first columns are left-aligned text, the rest numbers */
  GPtrArray *cells;          /* char*, row by row */
} Table;

static void
table_init (Table       *table,
            guint        text_columns,
            const char  *first,
            ...)
{
  va_list args;

  table->cells = g_ptr_array_new_with_free_func (g_free);
  table->text_columns = text_columns;
  table->n_columns = 0;
  va_start (args, first);
  for (const char *header = first; header != NULL; header = va_arg (args, const char *))
    {
      g_ptr_array_add (table->cells, g_strdup (header));
      table->n_columns++;
    }
  va_end (args);
}

/* Takes the cell */
static void
table_add (Table *table,
           char  *cell)
{
  g_ptr_array_add (table->cells, cell);
}

static void
table_add_count (Table   *table,
                 guint64  count)
{
  table_add (table, prs_insights_format_count (count));
}

static void
table_print (Table *table)
{
  g_autofree guint *widths = g_new0 (guint, table->n_columns);

  for (guint i = 0; i < table->cells->len; i++)
    widths[i % table->n_columns] = MAX (widths[i % table->n_columns],
                                        g_utf8_strlen (g_ptr_array_index (table->cells, i), -1));
  for (guint i = 0; i < table->cells->len; i++)
    {
      guint column = i % table->n_columns;
      const char *cell = g_ptr_array_index (table->cells, i);
      guint pad = widths[column] - g_utf8_strlen (cell, -1);
      gboolean last = column + 1 == table->n_columns;

      if (column >= table->text_columns)
        g_print ("%*s%s", (int) pad, "", cell);
      else if (last)
        g_print ("%s", cell);
      else
        g_print ("%s%*s", cell, (int) pad, "");
      g_print (last ? "\n" : "  ");
    }
  g_ptr_array_unref (table->cells);
}

/* ---- the sections ---- */

static void
print_models (PrsInsights *insights)
{
  Table table;

  g_print ("%s\n", _("Providers and models"));
  if (insights->models->len == 0)
    {
      g_print ("%s\n\n", _("No model calls in this period."));
      return;
    }
  table_init (&table, 2, _("PROVIDER"), _("MODEL"), _("RUNS"), _("CALLS"), _("TOKENS IN"), _("TOKENS OUT"),
              /* Translators: time to the first token, median and 95th percentile */
              _("FIRST TOKEN p50"), _("p95"), _("TOTAL p50"), _("p95"), _("FAILURES"), _("FAILOVERS"), NULL);
  for (guint i = 0; i < insights->models->len; i++)
    {
      PrsInsightsModel *model = g_ptr_array_index (insights->models, i);

      table_add (&table, g_strdup (model->provider_name));
      table_add (&table, g_strdup (model->model));
      table_add_count (&table, model->runs);
      table_add_count (&table, model->calls);
      table_add_count (&table, model->input_tokens);
      table_add_count (&table, model->output_tokens);
      table_add (&table, prs_insights_format_duration (model->first_token.p50_ms));
      table_add (&table, prs_insights_format_duration (model->first_token.p95_ms));
      table_add (&table, prs_insights_format_duration (model->total.p50_ms));
      table_add (&table, prs_insights_format_duration (model->total.p95_ms));
      table_add_count (&table, model->failures);
      table_add_count (&table, model->failovers);
    }
  table_print (&table);
  g_print ("\n");
}

static void
print_agents (PrsInsights *insights)
{
  Table table;

  g_print ("%s\n", _("Agents"));
  if (insights->agents->len == 0)
    {
      g_print ("%s\n\n", _("No runs in this period."));
      return;
    }
  table_init (&table, 1, _("AGENT"), _("RUNS"), _("TOKENS IN"), _("TOKENS OUT"), NULL);
  for (guint i = 0; i < insights->agents->len; i++)
    {
      PrsInsightsAgent *agent = g_ptr_array_index (insights->agents, i);

      table_add (&table, g_strdup (agent->agent_name));
      table_add_count (&table, agent->runs);
      table_add_count (&table, agent->input_tokens);
      table_add_count (&table, agent->output_tokens);
    }
  table_print (&table);
  g_print ("\n");
}

static void
print_tools (PrsInsights *insights)
{
  Table table;

  g_print ("%s\n", _("Tools"));
  if (insights->tools->len == 0)
    {
      g_print ("%s\n\n", _("No tool calls in this period."));
      return;
    }
  table_init (&table, 1, _("TOOL"), _("CALLS"), _("APPROVED"), _("SUCCEEDED"),
              /* Translators: a tool call's duration, median and 95th percentile */
              _("DURATION p50"), _("p95"), NULL);
  for (guint i = 0; i < insights->tools->len; i++)
    {
      PrsInsightsTool *tool = g_ptr_array_index (insights->tools, i);

      table_add (&table, g_strdup (tool->tool));
      table_add_count (&table, tool->calls);
      table_add (&table, prs_insights_format_rate (tool->approved, tool->decided));
      table_add (&table, prs_insights_format_rate (tool->succeeded, tool->settled));
      table_add (&table, prs_insights_format_duration (tool->duration.p50_ms));
      table_add (&table, prs_insights_format_duration (tool->duration.p95_ms));
    }
  table_print (&table);
  g_print ("\n");
}

/* The days with anything in them (the JSON has every day) */
static void
print_days (PrsInsights *insights)
{
  Table table;
  guint shown = 0;

  g_print ("%s\n", _("Per day"));
  table_init (&table, 1, _("DAY"), _("MODEL CALLS"), _("TOOL CALLS"), _("TOKENS IN"), _("TOKENS OUT"), NULL);
  for (guint i = 0; i < insights->days->len; i++)
    {
      PrsInsightsDay *day = &g_array_index (insights->days, PrsInsightsDay, i);

      if (day->model_calls + day->tool_calls == 0)
        continue;
      table_add (&table, g_strdup (day->day));
      table_add_count (&table, day->model_calls);
      table_add_count (&table, day->tool_calls);
      table_add_count (&table, day->input_tokens);
      table_add_count (&table, day->output_tokens);
      shown++;
    }
  if (shown == 0)
    {
      g_ptr_array_unref (table.cells);
      g_print ("%s\n", _("No calls in this period."));
      return;
    }
  table_print (&table);
}

static char *
period_title (PrsInsights *insights)
{
  switch (insights->period)
    {
    case PRS_INSIGHTS_TODAY:
      /* Translators: %s is a date, YYYY-MM-DD */
      return g_strdup_printf (_("Today (%s)"), insights->last_day);
    case PRS_INSIGHTS_7_DAYS:
      /* Translators: the first and the last day, YYYY-MM-DD */
      return g_strdup_printf (_("Last 7 days (%s to %s)"), insights->first_day, insights->last_day);
    case PRS_INSIGHTS_30_DAYS:
      return g_strdup_printf (_("Last 30 days (%s to %s)"), insights->first_day, insights->last_day);
    case PRS_INSIGHTS_ALL:
    default:
      if (insights->first_day == NULL)
        return g_strdup (_("All time (nothing recorded yet)"));
      return g_strdup_printf (_("All time (%s to %s)"), insights->first_day, insights->last_day);
    }
}

int
prs_ctl_cmd_insights (PrsCtl  *ctl,
                      int      argc,
                      char   **argv)
{
  g_autofree char *since = NULL;
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "since", 0, 0, G_OPTION_ARG_STRING, &since, N_("The period: today, 7d (the default), 30d or all"), N_("PERIOD") },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the figures as JSON"), NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context =
    g_option_context_new (_("— runs, tokens, times and failures per provider and model, agent and tool"));
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(PrsInsights) insights = NULL;
  g_autofree char *title = NULL;
  PrsInsightsPeriod period = PRS_INSIGHTS_7_DAYS;

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return prs_ctl_usage_error (context, error->message);
  if (argc != 1)
    return prs_ctl_usage_error (context, _("insights takes no arguments."));
  if (since != NULL && !prs_insights_period_from_string (since, &period))
    return prs_ctl_usage_error (context, _("--since is today, 7d, 30d or all."));

  store = prs_ctl_open_existing_store (ctl, &error);
  if (store != NULL)
    insights = prs_store_read_insights (store, period, NULL, &error);
  if (insights == NULL)
    return prs_ctl_fail (error);

  if (json)
    {
      g_autoptr(JsonNode) node = prs_insights_to_json (insights);

      prs_ctl_print_json (node);
      return 0;
    }

  title = period_title (insights);
  g_print ("%s\n\n", title);
  print_models (insights);
  print_agents (insights);
  print_tools (insights);
  print_days (insights);
  return 0;
}
