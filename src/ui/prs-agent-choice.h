/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-agent-choice.h: the conversation menu's Agent submenu: one radio
 * item per agent; choosing one makes it the agent the conversation answers
 * with (docs/conversations.md), which the composer then offers. */
#pragma once

#include <gtk/gtk.h>

#include "prs-conversation.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_AGENT_CHOICE (prs_agent_choice_get_type ())
G_DECLARE_FINAL_TYPE (PrsAgentChoice, prs_agent_choice, PRS, AGENT_CHOICE, GObject)

/* Fills @submenu and adds the "conversation-agent" action group to @window
 * (its action "set" takes an agent id). */
PrsAgentChoice *prs_agent_choice_new              (GtkWidget       *window,
                                                   GMenu           *submenu,
                                                   PrsService      *service);
/* The conversation shown (NULL: none, the items are insensitive). */
void            prs_agent_choice_set_conversation (PrsAgentChoice  *self,
                                                   PrsConversation *conversation);
/* The "conversation-agent" group: the state of "set" is the agent of the
 * conversation shown ("" when it has none). */
GActionGroup   *prs_agent_choice_get_action_group (PrsAgentChoice  *self);
/* Reads the agents again (the menu is about to open). */
void            prs_agent_choice_refresh          (PrsAgentChoice  *self);

G_END_DECLS
