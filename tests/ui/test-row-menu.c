/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-row-menu.c: the sidebar's rows. A slug a workflow sent with a tab,
 * a line break or an escape shows on one line, in the row and in the
 * header (docs/api.md). The row's own menu (docs/conversations.md), used
 * as a person does, with the pointer through a real X server: Delete and
 * Archive take the row away while its menu is closing, and a window closed
 * with a menu up takes the menu along. Each leaves no widget behind: GTK
 * warns (fatal in tests) when a row goes with its menu still attached, and
 * a later unparent of that menu touched freed memory. */
#include "config.h"

#include <adwaita.h>

#include "prs-conversation-list.h"
#include "prs-conversation-row.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char       *data_dir;
  char       *alpha;
  char       *beta;
  PrsService *service;
  PrsWindow  *window;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-row-menu-XXXXXX", &error);
  g_assert_no_error (error);
  store = prs_store_new (f->data_dir, &error);
  g_assert_no_error (error);
  f->alpha = prs_test_resolve_conversation (store, "alpha");
  f->beta = prs_test_resolve_conversation (store, "beta");
  g_clear_object (&store);

  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);
  f->window = g_object_ref_sink (prs_window_new (NULL, f->service));
  gtk_window_set_default_size (GTK_WINDOW (f->window), 1060, 720);
  gtk_window_present (GTK_WINDOW (f->window));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
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
  prs_service_stop (f->service);
  g_clear_object (&f->service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
  g_free (f->alpha);
  g_free (f->beta);
}

static PrsConversationList *
conversations (Fixture *f)
{
  return prs_service_get_conversations (f->service);
}

static GtkWidget *
conversation_row (Fixture    *f,
                  const char *id)
{
  return prs_test_find_conversation_row (f->window, id);
}

static gboolean
widget_is_visible (GtkWidget *widget,
                   gpointer   data)
{
  return gtk_widget_get_visible (widget);
}

/* Right-clicks @id's row and returns its menu, up */
static GtkWidget *
open_row_menu (Fixture    *f,
               const char *id)
{
  GtkWidget *row = conversation_row (f, id);
  GtkWidget *menu;

  g_assert_nonnull (row);
  prs_test_click_pointer (row, 3);
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  menu = prs_test_find_widget (row, GTK_TYPE_POPOVER_MENU, widget_is_visible, NULL);
  g_assert_nonnull (menu);
  return menu;
}

/* Clicks the menu's item labelled @label (its mnemonic's underline gone) */
static void
click_item (Fixture    *f,
            GtkWidget  *menu,
            const char *label)
{
  GtkWidget *item = prs_test_find_label (menu, label);

  g_assert_nonnull (item);
  prs_test_click_pointer (item, 1);
  prs_test_wait_frames (GTK_WIDGET (f->window), 5);
}

static gboolean
row_gone (gpointer data)
{
  Fixture *f = data;

  return conversation_row (f, f->beta) == NULL;
}

static void
test_delete_and_archive (Fixture       *f,
                         gconstpointer  data)
{
  /* Delete, from the menu: the row goes while its menu closes */
  click_item (f, open_row_menu (f, f->beta), "Delete");
  g_assert_null (prs_conversation_list_find (conversations (f), f->beta, NULL));
  g_assert_true (prs_test_wait_until (row_gone, f));

  /* Back with Undo, then archived from the menu: the row goes again */
  gtk_widget_activate_action (GTK_WIDGET (f->window), "win.undo-delete", "^as",
                              (const char *[]) { f->beta, NULL });
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  g_assert_nonnull (conversation_row (f, f->beta));
  click_item (f, open_row_menu (f, f->beta), "Archive");
  g_assert_true (prs_test_wait_until (row_gone, f));

  /* The idle that takes a closed menu away has run on rows that are gone */
  prs_test_wait_frames (GTK_WIDGET (f->window), 5);
  g_assert_nonnull (conversation_row (f, f->alpha));
}

static gboolean
has_control (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (g_unichar_iscntrl (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

static void
test_one_line_names (Fixture       *f,
                     gconstpointer  data)
{
  const char *slug = "Re: Q3\tPlanning\n\x1b[2J\xc2\x9b";
  PrsConversation *tabbed = prs_conversation_list_resolve (conversations (f), slug, NULL);
  GtkWidget *row;
  GtkWidget *label;

  g_assert_nonnull (tabbed);
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  row = conversation_row (f, prs_conversation_get_id (tabbed));
  g_assert_nonnull (row);
  label = prs_test_find_widget (row, GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "Planning");
  g_assert_nonnull (label);
  g_assert_false (has_control (gtk_label_get_text (GTK_LABEL (label))));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "Re: Q3 Planning  [2J ");
  /* Opened, the composer's hint names it on one line too */
  prs_window_select_conversation (f->window, prs_conversation_get_id (tabbed));
  prs_test_wait_frames (GTK_WIDGET (f->window), 3);
  label = prs_test_find_widget (GTK_WIDGET (prs_conversation_view_get_composer (prs_window_get_conversation_view (f->window))),
                                GTK_TYPE_LABEL, prs_test_label_markup_contains, (gpointer) "Planning");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "Message Re: Q3 Planning  [2J ");
  /* The store keeps what the workflow sent */
  g_assert_cmpstr (prs_conversation_get_slug (tabbed), ==, slug);
}

static void
test_window_closes_with_menu_up (Fixture       *f,
                                 gconstpointer  data)
{
  open_row_menu (f, f->alpha);
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_clear_object (&f->window);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add ("/ui/row-menu/delete-and-archive", Fixture, NULL,
              fixture_setup, test_delete_and_archive, fixture_teardown);
  g_test_add ("/ui/row-menu/one-line-names", Fixture, NULL,
              fixture_setup, test_one_line_names, fixture_teardown);
  g_test_add ("/ui/row-menu/window-closes-with-menu-up", Fixture, NULL,
              fixture_setup, test_window_closes_with_menu_up, fixture_teardown);

  return g_test_run ();
}
