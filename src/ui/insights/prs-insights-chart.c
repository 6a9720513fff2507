/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-insights-chart.c: calls and tokens per day as two panes of stacked
 * bars, drawn with GtkSnapshot. Colours are looked up in the style context
 * at every snapshot (@accent_bg_color, the text colour), so the chart
 * follows the dark style and a changed accent with the rest of the window;
 * it redraws when AdwStyleManager says the style changed. When a period has
 * more days than the plot has room for bars, neighbouring days share a bar. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-insights-chart.h"

#define PADDING        12.0
#define TITLE_HEIGHT   22.0
#define AXIS_HEIGHT    20.0
#define PANE_GAP       14.0
#define MIN_BAR_SLOT   3.0

struct _PrsInsightsChart
{
  GtkWidget  parent_instance;

  GArray    *days;      /* PrsInsightsDay */
  char      *summary;
  guint      n_drawn;
  double     plot_x;    /* where the bars began in the last snapshot */
  double     plot_width;
};

G_DEFINE_FINAL_TYPE (PrsInsightsChart, prs_insights_chart, GTK_TYPE_WIDGET)

/* ---- words ---- */

static char *
format_day (const char *day)
{
  int year, month, dom;
  g_autoptr(GDateTime) date = NULL;

  if (sscanf (day, "%4d-%2d-%2d", &year, &month, &dom) != 3)
    return g_strdup (day);
  date = g_date_time_new_utc (year, month, dom, 12, 0, 0);
  if (date == NULL)
    return g_strdup (day);
  /* Translators: a day in the Insights chart, as g_date_time_format () writes it */
  return g_date_time_format (date, C_("chart day", "%-d %b"));
}

static char *
describe_day (const PrsInsightsDay *day)
{
  g_autofree char *when = format_day (day->day);
  g_autofree char *models = g_strdup_printf ("%'" G_GUINT64_FORMAT, day->model_calls);
  g_autofree char *tools = g_strdup_printf ("%'" G_GUINT64_FORMAT, day->tool_calls);
  g_autofree char *in = g_strdup_printf ("%'" G_GUINT64_FORMAT, day->input_tokens);
  g_autofree char *out = g_strdup_printf ("%'" G_GUINT64_FORMAT, day->output_tokens);

  /* Translators: one day of the Insights chart */
  return g_strdup_printf (_("%s — model calls: %s, tool calls: %s, tokens in: %s, tokens out: %s."),
                          when, models, tools, in, out);
}

static char *
build_summary (GArray *days)
{
  PrsInsightsDay total = { { 0 }, 0, 0, 0, 0 };
  const PrsInsightsDay *busiest = NULL;
  GString *text;
  g_autofree char *first = NULL;
  g_autofree char *last = NULL;
  guint active = 0;

  for (guint i = 0; i < days->len; i++)
    {
      const PrsInsightsDay *day = &g_array_index (days, PrsInsightsDay, i);

      total.model_calls += day->model_calls;
      total.tool_calls += day->tool_calls;
      total.input_tokens += day->input_tokens;
      total.output_tokens += day->output_tokens;
      if (day->model_calls + day->tool_calls > 0)
        active++;
      if (busiest == NULL ||
          day->model_calls + day->tool_calls > busiest->model_calls + busiest->tool_calls)
        busiest = day;
    }
  if (active == 0)
    return g_strdup (_("No calls in this period."));

  first = format_day (g_array_index (days, PrsInsightsDay, 0).day);
  last = format_day (g_array_index (days, PrsInsightsDay, days->len - 1).day);
  {
    g_autofree char *models = g_strdup_printf ("%'" G_GUINT64_FORMAT, total.model_calls);
    g_autofree char *tools = g_strdup_printf ("%'" G_GUINT64_FORMAT, total.tool_calls);
    g_autofree char *in = g_strdup_printf ("%'" G_GUINT64_FORMAT, total.input_tokens);
    g_autofree char *out = g_strdup_printf ("%'" G_GUINT64_FORMAT, total.output_tokens);
    g_autofree char *top_day = format_day (busiest->day);
    g_autofree char *top = g_strdup_printf ("%'" G_GUINT64_FORMAT, busiest->model_calls + busiest->tool_calls);

    text = g_string_new (NULL);
    /* Translators: the first and last day, then totals of the Insights chart */
    g_string_append_printf (text, _("%s to %s. Model calls: %s. Tool calls: %s. Tokens in: %s. Tokens out: %s."),
                            first, last, models, tools, in, out);
    g_string_append_c (text, ' ');
    /* Translators: a day, then how many calls it had */
    g_string_append_printf (text, _("Busiest day: %s, calls: %s."), top_day, top);
  }
  /* Every day with calls, for a month or less; longer periods in totals */
  if (days->len <= 31)
    for (guint i = 0; i < days->len; i++)
      {
        const PrsInsightsDay *day = &g_array_index (days, PrsInsightsDay, i);
        g_autofree char *line = NULL;

        if (day->model_calls + day->tool_calls == 0)
          continue;
        line = describe_day (day);
        g_string_append_c (text, ' ');
        g_string_append (text, line);
      }
  return g_string_free (text, FALSE);
}

/* ---- bars ---- */

/* The days bar @bar of @n_bars stands for */
static void
bar_range (PrsInsightsChart *self,
           guint             bar,
           guint             n_bars,
           guint            *first,
           guint            *end)
{
  *first = (guint) ((guint64) bar * self->days->len / n_bars);
  *end = (guint) ((guint64) (bar + 1) * self->days->len / n_bars);
}

static guint
count_bars (PrsInsightsChart *self,
            double            plot_width)
{
  guint room = (guint) MAX (plot_width / MIN_BAR_SLOT, 1.0);

  return MIN (self->days->len, room);
}

static void
sum_range (PrsInsightsChart *self,
           guint             first,
           guint             end,
           PrsInsightsDay   *out)
{
  memset (out, 0, sizeof *out);
  for (guint i = first; i < end; i++)
    {
      const PrsInsightsDay *day = &g_array_index (self->days, PrsInsightsDay, i);

      out->model_calls += day->model_calls;
      out->tool_calls += day->tool_calls;
      out->input_tokens += day->input_tokens;
      out->output_tokens += day->output_tokens;
    }
}

/* The chart's words are a little smaller than the page's */
static PangoLayout *
small_layout (PrsInsightsChart *self,
              const char       *text)
{
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), text);
  PangoAttrList *attrs = pango_attr_list_new ();

  pango_attr_list_insert (attrs, pango_attr_scale_new (0.85));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  return layout;
}

/* Draws @text at (@x, @y): @align 0 puts its left edge at @x, 1 its right */
static double
append_text (PrsInsightsChart *self,
             GtkSnapshot      *snapshot,
             const char       *text,
             double            x,
             double            y,
             double            align,
             const GdkRGBA    *color)
{
  PangoLayout *layout = small_layout (self, text);
  int width, height;

  pango_layout_get_pixel_size (layout, &width, &height);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT ((float) (x - align * width), (float) y));
  gtk_snapshot_append_layout (snapshot, layout, color);
  gtk_snapshot_restore (snapshot);
  g_object_unref (layout);
  return width;
}

typedef struct
{
  double   x, y, width, height;   /* the plot */
  gboolean tokens;                /* calls or tokens */
  GdkRGBA  first, second, text, line;
} Pane;

static guint64
pane_value (const Pane           *pane,
            const PrsInsightsDay *day,
            gboolean              upper)
{
  if (pane->tokens)
    return upper ? day->output_tokens : day->input_tokens;
  return upper ? day->tool_calls : day->model_calls;
}

/* A swatch and its words ending at @right; returns where they start */
static double
append_key (PrsInsightsChart *self,
            GtkSnapshot      *snapshot,
            double            right,
            double            y,
            const char       *label,
            const GdkRGBA    *color,
            const GdkRGBA    *text_color)
{
  double width = append_text (self, snapshot, label, right, y, 1.0, text_color);

  gtk_snapshot_append_color (snapshot, color,
                             &GRAPHENE_RECT_INIT ((float) (right - width - 14), (float) (y + 4), 10, 10));
  return right - width - 28;
}

/* The highest bar of @pane (days that share a bar add up) */
static guint64
pane_max (PrsInsightsChart *self,
          const Pane       *pane)
{
  guint n_bars = count_bars (self, pane->width);
  guint64 max = 0;

  for (guint bar = 0; bar < n_bars; bar++)
    {
      PrsInsightsDay sum;
      guint first, end;

      bar_range (self, bar, n_bars, &first, &end);
      sum_range (self, first, end, &sum);
      max = MAX (max, pane_value (pane, &sum, FALSE) + pane_value (pane, &sum, TRUE));
    }
  return max;
}

static void
draw_pane (PrsInsightsChart *self,
           GtkSnapshot      *snapshot,
           const Pane       *pane,
           guint64           max,
           const char       *title,
           const char       *lower_label,
           const char       *upper_label)
{
  guint n_bars = count_bars (self, pane->width);
  double slot = pane->width / MAX (n_bars, 1);
  double key = pane->x + pane->width;
  g_autofree char *max_text = g_strdup_printf ("%'" G_GUINT64_FORMAT, max);

  append_text (self, snapshot, title, PADDING, pane->y - TITLE_HEIGHT, 0.0, &pane->text);
  key = append_key (self, snapshot, key, pane->y - TITLE_HEIGHT, upper_label, &pane->second, &pane->text);
  append_key (self, snapshot, key, pane->y - TITLE_HEIGHT, lower_label, &pane->first, &pane->text);

  /* The scale at the left: the highest bar's value at the top line, 0 at the baseline */
  gtk_snapshot_append_color (snapshot, &pane->line,
                             &GRAPHENE_RECT_INIT ((float) pane->x, (float) (pane->y + pane->height), (float) pane->width, 1));
  append_text (self, snapshot, "0", pane->x - 6, pane->y + pane->height - 8, 1.0, &pane->text);
  if (max == 0)
    return;
  gtk_snapshot_append_color (snapshot, &pane->line,
                             &GRAPHENE_RECT_INIT ((float) pane->x, (float) pane->y, (float) pane->width, 1));
  append_text (self, snapshot, max_text, pane->x - 6, pane->y - 8, 1.0, &pane->text);

  for (guint bar = 0; bar < n_bars; bar++)
    {
      PrsInsightsDay sum;
      guint first, end;
      double lower, upper, x = pane->x + bar * slot + slot * 0.15, width = MAX (slot * 0.7, 1.0);

      bar_range (self, bar, n_bars, &first, &end);
      sum_range (self, first, end, &sum);
      lower = pane->height * pane_value (pane, &sum, FALSE) / max;
      upper = pane->height * pane_value (pane, &sum, TRUE) / max;
      if (lower > 0)
        gtk_snapshot_append_color (snapshot, &pane->first,
                                   &GRAPHENE_RECT_INIT ((float) x, (float) (pane->y + pane->height - lower),
                                                        (float) width, (float) lower));
      if (upper > 0)
        gtk_snapshot_append_color (snapshot, &pane->second,
                                   &GRAPHENE_RECT_INIT ((float) x, (float) (pane->y + pane->height - lower - upper),
                                                        (float) width, (float) upper));
    }
}

/* How wide the scale's words are */
static double
text_width (PrsInsightsChart *self,
            guint64           value)
{
  g_autofree char *text = g_strdup_printf ("%'" G_GUINT64_FORMAT, value);
  PangoLayout *layout = small_layout (self, text);
  int width, height;

  pango_layout_get_pixel_size (layout, &width, &height);
  g_object_unref (layout);
  return width;
}

/* Colours from the style: the accent for the first series, the same
 * lighter for the second, the text colour for words and lines */
static void
pane_colors (PrsInsightsChart *self,
             Pane             *pane)
{
  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  GtkStyleContext *context = gtk_widget_get_style_context (GTK_WIDGET (self));

  if (!gtk_style_context_lookup_color (context, "accent_bg_color", &pane->first))
    gdk_rgba_parse (&pane->first, "#3584e4");
  gtk_style_context_get_color (context, &pane->text);
  G_GNUC_END_IGNORE_DEPRECATIONS
  pane->second = pane->first;
  pane->second.alpha *= 0.4f;
  pane->line = pane->text;
  pane->line.alpha *= 0.15f;
}

static void
prs_insights_chart_snapshot (GtkWidget   *widget,
                             GtkSnapshot *snapshot)
{
  PrsInsightsChart *self = PRS_INSIGHTS_CHART (widget);
  double width = gtk_widget_get_width (widget), height = gtk_widget_get_height (widget);
  double pane_height = (height - 2 * PADDING - 2 * TITLE_HEIGHT - PANE_GAP - AXIS_HEIGHT) / 2;
  double gutter;
  guint64 calls_max, tokens_max;
  Pane calls = { 0 }, tokens;

  self->n_drawn = 0;
  if (self->days == NULL || self->days->len == 0 || pane_height < 10 || width < 8 * PADDING)
    return;

  pane_colors (self, &calls);
  calls.y = PADDING + TITLE_HEIGHT;
  calls.height = pane_height;
  /* First as wide as it can be, to know the scales; then beside them */
  calls.x = PADDING;
  calls.width = width - 2 * PADDING;
  tokens = calls;
  tokens.tokens = TRUE;
  tokens.y = calls.y + pane_height + PANE_GAP + TITLE_HEIGHT;
  calls_max = pane_max (self, &calls);
  tokens_max = pane_max (self, &tokens);
  gutter = MAX (text_width (self, calls_max), text_width (self, tokens_max)) + 10;
  calls.x = tokens.x = PADDING + gutter;
  calls.width = tokens.width = width - 2 * PADDING - gutter;
  calls_max = pane_max (self, &calls);
  tokens_max = pane_max (self, &tokens);

  draw_pane (self, snapshot, &calls, calls_max, _("Calls per day"), _("Model calls"), _("Tool calls"));
  draw_pane (self, snapshot, &tokens, tokens_max, _("Tokens per day"), _("In"), _("Out"));

  /* The first and the last day under the bars */
  {
    g_autofree char *first = format_day (g_array_index (self->days, PrsInsightsDay, 0).day);
    g_autofree char *last = format_day (g_array_index (self->days, PrsInsightsDay, self->days->len - 1).day);
    double y = tokens.y + pane_height + 4;

    append_text (self, snapshot, first, tokens.x, y, 0.0, &calls.text);
    if (self->days->len > 1)
      append_text (self, snapshot, last, tokens.x + tokens.width, y, 1.0, &calls.text);
  }
  self->n_drawn = count_bars (self, calls.width);
  self->plot_x = calls.x;
  self->plot_width = calls.width;
}

static void
prs_insights_chart_measure (GtkWidget      *widget,
                            GtkOrientation  orientation,
                            int             for_size,
                            int            *minimum,
                            int            *natural,
                            int            *minimum_baseline,
                            int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = 240;
      *natural = 640;
    }
  else
    {
      *minimum = 220;
      *natural = 280;
    }
}

static gboolean
prs_insights_chart_query_tooltip (GtkWidget  *widget,
                                  int         x,
                                  int         y,
                                  gboolean    keyboard_mode,
                                  GtkTooltip *tooltip)
{
  PrsInsightsChart *self = PRS_INSIGHTS_CHART (widget);
  guint n_bars, bar, first, end;
  GString *text;

  if (self->n_drawn == 0 || keyboard_mode || x < self->plot_x || x >= self->plot_x + self->plot_width)
    return FALSE;
  n_bars = count_bars (self, self->plot_width);
  bar = MIN ((guint) ((x - self->plot_x) / (self->plot_width / n_bars)), n_bars - 1);
  bar_range (self, bar, n_bars, &first, &end);
  text = g_string_new (NULL);
  for (guint i = first; i < end; i++)
    {
      g_autofree char *line = describe_day (&g_array_index (self->days, PrsInsightsDay, i));

      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, line);
    }
  gtk_tooltip_set_text (tooltip, text->str);
  g_string_free (text, TRUE);
  return TRUE;
}

/* ---- life ---- */

void
prs_insights_chart_set_days (PrsInsightsChart *self,
                             GArray           *days)
{
  g_return_if_fail (PRS_IS_INSIGHTS_CHART (self));

  g_clear_pointer (&self->days, g_array_unref);
  self->days = g_array_new (FALSE, TRUE, sizeof (PrsInsightsDay));
  if (days != NULL && days->len > 0)
    g_array_append_vals (self->days, days->data, days->len);
  g_free (self->summary);
  self->summary = build_summary (self->days);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, self->summary, -1);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
prs_insights_chart_get_n_drawn (PrsInsightsChart *self)
{
  g_return_val_if_fail (PRS_IS_INSIGHTS_CHART (self), 0);
  return self->n_drawn;
}

const char *
prs_insights_chart_get_summary (PrsInsightsChart *self)
{
  g_return_val_if_fail (PRS_IS_INSIGHTS_CHART (self), NULL);
  return self->summary;
}

GtkWidget *
prs_insights_chart_new (void)
{
  return g_object_new (PRS_TYPE_INSIGHTS_CHART, NULL);
}

static void
prs_insights_chart_finalize (GObject *object)
{
  PrsInsightsChart *self = PRS_INSIGHTS_CHART (object);

  g_clear_pointer (&self->days, g_array_unref);
  g_free (self->summary);

  G_OBJECT_CLASS (prs_insights_chart_parent_class)->finalize (object);
}

static void
prs_insights_chart_class_init (PrsInsightsChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = prs_insights_chart_finalize;
  widget_class->snapshot = prs_insights_chart_snapshot;
  widget_class->measure = prs_insights_chart_measure;
  widget_class->query_tooltip = prs_insights_chart_query_tooltip;
  gtk_widget_class_set_css_name (widget_class, "insightschart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);
}

static void
prs_insights_chart_init (PrsInsightsChart *self)
{
  AdwStyleManager *style = adw_style_manager_get_default ();

  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self),
                                  GTK_ACCESSIBLE_PROPERTY_LABEL, _("Calls and tokens per day"), -1);
  /* The colours are read at each snapshot: a change of style redraws */
  g_signal_connect_object (style, "notify::dark", G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (style, "notify::high-contrast", G_CALLBACK (gtk_widget_queue_draw), self,
                           G_CONNECT_SWAPPED);
  prs_insights_chart_set_days (self, NULL);
}
