/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-conversations.c: keeping conversations in order and finding them, in
 * the real window under a real X server: each row's menu (right click,
 * Shift+F10, the Menu key), the main menu (F10) and the pages it and their
 * keys reach (each built when first wanted), F2, Delete and Undo, pinning,
 * archiving, the selection mode, search (Ctrl+K, Enter) opening message 1
 * of 100,000 at its place, a reply's details and failover notice, copying, Regenerate
 * and Edit and Resend against the scripted provider, and export through
 * the file chooser; Tab leaving the sidebar in one step and entering a
 * long conversation at the messages on screen. Keys and clicks go through
 * the X server (XTest). */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "prs-composer.h"
#include "prs-conversation-row.h"
#include "prs-conversation-view.h"
#include "prs-json.h"
#include "prs-markdown-text.h"
#include "prs-message-row.h"
#include "prs-search-panel.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char            *data_dir;
  PrsTestProvider *provider;
  PrsService      *service;
  PrsWindow       *window;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-conversations-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_open (Fixture *f)
{
  f->window = prs_test_window_open (f->data_dir, 1060, 720, &f->service);
}

static void
close_window (Fixture *f)
{
  prs_test_window_close (&f->window, NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  prs_test_window_close (&f->window, &f->service);
  g_clear_pointer (&f->provider, prs_test_provider_stop);
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

static char *
add_message (PrsStore   *store,
             const char *conversation_id,
             const char *kind,
             const char *content,
             const char *extra_json)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert message = { 0 };
  char *id = NULL;

  message.conversation_id = conversation_id;
  message.kind = kind;
  message.content = content;
  message.status = g_str_equal (kind, "assistant") ? "completed" : NULL;
  message.agent_id = "prosponsive";
  message.extra_json = extra_json;
  g_assert_true (prs_store_insert_message (store, &message, &id, NULL, &error));
  g_assert_no_error (error);
  g_usleep (2000);   /* each newer than the last, to the millisecond */
  return id;
}

/* Opens the window on conversation @id, once what was added through
 * *@store is written (the store is closed) */
static void
open_on (Fixture     *f,
         PrsStore   **store,
         const char  *id)
{
  g_clear_object (store);
  fixture_open (f);
  prs_window_select_conversation (f->window, id);
  prs_test_wait_frames (GTK_WIDGET (f->window), 6);
}

static PrsConversationList *
conversations (Fixture *f)
{
  return prs_service_get_conversations (f->service);
}

static PrsConversation *
find_conversation (Fixture    *f,
                   const char *id)
{
  return prs_conversation_list_find (conversations (f), id, NULL);
}

static guint
position_of (Fixture    *f,
             const char *id)
{
  guint position = G_MAXUINT;

  g_assert_nonnull (prs_conversation_list_find (conversations (f), id, &position));
  return position;
}

static GtkWidget *
conversation_row (Fixture    *f,
                  const char *id)
{
  GtkWidget *row = prs_test_find_conversation_row (f->window, id);

  g_assert_nonnull (row);
  return row;
}

/* The keyboard on a row of the sidebar (its list item) */
static void
focus_row (Fixture    *f,
           const char *id)
{
  g_assert_true (gtk_widget_grab_focus (gtk_widget_get_parent (conversation_row (f, id))));
}

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
close_popovers (Fixture   *f,
                GtkWidget *root)
{
  GtkWidget *popover;

  while ((popover = open_popover (root)) != NULL)
    {
      gtk_popover_popdown (GTK_POPOVER (popover));
      prs_test_wait_frames (GTK_WIDGET (f->window), 2);
    }
}

/* A toplevel other than the main window, of @type */
static GtkWidget *
find_toplevel (Fixture *f,
               GType    type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) window = g_list_model_get_item (toplevels, i);

      if (window != GTK_WIDGET (f->window) && G_TYPE_CHECK_INSTANCE_TYPE (window, type) &&
          gtk_widget_get_visible (window))
        return window;
    }
  return NULL;
}

static gint64
count (Fixture    *f,
       const char *sql)
{
  g_autofree char *path = g_build_filename (f->data_dir, "prosponsive.db", NULL);
  g_autofree char *text = prs_test_sql_query (path, sql);

  return text != NULL ? g_ascii_strtoll (text, NULL, 10) : -1;
}

/* ---- the row's menu, the keyboard, pinning and archiving ---- */

static void
test_menu_and_keys (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *a = prs_test_resolve_conversation (store, "alpha");
  g_autofree char *b = prs_test_resolve_conversation (store, "beta");
  g_autofree char *c = prs_test_resolve_conversation (store, "gamma");
  GtkWidget *dialog, *popover;

  g_free (add_message (store, a, "user", "First", NULL));
  g_free (add_message (store, b, "user", "Second", NULL));
  g_free (add_message (store, c, "user", "Third", NULL));
  g_clear_object (&store);
  fixture_open (f);
  g_assert_cmpuint (position_of (f, a), ==, 2);

  /* Shift+F10 and the Menu key open the focused row's menu */
  focus_row (f, a);
  prs_test_press_keys (GTK_WIDGET (f->window), "<Shift>F10");
  popover = open_popover (conversation_row (f, a));
  g_assert_nonnull (popover);
  close_popovers (f, conversation_row (f, a));
  focus_row (f, a);
  prs_test_press_keys (GTK_WIDGET (f->window), "Menu");
  g_assert_nonnull (open_popover (conversation_row (f, a)));
  close_popovers (f, conversation_row (f, a));
  /* …and so does a right click */
  prs_test_click_pointer (conversation_row (f, b), 3);
  popover = open_popover (conversation_row (f, b));
  g_assert_nonnull (popover);
  g_assert_nonnull (prs_test_find_label (popover, "Pin"));
  close_popovers (f, conversation_row (f, b));

  /* Pin (what the menu item runs): to the top, with a pin */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.conversation-pin", "s", a);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpuint (position_of (f, a), ==, 0);
  g_assert_true (prs_conversation_get_pinned (find_conversation (f, a)));
  g_assert_cmpint (count (f, "SELECT pinned FROM conversations WHERE slug = 'alpha'"), ==, 1);

  /* F2 on the focused row renames it; its slug stays */
  focus_row (f, a);
  prs_test_press_keys (GTK_WIDGET (f->window), "F2");
  dialog = find_toplevel (f, ADW_TYPE_MESSAGE_DIALOG);
  g_assert_nonnull (dialog);
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_widget (dialog, GTK_TYPE_ENTRY, NULL, NULL)), "Alpha, renamed");
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpstr (prs_conversation_get_title (find_conversation (f, a)), ==, "Alpha, renamed");
  g_assert_cmpstr (prs_conversation_get_slug (find_conversation (f, a)), ==, "alpha");

  /* Archived: out of the list until archived ones are shown, then last */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.conversation-archive", "s", b);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_null (find_conversation (f, b));
  g_action_group_change_action_state (G_ACTION_GROUP (f->window), "show-archived", g_variant_new_boolean (TRUE));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpuint (position_of (f, b), ==, 2);
  g_assert_nonnull (prs_test_find_label (conversation_row (f, b), "Archived"));
}

/* ---- Tab: where the keyboard focus goes ---- */

static gboolean
focus_is_in (Fixture   *f,
             GtkWidget *widget)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}

/* Presses @accelerator until the focus is in @widget, at most @most
 * times; how many it took (@most + 1: never) */
static guint
press_until_in (Fixture    *f,
                const char *accelerator,
                GtkWidget  *widget,
                guint       most)
{
  guint presses = 0;

  while (presses <= most && !focus_is_in (f, widget))
    {
      prs_test_press_keys (GTK_WIDGET (f->window), accelerator);
      presses++;
    }
  return focus_is_in (f, widget) ? presses : most + 1;
}

static void
test_tab_leaves_sidebar (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *newest = NULL;
  GtkWidget *list, *view;

  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *slug = g_strdup_printf ("talk-%02u", i);

      g_free (newest);
      newest = prs_test_resolve_conversation (store, slug);
      g_free (add_message (store, newest, "user", slug, NULL));
    }
  g_clear_object (&store);
  fixture_open (f);
  g_assert_cmpuint (position_of (f, newest), ==, 0);
  prs_window_select_conversation (f->window, newest);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  list = GTK_WIDGET (prs_window_get_conversation_list (f->window));
  view = GTK_WIDGET (prs_window_get_conversation_view (f->window));

  /* Arrows move between the rows… */
  focus_row (f, newest);
  prs_test_press_keys (GTK_WIDGET (f->window), "Down");
  g_assert_true (focus_is_in (f, list));
  g_assert_false (focus_is_in (f, gtk_widget_get_parent (conversation_row (f, newest))));
  /* …Tab leaves the list at once, for the conversation a few steps on */
  focus_row (f, newest);
  prs_test_press_keys (GTK_WIDGET (f->window), "Tab");
  g_assert_false (focus_is_in (f, list));
  g_assert_cmpuint (press_until_in (f, "Tab", view, 4), <=, 4);
  g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (f->window)));
  prs_test_screenshot (GTK_WIDGET (f->window), "sidebar-tab-left");

  /* Shift+Tab comes back to the row the list had */
  g_assert_cmpuint (press_until_in (f, "<Shift>Tab", list, 6), <=, 6);
  g_assert_true (focus_is_in (f, gtk_widget_get_parent (conversation_row (f, newest))));
  /* …and leaves it backwards in one step too */
  prs_test_press_keys (GTK_WIDGET (f->window), "<Shift>Tab");
  g_assert_false (focus_is_in (f, list));
}

/* ---- the main menu and the pages it reaches, built when first wanted ---- */

static gboolean
has_tooltip (GtkWidget *widget,
             gpointer   data)
{
  return g_strcmp0 (gtk_widget_get_tooltip_text (widget), data) == 0;
}

static const char *
shown_page (Fixture *f)
{
  GtkWidget *view = GTK_WIDGET (prs_window_get_conversation_view (f->window));

  return gtk_stack_get_visible_child_name (GTK_STACK (gtk_widget_get_parent (view)));
}

/* Clicks the item labelled @text of the open menu */
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

static void
test_main_menu_and_pages (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *a = prs_test_resolve_conversation (store, "alpha");
  GtkWidget *popover, *button;

  GtkWidget *list;
  int sidebar_width;

  g_free (add_message (store, a, "user", "First", NULL));
  g_clear_object (&store);
  fixture_open (f);
  g_assert_cmpstr (shown_page (f), ==, "conversation");
  list = gtk_widget_get_ancestor (conversation_row (f, a), GTK_TYPE_LIST_VIEW);
  sidebar_width = gtk_widget_get_width (list);

  /* F10 opens the main menu, whose popover is made when it first opens */
  prs_test_press_keys (GTK_WIDGET (f->window), "F10");
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  popover = open_popover (GTK_WIDGET (f->window));
  g_assert_nonnull (popover);
  g_assert_nonnull (prs_test_find_label (popover, "Agents"));
  g_assert_nonnull (prs_test_find_label (popover, "Schedules"));
  g_assert_nonnull (prs_test_find_label (popover, "Search Everything"));
  click_menu_item (f, "Tools");
  g_assert_null (open_popover (GTK_WIDGET (f->window)));
  g_assert_cmpstr (shown_page (f), ==, "tools");
  g_assert_nonnull (prs_test_find_named (GTK_WIDGET (f->window), "tools-status"));
  /* The sidebar keeps its width beside every page */
  g_assert_cmpint (gtk_widget_get_width (list), ==, sidebar_width);

  /* Again: the same menu, now to the Schedules page */
  prs_test_press_keys (GTK_WIDGET (f->window), "F10");
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  click_menu_item (f, "Schedules");
  g_assert_cmpstr (shown_page (f), ==, "schedules");

  /* The pages' keys */
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>g");
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpstr (shown_page (f), ==, "agents");
  g_assert_nonnull (prs_test_find_widget (GTK_WIDGET (f->window), PRS_TYPE_AGENTS_PAGE, NULL, NULL));
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>i");
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpstr (shown_page (f), ==, "insights");
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>t");
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpstr (shown_page (f), ==, "tools");
  g_assert_cmpint (gtk_widget_get_width (list), ==, sidebar_width);

  /* A click on the conversation still selected in the sidebar goes back to it */
  prs_test_click_pointer (conversation_row (f, a), 1);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpstr (shown_page (f), ==, "conversation");

  /* The conversation's menu: made when it first opens, with its Agent item */
  prs_window_select_conversation (f->window, a);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpstr (shown_page (f), ==, "conversation");
  button = prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON, has_tooltip,
                                 (gpointer) "Conversation Menu");
  g_assert_nonnull (button);
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  popover = open_popover (GTK_WIDGET (f->window));
  g_assert_true (popover == GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button))));
  g_assert_nonnull (prs_test_find_label (popover, "Agent"));
  g_assert_nonnull (prs_test_find_label (popover, "Delete"));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);

  /* The search panel, made when search is first used */
  g_assert_null (prs_test_find_widget (GTK_WIDGET (f->window), PRS_TYPE_SEARCH_PANEL, NULL, NULL));
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.search", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_true (gtk_widget_is_drawable (prs_test_find_widget (GTK_WIDGET (f->window), PRS_TYPE_SEARCH_PANEL,
                                                               NULL, NULL)));
}

/* ---- deleting, Undo, and the end of Undo ---- */

static gboolean
purged (gpointer data)
{
  Fixture *f = data;

  return count (f, "SELECT count(*) FROM conversations WHERE slug = 'gamma'") == 0;
}

static void
test_delete_undo (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *a = prs_test_resolve_conversation (store, "alpha");
  g_autofree char *c = prs_test_resolve_conversation (store, "gamma");

  g_free (add_message (store, a, "user", "First", NULL));
  g_free (add_message (store, c, "user", "Third", NULL));
  g_free (add_message (store, c, "assistant", "Answer", NULL));
  g_assert_true (prs_store_rename_conversation (store, c, "R&D <Q3> plan", NULL));
  g_clear_object (&store);
  fixture_open (f);

  /* The Delete key in the sidebar: gone from the list, kept in the store;
   * the toast names it as it is (a toast's title is markup) */
  focus_row (f, c);
  prs_test_press_keys (GTK_WIDGET (f->window), "Delete");
  g_assert_null (find_conversation (f, c));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (f->window), "“R&D <Q3> plan” deleted"));
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM conversations WHERE deleted_at IS NOT NULL"), ==, 1);

  /* Undo (the toast's button): back, where it was */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo-delete", "^as", (const char *[]) { c, NULL });
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_nonnull (find_conversation (f, c));
  g_assert_cmpuint (position_of (f, c), ==, 0);

  /* Deleted from the conversation's menu, and the window closes while
   * Undo is offered: then it is deleted for good, rows and all */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.conversation-delete", "s", c);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_null (find_conversation (f, c));
  close_window (f);
  g_assert_true (prs_test_wait_until (purged, f));
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages"), ==, 1);
  /* Indexed once (FTS5's docsize table: a row per message indexed) */
  g_assert_cmpint (count (f, "SELECT count(*) FROM message_search_docsize"), ==, 1);
}

/* ---- several at once ---- */

static void
test_selection_mode (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_auto(GStrv) ids = g_new0 (char *, 5);
  GtkWidget *check;

  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *slug = g_strdup_printf ("conversation %u", i);

      ids[i] = prs_test_resolve_conversation (store, slug);
      g_free (add_message (store, ids[i], "user", "Hello", NULL));
    }
  g_clear_object (&store);
  fixture_open (f);

  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.select-conversations", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  check = prs_test_find_widget (conversation_row (f, ids[0]), GTK_TYPE_CHECK_BUTTON, NULL, NULL);
  g_assert_true (gtk_widget_get_visible (check));

  /* A click toggles a row; the others stay */
  prs_test_click_pointer (conversation_row (f, ids[0]), 1);
  prs_test_click_pointer (conversation_row (f, ids[2]), 1);
  g_assert_true (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (f->window), "2 selected"));
  prs_test_click_pointer (conversation_row (f, ids[2]), 1);
  prs_test_click_pointer (conversation_row (f, ids[3]), 1);

  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.delete-selected", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_null (find_conversation (f, ids[0]));
  g_assert_null (find_conversation (f, ids[3]));
  g_assert_nonnull (find_conversation (f, ids[1]));
  g_assert_nonnull (find_conversation (f, ids[2]));
  /* Deleting ends the selection mode (a row made since has no check button) */
  check = prs_test_find_widget (conversation_row (f, ids[1]), GTK_TYPE_CHECK_BUTTON, NULL, NULL);
  g_assert_true (check == NULL || !gtk_widget_get_visible (check));

  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo-delete", "^as",
                              (const char *[]) { ids[0], ids[3], NULL });
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (conversations (f))), ==, 4);
}

/* ---- search, and message 1 of 100,000 ---- */

static gboolean
search_answered (gpointer data)
{
  PrsSearchList *results = data;

  return !prs_search_list_get_searching (results) && g_list_model_get_n_items (G_LIST_MODEL (results)) > 0;
}

static gboolean
row_has_message (GtkWidget *widget,
                 gpointer   data)
{
  PrsMessage *message = prs_message_row_get_message (PRS_MESSAGE_ROW (widget));

  return message != NULL && g_strcmp0 (prs_message_get_id (message), data) == 0;
}

static PrsMessageRow *
message_row (Fixture    *f,
             const char *message_id)
{
  PrsConversationView *view = prs_window_get_conversation_view (f->window);

  return (PrsMessageRow *) prs_test_find_widget (GTK_WIDGET (prs_conversation_view_get_list_view (view)),
                                                 PRS_TYPE_MESSAGE_ROW, row_has_message, (gpointer) message_id);
}

static gboolean
is_snippet (GtkWidget *widget,
            gpointer   data)
{
  return gtk_widget_has_css_class (widget, "search-snippet");
}

static char *
first_hit_message (PrsSearchList *results,
                   char         **out_conversation_id)
{
  g_autoptr(PrsSearchItem) item = g_list_model_get_item (G_LIST_MODEL (results), 0);

  if (out_conversation_id != NULL)
    *out_conversation_id = g_strdup (prs_search_item_get_hit (item)->conversation_id);
  return g_strdup (prs_search_item_get_hit (item)->message_id);
}

static void
test_search_opens_at_hit (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *huge = prs_test_resolve_conversation (store, "huge");
  g_autofree char *small = prs_test_resolve_conversation (store, "small");
  g_autofree char *db_path = g_strdup (prs_store_get_path (store));
  g_autofree char *first_id = g_strdup_printf ("%s-1", huge);
  g_autofree char *markup = NULL;
  g_autofree char *hit_id = NULL;
  g_autofree char *hit_conversation = NULL;
  g_autofree char *other = NULL;
  GtkWidget *bar, *entry, *list, *row;
  PrsSearchPanel *panel;
  PrsSearchList *results;
  PrsMessageList *messages;
  graphene_point_t point;

  g_clear_object (&store);
  prs_test_seed_messages (db_path, huge, 100000);
  store = open_store (f);
  g_free (add_message (store, small, "user", "Something <else> & more", NULL));
  g_clear_object (&store);
  fixture_open (f);

  /* Ctrl+K from anywhere: the search field, with the keyboard in it */
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>k");
  prs_test_wait_frames (GTK_WIDGET (f->window), 20);
  bar = prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_SEARCH_BAR, NULL, NULL);
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
  entry = prs_test_find_widget (bar, GTK_TYPE_SEARCH_ENTRY, NULL, NULL);
  g_assert_true (gtk_widget_is_drawable (entry));
  g_assert_true (gtk_widget_has_focus (entry) || gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (f->window)), entry));
  panel = PRS_SEARCH_PANEL (prs_test_find_widget (GTK_WIDGET (f->window), PRS_TYPE_SEARCH_PANEL, NULL, NULL));
  results = prs_search_panel_get_results (panel);

  /* Bad syntax is searched as plain words */
  gtk_editable_set_text (GTK_EDITABLE (entry), "\"else & (more");
  g_assert_true (prs_test_wait_until (search_answered, results));
  g_free (first_hit_message (results, &hit_conversation));
  g_assert_cmpstr (hit_conversation, ==, small);

  /* The first message of 100,000: found, its snippet's match in bold */
  gtk_editable_set_text (GTK_EDITABLE (entry), "question number 1 ");
  g_assert_true (prs_test_wait_until (search_answered, results));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  hit_id = first_hit_message (results, &other);
  g_assert_cmpstr (hit_id, ==, first_id);
  list = GTK_WIDGET (prs_test_find_widget (GTK_WIDGET (panel), GTK_TYPE_LIST_VIEW, NULL, NULL));
  markup = g_strdup (gtk_label_get_label (GTK_LABEL (prs_test_find_widget (list, GTK_TYPE_LABEL, is_snippet, NULL))));
  g_assert_nonnull (strstr (markup, "<b>Question</b>"));

  /* Enter opens it at that message, highlighted, on screen */
  gtk_widget_grab_focus (entry);
  prs_test_press_keys (GTK_WIDGET (f->window), "Return");
  prs_test_wait_frames (GTK_WIDGET (f->window), 8);
  row = GTK_WIDGET (message_row (f, first_id));
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_has_css_class (row, "highlighted"));
  g_assert_true (gtk_widget_compute_point (row, GTK_WIDGET (prs_conversation_view_get_list_view (prs_window_get_conversation_view (f->window))),
                                           &GRAPHENE_POINT_INIT (0, 0), &point));
  g_assert_cmpfloat (point.y, >=, -1);
  g_assert_cmpfloat (point.y, <, 400);
  messages = prs_conversation_view_get_messages (prs_window_get_conversation_view (f->window));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (messages)), ==, 100000);
  /* Read: the pages around it (the rows the list view binds below it) and
   * the last (which says what the last turn is), not the 1,000 pages */
  g_test_message ("pages read: %u", prs_message_list_get_n_page_loads (messages));
  g_assert_cmpuint (prs_message_list_get_n_page_loads (messages), <=, 8);
  g_assert_cmpstr (prs_conversation_view_get_highlighted (prs_window_get_conversation_view (f->window)), ==, first_id);
}

/* ---- the search results by keyboard ---- */

/* The snippet of the hit in the results row that has the keyboard focus
 * (NULL when the focus is not in a row of @list) */
static const char *
focused_snippet (Fixture   *f,
                 GtkWidget *list)
{
  GtkWidget *row = gtk_root_get_focus (GTK_ROOT (f->window));

  while (row != NULL && gtk_widget_get_parent (row) != list)
    row = gtk_widget_get_parent (row);
  if (row == NULL)
    return NULL;
  return gtk_label_get_text (GTK_LABEL (prs_test_find_widget (row, GTK_TYPE_LABEL, is_snippet, NULL)));
}

static char *
hit_snippet (PrsSearchList *results,
             guint          position)
{
  g_autoptr(PrsSearchItem) item = g_list_model_get_item (G_LIST_MODEL (results), position);

  return prs_search_snippet_to_text (prs_search_item_get_hit (item)->snippet, NULL);
}

static void
test_search_results_keys (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  PrsSearchList *results;
  GtkWidget *entry, *list;

  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *slug = g_strdup_printf ("found-%02u", i);
      g_autofree char *id = prs_test_resolve_conversation (store, slug);
      g_autofree char *text = g_strdup_printf ("needle number %u", i);

      g_free (add_message (store, id, "user", text, NULL));
    }
  g_clear_object (&store);
  fixture_open (f);
  prs_test_press_keys (GTK_WIDGET (f->window), "<Control>k");
  prs_test_wait_frames (GTK_WIDGET (f->window), 20);
  entry = prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_SEARCH_ENTRY, NULL, NULL);
  results = prs_search_panel_get_results (PRS_SEARCH_PANEL (prs_test_find_widget (GTK_WIDGET (f->window),
                                                                                  PRS_TYPE_SEARCH_PANEL,
                                                                                  NULL, NULL)));
  gtk_editable_set_text (GTK_EDITABLE (entry), "needle");
  g_assert_true (prs_test_wait_until (search_answered, results));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (results)), >, 20);
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  list = prs_test_find_widget (prs_test_find_widget (GTK_WIDGET (f->window), PRS_TYPE_SEARCH_PANEL, NULL, NULL),
                               GTK_TYPE_LIST_VIEW, NULL, NULL);
  first = hit_snippet (results, 0);
  second = hit_snippet (results, 1);

  /* Down from the entry: the first hit, and Down again the next */
  g_assert_true (focus_is_in (f, entry));
  prs_test_press_keys (GTK_WIDGET (f->window), "Down");
  g_assert_cmpstr (focused_snippet (f, list), ==, first);
  prs_test_press_keys (GTK_WIDGET (f->window), "Down");
  g_assert_cmpstr (focused_snippet (f, list), ==, second);
  g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (f->window)));
  prs_test_screenshot (GTK_WIDGET (f->window), "search-results-keys");

  /* Tab leaves the 60 hits at once; Shift+Tab comes back to the one left */
  prs_test_press_keys (GTK_WIDGET (f->window), "Tab");
  g_assert_false (focus_is_in (f, list));
  prs_test_screenshot (GTK_WIDGET (f->window), "search-results-tab-left");
  g_assert_cmpuint (press_until_in (f, "<Shift>Tab", list, 4), <=, 4);
  g_assert_cmpstr (focused_snippet (f, list), ==, second);
  /* …and leaves backwards in one step too, for the entry */
  prs_test_press_keys (GTK_WIDGET (f->window), "<Shift>Tab");
  g_assert_false (focus_is_in (f, list));
  g_assert_cmpuint (press_until_in (f, "<Shift>Tab", entry, 3), <=, 3);
  /* Down from the entry is the first hit again, not the row left */
  prs_test_press_keys (GTK_WIDGET (f->window), "Down");
  g_assert_cmpstr (focused_snippet (f, list), ==, first);

  /* A new query: Down goes to its first hit */
  gtk_widget_grab_focus (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "needle number 7");
  g_assert_true (prs_test_wait_until (search_answered, results));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  g_free (first);
  first = hit_snippet (results, 0);
  prs_test_press_keys (GTK_WIDGET (f->window), "Down");
  g_assert_cmpstr (focused_snippet (f, list), ==, first);
}

/* ---- a reply's details; copying ---- */

static void
read_text (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  char **text = user_data;

  *text = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
}

static char *
clipboard_text (GtkWidget *widget)
{
  char *text = NULL;
  GdkClipboard *clipboard = gtk_widget_get_clipboard (widget);

  gdk_clipboard_read_text_async (clipboard, NULL, read_text, &text);
  while (text == NULL)
    g_main_context_iteration (NULL, TRUE);
  return text;
}

static void
test_details_and_copy (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *chat = prs_test_resolve_conversation (store, "chat");
  g_autofree char *question = add_message (store, chat, "user", "What is on?", NULL);
  const char *reply_text = "**Subject:** Re: Q3\nSee [the agenda](https://example.com/a).";
  g_autofree char *reply = add_message (store, chat, "assistant", reply_text,
                                        "{\"provider\":{\"id\":\"p2\",\"name\":\"Second\"},\"model\":\"qwen2.5\","
                                        "\"usage\":{\"inputTokens\":120,\"outputTokens\":45},"
                                        "\"timing\":{\"firstTokenMs\":350,\"totalMs\":1200},"
                                        "\"failover\":[{\"providerId\":\"p1\",\"providerName\":\"First\","
                                        "\"error\":\"Could not connect to localhost:11434\"}]}");
  g_autofree char *expected = prs_markdown_to_text (reply_text, -1);
  g_autofree char *copied = NULL;
  GtkWidget *row, *button, *popover;

  open_on (f, &store, chat);
  row = GTK_WIDGET (message_row (f, reply));

  /* The failover is said in the bubble */
  g_assert_nonnull (prs_test_find_label (row, "First failed: Could not connect to localhost:11434. "
                                              "Second answered instead."));
  /* The details: provider, model, tokens, timing */
  button = prs_message_row_get_details_button (PRS_MESSAGE_ROW (row));
  g_assert_nonnull (button);
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));
  g_assert_nonnull (prs_test_find_label (popover, "Second"));
  g_assert_nonnull (prs_test_find_label (popover, "qwen2.5"));
  g_assert_nonnull (prs_test_find_label (popover, "120"));
  g_assert_nonnull (prs_test_find_label (popover, "45"));
  g_assert_nonnull (prs_test_find_label (popover, "350 ms"));
  g_assert_nonnull (prs_test_find_label (popover, "1.2 s"));
  gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  /* A person's message has no details */
  g_assert_null (prs_message_row_get_details_button (message_row (f, question)));

  /* Copy as text and as Markdown */
  gtk_widget_activate_action (row, "message-row.copy-text", NULL);
  copied = clipboard_text (row);
  g_assert_cmpstr (copied, ==, expected);
  g_assert_cmpstr (copied, ==, "Subject: Re: Q3\nSee the agenda (https://example.com/a).");
  g_clear_pointer (&copied, g_free);
  gtk_widget_activate_action (row, "message-row.copy-markdown", NULL);
  copied = clipboard_text (row);
  g_assert_cmpstr (copied, ==, reply_text);
}

/* ---- Regenerate, Edit and Resend, with a run ---- */

static gboolean
has_answer (gpointer data)
{
  Fixture *f = g_object_get_data (G_OBJECT (data), "fixture");
  const char *text = g_object_get_data (G_OBJECT (data), "text");
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM messages WHERE content = '%s'"
                                          " AND status = 'completed' AND superseded_at IS NULL", text);

  return count (f, sql) == 1;
}

static void
wait_answer (Fixture    *f,
             const char *text)
{
  g_autoptr(GObject) probe = g_object_new (G_TYPE_OBJECT, NULL);

  g_object_set_data (probe, "fixture", f);
  g_object_set_data (probe, "text", (gpointer) text);
  g_assert_true (prs_test_wait_until (has_answer, probe));
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
}

static void
test_regenerate_and_edit (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autoptr(GError) error = NULL;
  g_autofree char *chat = prs_test_resolve_conversation (store, "chat");
  g_autofree char *question = add_message (store, chat, "user", "Hello", NULL);
  g_autofree char *first = add_message (store, chat, "assistant", "First answer", NULL);
  g_autofree char *url = NULL;
  g_autoptr(JsonObject) request = NULL;
  g_autofree char *body = NULL;
  GtkWidget *dialog;
  GtkTextView *view;

  g_clear_object (&store);
  f->provider = prs_test_provider_start ("{'kind':'ollama','turns':[{'response':{'text':'Second answer'}},"
                                         "{'response':{'text':'Third answer'}}]}");
  fixture_open (f);
  url = prs_test_provider_base_url (f->provider, "ollama");
  g_assert_true (prs_providers_add (prs_service_get_providers (f->service), "ollama", "Scripted", url,
                                    "model-a", 0, NULL, NULL, &error));
  g_assert_no_error (error);
  prs_window_select_conversation (f->window, chat);
  prs_test_wait_frames (GTK_WIDGET (f->window), 6);

  /* The last reply offers Regenerate; the old one stays, folded */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (message_row (f, first)), "message-row.regenerate", NULL));
  wait_answer (f, "Second answer");
  g_assert_nonnull (prs_test_find_widget (GTK_WIDGET (message_row (f, first)), GTK_TYPE_EXPANDER, NULL, NULL));
  g_assert_true (gtk_widget_has_css_class (prs_test_find_widget (GTK_WIDGET (message_row (f, first)),
                                                                 GTK_TYPE_EXPANDER, NULL, NULL), "superseded"));
  /* …and the model does not see it again */
  request = prs_test_provider_request (f->provider, 0);
  body = prs_json_object_to_string (request, FALSE);
  g_assert_null (strstr (body, "First answer"));
  g_assert_nonnull (strstr (body, "Hello"));

  /* Edit and Resend the person's last message */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (message_row (f, question)), "message-row.edit", NULL));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  dialog = find_toplevel (f, ADW_TYPE_MESSAGE_DIALOG);
  g_assert_nonnull (dialog);
  view = GTK_TEXT_VIEW (prs_test_find_widget (dialog, GTK_TYPE_TEXT_VIEW, NULL, NULL));
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (view), "Hello again", -1);
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), "resend");
  wait_answer (f, "Third answer");
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages WHERE superseded_at IS NOT NULL"), ==, 3);
  g_assert_cmpint (count (f, "SELECT count(*) FROM messages WHERE content = 'Hello again'"
                             " AND superseded_at IS NULL"), ==, 1);
  g_assert_nonnull (prs_test_find_widget (GTK_WIDGET (message_row (f, question)), GTK_TYPE_EXPANDER, NULL, NULL));
}

/* ---- export through the file chooser ---- */

static gboolean
exported (gpointer data)
{
  return g_file_test (data, G_FILE_TEST_EXISTS);
}

static void
test_export (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *chat = prs_test_resolve_conversation (store, "Report: Q3/Q4");
  g_autofree char *path = g_build_filename (f->data_dir, "exported.md", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (f->data_dir);
  g_autofree char *contents = NULL;
  GtkWidget *chooser;

  g_free (add_message (store, chat, "user", "Hello", NULL));
  g_free (add_message (store, chat, "assistant", "Status: done\nOwner: Ann", NULL));
  open_on (f, &store, chat);

  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.export-markdown", NULL);
  prs_test_wait_frames (GTK_WIDGET (f->window), 4);
  /* Without a portal, GtkFileChooserNative shows GTK's own dialog */
  chooser = find_toplevel (f, GTK_TYPE_FILE_CHOOSER_DIALOG);
  if (chooser == NULL)
    {
      g_test_skip ("the file chooser is a portal's here");
      return;
    }
  g_assert_cmpstr (gtk_file_chooser_get_current_name (GTK_FILE_CHOOSER (chooser)), ==, "Report- Q3-Q4.md");
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "exported.md");
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  g_assert_true (prs_test_wait_until (exported, path));
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, "# Report: Q3/Q4\n"));
  g_assert_nonnull (strstr (contents, "| **Status** | done |"));
}

/* ---- Tab into a long conversation: the messages on screen ---- */

static gboolean
in_view (GtkWidget *widget,
         GtkWidget *scroller)
{
  graphene_rect_t bounds;

  return gtk_widget_compute_bounds (widget, scroller, &bounds) && bounds.origin.y >= 0 &&
         bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller);
}

/* Presses @accelerator; the focus must then be on a control of a message,
 * wholly on screen. */
static void
press_onto_message (Fixture    *f,
                    const char *accelerator,
                    GtkWidget  *list)
{
  GtkWidget *focus;

  prs_test_press_keys (GTK_WIDGET (f->window), accelerator);
  focus = gtk_root_get_focus (GTK_ROOT (f->window));
  g_assert_true (focus_is_in (f, list));
  g_assert_true (in_view (focus, gtk_widget_get_parent (list)));
}

static void
test_tab_in_long_conversation (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *id = prs_test_resolve_conversation (store, "long");
  g_autofree char *db_path = g_strdup (prs_store_get_path (store));
  PrsConversationView *view;
  GtkWidget *list;

  g_clear_object (&store);
  prs_test_seed_messages (db_path, id, 2000);
  fixture_open (f);
  prs_window_select_conversation (f->window, id);
  prs_test_wait_frames (GTK_WIDGET (f->window), 10);
  view = prs_window_get_conversation_view (f->window);
  list = GTK_WIDGET (prs_conversation_view_get_list_view (view));

  /* From the header, Tab goes to the messages on screen (the newest), not
   * to the first of 2,000 far above, and on through them */
  g_assert_true (gtk_widget_grab_focus (prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON,
                                                              has_tooltip, (gpointer) "Conversation Menu")));
  for (guint i = 0; i < 4; i++)
    press_onto_message (f, "Tab", list);
  prs_test_screenshot (GTK_WIDGET (f->window), "long-conversation-tab");

  /* Back from the composer (past its agent picker and the jump button),
   * Shift+Tab does the same from the bottom */
  prs_composer_focus (prs_conversation_view_get_composer (view));
  g_assert_cmpuint (press_until_in (f, "<Shift>Tab", list, 4), <=, 4);
  g_assert_true (in_view (gtk_root_get_focus (GTK_ROOT (f->window)), gtk_widget_get_parent (list)));
  for (guint i = 0; i < 3; i++)
    press_onto_message (f, "<Shift>Tab", list);
}

/* ---- Shift+Tab visits the stops Tab visits ---- */

/* Where the focus is: the link of a text, or the widget */
static char *
stop_name (Fixture *f)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (f->window));

  if (GTK_IS_LABEL (focus))
    return g_strdup_printf ("%p %s", focus, gtk_label_get_current_uri (GTK_LABEL (focus)));
  return g_strdup_printf ("%p %s", focus, G_OBJECT_TYPE_NAME (focus));
}

static void
test_tab_back_same_stops (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PrsStore) store = open_store (f);
  g_autofree char *id = prs_test_resolve_conversation (store, "links");
  g_autoptr(GPtrArray) stops = g_ptr_array_new_with_free_func (g_free);
  PrsConversationView *view;
  GtkWidget *list, *composer;

  /* Two texts that end with a link: yours, and a reply */
  g_free (add_message (store, id, "user", "Compare https://example.org/one with https://example.org/two", NULL));
  g_free (add_message (store, id, "assistant", "Both are here: https://example.org/three", NULL));
  open_on (f, &store, id);
  view = prs_window_get_conversation_view (f->window);
  list = GTK_WIDGET (prs_conversation_view_get_list_view (view));
  composer = GTK_WIDGET (prs_conversation_view_get_composer (view));

  /* Tab from the header through the messages' stops to the composer */
  g_assert_true (gtk_widget_grab_focus (prs_test_find_widget (GTK_WIDGET (f->window), GTK_TYPE_MENU_BUTTON,
                                                              has_tooltip, (gpointer) "Conversation Menu")));
  while (!focus_is_in (f, composer) && stops->len < 20)
    {
      GtkWidget *focus;

      prs_test_press_keys (GTK_WIDGET (f->window), "Tab");
      focus = gtk_root_get_focus (GTK_ROOT (f->window));
      /* text is a stop only on one of its links, never a focus unseen */
      if (GTK_IS_LABEL (focus))
        g_assert_nonnull (gtk_label_get_current_uri (GTK_LABEL (focus)));
      if (focus_is_in (f, list))
        g_ptr_array_add (stops, stop_name (f));
    }
  g_assert_true (focus_is_in (f, composer));
  g_assert_true (g_ptr_array_find_with_equal_func (stops, "https://example.org/two", (GEqualFunc) g_str_has_suffix, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (stops, "https://example.org/three", (GEqualFunc) g_str_has_suffix, NULL));

  /* Shift+Tab back: the same stops, the last link of each text too */
  g_assert_cmpuint (press_until_in (f, "<Shift>Tab", list, 3), <=, 3);
  for (guint i = stops->len; i > 0; i--)
    {
      g_autofree char *stop = NULL;

      if (i < stops->len)
        prs_test_press_keys (GTK_WIDGET (f->window), "<Shift>Tab");
      stop = stop_name (f);
      g_assert_cmpstr (stop, ==, g_ptr_array_index (stops, i - 1));
      if (g_str_has_suffix (stop, "https://example.org/two"))
        prs_test_screenshot (GTK_WIDGET (f->window), "link-ending-text-shift-tab");
    }
  prs_test_press_keys (GTK_WIDGET (f->window), "<Shift>Tab");
  g_assert_false (focus_is_in (f, list));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  {
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, RESOURCE_PREFIX "/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }

#define ADD(path, func) g_test_add ("/ui/conversations/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("menu-and-keys", test_menu_and_keys);
  ADD ("tab-leaves-sidebar", test_tab_leaves_sidebar);
  ADD ("tab-in-long-conversation", test_tab_in_long_conversation);
  ADD ("tab-back-same-stops", test_tab_back_same_stops);
  ADD ("main-menu-and-pages", test_main_menu_and_pages);
  ADD ("delete-undo", test_delete_undo);
  ADD ("selection-mode", test_selection_mode);
  ADD ("search-opens-at-hit", test_search_opens_at_hit);
  ADD ("search-results-keys", test_search_results_keys);
  ADD ("details-and-copy", test_details_and_copy);
  ADD ("regenerate-and-edit", test_regenerate_and_edit);
  ADD ("export", test_export);
#undef ADD

  return g_test_run ();
}
