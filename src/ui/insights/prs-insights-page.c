/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-insights-page.c: the Insights page. Each table is a GtkGrid of
 * selectable labels (the numbers copy like text) in a card that scrolls
 * sideways when the window is narrow, with a Copy button that puts the
 * whole table on the clipboard as tab-separated text (what a spreadsheet
 * takes). The figures come from prs_store_read_insights_async, on a
 * connection of its own in a worker thread, so a large store never holds
 * up a frame. */
#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "prs-insights-chart.h"
#include "prs-insights-page.h"
#include "prs-store-insights.h"

#define REFRESH_DELAY_MS 1000

struct _PrsInsightsPage
{
  AdwBin               parent_instance;

  PrsService          *service;
  GCancellable        *cancellable;
  PrsInsightsPeriod    period;
  gboolean             loading;
  guint                refresh_id;   /* a read soon after a run changed */
  GHashTable          *tables;       /* "models" … → the table as text (Copy) */
  GHashTable          *shown;        /* "models" … → the widget in its group */

  GtkToggleButton     *all_button;
  PrsInsightsChart    *chart;
  AdwPreferencesGroup *agents_group;
  AdwPreferencesGroup *chart_group;
  AdwPreferencesGroup *models_group;
  GtkToggleButton     *month_button;
  GtkDropDown         *period_drop_down;
  GtkSpinner          *spinner;
  GtkStack            *stack;
  GtkToggleButton     *today_button;
  AdwPreferencesGroup *tools_group;
  GtkToggleButton     *week_button;
};

G_DEFINE_FINAL_TYPE (PrsInsightsPage, prs_insights_page, ADW_TYPE_BIN)

/* ---- tables ---- */

typedef struct
{
  guint  first;
  guint  span;
  char  *title;
} HeaderGroup;

static void
header_group_free (gpointer data)
{
  HeaderGroup *group = data;

  g_free (group->title);
  g_free (group);
}

typedef struct
{
  const char *name;          /* "models", "agents", "tools" */
  guint       n_columns;
  guint       text_columns;  /* the first columns hold words, the rest numbers */
  GPtrArray  *headers;       /* char*: each column's full name (copied, spoken) */
  GPtrArray  *labels;        /* char*: what its header shows ("p50" under a group) */
  GPtrArray  *groups;        /* HeaderGroup*: a header row above, over several columns */
  GPtrArray  *cells;         /* char*, row by row */
  GPtrArray  *subtitles;     /* char* or NULL, as cells: a second, dimmed line */
  GPtrArray  *tooltips;      /* char* or NULL, as cells */
  const char *subtitle_header;  /* the copied name of the subtitles' column */
} Table;

static void
table_init (Table      *table,
            const char *name,
            guint       text_columns)
{
  memset (table, 0, sizeof *table);
  table->name = name;
  table->text_columns = text_columns;
  table->headers = g_ptr_array_new_with_free_func (g_free);
  table->labels = g_ptr_array_new_with_free_func (g_free);
  table->groups = g_ptr_array_new_with_free_func (header_group_free);
  table->cells = g_ptr_array_new_with_free_func (g_free);
  table->subtitles = g_ptr_array_new_with_free_func (g_free);
  table->tooltips = g_ptr_array_new_with_free_func (g_free);
}

static void
table_clear (Table *table)
{
  g_ptr_array_unref (table->headers);
  g_ptr_array_unref (table->labels);
  g_ptr_array_unref (table->groups);
  g_ptr_array_unref (table->cells);
  g_ptr_array_unref (table->subtitles);
  g_ptr_array_unref (table->tooltips);
}

/* A column: its full name, and what its header shows (NULL: the same) */
static void
table_header (Table      *table,
              const char *header,
              const char *label)
{
  g_ptr_array_add (table->headers, g_strdup (header));
  g_ptr_array_add (table->labels, g_strdup (label != NULL ? label : header));
  table->n_columns++;
}

/* A title over the next @span columns */
static void
table_group (Table      *table,
             const char *title,
             guint       span)
{
  HeaderGroup *group = g_new0 (HeaderGroup, 1);

  group->first = table->n_columns;
  group->span = span;
  group->title = g_strdup (title);
  g_ptr_array_add (table->groups, group);
}

/* Takes @cell, @subtitle and @tooltip */
static void
table_add (Table *table,
           char  *cell,
           char  *subtitle,
           char  *tooltip)
{
  g_ptr_array_add (table->cells, cell);
  g_ptr_array_add (table->subtitles, subtitle);
  g_ptr_array_add (table->tooltips, tooltip);
}

static void
table_add_count (Table   *table,
                 guint64  count)
{
  table_add (table, prs_insights_format_count (count), NULL, NULL);
}

/* Tab-separated, a subtitle in a column of its own before its cell */
static char *
table_to_text (Table *table)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < table->headers->len; i++)
    {
      if (i > 0)
        g_string_append_c (text, '\t');
      if (i == 0 && table->subtitle_header != NULL)
        g_string_append_printf (text, "%s\t", table->subtitle_header);
      g_string_append (text, g_ptr_array_index (table->headers, i));
    }
  g_string_append_c (text, '\n');
  for (guint i = 0; i < table->cells->len; i++)
    {
      const char *subtitle = g_ptr_array_index (table->subtitles, i);

      /* No subtitle: the same as the cell (an agent that is gone is named by its id) */
      if (i % table->n_columns == 0 && table->subtitle_header != NULL)
        g_string_append_printf (text, "%s\t", subtitle != NULL ? subtitle : (char *) g_ptr_array_index (table->cells, i));
      g_string_append_printf (text, "%s%s", (char *) g_ptr_array_index (table->cells, i),
                              (i + 1) % table->n_columns == 0 ? "\n" : "\t");
    }
  return g_string_free (text, FALSE);
}

static GtkWidget *
cell_label (const char *text,
            const char *header,
            gboolean    number)
{
  GtkWidget *label = gtk_label_new (text);
  g_autofree char *spoken = g_strdup_printf ("%s: %s", header, text);

  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  /* The Copy button is the keyboard's way; a tab stop per number is not */
  gtk_widget_set_focusable (label, FALSE);
  gtk_label_set_xalign (GTK_LABEL (label), number ? 1.0f : 0.0f);
  if (number)
    gtk_widget_add_css_class (label, "numeric");
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL, spoken, -1);
  return label;
}

static GtkWidget *
header_label (const char *text,
              float       xalign)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), xalign);
  gtk_widget_add_css_class (label, "caption-heading");
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

static void
attach_cell (Table   *table,
             GtkGrid *grid,
             guint    i,
             int      first_row)
{
  guint column = i % table->n_columns;
  const char *header = g_ptr_array_index (table->headers, column);
  const char *subtitle = g_ptr_array_index (table->subtitles, i);
  const char *tooltip = g_ptr_array_index (table->tooltips, i);
  GtkWidget *widget = cell_label (g_ptr_array_index (table->cells, i), header, column >= table->text_columns);

  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (widget, tooltip);
  if (subtitle != NULL)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
      GtkWidget *below = cell_label (subtitle, table->subtitle_header, FALSE);

      gtk_widget_add_css_class (below, "caption");
      gtk_widget_add_css_class (below, "dim-label");
      gtk_box_append (GTK_BOX (box), widget);
      gtk_box_append (GTK_BOX (box), below);
      widget = box;
    }
  gtk_widget_set_valign (widget, GTK_ALIGN_CENTER);
  gtk_grid_attach (grid, widget, (int) column, first_row + (int) (i / table->n_columns), 1, 1);
}

/* The grid of @table in a card that scrolls sideways when narrow */
static GtkWidget *
table_widget (Table *table)
{
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *frame = gtk_frame_new (NULL);
  int header_row = table->groups->len > 0 ? 1 : 0;

  gtk_grid_set_column_spacing (GTK_GRID (grid), 16);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 8);
  gtk_widget_set_margin_top (grid, 12);
  gtk_widget_set_margin_bottom (grid, 12);
  gtk_widget_set_margin_start (grid, 14);
  gtk_widget_set_margin_end (grid, 14);
  gtk_widget_set_name (grid, table->name);

  for (guint i = 0; i < table->groups->len; i++)
    {
      HeaderGroup *group = g_ptr_array_index (table->groups, i);

      gtk_grid_attach (GTK_GRID (grid), header_label (group->title, 0.5f), (int) group->first, 0, (int) group->span, 1);
    }
  for (guint column = 0; column < table->n_columns; column++)
    {
      GtkWidget *header = header_label (g_ptr_array_index (table->labels, column),
                                        column < table->text_columns ? 0.0f : 1.0f);

      gtk_widget_set_hexpand (header, column == 0);
      gtk_grid_attach (GTK_GRID (grid), header, (int) column, header_row, 1, 1);
    }
  for (guint i = 0; i < table->cells->len; i++)
    attach_cell (table, GTK_GRID (grid), i, header_row + 1);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_AUTOMATIC, GTK_POLICY_NEVER);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), grid);
  gtk_frame_set_child (GTK_FRAME (frame), scroller);
  gtk_widget_add_css_class (frame, "card");
  return frame;
}

static GtkWidget *
nothing_label (const char *text)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), 0.0f);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "dim-label");
  return label;
}

/* Shows @table (or @nothing when it has no rows) in @group, in place of
 * what was there */
static void
show_table (PrsInsightsPage     *self,
            AdwPreferencesGroup *group,
            Table               *table,
            const char          *nothing)
{
  GtkWidget *old = g_hash_table_lookup (self->shown, table->name);
  GtkWidget *widget = table->cells->len > 0 ? table_widget (table) : nothing_label (nothing);

  if (old != NULL)
    adw_preferences_group_remove (group, old);
  adw_preferences_group_add (group, widget);
  g_hash_table_insert (self->shown, (gpointer) table->name, widget);
  g_hash_table_insert (self->tables, (gpointer) table->name,
                       table->cells->len > 0 ? table_to_text (table) : g_strdup (""));
  table_clear (table);
}

static void
show_models (PrsInsightsPage *self,
             PrsInsights     *insights)
{
  Table table;

  table_init (&table, "models", 1);
  table.subtitle_header = _("Provider");
  table_header (&table, _("Model"), NULL);
  table_header (&table, _("Runs"), NULL);
  table_header (&table, _("Calls"), NULL);
  table_group (&table, _("Tokens"), 2);
  table_header (&table, _("Tokens In"), _("In"));
  table_header (&table, _("Tokens Out"), _("Out"));
  /* Translators: over two columns, the time to the first streamed text */
  table_group (&table, _("First Token"), 2);
  /* Translators: p50 is the median, p95 the 95th percentile; keep "p50" and "p95" short */
  table_header (&table, _("First Token p50"), _("p50"));
  table_header (&table, _("First Token p95"), _("p95"));
  /* Translators: over two columns, the time of a whole model call */
  table_group (&table, _("Total Time"), 2);
  table_header (&table, _("Total p50"), _("p50"));
  table_header (&table, _("Total p95"), _("p95"));
  table_header (&table, _("Failures"), NULL);
  table_header (&table, _("Failovers"), NULL);
  for (guint i = 0; i < insights->models->len; i++)
    {
      PrsInsightsModel *model = g_ptr_array_index (insights->models, i);

      table_add (&table, g_strdup (model->model), g_strdup (model->provider_name), NULL);
      table_add_count (&table, model->runs);
      table_add_count (&table, model->calls);
      table_add_count (&table, model->input_tokens);
      table_add_count (&table, model->output_tokens);
      table_add (&table, prs_insights_format_duration (model->first_token.p50_ms), NULL, NULL);
      table_add (&table, prs_insights_format_duration (model->first_token.p95_ms), NULL, NULL);
      table_add (&table, prs_insights_format_duration (model->total.p50_ms), NULL, NULL);
      table_add (&table, prs_insights_format_duration (model->total.p95_ms), NULL, NULL);
      table_add_count (&table, model->failures);
      table_add_count (&table, model->failovers);
    }
  show_table (self, self->models_group, &table, _("No model calls in this period."));
}

static void
show_agents (PrsInsightsPage *self,
             PrsInsights     *insights)
{
  Table table;

  table_init (&table, "agents", 1);
  table.subtitle_header = _("Agent ID");
  table_header (&table, _("Agent"), NULL);
  table_header (&table, _("Runs"), NULL);
  table_header (&table, _("Tokens In"), NULL);
  table_header (&table, _("Tokens Out"), NULL);
  for (guint i = 0; i < insights->agents->len; i++)
    {
      PrsInsightsAgent *agent = g_ptr_array_index (insights->agents, i);

      table_add (&table, g_strdup (agent->agent_name),
                 g_strcmp0 (agent->agent_name, agent->agent_id) != 0 ? g_strdup (agent->agent_id) : NULL, NULL);
      table_add_count (&table, agent->runs);
      table_add_count (&table, agent->input_tokens);
      table_add_count (&table, agent->output_tokens);
    }
  show_table (self, self->agents_group, &table, _("No runs in this period."));
}

/* "12 of 13" under a rate */
static char *
of_text (guint64 part,
         guint64 whole)
{
  g_autofree char *a = prs_insights_format_count (part);
  g_autofree char *b = prs_insights_format_count (whole);

  /* Translators: a rate's counts, e.g. "12 of 13" */
  return g_strdup_printf (_("%s of %s"), a, b);
}

static void
show_tools (PrsInsightsPage *self,
            PrsInsights     *insights)
{
  Table table;

  table_init (&table, "tools", 1);
  table_header (&table, _("Tool"), NULL);
  table_header (&table, _("Calls"), NULL);
  table_header (&table, _("Approved"), NULL);
  table_header (&table, _("Succeeded"), NULL);
  /* Translators: over two columns, how long a tool call ran */
  table_group (&table, _("Duration"), 2);
  table_header (&table, _("Duration p50"), _("p50"));
  table_header (&table, _("Duration p95"), _("p95"));
  for (guint i = 0; i < insights->tools->len; i++)
    {
      PrsInsightsTool *tool = g_ptr_array_index (insights->tools, i);

      table_add (&table, g_strdup (tool->tool), NULL, NULL);
      table_add_count (&table, tool->calls);
      table_add (&table, prs_insights_format_rate (tool->approved, tool->decided), NULL,
                 of_text (tool->approved, tool->decided));
      table_add (&table, prs_insights_format_rate (tool->succeeded, tool->settled), NULL,
                 of_text (tool->succeeded, tool->settled));
      table_add (&table, prs_insights_format_duration (tool->duration.p50_ms), NULL, NULL);
      table_add (&table, prs_insights_format_duration (tool->duration.p95_ms), NULL, NULL);
    }
  show_table (self, self->tools_group, &table, _("No tool calls in this period."));
}

static void
show_totals (PrsInsightsPage *self,
             PrsInsights     *insights)
{
  guint64 runs = 0, model_calls = 0, tool_calls = 0, tokens = 0;
  g_autofree char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *text = NULL;

  for (guint i = 0; i < insights->agents->len; i++)
    runs += ((PrsInsightsAgent *) g_ptr_array_index (insights->agents, i))->runs;
  for (guint i = 0; i < insights->days->len; i++)
    {
      PrsInsightsDay *day = &g_array_index (insights->days, PrsInsightsDay, i);

      model_calls += day->model_calls;
      tool_calls += day->tool_calls;
      tokens += day->input_tokens + day->output_tokens;
    }
  a = prs_insights_format_count (runs);
  b = prs_insights_format_count (model_calls);
  c = prs_insights_format_count (tool_calls);
  d = prs_insights_format_count (tokens);
  /* Translators: totals of the period, above the chart */
  text = g_strdup_printf (_("Runs: %s · Model calls: %s · Tool calls: %s · Tokens: %s"), a, b, c, d);
  adw_preferences_group_set_description (self->chart_group, text);
}

static void
show_insights (PrsInsightsPage *self,
               PrsInsights     *insights)
{
  gboolean anything = insights->models->len + insights->agents->len + insights->tools->len > 0;

  prs_insights_chart_set_days (self->chart, insights->days);
  show_totals (self, insights);
  show_models (self, insights);
  show_agents (self, insights);
  show_tools (self, insights);
  gtk_stack_set_visible_child_name (self->stack, anything ? "figures" : "empty");
}

/* ---- reading ---- */

static void
set_loading (PrsInsightsPage *self,
             gboolean         loading)
{
  self->loading = loading;
  gtk_spinner_set_spinning (self->spinner, loading);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), loading);
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(PrsInsightsPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsInsights) insights = prs_store_read_insights_finish (result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  set_loading (self, FALSE);
  if (insights == NULL)
    {
      gtk_widget_activate_action (GTK_WIDGET (self), "win.show-toast", "s", error->message);
      return;
    }
  show_insights (self, insights);
}

void
prs_insights_page_reload (PrsInsightsPage *self)
{
  g_return_if_fail (PRS_IS_INSIGHTS_PAGE (self));

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->service == NULL)
    return;
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  set_loading (self, TRUE);
  prs_store_read_insights_async (prs_service_get_data_dir (self->service), self->period,
                                 self->cancellable, on_read, g_object_ref (self));
}

static gboolean
on_refresh_timeout (gpointer data)
{
  PrsInsightsPage *self = data;

  self->refresh_id = 0;
  prs_insights_page_reload (self);
  return G_SOURCE_REMOVE;
}

/* A run worked, rested or ended: its figures changed. Read again shortly
 * (once for a burst of changes), while the page shows */
static void
on_run_changed (PrsRunner       *runner,
                PrsRun          *run,
                PrsInsightsPage *self)
{
  if (gtk_widget_get_mapped (GTK_WIDGET (self)) && self->refresh_id == 0)
    self->refresh_id = g_timeout_add (REFRESH_DELAY_MS, on_refresh_timeout, self);
}

void
prs_insights_page_set_service (PrsInsightsPage *self,
                               PrsService      *service)
{
  g_return_if_fail (PRS_IS_INSIGHTS_PAGE (self));
  g_return_if_fail (PRS_IS_SERVICE (service));

  g_set_object (&self->service, service);
  if (prs_service_get_runner (service) != NULL)
    g_signal_connect_object (prs_service_get_runner (service), "run-changed",
                             G_CALLBACK (on_run_changed), self, 0);
}

/* ---- the period ---- */

static GtkToggleButton *
period_button (PrsInsightsPage   *self,
               PrsInsightsPeriod  period)
{
  switch (period)
    {
    case PRS_INSIGHTS_TODAY:
      return self->today_button;
    case PRS_INSIGHTS_7_DAYS:
      return self->week_button;
    case PRS_INSIGHTS_30_DAYS:
      return self->month_button;
    case PRS_INSIGHTS_ALL:
    default:
      return self->all_button;
    }
}

static void
on_period_toggled (PrsInsightsPage *self,
                   GtkToggleButton *button)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  for (PrsInsightsPeriod period = PRS_INSIGHTS_TODAY; period <= PRS_INSIGHTS_ALL; period++)
    if (period_button (self, period) == button && period != self->period)
      {
        self->period = period;
        gtk_drop_down_set_selected (self->period_drop_down, period);
        prs_insights_page_reload (self);
      }
}

/* The drop-down the page shows instead of the buttons where they do not
 * fit: the same periods, chosen through the same buttons */
static void
on_period_selected (PrsInsightsPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->period_drop_down);

  if (selected <= PRS_INSIGHTS_ALL)
    gtk_toggle_button_set_active (period_button (self, selected), TRUE);
}

/* Its items are the buttons' own labels, mnemonics taken out */
static void
fill_period_drop_down (PrsInsightsPage *self)
{
  g_autoptr(GtkStringList) periods = gtk_string_list_new (NULL);

  for (PrsInsightsPeriod period = PRS_INSIGHTS_TODAY; period <= PRS_INSIGHTS_ALL; period++)
    {
      GtkWidget *label = gtk_button_get_child (GTK_BUTTON (period_button (self, period)));

      gtk_string_list_append (periods, gtk_label_get_text (GTK_LABEL (label)));
    }
  gtk_drop_down_set_model (self->period_drop_down, G_LIST_MODEL (periods));
  gtk_drop_down_set_selected (self->period_drop_down, self->period);
  g_signal_connect_object (self->period_drop_down, "notify::selected", G_CALLBACK (on_period_selected), self,
                           G_CONNECT_SWAPPED);
}

void
prs_insights_page_set_period (PrsInsightsPage   *self,
                              PrsInsightsPeriod  period)
{
  g_return_if_fail (PRS_IS_INSIGHTS_PAGE (self));
  g_return_if_fail (period <= PRS_INSIGHTS_ALL);

  gtk_toggle_button_set_active (period_button (self, period), TRUE);
}

PrsInsightsPeriod
prs_insights_page_get_period (PrsInsightsPage *self)
{
  g_return_val_if_fail (PRS_IS_INSIGHTS_PAGE (self), PRS_INSIGHTS_7_DAYS);
  return self->period;
}

gboolean
prs_insights_page_is_loading (PrsInsightsPage *self)
{
  g_return_val_if_fail (PRS_IS_INSIGHTS_PAGE (self), FALSE);
  return self->loading;
}

char *
prs_insights_page_dup_table (PrsInsightsPage *self,
                             const char      *name)
{
  g_return_val_if_fail (PRS_IS_INSIGHTS_PAGE (self), NULL);
  return g_strdup (g_hash_table_lookup (self->tables, name));
}

/* ---- copying ---- */

static void
copy_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PrsInsightsPage *self = PRS_INSIGHTS_PAGE (widget);
  const char *text = g_hash_table_lookup (self->tables, g_variant_get_string (parameter, NULL));

  if (text == NULL || text[0] == '\0')
    return;
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
  gtk_widget_activate_action (widget, "win.show-toast", "s", _("Copied as tab-separated text"));
}

static void
add_copy_button (AdwPreferencesGroup *group,
                 const char          *table)
{
  GtkWidget *button = gtk_button_new_from_icon_name ("edit-copy-symbolic");

  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, _("Copy the Table"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Copy the Table"), -1);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "insights.copy");
  gtk_actionable_set_action_target (GTK_ACTIONABLE (button), "s", table);
  adw_preferences_group_set_header_suffix (group, button);
}

/* ---- GObject ---- */

static void
prs_insights_page_dispose (GObject *object)
{
  PrsInsightsPage *self = PRS_INSIGHTS_PAGE (object);

  g_clear_handle_id (&self->refresh_id, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->service);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_INSIGHTS_PAGE);

  G_OBJECT_CLASS (prs_insights_page_parent_class)->dispose (object);
}

static void
prs_insights_page_finalize (GObject *object)
{
  PrsInsightsPage *self = PRS_INSIGHTS_PAGE (object);

  g_hash_table_unref (self->tables);
  g_hash_table_unref (self->shown);

  G_OBJECT_CLASS (prs_insights_page_parent_class)->finalize (object);
}

static void
prs_insights_page_class_init (PrsInsightsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_insights_page_dispose;
  object_class->finalize = prs_insights_page_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-insights-page.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, agents_group);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, all_button);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, chart);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, chart_group);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, models_group);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, month_button);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, period_drop_down);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, spinner);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, stack);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, today_button);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, tools_group);
  gtk_widget_class_bind_template_child (widget_class, PrsInsightsPage, week_button);
  gtk_widget_class_bind_template_callback (widget_class, on_period_toggled);

  gtk_widget_class_install_action (widget_class, "insights.copy", "s", copy_activated);

  g_type_ensure (PRS_TYPE_INSIGHTS_CHART);
}

static void
prs_insights_page_init (PrsInsightsPage *self)
{
  self->period = PRS_INSIGHTS_7_DAYS;
  self->tables = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  self->shown = g_hash_table_new (g_str_hash, g_str_equal);
  gtk_widget_init_template (GTK_WIDGET (self));
  fill_period_drop_down (self);
  add_copy_button (self->models_group, "models");
  add_copy_button (self->agents_group, "agents");
  add_copy_button (self->tools_group, "tools");
}
