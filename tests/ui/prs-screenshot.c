/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-screenshot.c: shows the real window on a seeded data folder in a
 * given state and captures the X screen with ImageMagick's `import` (for
 * data/screenshots and design review; not a user command):
 *
 *   prs-screenshot DATA_DIR OUT.png [--conversation SLUG] [--width W]
 *                  [--height H] [--expand-context] [--tools] [--dark]
 *                  [--insights today|7d|30d|all]
 *                  [--search TEXT [--open-hit]] [--row-menu SLUG] [--details]
 *                  [--wait-mcp] [--expand-mcp-tool NAME] [--scroll-end]
 *                  [--conversation-menu] [--approval-toast SLUG]
 */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-conversation-row.h"
#include "prs-conversation-view.h"
#include "prs-insights-page.h"
#include "prs-message-row.h"
#include "prs-search-panel.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

static char *slug;
static int width = 1060;
static int height = 720;
static gboolean expand_context;
static gboolean show_tools;
static gboolean dark;
static char *insights;
static char *search;
static gboolean open_hit;
static char *row_menu;
static gboolean details;
static gboolean wait_mcp;
static char *expand_mcp_tool;
static gboolean scroll_end;
static gboolean conversation_menu;
static char *approval_toast;

static const GOptionEntry entries[] = {
  { "conversation", 0, 0, G_OPTION_ARG_STRING, &slug, "Conversation to open", "SLUG" },
  { "width", 0, 0, G_OPTION_ARG_INT, &width, "Window width", "W" },
  { "height", 0, 0, G_OPTION_ARG_INT, &height, "Window height", "H" },
  { "expand-context", 0, 0, G_OPTION_ARG_NONE, &expand_context, "Open the first Request Context", NULL },
  { "tools", 0, 0, G_OPTION_ARG_NONE, &show_tools, "Show the Tools page", NULL },
  { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark style", NULL },
  { "insights", 0, 0, G_OPTION_ARG_STRING, &insights, "Show the Insights page for a period", "PERIOD" },
  { "search", 0, 0, G_OPTION_ARG_STRING, &search, "Search everything for TEXT", "TEXT" },
  { "open-hit", 0, 0, G_OPTION_ARG_NONE, &open_hit, "Open the best hit", NULL },
  { "row-menu", 0, 0, G_OPTION_ARG_STRING, &row_menu, "Open the sidebar menu of SLUG", "SLUG" },
  { "details", 0, 0, G_OPTION_ARG_NONE, &details, "Open the last reply's details", NULL },
  { "wait-mcp", 0, 0, G_OPTION_ARG_NONE, &wait_mcp, "Wait until no MCP server is still connecting", NULL },
  { "expand-mcp-tool", 0, 0, G_OPTION_ARG_STRING, &expand_mcp_tool, "Open this MCP tool on the Tools page", "NAME" },
  { "scroll-end", 0, 0, G_OPTION_ARG_NONE, &scroll_end, "Scroll the Tools page to its end", NULL },
  { "conversation-menu", 0, 0, G_OPTION_ARG_NONE, &conversation_menu, "Open the conversation menu's Agent submenu", NULL },
  { "approval-toast", 0, 0, G_OPTION_ARG_STRING, &approval_toast, "Show the toast of a call waiting in SLUG", "SLUG" },
  { NULL }
};

static gboolean
answered (gpointer data)
{
  return !prs_search_list_get_searching (data) && g_strcmp0 (prs_search_list_get_answered (data), search) == 0;
}

static void
show_search (PrsWindow *window)
{
  GtkWidget *bar = prs_test_find_widget (GTK_WIDGET (window), GTK_TYPE_SEARCH_BAR, NULL, NULL);
  GtkWidget *panel;

  /* The panel is built when search is first used */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  panel = prs_test_find_widget (GTK_WIDGET (window), PRS_TYPE_SEARCH_PANEL, NULL, NULL);
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_widget (bar, GTK_TYPE_SEARCH_ENTRY, NULL, NULL)), search);
  prs_test_wait_until (answered, prs_search_panel_get_results (PRS_SEARCH_PANEL (panel)));
  prs_test_wait_frames (GTK_WIDGET (window), 10);
  if (open_hit)
    {
      prs_search_panel_activate_first (PRS_SEARCH_PANEL (panel));
      prs_test_wait_frames (GTK_WIDGET (window), 20);
    }
}

static gboolean
row_has_slug (GtkWidget *widget,
              gpointer   data)
{
  PrsConversation *conversation = prs_conversation_row_get_conversation (PRS_CONVERSATION_ROW (widget));

  return conversation != NULL && g_strcmp0 (prs_conversation_get_slug (conversation), data) == 0;
}

static void
show_row_menu (PrsWindow *window)
{
  GtkWidget *row = prs_test_find_widget (GTK_WIDGET (prs_window_get_conversation_list (window)),
                                         PRS_TYPE_CONVERSATION_ROW, row_has_slug, row_menu);

  if (row == NULL)
    g_error ("no conversation %s", row_menu);
  prs_conversation_row_request_menu (PRS_CONVERSATION_ROW (row), 60, gtk_widget_get_height (row) - 6);
  prs_test_wait_frames (GTK_WIDGET (window), 10);
}

static void
show_details (PrsWindow *window)
{
  GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (window)));
  GtkWidget *last = NULL;

  for (GtkWidget *item = gtk_widget_get_first_child (list); item != NULL; item = gtk_widget_get_next_sibling (item))
    {
      GtkWidget *row = prs_test_find_widget (item, PRS_TYPE_MESSAGE_ROW, NULL, NULL);

      if (row != NULL && prs_message_row_get_details_button (PRS_MESSAGE_ROW (row)) != NULL)
        last = prs_message_row_get_details_button (PRS_MESSAGE_ROW (row));
    }
  if (last == NULL)
    g_error ("no reply with details");
  gtk_menu_button_popup (GTK_MENU_BUTTON (last));
  prs_test_wait_frames (GTK_WIDGET (window), 10);
}

static gboolean
mcp_settled (PrsService *service)
{
  GListModel *servers = prs_mcp_hub_get_servers (prs_service_get_mcp_hub (service));

  for (guint i = 0; i < g_list_model_get_n_items (servers); i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (servers, i);

      if (prs_mcp_server_item_get_state (item) == PRS_MCP_SERVER_CONNECTING)
        return FALSE;
    }
  return TRUE;
}

/* Until every MCP server switched on is connected or said why not (20 s
 * at most) */
static void
wait_for_mcp (PrsService *service)
{
  gint64 end = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (!mcp_settled (service) && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
is_tool_row (GtkWidget *widget,
             gpointer   name)
{
  return g_strcmp0 (gtk_widget_get_name (widget), "mcp-tool-row") == 0 &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), name) == 0;
}

/* Opens the Tools page's row of the MCP tool @name */
static void
expand_tool (GtkWidget  *window,
             const char *name)
{
  GtkWidget *row = prs_test_find_widget (window, ADW_TYPE_EXPANDER_ROW, is_tool_row, (gpointer) name);

  if (row == NULL)
    {
      g_printerr ("no MCP tool row %s\n", name);
      return;
    }
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (row), TRUE);
  prs_test_wait_frames (window, 6);
  {
    GtkWidget *scrolled = gtk_widget_get_ancestor (row, GTK_TYPE_SCROLLED_WINDOW);
    GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));
    double x = 0, y = 0;

    gtk_widget_translate_coordinates (row, gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scrolled)),
                                      0, 0, &x, &y);
    gtk_adjustment_set_value (adjustment, y - 120);
    prs_test_wait_frames (window, 6);
  }
}

/* Scrolls the Tools page to its end */
static void
scroll_tools_end (GtkWidget *window)
{
  GtkWidget *page = prs_test_find_named (window, "tools-status");
  GtkWidget *scrolled = gtk_widget_get_ancestor (page, GTK_TYPE_SCROLLED_WINDOW);
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scrolled));

  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  prs_test_wait_frames (window, 6);
}

static gboolean
has_tooltip (GtkWidget *widget,
             gpointer   data)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (widget), data) == 0;
}

static gboolean
is_agent_item (GtkWidget *widget,
               gpointer   data)
{
  g_autofree char *text = NULL;

  if (g_strcmp0 (G_OBJECT_TYPE_NAME (widget), "GtkModelButton") != 0)
    return FALSE;
  g_object_get (widget, "text", &text, NULL);
  return g_strcmp0 (text, data) == 0;
}

/* The conversation menu, then its Agent item, as a pointer would */
static void
open_agent_submenu (PrsWindow *window)
{
  GtkWidget *button = prs_test_find_widget (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, has_tooltip,
                                            (gpointer) "Conversation Menu");
  GtkWidget *popover, *item;

  g_assert (button != NULL);
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  prs_test_wait_frames (GTK_WIDGET (window), 6);
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  item = prs_test_find_widget (popover, GTK_TYPE_WIDGET, is_agent_item, (gpointer) "Agent");
  g_assert (item != NULL);
  g_signal_emit_by_name (item, "clicked");
  prs_test_wait_frames (GTK_WIDGET (window), 8);
}

/* The id of the conversation named @wanted (its slug), or NULL */
static char *
conversation_id_of (PrsService *service,
                    const char *wanted)
{
  PrsConversationList *list = prs_service_get_conversations (service);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (list)); i++)
    {
      g_autoptr(PrsConversation) conversation = g_list_model_get_item (G_LIST_MODEL (list), i);

      if (g_strcmp0 (prs_conversation_get_slug (conversation), wanted) == 0)
        return g_strdup (prs_conversation_get_id (conversation));
    }
  return NULL;
}

/* Opens the conversation named @wanted */
static void
select_conversation (PrsService *service,
                     PrsWindow  *window,
                     const char *wanted)
{
  g_autofree char *id = conversation_id_of (service, wanted);

  if (id != NULL)
    prs_window_select_conversation (window, id);
}

/* The toast of a call of email_move_to_folder waiting in @wanted */
static void
show_approval_toast (PrsService *service,
                     PrsWindow  *window,
                     const char *wanted)
{
  g_autofree char *id = conversation_id_of (service, wanted);

  if (id != NULL)
    prs_window_announce_approval (window, id, "screenshot-call", "email_move_to_folder");
  prs_test_wait_frames (GTK_WIDGET (window), 30);
}

/* Opens the Request Context of the last reply: the one nearest the bottom */
static void
expand_last_context (PrsWindow *window)
{
  GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (window)));
  GtkWidget *last = NULL;

  for (GtkWidget *item = gtk_widget_get_first_child (list); item != NULL; item = gtk_widget_get_next_sibling (item))
    {
      GtkWidget *row = prs_test_find_widget (item, PRS_TYPE_MESSAGE_ROW, NULL, NULL);

      if (row != NULL && prs_message_row_get_context_expander (PRS_MESSAGE_ROW (row)) != NULL &&
          prs_message_is_kind (prs_message_row_get_message (PRS_MESSAGE_ROW (row)), "assistant"))
        last = prs_message_row_get_context_expander (PRS_MESSAGE_ROW (row));
    }
  if (last != NULL)
    gtk_expander_set_expanded (GTK_EXPANDER (last), TRUE);
  prs_test_wait_frames (GTK_WIDGET (window), 6);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("DATA_DIR OUT.png");
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsService) service = NULL;
  PrsWindow *window;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3)
    {
      g_printerr ("usage: prs-screenshot DATA_DIR OUT.png [options]\n");
      return 2;
    }

  window = prs_test_screenshot_start (argv[1], width, height, dark, &service);

  if (slug != NULL)
    select_conversation (service, window, slug);
  if (wait_mcp)
    wait_for_mcp (service);
  if (show_tools)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-tools", NULL);
  if (insights != NULL)
    {
      PrsInsightsPeriod period;

      if (!prs_insights_period_from_string (insights, &period))
        g_error ("--insights takes today, 7d, 30d or all");
      prs_insights_page_set_period (prs_window_get_insights_page (window), period);
      gtk_widget_activate_action (GTK_WIDGET (window), "win.show-insights", NULL);
      while (prs_insights_page_is_loading (prs_window_get_insights_page (window)))
        g_main_context_iteration (NULL, TRUE);
    }
  prs_test_wait_frames (GTK_WIDGET (window), 6);
  if (expand_mcp_tool != NULL)
    expand_tool (GTK_WIDGET (window), expand_mcp_tool);
  if (scroll_end)
    scroll_tools_end (GTK_WIDGET (window));

  if (expand_context)
    expand_last_context (window);

  if (search != NULL)
    show_search (window);
  if (row_menu != NULL)
    show_row_menu (window);
  if (details)
    show_details (window);
  if (conversation_menu)
    open_agent_submenu (window);
  if (approval_toast != NULL)
    show_approval_toast (service, window, approval_toast);

  prs_test_wait_for_leaflet (GTK_WIDGET (window));
  prs_test_capture (NULL, argv[2]);

  gtk_window_destroy (GTK_WINDOW (window));
  prs_service_stop (service);
  return 0;
}
