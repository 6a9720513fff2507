/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation-view.h: the messages of one conversation (a GtkListView
 * over the paged PrsMessageList) and the composer. It sticks to the bottom
 * for new messages unless the user scrolled up. */
#pragma once

#include <gtk/gtk.h>

#include "prs-composer.h"
#include "prs-conversation.h"
#include "prs-message-list.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_CONVERSATION_VIEW (prs_conversation_view_get_type ())
G_DECLARE_FINAL_TYPE (PrsConversationView, prs_conversation_view, PRS, CONVERSATION_VIEW, GtkWidget)

void             prs_conversation_view_set_service      (PrsConversationView *self,
                                                         PrsService          *service);
/* NULL shows nothing. */
void             prs_conversation_view_set_conversation (PrsConversationView *self,
                                                         PrsConversation     *conversation);
/* Opens @conversation (again) at @message_id, highlighted: near the top of
 * the view, or at the bottom when it is among the last screenful. */
void             prs_conversation_view_open_at          (PrsConversationView *self,
                                                         PrsConversation     *conversation,
                                                         const char          *message_id);
/* The message opened at, or NULL */
const char      *prs_conversation_view_get_highlighted  (PrsConversationView *self);
PrsConversation *prs_conversation_view_get_conversation (PrsConversationView *self);
PrsMessageList  *prs_conversation_view_get_messages     (PrsConversationView *self);
GtkListView     *prs_conversation_view_get_list_view    (PrsConversationView *self);
PrsComposer     *prs_conversation_view_get_composer     (PrsConversationView *self);
/* TRUE while new messages scroll into view. */
gboolean         prs_conversation_view_get_sticky       (PrsConversationView *self);
void             prs_conversation_view_scroll_to_bottom (PrsConversationView *self);

G_END_DECLS
