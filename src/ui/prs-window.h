/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window.h: the main window: conversations in a sidebar, the open
 * conversation beside it (folding into one column when narrow), and the
 * tools. */
#pragma once

#include <adwaita.h>

#include "prs-agent-choice.h"
#include "prs-agents-page.h"
#include "prs-conversation-view.h"
#include "prs-insights-page.h"
#include "prs-schedules-page.h"
#include "prs-service.h"

G_BEGIN_DECLS

#define PRS_TYPE_WINDOW (prs_window_get_type ())
G_DECLARE_FINAL_TYPE (PrsWindow, prs_window, PRS, WINDOW, AdwApplicationWindow)

PrsWindow           *prs_window_new                    (gpointer     application,
                                                        PrsService  *service);
/* Shows @conversation (NULL: none) and selects it in the sidebar. */
void                 prs_window_select_conversation    (PrsWindow   *self,
                                                        const char  *conversation_id);
/* The same, opened at @message_id (highlighted; NULL: at the bottom). */
void                 prs_window_open_conversation_at   (PrsWindow   *self,
                                                        const char  *conversation_id,
                                                        const char  *message_id);
PrsConversationView *prs_window_get_conversation_view  (PrsWindow   *self);
GtkListView         *prs_window_get_conversation_list  (PrsWindow   *self);
PrsAgentsPage       *prs_window_get_agents_page        (PrsWindow   *self);
PrsInsightsPage     *prs_window_get_insights_page      (PrsWindow   *self);
PrsSchedulesPage    *prs_window_get_schedules_page     (PrsWindow   *self);
/* The conversation menu's Agent submenu */
PrsAgentChoice      *prs_window_get_agent_choice       (PrsWindow   *self);
void                 prs_window_show_toast             (PrsWindow   *self,
                                                        const char  *text);
/* A tool call of @conversation_id waits for approval (the application
 * asks while this window has the focus): unless the window shows that
 * conversation, a toast says so, with Open (docs/runs.md "Notifications");
 * it goes when the call is decided. prs-window-approvals.c */
void                 prs_window_announce_approval      (PrsWindow   *self,
                                                        const char  *conversation_id,
                                                        const char  *message_id,
                                                        const char  *tool_name);

G_END_DECLS
