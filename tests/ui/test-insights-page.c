/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-insights-page.c: the Insights page in the real window under Xvfb:
 * reached through win.show-insights, it shows a seeded store's figures
 * (in selectable labels and as copied text), the period picker reads
 * again, the chart draws a bar per day in the style's accent colour and
 * follows the dark style, says its data to assistive technologies, and an
 * empty store says so. */
#include "config.h"

#include <string.h>

#include <adwaita.h>

#include "prs-insights-chart.h"
#include "prs-insights-page.h"
#include "prs-providers.h"
#include "prs-runner.h"
#include "prs-service.h"
#include "prs-store-insights.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char       *data_dir;
  PrsService *service;
  PrsWindow  *window;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-insights-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->window != NULL)
    {
      gtk_window_destroy (GTK_WINDOW (f->window));
      g_clear_object (&f->window);
    }
  if (f->service != NULL)
    {
      prs_service_stop (f->service);
      g_clear_object (&f->service);
    }
  while (g_main_context_iteration (NULL, FALSE))
    ;
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_DEFAULT);
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
}

/* ---- seeding: one run today with a failover and two tool calls ---- */

static char *
now_plus_ms (gint64 ms)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autoptr(GDateTime) later = g_date_time_add (now, ms * 1000);
  g_autofree char *seconds = g_date_time_format (later, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (later) / 1000);
}

static void
seed (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new (f->data_dir, &error);
  g_autofree char *conversation = NULL;
  g_autofree char *sql = NULL;
  g_autofree char *t0 = now_plus_ms (0);
  g_autofree char *t1 = now_plus_ms (500);
  g_autofree char *t2 = now_plus_ms (1500);
  PrsModelCallInsert calls[] = {
    { "run-1", "prosponsive", "p-cloud", "Cloud", "gpt-4o", PRS_MODEL_CALL_FAILED_OVER, -1, 300, 0, 0, NULL },
    { "run-1", "prosponsive", "p-local", "Local", "qwen2.5", PRS_MODEL_CALL_ANSWERED, 240, 1200, 1500, 120, NULL },
    { "run-1", "prosponsive", "p-local", "Local", "qwen2.5", PRS_MODEL_CALL_ANSWERED, 80, 900, 2500, 80, NULL },
  };

  g_assert_no_error (error);
  g_assert_true (prs_store_resolve_conversation (store, "inbox", &conversation, NULL, &error));
  sql = g_strdup_printf (
    "INSERT INTO runs (id, conversation_id, agent_id, origin, status, created_at, updated_at)"
    " VALUES ('run-1', '%s', 'prosponsive', 'chat', 'completed', '%s', '%s');"
    "INSERT INTO tool_calls (id, run_id, message_id, round, position, name, arguments_json, status,"
    " created_at, updated_at, started_at) VALUES"
    " ('c1', 'run-1', 'm1', 1, 0, 'send_mail', '{}', 'succeeded', '%s', '%s', '%s'),"
    " ('c2', 'run-1', 'm2', 1, 1, 'send_mail', '{}', 'denied', '%s', '%s', NULL);",
    conversation, t0, t0, t0, t2, t1, t0, t0);
  prs_test_store_exec (store, sql);
  g_assert_true (prs_store_add_model_calls (store, calls, G_N_ELEMENTS (calls), &error));
  g_assert_no_error (error);
}

static void
open_window (Fixture *f)
{
  g_autoptr(GError) error = NULL;

  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);
  f->window = prs_window_new (NULL, f->service);
  g_object_ref_sink (f->window);
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1060, 900);
  gtk_window_present (GTK_WINDOW (f->window));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
}

static gboolean
page_read (gpointer data)
{
  return !prs_insights_page_is_loading (data);
}

static PrsInsightsPage *
show_page (Fixture *f)
{
  PrsInsightsPage *page = prs_window_get_insights_page (f->window);

  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-insights", NULL);
  g_assert_true (prs_test_wait_until (page_read, page));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  return page;
}

/* The page never asks for more width than the window's content has at
 * the least (360 px), with figures or without: else the window folds */
static void
assert_narrow (PrsInsightsPage *page)
{
  int minimum, natural;

  gtk_widget_measure (GTK_WIDGET (page), GTK_ORIENTATION_HORIZONTAL, -1, &minimum, &natural, NULL, NULL);
  g_assert_cmpint (minimum, <=, 360);
}

static gboolean
has_figures (GtkWidget *stack,
             gpointer   data)
{
  return gtk_stack_get_child_by_name (GTK_STACK (stack), "figures") != NULL;
}

/* The page's stack (the period drop-down has one of its own) */
static GtkStack *
page_stack (PrsInsightsPage *page)
{
  return GTK_STACK (prs_test_find_widget (GTK_WIDGET (page), GTK_TYPE_STACK, has_figures, NULL));
}

/* ---- the figures ---- */

static void
assert_label (GtkWidget  *root,
              const char *text)
{
  GtkWidget *label = prs_test_find_label (root, text);

  if (label == NULL)
    g_error ("no label “%s” on the page", text);
  g_assert_true (gtk_widget_get_mapped (label));
  g_assert_true (gtk_label_get_selectable (GTK_LABEL (label)));
}

static void
test_figures (Fixture       *f,
              gconstpointer  data)
{
  PrsInsightsPage *page;
  g_autofree char *models = NULL;
  g_autofree char *agents = NULL;
  g_autofree char *tools = NULL;

  seed (f);
  open_window (f);
  page = show_page (f);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (page)));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page_stack (page)), ==, "figures");
  g_assert_cmpint (prs_insights_page_get_period (page), ==, PRS_INSIGHTS_7_DAYS);
  assert_narrow (page);

  /* What a person reads, in labels they can select */
  assert_label (GTK_WIDGET (page), "qwen2.5");
  assert_label (GTK_WIDGET (page), "Local");
  assert_label (GTK_WIDGET (page), "4000");
  assert_label (GTK_WIDGET (page), "240 ms");
  assert_label (GTK_WIDGET (page), "1.2 s");
  assert_label (GTK_WIDGET (page), "send_mail");
  assert_label (GTK_WIDGET (page), "50%");
  assert_label (GTK_WIDGET (page), "1.0 s");

  /* And what Copy puts on the clipboard: every figure, tab-separated */
  models = prs_insights_page_dup_table (page, "models");
  g_assert_cmpstr (models, ==,
                   "Provider\tModel\tRuns\tCalls\tTokens In\tTokens Out\tFirst Token p50\tFirst Token p95\t"
                   "Total p50\tTotal p95\tFailures\tFailovers\n"
                   "Local\tqwen2.5\t1\t2\t4000\t200\t80 ms\t240 ms\t900 ms\t1.2 s\t0\t0\n"
                   "Cloud\tgpt-4o\t1\t1\t0\t0\t—\t—\t—\t—\t1\t1\n");
  agents = prs_insights_page_dup_table (page, "agents");
  g_assert_cmpstr (agents, ==,
                   "Agent ID\tAgent\tRuns\tTokens In\tTokens Out\n"
                   "prosponsive\tProsponsive\t1\t4000\t200\n");
  tools = prs_insights_page_dup_table (page, "tools");
  g_assert_cmpstr (tools, ==,
                   "Tool\tCalls\tApproved\tSucceeded\tDuration p50\tDuration p95\n"
                   "send_mail\t2\t50%\t100%\t1.0 s\t1.0 s\n");
}

static void
on_clipboard_text (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  char **out = user_data;

  *out = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  if (*out == NULL)
    *out = g_strdup ("");
}

static gboolean
is_copy_button (GtkWidget *widget,
                gpointer   data)
{
  return g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "insights.copy") == 0;
}

static void
test_copy (Fixture       *f,
           gconstpointer  data)
{
  PrsInsightsPage *page;
  g_autofree char *text = NULL;
  g_autofree char *expected = NULL;
  GtkWidget *button;

  seed (f);
  open_window (f);
  page = show_page (f);
  /* The first Copy button, the models' */
  button = prs_test_find_widget (GTK_WIDGET (page), GTK_TYPE_BUTTON, is_copy_button, NULL);
  g_assert_nonnull (button);
  g_assert_true (gtk_widget_get_mapped (button));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "insights.copy", "s", "tools"));
  gdk_clipboard_read_text_async (gtk_widget_get_clipboard (GTK_WIDGET (page)), NULL, on_clipboard_text, &text);
  while (text == NULL)
    g_main_context_iteration (NULL, TRUE);
  expected = prs_insights_page_dup_table (page, "tools");
  g_assert_cmpstr (text, ==, expected);
}

/* ---- the chart ---- */

typedef struct
{
  GArray *fills;   /* GdkRGBA of the colour nodes (bars, lines, swatches) */
  GArray *texts;   /* GdkRGBA of the text nodes */
} Colors;

static void
collect_colors (GskRenderNode *node,
                Colors        *colors)
{
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        collect_colors (gsk_container_node_get_child (node, i), colors);
      break;
    case GSK_TRANSFORM_NODE:
      collect_colors (gsk_transform_node_get_child (node), colors);
      break;
    case GSK_COLOR_NODE:
      g_array_append_vals (colors->fills, gsk_color_node_get_color (node), 1);
      break;
    case GSK_TEXT_NODE:
      g_array_append_vals (colors->texts, gsk_text_node_get_color (node), 1);
      break;
    default:
      break;
    }
}

/* The chart as the renderer gets it: its colours */
static Colors
chart_colors (PrsInsightsChart *chart)
{
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  Colors colors = { g_array_new (FALSE, FALSE, sizeof (GdkRGBA)), g_array_new (FALSE, FALSE, sizeof (GdkRGBA)) };

  GTK_WIDGET_GET_CLASS (chart)->snapshot (GTK_WIDGET (chart), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  collect_colors (node, &colors);
  gsk_render_node_unref (node);
  return colors;
}

static gboolean
has_color (GArray        *colors,
           const GdkRGBA *color)
{
  for (guint i = 0; i < colors->len; i++)
    if (gdk_rgba_equal (&g_array_index (colors, GdkRGBA, i), color))
      return TRUE;
  return FALSE;
}

static double
lightness (const GdkRGBA *color)
{
  return 0.2126 * color->red + 0.7152 * color->green + 0.0722 * color->blue;
}

static void
test_chart (Fixture       *f,
            gconstpointer  data)
{
  PrsInsightsPage *page;
  PrsInsightsChart *chart;
  g_autoptr(GtkCssProvider) css = NULL;
  GdkRGBA accent;
  Colors light, dark;
  const char *summary;

  seed (f);
  open_window (f);
  page = show_page (f);
  chart = PRS_INSIGHTS_CHART (prs_test_find_widget (GTK_WIDGET (page), PRS_TYPE_INSIGHTS_CHART, NULL, NULL));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (chart)));
  /* Seven days, a bar each */
  g_assert_cmpuint (prs_insights_chart_get_n_drawn (chart), ==, 7);

  /* A changed accent colour (a theme's, a person's style sheet) is the bars' */
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css, "@define-color accent_bg_color #e01b24;", -1);
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_USER);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  gdk_rgba_parse (&accent, "#e01b24");
  light = chart_colors (chart);
  g_assert_true (has_color (light.fills, &accent));
  g_assert_cmpuint (light.texts->len, >, 0);
  g_assert_cmpfloat (lightness (&g_array_index (light.texts, GdkRGBA, 0)), <, 0.5);

  /* The dark style: light words, the accent still */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  dark = chart_colors (chart);
  g_assert_true (has_color (dark.fills, &accent));
  g_assert_cmpfloat (lightness (&g_array_index (dark.texts, GdkRGBA, 0)), >, 0.5);
  g_assert_cmpuint (prs_insights_chart_get_n_drawn (chart), ==, 7);

  /* In words for assistive technologies: the totals and each day with calls */
  summary = prs_insights_chart_get_summary (chart);
  g_assert_nonnull (strstr (summary, "Model calls: 3. Tool calls: 2. Tokens in: 4000. Tokens out: 200."));
  g_assert_nonnull (strstr (summary, "model calls: 3, tool calls: 2, tokens in: 4000, tokens out: 200."));

  /* Today alone: one bar */
  prs_insights_page_set_period (page, PRS_INSIGHTS_TODAY);
  g_assert_true (prs_test_wait_until (page_read, page));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  g_assert_cmpuint (prs_insights_chart_get_n_drawn (chart), ==, 1);

  gtk_style_context_remove_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css));
  g_array_unref (light.fills);
  g_array_unref (light.texts);
  g_array_unref (dark.fills);
  g_array_unref (dark.texts);
}

/* A run while the page shows: the page reads again by itself, and the
 * run's model call, recorded by the run, is there */
static gboolean
figures_shown (gpointer data)
{
  PrsInsightsPage *page = data;

  return !prs_insights_page_is_loading (page) &&
         g_strcmp0 (gtk_stack_get_visible_child_name (page_stack (page)), "figures") == 0;
}

static void
test_live (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(PrsTestProvider) provider =
    prs_test_provider_start ("{'kind':'openai','turns':[{'response':{'chunks':['Hel','lo.'],"
                             "'initial_delay':0.1,'usage':{'input':21,'output':3}}}]}");
  g_autofree char *url = prs_test_provider_base_url (provider, "openai");
  g_autofree char *conversation = NULL;
  g_autofree char *message_id = NULL;
  g_autofree char *models = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  PrsMessageInsert insert = { 0 };
  PrsInsightsPage *page;

  open_window (f);
  g_assert_true (prs_providers_add (prs_service_get_providers (f->service), "openai", "Scripted", url,
                                    "model-a", 0, "sk-test", NULL, &error));
  g_assert_no_error (error);
  page = show_page (f);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page_stack (page)), ==, "empty");

  g_assert_true (prs_store_resolve_conversation (prs_service_get_store (f->service), "inbox",
                                                 &conversation, NULL, &error));
  insert.conversation_id = conversation;
  insert.kind = "user";
  insert.content = "Hi";
  g_assert_true (prs_store_insert_message (prs_service_get_store (f->service), &insert, &message_id, NULL, &error));
  run = prs_runner_start_chat (prs_service_get_runner (f->service), conversation, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (run);

  g_assert_true (prs_test_wait_until (figures_shown, page));
  models = prs_insights_page_dup_table (page, "models");
  g_assert_nonnull (g_strrstr (models, "Scripted\tmodel-a\t1\t1\t21\t3\t"));
  /* Its first token and total time were measured */
  g_assert_null (g_strrstr (models, "\t—\t"));
}

static void
test_empty (Fixture       *f,
            gconstpointer  data)
{
  PrsInsightsPage *page;

  open_window (f);
  page = show_page (f);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page_stack (page)), ==, "empty");
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (page), "Nothing Happened in This Period"));
  assert_narrow (page);
  prs_insights_page_set_period (page, PRS_INSIGHTS_ALL);
  g_assert_true (prs_test_wait_until (page_read, page));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (page_stack (page)), ==, "empty");
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GtkCssProvider) style = NULL;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  /* The application's style sheet, as AdwApplication loads it */
  style = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (style, RESOURCE_PREFIX "/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (style),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/ui/insights/figures", test_figures);
  ADD ("/ui/insights/copy", test_copy);
  ADD ("/ui/insights/chart", test_chart);
  ADD ("/ui/insights/empty", test_empty);
  ADD ("/ui/insights/live", test_live);
#undef ADD

  return g_test_run ();
}
