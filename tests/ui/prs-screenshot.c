/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-screenshot.c: shows the real window on a seeded data folder in a
 * given state and captures the X screen with ImageMagick's `import` (for
 * data/screenshots and design review; not a user command):
 *
 *   prs-screenshot DATA_DIR OUT.png [--conversation SLUG] [--width W]
 *                  [--height H] [--expand-context] [--tools] [--dark]
 *                  [--conversation-menu]
 */
#include "config.h"

#include "prs-conversation-view.h"
#include "prs-message-row.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

static char *slug;
static int width = 1060;
static int height = 720;
static gboolean expand_context;
static gboolean show_tools;
static gboolean dark;
static gboolean conversation_menu;

static const GOptionEntry entries[] = {
  { "conversation", 0, 0, G_OPTION_ARG_STRING, &slug, "Conversation to open", "SLUG" },
  { "width", 0, 0, G_OPTION_ARG_INT, &width, "Window width", "W" },
  { "height", 0, 0, G_OPTION_ARG_INT, &height, "Window height", "H" },
  { "expand-context", 0, 0, G_OPTION_ARG_NONE, &expand_context, "Open the first Request Context", NULL },
  { "tools", 0, 0, G_OPTION_ARG_NONE, &show_tools, "Show the Tools page", NULL },
  { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark style", NULL },
  { "conversation-menu", 0, 0, G_OPTION_ARG_NONE, &conversation_menu, "Open the conversation menu's Agent submenu", NULL },
  { NULL }
};

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

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("DATA_DIR OUT.png");
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsService) service = NULL;
  g_autoptr(GtkCssProvider) css = NULL;
  g_autofree char *command = NULL;
  PrsWindow *window;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3)
    {
      g_printerr ("usage: prs-screenshot DATA_DIR OUT.png [options]\n");
      return 2;
    }

  gtk_init ();
  adw_init ();
  if (dark)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, RESOURCE_PREFIX "/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);

  service = prs_service_new (argv[1], prs_test_free_port ());
  if (!prs_service_start (service, &error))
    g_error ("%s", error->message);

  window = prs_window_new (NULL, service);
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (GTK_WIDGET (window), 3);

  if (slug != NULL)
    {
      PrsConversationList *list = prs_service_get_conversations (service);

      for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (list)); i++)
        {
          g_autoptr(PrsConversation) conversation = g_list_model_get_item (G_LIST_MODEL (list), i);

          if (g_strcmp0 (prs_conversation_get_slug (conversation), slug) == 0)
            prs_window_select_conversation (window, prs_conversation_get_id (conversation));
        }
    }
  if (show_tools)
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-tools", NULL);
  prs_test_wait_frames (GTK_WIDGET (window), 6);

  if (expand_context)
    {
      GtkWidget *list = GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (window)));
      GtkWidget *last = NULL;

      /* The last reply's context: the one nearest the bottom. */
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

  if (conversation_menu)
    open_agent_submenu (window);

  command = g_strdup_printf ("import -window root %s", argv[2]);
  if (!g_spawn_command_line_sync (command, NULL, NULL, NULL, &error))
    g_error ("%s", error->message);

  gtk_window_destroy (GTK_WINDOW (window));
  prs_service_stop (service);
  return 0;
}
