/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-screenshot-schedules.c: shows the real window's Schedules page, the
 * schedule editor, or a conversation with scheduled prompts, on a data
 * folder it seeds when empty, and captures it with ImageMagick's `import`
 * (design review; not a user command):
 *
 *   prs-screenshot-schedules DATA_DIR OUT.png [--edit NAME | --new] [--conversation SLUG]
 *                            [--scroll FRACTION] [--width W] [--height H] [--dark]
 */
#include "config.h"

#include "prs-schedules-page.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

static char *edit_name;
static gboolean new_schedule;
static char *slug;
static double scroll = 0;
static int width = 1060;
static int height = 720;
static gboolean dark;

static const GOptionEntry entries[] = {
  { "edit", 0, 0, G_OPTION_ARG_STRING, &edit_name, "Open the editor on this schedule", "NAME" },
  { "new", 0, 0, G_OPTION_ARG_NONE, &new_schedule, "Open the editor on a new schedule", NULL },
  { "conversation", 0, 0, G_OPTION_ARG_STRING, &slug, "Show this conversation instead", "SLUG" },
  { "scroll", 0, 0, G_OPTION_ARG_DOUBLE, &scroll, "Scroll the editor (0 top … 1 bottom)", "FRACTION" },
  { "width", 0, 0, G_OPTION_ARG_INT, &width, "Window width", "W" },
  { "height", 0, 0, G_OPTION_ARG_INT, &height, "Window height", "H" },
  { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "Dark style", NULL },
  { NULL }
};

static void
add_schedule (PrsStore   *store,
              const char *name,
              const char *conversation,
              const char *agent,
              const char *prompt,
              const char *recurrence,
              const char *context,
              const char *problem)
{
  g_autoptr(GError) error = NULL;
  PrsScheduleRow row = { 0 };

  row.name = (char *) name;
  row.conversation_slug = (char *) conversation;
  row.agent_id = (char *) agent;
  row.prompt = (char *) prompt;
  row.context_json = (char *) context;
  row.recurrence_json = (char *) recurrence;
  row.enabled = problem == NULL;
  row.missed = (char *) "run";
  row.problem = (char *) problem;
  row.base_at = g_get_real_time () / G_USEC_PER_SEC;
  if (!prs_store_add_schedule (store, &row, NULL, &error))
    g_error ("%s", error->message);
}

static void
add_message (PrsStore   *store,
             const char *conversation_id,
             const char *kind,
             const char *content,
             const char *extra)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert message = { 0 };

  message.conversation_id = conversation_id;
  message.kind = kind;
  message.content = content;
  message.status = g_str_equal (kind, "notice") ? NULL : "completed";
  message.agent_id = "prosponsive";
  message.extra_json = extra;
  if (!prs_store_insert_message (store, &message, NULL, NULL, &error))
    g_error ("%s", error->message);
}

/* Four schedules (one turned off because its agent went) and a morning
 * conversation with what they wrote */
static void
seed (const char *data_dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new (data_dir, &error);
  g_autoptr(GPtrArray) existing = NULL;
  g_autofree char *morning = NULL;
  const char *extra = "{\"origin\":\"schedule\",\"scheduleName\":\"Morning briefing\",\"fire\":\"due\"}";

  if (store == NULL)
    g_error ("%s", error->message);
  existing = prs_store_list_schedules (store, NULL);
  if (existing != NULL && existing->len > 0)
    return;
  add_schedule (store, "Morning briefing", "Morning", "prosponsive",
                "Summarise my calendar and unread mail for today.",
                "{\"kind\":\"daily\",\"time\":\"07:30\",\"days\":[\"mon\",\"tue\",\"wed\",\"thu\",\"fri\"]}",
                "{\"team\":\"ops\"}", NULL);
  add_schedule (store, "Inbox sweep", "Email Inbox", "prosponsive", "File newsletters and flag what needs me.",
                "{\"kind\":\"every\",\"minutes\":120}", NULL, NULL);
  add_schedule (store, "Monthly report", "Reports", "prosponsive", "Write the monthly report from the tickets.",
                "{\"kind\":\"monthly\",\"day\":31,\"time\":\"09:00\"}", NULL, NULL);
  add_schedule (store, "Old digest", "Digest", "digest-writer", "Write the weekly digest.",
                "{\"kind\":\"daily\",\"time\":\"18:00\",\"days\":[\"fri\"]}", NULL,
                "Its agent “digest-writer” no longer exists. Choose another agent to turn it on again.");

  morning = prs_test_resolve_conversation (store, "Morning");
  add_message (store, morning, "notice",
               "“Morning briefing” was due at Mon 2 Mar 2026, 07:30 CET, while Prosponsive was not running or the "
               "computer slept. It runs now.", extra);
  add_message (store, morning, "inbound", "Summarise my calendar and unread mail for today.", extra);
  add_message (store, morning, "assistant",
               "Good morning. Today:\n\n- **09:00** Stand-up\n- **11:30** Q3 planning with Alice\n\n"
               "Unread: 4 emails, one from Alice asking to move the planning meeting.", NULL);
}

static void
show_conversation (PrsService *service,
                   PrsWindow  *window)
{
  PrsConversationList *list = prs_service_get_conversations (service);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (list)); i++)
    {
      g_autoptr(PrsConversation) conversation = g_list_model_get_item (G_LIST_MODEL (list), i);

      if (g_strcmp0 (prs_conversation_get_slug (conversation), slug) == 0)
        prs_window_select_conversation (window, prs_conversation_get_id (conversation));
    }
}

static GtkWidget *
open_editor (PrsService *service,
             PrsWindow  *window)
{
  g_autoptr(PrsScheduleRow) row = NULL;
  PrsScheduleEditor *editor;

  if (edit_name != NULL && (row = prs_store_lookup_schedule (prs_service_get_store (service), edit_name, NULL)) == NULL)
    g_error ("no schedule %s", edit_name);
  editor = prs_schedules_page_edit (prs_window_get_schedules_page (window), row != NULL ? row->id : NULL,
                                    "Morning", NULL);
  /* No wider than the window: a phone's is 360 px */
  gtk_window_set_default_size (GTK_WINDOW (editor), MIN (640, width), height - 40);
  prs_test_wait_frames (GTK_WIDGET (editor), 4);
  if (scroll > 0)
    {
      GtkWidget *scroller = prs_test_find_widget (GTK_WIDGET (editor), GTK_TYPE_SCROLLED_WINDOW, NULL, NULL);
      GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

      gtk_adjustment_set_value (adj, scroll * (gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj)));
    }
  prs_test_wait_frames (GTK_WIDGET (editor), 8);
  return GTK_WIDGET (editor);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("DATA_DIR OUT.png");
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsService) service = NULL;
  PrsWindow *window;
  GtkWidget *editor = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3)
    {
      g_printerr ("usage: prs-screenshot-schedules DATA_DIR OUT.png [options]\n");
      return 2;
    }

  seed (argv[1]);
  window = prs_test_screenshot_start (argv[1], width, height, dark, &service);
  if (slug != NULL)
    show_conversation (service, window);
  else
    gtk_widget_activate_action (GTK_WIDGET (window), "win.show-schedules", NULL);
  prs_test_wait_frames (GTK_WIDGET (window), 4);
  if (edit_name != NULL || new_schedule)
    editor = open_editor (service, window);
  prs_test_wait_frames (GTK_WIDGET (window), 4);

  prs_test_wait_for_leaflet (GTK_WIDGET (window));
  prs_test_capture (NULL, argv[2]);

  if (editor != NULL)
    gtk_window_destroy (GTK_WINDOW (editor));
  gtk_window_destroy (GTK_WINDOW (window));
  prs_service_stop (service);
  return 0;
}
