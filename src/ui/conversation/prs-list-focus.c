/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-list-focus.c: Tab leaves a list of rows in one step, as in any GNOME
 * sidebar or results list; arrows move between the rows. GTK 4.8's list
 * view moves Tab from row to row (GTK 4.12's tab-behavior fixes it; 4.8 has
 * nothing), so with hundreds of rows nothing after the list could be
 * reached by Tab. The conversations of the sidebar and the search results
 * share this. */
#include "config.h"

#include "prs-list-focus.h"

/* The window moves the focus as Tab would with the list out of the focus
 * chain for that one step (a widget that cannot take focus is passed
 * over); coming back, the list focuses the row it had (the list view keeps
 * its focus position). */
static gboolean
leave_list (GtkWidget *list,
            GVariant  *args,
            gpointer   user_data)
{
  GtkDirectionType direction = g_variant_get_boolean (args) ? GTK_DIR_TAB_FORWARD : GTK_DIR_TAB_BACKWARD;
  GtkRoot *root = gtk_widget_get_root (list);

  if (root == NULL)
    return FALSE;
  gtk_widget_set_can_focus (list, FALSE);
  gtk_widget_child_focus (GTK_WIDGET (root), direction);
  gtk_widget_set_can_focus (list, TRUE);
  return TRUE;
}

static void
add_key (GtkShortcutController *controller,
         const char            *accelerator,
         gboolean               forward)
{
  GtkShortcut *shortcut = gtk_shortcut_new (gtk_shortcut_trigger_parse_string (accelerator),
                                            gtk_callback_action_new (leave_list, NULL, NULL));

  gtk_shortcut_set_arguments (shortcut, g_variant_new_boolean (forward));
  gtk_shortcut_controller_add_shortcut (controller, shortcut);
}

void
prs_list_focus_tab_leaves (GtkWidget *list)
{
  GtkEventController *controller;

  g_return_if_fail (GTK_IS_LIST_VIEW (list));

  controller = gtk_shortcut_controller_new ();
  add_key (GTK_SHORTCUT_CONTROLLER (controller), "Tab", TRUE);
  add_key (GTK_SHORTCUT_CONTROLLER (controller), "KP_Tab", TRUE);
  add_key (GTK_SHORTCUT_CONTROLLER (controller), "<Shift>Tab", FALSE);
  add_key (GTK_SHORTCUT_CONTROLLER (controller), "<Shift>ISO_Left_Tab", FALSE);
  gtk_widget_add_controller (list, controller);
}
