/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-window-everyday.c: the main window as a person uses it every day,
 * in a real window under a real X server (Xvfb), keys through XTest: a
 * page (Insights, Tools, Agents, Schedules) stays while the sidebar
 * reorders; typing at once after the start writes the message; a page
 * opened from the main menu has the focus; the conversation shown is read
 * when the window becomes active again; Rename keeps a name it refuses and
 * says why; New Conversation opens a conversation by the title it shows
 * (docs/conversations.md); the window's thread asks for a short time
 * slice (HACKING.md "Threads"). */
#include "config.h"

#include <string.h>
#include <gdk/x11/gdkx.h>

#include "prs-composer.h"
#include "prs-conversation-view.h"
#include "prs-run-test-util.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char       *data_dir;
  PrsService *service;
  PrsWindow  *window;
  GtkWidget  *other;     /* another application's window, for the focus */
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-everyday-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_open (Fixture *f)
{
  f->window = prs_test_window_open (f->data_dir, 1060, 720, &f->service);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  prs_test_window_close (&f->window, &f->service);
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
}

static PrsStore *
open_store (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  PrsStore *store = prs_store_new (f->data_dir, &error);

  g_assert_no_error (error);
  return store;
}

static void
add_message (PrsStore   *store,
             const char *conversation_id,
             const char *content)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  PrsMessageInsert message = { 0 };

  message.conversation_id = conversation_id;
  message.kind = "user";
  message.content = content;
  g_assert_true (prs_store_insert_message (store, &message, &id, NULL, &error));
  g_assert_no_error (error);
  g_usleep (2000);   /* each newer than the last, to the millisecond */
}

static PrsConversationList *
conversations (Fixture *f)
{
  return prs_service_get_conversations (f->service);
}

static const char *
shown_page (Fixture *f)
{
  GtkWidget *view = GTK_WIDGET (prs_window_get_conversation_view (f->window));

  return gtk_stack_get_visible_child_name (GTK_STACK (gtk_widget_get_parent (view)));
}

static const char *
shown_id (Fixture *f)
{
  PrsConversation *shown = prs_conversation_view_get_conversation (prs_window_get_conversation_view (f->window));

  return shown != NULL ? prs_conversation_get_id (shown) : NULL;
}

static GtkWidget *
focus_of (Fixture *f)
{
  return gtk_root_get_focus (GTK_ROOT (f->window));
}

static GtkWidget *
composer (Fixture *f)
{
  return GTK_WIDGET (prs_conversation_view_get_composer (prs_window_get_conversation_view (f->window)));
}

static guint
selected_position (Fixture *f)
{
  GtkListView *list = prs_window_get_conversation_list (f->window);

  return gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (gtk_list_view_get_model (list)));
}

/* ---- a page stays while the sidebar reorders ---- */

typedef struct
{
  Fixture *f;
  guint    n;
} Count;

static gboolean
has_n_conversations (gpointer data)
{
  Count *count = data;

  return g_list_model_get_n_items (G_LIST_MODEL (conversations (count->f))) >= count->n;
}

static void
resolve_through_api (Fixture    *f,
                     const char *slug)
{
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (f->data_dir);
  g_autofree char *body = g_strdup_printf ("{\"slug\":\"%s\"}", slug);
  Count count = { f, g_list_model_get_n_items (G_LIST_MODEL (conversations (f))) + 1 };

  g_assert_cmpuint (prs_test_api_post (secrets, f->data_dir, prs_service_get_port (f->service),
                                       "/api/conversations/resolve", body, NULL), ==, 200);
  g_assert_true (prs_test_wait_until (has_n_conversations, &count));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
}

static void
test_page_stays (Fixture       *f,
                 gconstpointer  data)
{
  static const struct { const char *keys, *action, *page; } pages[] = {
    { "<Control>i", NULL, "insights" },
    { "<Control>t", NULL, "tools" },
    { "<Control>g", NULL, "agents" },
    { NULL, "win.show-schedules", "schedules" },
  };
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *home = prs_test_resolve_conversation (store, "home-automation");
  g_autofree char *inbox = NULL;

  add_message (store, home, "The lights are on");
  inbox = prs_test_resolve_conversation (store, "email-inbox");
  add_message (store, inbox, "Mail from Alice");
  g_clear_object (&store);
  fixture_open (f);
  g_assert_cmpstr (shown_id (f), ==, inbox);

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *slug = g_strdup_printf ("arrived-%u", i);
      guint before = selected_position (f);

      if (pages[i].keys != NULL)
        prs_test_press_keys (GTK_WIDGET (f->window), pages[i].keys);
      else
        g_assert_true (gtk_widget_activate_action (GTK_WIDGET (f->window), pages[i].action, NULL));
      prs_test_wait_frames (GTK_WIDGET (f->window), 2);
      g_assert_cmpstr (shown_page (f), ==, pages[i].page);

      /* A workflow's new conversation goes to the top: the selected row
       * moves down one, and the page stays */
      resolve_through_api (f, slug);
      g_assert_cmpuint (selected_position (f), ==, before + 1);
      g_assert_cmpstr (shown_page (f), ==, pages[i].page);
      g_assert_cmpstr (shown_id (f), ==, inbox);
    }

  /* Choosing another conversation still leaves the page */
  prs_window_select_conversation (f->window, home);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpstr (shown_page (f), ==, "conversation");
  g_assert_cmpstr (shown_id (f), ==, home);
}

/* ---- the focus at the start and after the main menu ---- */

static gboolean
widget_is_visible (GtkWidget *widget,
                   gpointer   data)
{
  return gtk_widget_get_visible (widget);
}

static GtkWidget *
open_popover (GtkWidget *root)
{
  return prs_test_find_widget (root, GTK_TYPE_POPOVER_MENU, widget_is_visible, NULL);
}

static void
click_menu_item (Fixture    *f,
                 const char *text)
{
  GtkWidget *popover = open_popover (GTK_WIDGET (f->window));
  GtkWidget *label, *item;

  g_assert_nonnull (popover);
  label = prs_test_find_label (popover, text);
  g_assert_nonnull (label);
  item = gtk_widget_get_ancestor (label, g_type_from_name ("GtkModelButton"));
  g_assert_nonnull (item);
  g_signal_emit_by_name (item, "clicked");
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
}

static char *
composer_text (Fixture *f)
{
  return prs_composer_dup_text (PRS_COMPOSER (composer (f)));
}

static void
test_focus (Fixture       *f,
            gconstpointer  data)
{
  static const struct { const char *item, *page; } pages[] = {
    { "Insights", "insights" }, { "Tools", "tools" }, { "Agents", "agents" }, { "Schedules", "schedules" },
  };
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *inbox = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *typed = NULL;

  add_message (store, inbox, "Mail from Alice");
  g_clear_object (&store);
  fixture_open (f);

  /* Typing at once writes the message: letters and Space reach the
   * composer (on "+", Space opened New Conversation) */
  g_assert_nonnull (focus_of (f));
  g_assert_true (gtk_widget_is_ancestor (focus_of (f), composer (f)));
  prs_test_press_keys (GTK_WIDGET (f->window), "h");
  prs_test_press_keys (GTK_WIDGET (f->window), "i");
  prs_test_press_keys (GTK_WIDGET (f->window), "space");
  prs_test_press_keys (GTK_WIDGET (f->window), "m");
  typed = composer_text (f);
  g_assert_cmpstr (typed, ==, "hi m");
  g_assert_cmpuint (g_list_model_get_n_items (gtk_window_get_toplevels ()), ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (conversations (f))), ==, 1);

  /* A page opened from the main menu (F10) has the focus, not ≡ */
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      GtkWidget *page;

      prs_test_press_keys (GTK_WIDGET (f->window), "F10");
      prs_test_wait_frames (GTK_WIDGET (f->window), 2);
      click_menu_item (f, pages[i].item);
      g_assert_cmpstr (shown_page (f), ==, pages[i].page);
      page = gtk_stack_get_visible_child (GTK_STACK (gtk_widget_get_parent (
                                            GTK_WIDGET (prs_window_get_conversation_view (f->window)))));
      g_assert_nonnull (focus_of (f));
      g_assert_true (gtk_widget_is_ancestor (focus_of (f), page));
    }
}

/* ---- the conversation shown is read when the window is active again ---- */

static void
give_focus (GtkWidget *window)
{
  Display *x = gdk_x11_display_get_xdisplay (gtk_widget_get_display (window));

  XSetInputFocus (x, gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (window))), RevertToParent,
                  CurrentTime);
  XSync (x, False);
}

static gboolean
is_active (gpointer window)
{
  return gtk_window_is_active (window);
}

static gboolean
is_inactive (gpointer window)
{
  return !gtk_window_is_active (window);
}

static void
test_read_when_active (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *inbox = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *db_path = g_build_filename (f->data_dir, "prosponsive.db", NULL);
  g_autofree char *unread = NULL;
  PrsConversation *conversation;

  add_message (store, inbox, "Mail from Alice");
  g_clear_object (&store);
  fixture_open (f);
  give_focus (GTK_WIDGET (f->window));
  g_assert_true (prs_test_wait_until (is_active, f->window));
  conversation = prs_conversation_list_find (conversations (f), inbox, NULL);
  g_assert_cmpstr (shown_id (f), ==, inbox);
  g_assert_cmpuint (prs_conversation_get_unread_count (conversation), ==, 0);

  /* The person works in another window; a message arrives meanwhile
   * (written by another program, as the ctl or a second process does) */
  f->other = gtk_window_new ();
  gtk_window_present (GTK_WINDOW (f->other));
  prs_test_wait_frames (f->other, 2);
  give_focus (f->other);
  g_assert_true (prs_test_wait_until (is_inactive, f->window));
  store = open_store (f);
  add_message (store, inbox, "Another one from Alice");
  g_clear_object (&store);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);

  /* Back at the window, which still shows the conversation: it is read */
  give_focus (GTK_WIDGET (f->window));
  g_assert_true (prs_test_wait_until (is_active, f->window));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpuint (prs_conversation_get_message_count (conversation), ==, 2);
  g_assert_cmpuint (prs_conversation_get_unread_count (conversation), ==, 0);
  unread = prs_test_sql_query (db_path, "SELECT unread_count FROM conversations");
  g_assert_cmpstr (unread, ==, "0");
}

/* ---- Rename keeps a name it refuses ---- */

static AdwMessageDialog *
find_dialog (Fixture *f)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && gtk_widget_get_visible (window))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

static GtkWidget *
dialog_entry (AdwMessageDialog *dialog)
{
  GtkWidget *entry = prs_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY, NULL, NULL);

  g_assert_nonnull (entry);
  return entry;
}

static gboolean
label_is_shown (GtkWidget *widget,
                gpointer   data)
{
  return gtk_widget_is_drawable (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

static gboolean
dialog_stays (gpointer data)
{
  AdwMessageDialog *dialog = data;

  return !gtk_widget_get_visible (GTK_WIDGET (dialog)) ||
         !adw_message_dialog_get_response_enabled (dialog, g_object_get_data (data, "answer"));
}

/* Types @text into the dialog's entry and presses Enter, through the X
 * server; then waits until the dialog answered (a button activated by
 * Enter clicks 250 ms later) or refused to */
static void
enter_name (AdwMessageDialog *dialog,
            const char       *answer,
            const char       *text)
{
  GtkWidget *entry = dialog_entry (dialog);

  g_object_ref (dialog);
  g_object_set_data_full (G_OBJECT (dialog), "answer", g_strdup (answer), g_free);
  gtk_editable_set_text (GTK_EDITABLE (entry), text);
  g_assert_true (gtk_widget_grab_focus (entry));
  prs_test_press_keys (entry, "Return");
  g_assert_true (prs_test_wait_until (dialog_stays, dialog));
  g_object_unref (dialog);
}

static void
test_rename_keeps_invalid (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *inbox = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *long_name = g_strnfill (210, 'n');
  PrsConversation *conversation;
  AdwMessageDialog *dialog;
  GtkWidget *entry;

  g_clear_object (&store);
  fixture_open (f);
  conversation = prs_conversation_list_find (conversations (f), inbox, NULL);

  prs_test_press_keys (GTK_WIDGET (f->window), "F2");
  dialog = find_dialog (f);
  g_assert_nonnull (dialog);
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "rename"));
  enter_name (dialog, "rename", long_name);

  /* Still open, the text kept, why under the entry, Rename unavailable */
  g_assert_true (find_dialog (f) == dialog);
  entry = dialog_entry (dialog);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, long_name);
  g_assert_nonnull (prs_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_LABEL, label_is_shown,
                                          (gpointer) "at most 200 characters"));
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "rename"));
  g_assert_cmpstr (prs_conversation_get_title (conversation), ==, "email-inbox");
  prs_test_screenshot (GTK_WIDGET (dialog), "rename-refused");

  /* Fixed, Enter renames and closes it */
  enter_name (dialog, "rename", "  Mail from Alice  ");
  g_assert_null (find_dialog (f));
  g_assert_cmpstr (prs_conversation_get_title (conversation), ==, "Mail from Alice");
}

/* A title that started as a slug with control characters (the API's
 * rules for slugs allow them) is offered on one line, as the sidebar
 * shows it, and the rename takes it */
static void
test_rename_offers_one_line (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *odd = prs_test_resolve_conversation (store, "Tab\there\n\x1b[2J");
  AdwMessageDialog *dialog;

  g_clear_object (&store);
  fixture_open (f);
  prs_window_select_conversation (f->window, odd);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);

  prs_test_press_keys (GTK_WIDGET (f->window), "F2");
  dialog = find_dialog (f);
  g_assert_nonnull (dialog);
  g_assert_cmpstr (adw_message_dialog_get_body (dialog), ==, "Workflows keep finding it as “Tab here  [2J”.");
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (dialog_entry (dialog))), ==, "Tab here  [2J");
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "rename"));
  enter_name (dialog, "rename", "Tab here  [2J");
  g_assert_null (find_dialog (f));
  g_assert_cmpstr (prs_conversation_get_title (prs_conversation_list_find (conversations (f), odd, NULL)), ==,
                   "Tab here  [2J");
}

/* ---- New Conversation opens a conversation by the title it shows ---- */

static void
test_new_by_title (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *inbox = prs_test_resolve_conversation (store, "email-inbox");
  g_autofree char *notes = prs_test_resolve_conversation (store, "notes");
  g_autofree char *work = prs_test_resolve_conversation (store, "Work");
  g_autofree char *home = prs_test_resolve_conversation (store, "home");

  g_assert_true (prs_store_rename_conversation (store, inbox, "Email Inbox", &error));
  g_assert_true (prs_store_rename_conversation (store, notes, "Work", &error));
  g_assert_no_error (error);
  g_clear_object (&store);
  fixture_open (f);
  prs_window_select_conversation (f->window, home);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);

  /* The title shown opens its conversation: no look-alike */
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>n");
  g_assert_nonnull (find_dialog (f));
  enter_name (find_dialog (f), "create", " Email Inbox ");
  g_assert_null (find_dialog (f));
  g_assert_cmpstr (shown_id (f), ==, inbox);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (conversations (f))), ==, 4);

  /* A slug wins over another conversation's title */
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>n");
  enter_name (find_dialog (f), "create", "Work");
  g_assert_cmpstr (shown_id (f), ==, work);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (conversations (f))), ==, 4);

  /* A new name still makes a conversation */
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>n");
  enter_name (find_dialog (f), "create", "Garden");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (conversations (f))), ==, 5);
  g_assert_cmpstr (prs_conversation_get_slug (prs_conversation_list_find (conversations (f), shown_id (f), NULL)),
                   ==, "Garden");
}

/* ---- frames before requests: the window's thread is picked soon ---- */

/* Creating the window asks the scheduler for a short time slice for its
 * thread (HACKING.md "Threads"): woken by its frame clock or the X server,
 * it gets a core before the API thread and other programs' busy threads */
static void
test_short_slice (Fixture       *f,
                  gconstpointer  data)
{
  if (prs_test_thread_slice_ns () == 0)
    {
      g_test_skip ("This kernel has no time slice per thread (Linux < 6.12)");
      return;
    }
  fixture_open (f);
  /* Shorter than the kernel's default (0.75 ms × (1 + log2 (cores)) at the least) */
  g_assert_cmpuint (prs_test_thread_slice_ns (), <, 750000);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

#define ADD(path, func) g_test_add ("/ui/window-everyday/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("page-stays", test_page_stays);
  ADD ("focus", test_focus);
  ADD ("read-when-active", test_read_when_active);
  ADD ("rename-keeps-invalid", test_rename_keeps_invalid);
  ADD ("rename-offers-one-line", test_rename_offers_one_line);
  ADD ("new-by-title", test_new_by_title);
  ADD ("short-slice", test_short_slice);
#undef ADD

  return g_test_run ();
}
