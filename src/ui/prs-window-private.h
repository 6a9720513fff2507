/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window-private.h: the window's struct and what its files share:
 * prs-window.c (the window, its pages and runs) and
 * prs-window-conversations.c (keeping conversations: the sidebar's menu,
 * selection, deleting with Undo, search, export, Regenerate and Edit and
 * Resend) and prs-window-approvals.c (the toast saying a tool call
 * waits). */
#pragma once

#include "prs-agent-choice.h"
#include "prs-agents-page.h"
#include "prs-conversation-view.h"
#include "prs-insights-page.h"
#include "prs-schedules-page.h"
#include "prs-search-panel.h"
#include "prs-tools-page.h"
#include "prs-window.h"

G_BEGIN_DECLS

struct _PrsWindow
{
  AdwApplicationWindow  parent_instance;

  PrsService           *service;
  GtkSliceListModel    *revealed;    /* the conversations the list is given so far */
  guint                 reveal_id;
  gboolean              revealing;     /* past the first frame, which shows the first screenful */
  GtkSingleSelection   *selection;
  GtkMultiSelection    *multi_selection;  /* the sidebar's selection mode */
  PrsConversation      *shown;       /* for its title's notifications */
  char                 *open_at;     /* the message a selection opens at (a search hit) */
  GHashTable           *pending_deletions;  /* ids Undo can still restore */

  /* Built when first wanted, owned by their stack (see prs-window.c) */
  PrsAgentsPage        *agents_page;
  PrsInsightsPage      *insights_page;
  PrsSchedulesPage     *schedules_page;
  PrsSearchPanel       *search_panel;
  PrsToolsPage         *tools_page;

  GtkListView          *conversation_list;
  PrsConversationView  *conversation_view;
  AdwWindowTitle       *content_title;
  GtkStack             *content_stack;
  GMenu                *conversation_menu;
  GtkWidget            *conversation_menu_button;
  GMenu                *agent_menu;
  PrsAgentChoice       *agent_choice;
  AdwLeaflet           *leaflet;
  GMenu                *primary_menu;
  GtkWidget            *primary_menu_button;
  GtkWidget            *refresh_button;
  GtkSearchBar         *search_bar;
  GtkWidget            *search_button;
  GtkSearchEntry       *search_entry;
  GtkActionBar         *selection_bar;
  GtkLabel             *selection_label;
  GtkStack             *sidebar_stack;
  GtkSpinner           *spinner;
  GtkRevealer          *storage_banner;
  AdwToastOverlay      *toast_overlay;

  /* prs-window-approvals.c: the toast saying tool calls wait, and those
   * calls, oldest first */
  AdwToast             *approval_toast;
  guint                 approval_dismiss_id;
  gint64                approval_seen_at;   /* when it was first seen on screen */
  GPtrArray            *announced_calls;
};

/* prs-window.c */
PrsConversationList *_prs_window_conversations   (PrsWindow          *self);
void                 _prs_window_update_title    (PrsWindow          *self);
void                 _prs_window_update_sidebar_page (PrsWindow      *self);
void                 _prs_window_update_busy     (PrsWindow          *self);
/* Sets the unread count of the conversation shown back to 0 */
void                 _prs_window_mark_shown_read (PrsWindow          *self);
/* The rename dialog for @conversation */
void                 _prs_window_rename          (PrsWindow          *self,
                                                  PrsConversation    *conversation);

/* prs-window-conversations.c */
/* The sidebar's search panel, built on first use */
PrsSearchPanel *_prs_window_search_panel         (PrsWindow          *self);
void      _prs_window_conversations_class_init   (GtkWidgetClass     *widget_class);
void      _prs_window_conversations_init         (PrsWindow          *self);
/* After the service is set */
void      _prs_window_conversations_start        (PrsWindow          *self);
/* Deletions still offered for Undo become final (the window goes away) */
void      _prs_window_conversations_dispose      (PrsWindow          *self);
/* The shown conversation's pinned and archived state */
void      _prs_window_conversations_update_actions (PrsWindow        *self);
/* The sidebar row's menu */
void      _prs_window_setup_conversation_row     (PrsWindow          *self,
                                                  GtkListItem        *item,
                                                  GtkWidget          *row);
void      _prs_window_bind_conversation_row      (PrsWindow          *self,
                                                  GtkListItem        *item);
/* A reply's Regenerate, a message's Edit and Resend */
void      _prs_window_on_message_action          (PrsConversationView *view,
                                                  const char         *message_id,
                                                  const char         *action,
                                                  PrsWindow          *self);

/* prs-window-approvals.c */
void      _prs_window_approvals_class_init       (GtkWidgetClass     *widget_class);
/* After the service is set */
void      _prs_window_approvals_start            (PrsWindow          *self);
void      _prs_window_approvals_dispose          (PrsWindow          *self);
void      _prs_window_approvals_shown            (PrsWindow          *self);

G_END_DECLS
