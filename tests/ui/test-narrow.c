/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-narrow.c: the main window and its editors at a phone's width.
 * GNOME's HIG and the phones running GNOME (Librem 5, PinePhone: 360 × 720
 * logical pixels) ask for 360 (docs/conversations.md "The window"). Every
 * page the window can show, on the demo data, measured
 * (gtk_widget_measure) and shown in a window really resized to 360 × 720
 * under Xvfb: nothing asks for more width, no widget is drawn lower than
 * it asks for its width (it would overlap the next), no status page cuts
 * its text; on the Agents page the buttons go under the description and
 * an id cut short is whole in its tooltip and accessible description.
 * GTK's warnings are fatal here (G_DEBUG=fatal-warnings). */
#include "config.h"

#include "prs-agent-seed.h"
#include "prs-agents-page.h"
#include "prs-demo-seed.h"
#include "prs-heading.h"
#include "prs-search-panel.h"
#include "prs-tool-card.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

#define NARROW_WIDTH 360
#define NARROW_HEIGHT 720

typedef struct
{
  char       *data_dir;
  PrsService *service;
  PrsWindow  *window;
} Fixture;

static void
seed_schedule (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  PrsScheduleRow row = { 0 };

  row.name = (char *) "Morning briefing on weekdays";
  row.conversation_slug = (char *) "daily-briefing";
  row.agent_id = (char *) "prosponsive";
  row.prompt = (char *) "What is on my plate today?";
  row.recurrence_json = (char *) "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"mon\",\"tue\",\"wed\",\"thu\",\"fri\"]}";
  row.enabled = TRUE;
  row.missed = (char *) "run";
  row.base_at = g_get_real_time () / G_USEC_PER_SEC;
  g_assert_true (prs_store_add_schedule (store, &row, NULL, &error));
  g_assert_no_error (error);
}

/* The demo conversations, the agent editor's tools and agents, a schedule;
 * then the window, presented at 360 × 720 */
static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *inbox = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-narrow-XXXXXX", &error);
  g_assert_no_error (error);
  store = prs_store_new (f->data_dir, &error);
  g_assert_no_error (error);
  prs_demo_seed (store);
  prs_agent_seed_tools (store);
  prs_agent_seed_agents (store);
  seed_schedule (store);
  g_clear_object (&store);

  f->window = prs_test_window_open (f->data_dir, NARROW_WIDTH, NARROW_HEIGHT, &f->service);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  prs_test_window_close (&f->window, &f->service);
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
}

static int
min_width (GtkWidget *widget)
{
  int minimum = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
  return minimum;
}

/* What asks for the width, for the failure's message: from @widget down
 * through the child that asks for most (popovers apart: they are not
 * measured with their parent), each with its minimum width */
static char *
widest_chain (GtkWidget *widget)
{
  GString *chain = g_string_new (NULL);

  while (widget != NULL)
    {
      GtkWidget *widest = NULL;

      g_string_append_printf (chain, "%s%s(%s) %d", chain->len > 0 ? " > " : "", G_OBJECT_TYPE_NAME (widget),
                              gtk_widget_get_name (widget), min_width (widget));
      for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        if (!GTK_IS_NATIVE (child) && (widest == NULL || min_width (child) > min_width (widest)))
          widest = child;
      widget = widest;
    }
  return g_string_free (chain, FALSE);
}

/* Every status page under @root shows all it says: its own scrolled
 * window, sized for a wider width, cut its text short at a phone's */
static void
assert_status_pages_whole (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_STATUS_PAGE (child) && gtk_widget_get_mapped (child))
        {
          GtkWidget *scrolled = prs_test_find_widget (child, GTK_TYPE_SCROLLED_WINDOW, NULL, NULL);
          GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));

          g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), <=, gtk_adjustment_get_page_size (adjustment));
        }
      assert_status_pages_whole (child);
    }
}

/* The height @widget was given with its margins, borders and padding, as
 * gtk_widget_measure () counts them */
static int
outer_height (GtkWidget *widget)
{
  GtkStyleContext *style = gtk_widget_get_style_context (widget);
  GtkBorder margin, border, padding;

  gtk_style_context_get_margin (style, &margin);
  gtk_style_context_get_border (style, &border);
  gtk_style_context_get_padding (style, &padding);
  return gtk_widget_get_height (widget) + margin.top + margin.bottom + border.top + border.bottom + padding.top +
         padding.bottom + gtk_widget_get_margin_top (widget) + gtk_widget_get_margin_bottom (widget);
}

static int
outer_width (GtkWidget *widget)
{
  GtkStyleContext *style = gtk_widget_get_style_context (widget);
  GtkBorder margin, border, padding;

  gtk_style_context_get_margin (style, &margin);
  gtk_style_context_get_border (style, &border);
  gtk_style_context_get_padding (style, &padding);
  return gtk_widget_get_width (widget) + margin.left + margin.right + border.left + border.right + padding.left +
         padding.right + gtk_widget_get_margin_start (widget) + gtk_widget_get_margin_end (widget);
}

/* No widget under @root is drawn lower than it asks to be for its width:
 * one that is overlaps the next (a flow box measured on one line and laid
 * out on two) */
static void
assert_heights (GtkWidget  *root,
                const char *page)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      int minimum = 0;

      if (!gtk_widget_get_mapped (child) || GTK_IS_NATIVE (child))
        continue;
      /* What scrolls is given less than it asks for by design */
      if (!GTK_IS_SCROLLABLE (child))
        {
          gtk_widget_measure (child, GTK_ORIENTATION_VERTICAL, outer_width (child), &minimum, NULL, NULL, NULL);
          if (outer_height (child) < minimum)
            g_error ("%s: a %s %d px high for %d px wide asks for %d", page, G_OBJECT_TYPE_NAME (child),
                     outer_height (child), outer_width (child), minimum);
        }
      assert_heights (child, page);
    }
}

/* @window fits a phone: what it shows asks for no more than 360 px, and it
 * is no wider once drawn at 360 × 720. The window's own size holds the
 * frame GTK draws around it under Xvfb, which has no compositor; a phone's
 * compositor shows the window without one, so its content is what counts */
static void
assert_fits (GtkWidget  *window,
             const char *page)
{
  GtkWidget *content = gtk_window_get_child (GTK_WINDOW (window));

  prs_test_wait_frames (window, 4);
  g_assert_nonnull (content);
  if (min_width (content) > NARROW_WIDTH)
    {
      g_autofree char *chain = widest_chain (content);

      g_error ("%s asks for %d px, over %d: %s", page, min_width (content), NARROW_WIDTH, chain);
    }
  g_assert_cmpint (gtk_widget_get_width (window), <=, NARROW_WIDTH);
  assert_status_pages_whole (window);
  assert_heights (window, page);
}

static gboolean
answered (gpointer data)
{
  PrsSearchList *results = prs_search_panel_get_results (data);

  return !prs_search_list_get_searching (results) &&
         g_strcmp0 (prs_search_list_get_answered (results), "budget") == 0;
}

static gboolean
insights_loaded (gpointer data)
{
  return !prs_insights_page_is_loading (data);
}

static void
open_conversation (Fixture    *f,
                   const char *slug)
{
  g_autoptr(PrsStore) store = prs_store_new (f->data_dir, NULL);
  g_autofree char *id = NULL;

  g_assert_true (prs_store_resolve_conversation (store, slug, &id, NULL, NULL));
  prs_window_select_conversation (f->window, id);
}

/* The periods' drop-down, shown where the buttons do not fit (a long
 * translation), chooses as they do and follows them */
static void
assert_period_drop_down (PrsInsightsPage *page)
{
  GtkDropDown *periods = GTK_DROP_DOWN (prs_test_find_widget (GTK_WIDGET (page), GTK_TYPE_DROP_DOWN, NULL, NULL));

  g_assert_nonnull (periods);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (periods)), ==, 4);
  g_assert_cmpuint (gtk_drop_down_get_selected (periods), ==, PRS_INSIGHTS_7_DAYS);
  gtk_drop_down_set_selected (periods, PRS_INSIGHTS_TODAY);
  g_assert_cmpint (prs_insights_page_get_period (page), ==, PRS_INSIGHTS_TODAY);
  prs_insights_page_set_period (page, PRS_INSIGHTS_ALL);
  g_assert_cmpuint (gtk_drop_down_get_selected (periods), ==, PRS_INSIGHTS_ALL);
  g_assert_true (prs_test_wait_until (insights_loaded, page));
}

/* The waiting call's card in @window: its tool's name on one line, its
 * status pill beside it (@beside) or under it. Side by side at a phone's
 * width, the pill left the name too little, and it broke mid-word
 * ("email_move_t" / "o_folder") */
static void
assert_tool_heading (GtkWidget *window,
                     gboolean   beside)
{
  GtkWidget *card = prs_test_find_widget (window, PRS_TYPE_TOOL_CARD, NULL, NULL);
  GtkWidget *heading = prs_test_find_widget (card, PRS_TYPE_HEADING, NULL, NULL);
  GtkWidget *name = gtk_widget_get_next_sibling (gtk_widget_get_first_child (heading));

  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (name)), ==, "email_move_to_folder");
  g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (GTK_LABEL (name))), ==, 1);
  g_assert_cmpint (prs_heading_badge_beside (PRS_HEADING (heading)), ==, beside);
}

static gboolean
is_agent_id (GtkWidget *widget,
             gpointer   data)
{
  return gtk_widget_has_css_class (widget, "agent-id");
}

static gboolean
is_agent_heading (GtkWidget *widget,
                  gpointer   data)
{
  return gtk_widget_has_css_class (widget, "agent-heading");
}

/* The Agents page: its heading's buttons beside the description (@beside)
 * or under it, the description given most of the width; each agent's id
 * beside its name and description in a wide window and under them at a
 * phone's width, where beside them it cut the id to "execut…-agent" and
 * left the description a column of two words: drawn within its row,
 * whole, and whole in its tooltip and accessible description too */
static void
assert_agents_page (PrsWindow *window,
                    gboolean   beside)
{
  PrsAgentsPage *page = prs_window_get_agents_page (window);
  GtkWidget *heading = prs_test_find_widget (GTK_WIDGET (page), PRS_TYPE_HEADING, NULL, NULL);
  const char *ids[] = { "prosponsive", "executive-assistant-email-agent" };

  g_assert_nonnull (heading);
  g_assert_cmpint (prs_heading_badge_beside (PRS_HEADING (heading)), ==, beside);
  /* The title and description, the heading's first child, are not a column of a few words */
  g_assert_cmpint (gtk_widget_get_width (gtk_widget_get_first_child (heading)), >=,
                   beside ? 240 : gtk_widget_get_width (heading) - 1);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      GtkWidget *row = prs_agents_page_get_row (page, ids[i]);
      GtkWidget *id = prs_test_find_widget (row, GTK_TYPE_LABEL, is_agent_id, NULL);
      GtkWidget *row_heading = prs_test_find_widget (row, PRS_TYPE_HEADING, is_agent_heading, NULL);
      g_autofree char *tooltip = NULL;
      graphene_rect_t bounds, text;

      g_assert_nonnull (id);
      g_assert_nonnull (row_heading);
      g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (id)), ==, ids[i]);
      g_assert_cmpint (prs_heading_badge_beside (PRS_HEADING (row_heading)), ==, beside);
      g_assert_true (gtk_widget_compute_bounds (id, row, &bounds));
      g_assert_true (gtk_widget_compute_bounds (gtk_widget_get_first_child (row_heading), row, &text));
      g_assert_cmpfloat (bounds.origin.x, >=, 0);
      g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (row));
      if (beside)
        g_assert_cmpfloat (bounds.origin.x, >=, text.origin.x + text.size.width);
      else
        {
          /* Under the name and description, which have the row's width but its buttons' */
          g_assert_cmpfloat (bounds.origin.y, >=, text.origin.y + text.size.height);
          g_assert_cmpfloat_with_epsilon (bounds.origin.x, text.origin.x, 0.5);
          g_assert_cmpfloat (text.size.width, >=, 200);
        }
      g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (id))));
      tooltip = g_strdup (gtk_widget_get_tooltip_text (id));
      g_assert_true (g_str_has_prefix (tooltip, ids[i]));
      gtk_test_accessible_assert_property (GTK_ACCESSIBLE (id), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, tooltip);
    }
}

/* The window at 1060 px resized to 360 (a real resize of the X window),
 * then each page it can show: the sidebar, each demo conversation, the
 * search, Tools, Agents, Schedules, Insights */
static void
test_pages (Fixture       *f,
            gconstpointer  data)
{
  GtkWidget *window = GTK_WIDGET (f->window);
  const char *slugs[] = { "email-inbox", "support-tickets", "daily-briefing", "home-automation" };
  GtkWidget *panel;

  gtk_window_set_default_size (GTK_WINDOW (f->window), 1060, NARROW_HEIGHT);
  open_conversation (f, "email-inbox");
  prs_test_wait_frames (window, 4);
  g_assert_cmpint (gtk_widget_get_width (window), >, 1000);
  /* Unfolded, with the margins of a wide window, a waiting call's card
   * fits the content's 360 px too: were it wider, the window would fold
   * below that, and folded, with narrower margins, fit again */
  g_assert_cmpint (min_width (GTK_WIDGET (prs_window_get_conversation_view (f->window))), <=, NARROW_WIDTH);
  assert_tool_heading (window, TRUE);

  gtk_window_set_default_size (GTK_WINDOW (f->window), NARROW_WIDTH, NARROW_HEIGHT);
  assert_fits (window, "the conversation list");
  for (guint i = 0; i < G_N_ELEMENTS (slugs); i++)
    {
      open_conversation (f, slugs[i]);
      assert_fits (window, slugs[i]);
    }
  /* Folded, the messages' margins leave a card most of the width: with a
   * wide window's, a tool's name had four characters a line */
  open_conversation (f, "email-inbox");
  prs_test_wait_frames (window, 4);
  g_assert_cmpint (gtk_widget_get_width (prs_test_find_widget (window, PRS_TYPE_TOOL_CARD, NULL, NULL)), >=, 290);
  assert_tool_heading (window, FALSE);

  gtk_widget_activate_action (window, "win.search", NULL);
  panel = prs_test_find_widget (window, PRS_TYPE_SEARCH_PANEL, NULL, NULL);
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_widget (prs_test_find_widget (window, GTK_TYPE_SEARCH_BAR, NULL, NULL),
                                                             GTK_TYPE_SEARCH_ENTRY, NULL, NULL)),
                         "budget");
  g_assert_true (prs_test_wait_until (answered, panel));
  assert_fits (window, "the search");
  gtk_widget_activate_action (window, "win.search", NULL);

  gtk_widget_activate_action (window, "win.show-tools", NULL);
  assert_fits (window, "Tools");
  gtk_widget_activate_action (window, "win.show-agents", NULL);
  assert_fits (window, "Agents");
  assert_agents_page (f->window, FALSE);
  prs_test_screenshot (window, "narrow-agents");
  gtk_widget_activate_action (window, "win.show-schedules", NULL);
  assert_fits (window, "Schedules");
  gtk_widget_activate_action (window, "win.show-insights", NULL);
  g_assert_true (prs_test_wait_until (insights_loaded, prs_window_get_insights_page (f->window)));
  assert_fits (window, "Insights");
  assert_period_drop_down (prs_window_get_insights_page (f->window));

  /* Wide again, the Agents page's buttons go back beside its description */
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1060, NARROW_HEIGHT);
  gtk_widget_activate_action (window, "win.show-agents", NULL);
  prs_test_wait_frames (window, 4);
  g_assert_cmpint (gtk_widget_get_width (window), >, 1000);
  assert_agents_page (f->window, TRUE);
}

/* The agent editor and the schedule editor, windows of their own, fit the
 * same phone */
static void
test_editors (Fixture       *f,
              gconstpointer  data)
{
  GtkWidget *editor;
  PrsGuidanceBuilder *builder;
  GtkMenuButton *field_button;

  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-agents", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  editor = GTK_WIDGET (prs_agents_page_edit (prs_window_get_agents_page (f->window),
                                              "executive-assistant-email-agent"));
  g_assert_nonnull (editor);
  gtk_window_set_default_size (GTK_WINDOW (editor), NARROW_WIDTH, NARROW_HEIGHT);
  assert_fits (editor, "the agent editor");
  /* A parameter from the Request Context (its field and fallback), one
   * constant (its value and hint), one asked */
  builder = prs_agent_editor_get_guidance_builder (PRS_AGENT_EDITOR (editor));
  prs_guidance_builder_select_tool (builder, "email_move_to_folder");
  prs_test_wait_frames (editor, 2);
  gtk_drop_down_set_selected (prs_guidance_builder_get_source_drop_down (builder, "uid"), 0);
  gtk_drop_down_set_selected (prs_guidance_builder_get_source_drop_down (builder, "mailbox"), 1);
  gtk_drop_down_set_selected (prs_guidance_builder_get_source_drop_down (builder, "destination"), 2);
  assert_fits (editor, "the agent editor's guidance");
  /* The field picker's card (its popover's first child: the rest is its
   * shadow) stays within the editor */
  field_button = prs_guidance_builder_get_field_button (builder, "uid");
  gtk_menu_button_popup (field_button);
  prs_test_wait_frames (editor, 4);
  g_assert_cmpint (min_width (gtk_widget_get_first_child (GTK_WIDGET (gtk_menu_button_get_popover (field_button)))),
                   <=, NARROW_WIDTH - 24);
  gtk_menu_button_popdown (field_button);
  gtk_window_destroy (GTK_WINDOW (editor));

  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.show-schedules", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  editor = GTK_WIDGET (prs_schedules_page_edit (prs_window_get_schedules_page (f->window), NULL,
                                                 "daily-briefing", NULL));
  g_assert_nonnull (editor);
  gtk_window_set_default_size (GTK_WINDOW (editor), NARROW_WIDTH, NARROW_HEIGHT);
  assert_fits (editor, "the schedule editor");
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GtkCssProvider) css = NULL;

  /* GTK's in-process accessibility context, so that what assistive
   * technology is told can be read back (the suite's GTK_A11Y=none has none) */
  g_setenv ("GTK_A11Y", "test", TRUE);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  /* The application's style sheet, which AdwApplication would load: its
   * margins are part of what the window asks for */
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, RESOURCE_PREFIX "/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                    RESOURCE_PREFIX "/icons");

  g_test_add ("/prs/ui/narrow/pages", Fixture, NULL, fixture_setup, test_pages, fixture_teardown);
  g_test_add ("/prs/ui/narrow/editors", Fixture, NULL, fixture_setup, test_editors, fixture_teardown);
  return g_test_run ();
}
