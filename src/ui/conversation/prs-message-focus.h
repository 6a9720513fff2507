/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-focus.h: Tab and Shift+Tab through the controls of the
 * messages on screen, and Up and Down from message to message, which
 * GTK 4.8's list view cannot do itself (the comment of
 * prs-message-focus.c says why). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Moves the keyboard focus one step in @direction (GTK_DIR_TAB_FORWARD or
 * GTK_DIR_TAB_BACKWARD) through @parts, the parts of a conversation in Tab
 * order: @parts[0] is the message list (a GtkListView whose parent is its
 * GtkScrolledWindow), the others ordinary widgets (NULL or unmapped ones
 * are skipped). In the list it stops on every control of the rows at
 * least partly on screen, top to bottom, and scrolls the one it focuses
 * fully into view. FALSE when the focus leaves the parts (the caller's
 * parent moves on), as a GtkWidget focus handler. */
gboolean prs_message_focus_move (GtkWidget * const *parts,
                                 guint              n_parts,
                                 GtkDirectionType   direction);

/* Makes Up and Down in @list (the message list, in its GtkScrolledWindow)
 * move the focus from row to row, to the first control of the next row
 * that has one, and scroll it into view. */
void     prs_message_focus_add_arrows   (GtkListView       *list);

G_END_DECLS
