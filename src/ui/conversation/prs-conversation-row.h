/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation-row.h: one conversation in the sidebar: title, the slug
 * or message count, the time of the last message and the unread count; a
 * pin when pinned, "Archived" when archived; its menu on a right click. */
#pragma once

#include <gtk/gtk.h>

#include "prs-conversation.h"

G_BEGIN_DECLS

#define PRS_TYPE_CONVERSATION_ROW (prs_conversation_row_get_type ())
G_DECLARE_FINAL_TYPE (PrsConversationRow, prs_conversation_row, PRS, CONVERSATION_ROW, GtkWidget)

GtkWidget *prs_conversation_row_new              (void);
void       prs_conversation_row_set_conversation (PrsConversationRow *self,
                                                  PrsConversation    *conversation);
PrsConversation *prs_conversation_row_get_conversation (PrsConversationRow *self);
/* The sidebar's selection mode shows a check box; a click toggles the row
 * (listitem.select) instead of opening the conversation. */
void       prs_conversation_row_set_selection    (PrsConversationRow *self,
                                                  gboolean            selection_mode,
                                                  gboolean            selected);
/* Asks for the row's menu at (@x, @y) in the row, or at its middle when
 * both are negative (the Menu key): PrsConversationRow::menu-requested. */
void       prs_conversation_row_request_menu     (PrsConversationRow *self,
                                                  double              x,
                                                  double              y);
/* "14:02", "Yesterday", "Tue", "3 Mar 2024": how old @time is from @now. */
char      *prs_conversation_row_format_time      (GDateTime          *time,
                                                  GDateTime          *now);

G_END_DECLS
