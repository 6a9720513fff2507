/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-list-focus.h: Tab and Shift+Tab leave a list of rows in one step,
 * which GTK 4.8's list view cannot do itself (the comment of
 * prs-list-focus.c says why). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Makes Tab and Shift+Tab on @list (a GtkListView) move the focus to what
 * follows or precedes it in the window, as for any single control; arrows
 * stay the list's own (row to row), and focus coming back lands on the row
 * the list had. */
void prs_list_focus_tab_leaves (GtkWidget *list);

G_END_DECLS
