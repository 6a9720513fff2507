/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window.c: the main window. The sidebar shows the service's
 * PrsConversationList through a GtkSingleSelection; the selected
 * conversation opens in the PrsConversationView. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-agent-choice.h"
#include "prs-agents-page.h"
#include "prs-control-chars.h"
#include "prs-conversation-row.h"
#include "prs-conversation-view.h"
#include "prs-dialogs.h"
#include "prs-error.h"
#include "prs-frame-trace.h"
#include "prs-insights-page.h"
#include "prs-preferences-window.h"
#include "prs-schedules-page.h"
#include "prs-tools-page.h"
#include "prs-window-private.h"
#include "prs-window-state.h"

G_DEFINE_FINAL_TYPE (PrsWindow, prs_window, ADW_TYPE_APPLICATION_WINDOW)

void
prs_window_show_toast (PrsWindow  *self,
                       const char *text)
{
  g_return_if_fail (PRS_IS_WINDOW (self));
  adw_toast_overlay_add_toast (self->toast_overlay, prs_dialogs_new_toast (text));
}

PrsConversationView *
prs_window_get_conversation_view (PrsWindow *self)
{
  g_return_val_if_fail (PRS_IS_WINDOW (self), NULL);
  return self->conversation_view;
}

GtkListView *
prs_window_get_conversation_list (PrsWindow *self)
{
  g_return_val_if_fail (PRS_IS_WINDOW (self), NULL);
  return self->conversation_list;
}

static PrsConversationList *
conversations (PrsWindow *self)
{
  return prs_service_get_conversations (self->service);
}

PrsConversationList *
_prs_window_conversations (PrsWindow *self)
{
  return conversations (self);
}

/* ---- pages built when first wanted ---- */

/* The Tools, Agents, Schedules and Insights pages are added to the content
 * stack when first shown or asked for: built with the window's template
 * (with the search panel and the menus' popovers, below) they were 40 % of
 * its cost and a sixth of its first frame's, for pages most starts never
 * show. The stack owns them; the pointers are borrowed. */
typedef void (*SetService) (gpointer    page,
                            PrsService *service);

static gpointer
page (PrsWindow  *self,
      gpointer   *slot,
      GType       type,
      const char *name,
      SetService  set_service)
{
  if (*slot == NULL)
    {
      *slot = g_object_new (type, NULL);
      gtk_stack_add_named (self->content_stack, GTK_WIDGET (*slot), name);
      set_service (*slot, self->service);
    }
  return *slot;
}

static PrsToolsPage *
tools_page (PrsWindow *self)
{
  return page (self, (gpointer *) &self->tools_page, PRS_TYPE_TOOLS_PAGE, "tools",
               (SetService) prs_tools_page_set_service);
}

static PrsAgentsPage *
agents_page (PrsWindow *self)
{
  return page (self, (gpointer *) &self->agents_page, PRS_TYPE_AGENTS_PAGE, "agents",
               (SetService) prs_agents_page_set_service);
}

static PrsSchedulesPage *
schedules_page (PrsWindow *self)
{
  return page (self, (gpointer *) &self->schedules_page, PRS_TYPE_SCHEDULES_PAGE, "schedules",
               (SetService) prs_schedules_page_set_service);
}

static PrsInsightsPage *
insights_page (PrsWindow *self)
{
  return page (self, (gpointer *) &self->insights_page, PRS_TYPE_INSIGHTS_PAGE, "insights",
               (SetService) prs_insights_page_set_service);
}

/* The "empty" pages of the sidebar's and the content's stacks show on a
 * first start or while no conversation is open: built with the window they
 * cost its start 8 M instructions (1 %), for pages most starts never show */
static void
show_empty_page (GtkStack   *stack,
                 const char *title,
                 const char *description,
                 gboolean    compact)
{
  if (gtk_stack_get_child_by_name (stack, "empty") == NULL)
    {
      GtkWidget *status = g_object_new (ADW_TYPE_STATUS_PAGE,
                                        "icon-name", "chat-message-new-symbolic",
                                        "title", title,
                                        "description", description,
                                        NULL);

      if (compact)
        gtk_widget_add_css_class (status, "compact");
      gtk_stack_add_named (stack, status, "empty");
    }
  gtk_stack_set_visible_child_name (stack, "empty");
}

/* ---- tools ---- */

static void
reload_tools (PrsWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (prs_tools_page_reload (tools_page (self), &error) < 0)
    prs_window_show_toast (self, error->message);
}

static void
on_discovery_running (PrsDiscovery *discovery,
                      GParamSpec   *pspec,
                      PrsWindow    *self)
{
  gboolean running = prs_discovery_get_running (discovery);

  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->spinner), running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.refresh-tools", !running);
}

static void
on_discovery_finished (PrsDiscovery *discovery,
                       const GError *error,
                       PrsWindow    *self)
{
  /* A page not built yet reads the tools when it is first shown */
  if (self->tools_page != NULL)
    reload_tools (self);
}

static void
refresh_tools_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  /* The Tools page runs it and toasts the result. */
  prs_tools_page_refresh (tools_page (PRS_WINDOW (widget)));
}

/* ---- which page shows ---- */

static void
update_title (PrsWindow *self)
{
  _prs_window_update_title (self);
}

void
_prs_window_update_title (PrsWindow *self)
{
  const char *page = gtk_stack_get_visible_child_name (self->content_stack);

  if (g_strcmp0 (page, "tools") == 0)
    {
      adw_window_title_set_title (self->content_title, _("Tools"));
      adw_window_title_set_subtitle (self->content_title, "");
    }
  else if (g_strcmp0 (page, "agents") == 0)
    {
      adw_window_title_set_title (self->content_title, _("Agents"));
      adw_window_title_set_subtitle (self->content_title, "");
    }
  else if (g_strcmp0 (page, "schedules") == 0)
    {
      adw_window_title_set_title (self->content_title, _("Schedules"));
      adw_window_title_set_subtitle (self->content_title, "");
    }
  else if (g_strcmp0 (page, "insights") == 0)
    {
      adw_window_title_set_title (self->content_title, _("Insights"));
      adw_window_title_set_subtitle (self->content_title, "");
    }
  else if (g_strcmp0 (page, "conversation") == 0 && self->shown != NULL)
    {
      /* One line each, whatever a workflow put in the slug */
      g_autofree char *title = prs_text_blank_controls (prs_conversation_get_title (self->shown), -1, FALSE);
      g_autofree char *slug = prs_text_blank_controls (prs_conversation_get_slug (self->shown), -1, FALSE);

      adw_window_title_set_title (self->content_title, title);
      adw_window_title_set_subtitle (self->content_title, g_strcmp0 (title, slug) != 0 ? slug : "");
    }
  else
    {
      adw_window_title_set_title (self->content_title, "");
      adw_window_title_set_subtitle (self->content_title, "");
    }

  gtk_widget_set_visible (self->conversation_menu_button, g_strcmp0 (page, "conversation") == 0);
  gtk_widget_set_visible (self->refresh_button, g_strcmp0 (page, "tools") == 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.rename-conversation", self->shown != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.schedule-here", self->shown != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.delete-conversation", self->shown != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-markdown", self->shown != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-json", self->shown != NULL);
  _prs_window_conversations_update_actions (self);
}

static void
on_shown_notify (PrsConversation *conversation,
                 GParamSpec      *pspec,
                 PrsWindow       *self)
{
  update_title (self);
}

/* The conversation shown is read (docs/conversations.md: the unread count) */
void
_prs_window_mark_shown_read (PrsWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (self->shown == NULL || prs_conversation_get_unread_count (self->shown) == 0)
    return;
  if (!prs_conversation_list_mark_read (conversations (self), self->shown, &error))
    g_message ("Could not mark a conversation read: %s", error->message);
}

static void
show_conversation (PrsWindow       *self,
                   PrsConversation *conversation)
{
  /* PROSPONSIVE_TRACE_FRAMES=1: "TRACE first-frame <ms>" (bench/) */
  if (conversation != NULL)
    prs_frame_trace_begin (GTK_WIDGET (self), "first-frame");

  if (self->shown != conversation)
    {
      if (self->shown != NULL)
        g_signal_handlers_disconnect_by_func (self->shown, on_shown_notify, self);
      g_set_object (&self->shown, conversation);
      if (self->agent_choice != NULL)
        prs_agent_choice_set_conversation (self->agent_choice, conversation);
      if (conversation != NULL)
        {
          g_signal_connect_object (conversation, "notify::title", G_CALLBACK (on_shown_notify), self, 0);
          g_signal_connect_object (conversation, "notify::pinned", G_CALLBACK (on_shown_notify), self, 0);
          g_signal_connect_object (conversation, "notify::archived", G_CALLBACK (on_shown_notify), self, 0);
        }
    }

  if (conversation != NULL && self->open_at != NULL)
    prs_conversation_view_open_at (self->conversation_view, conversation, self->open_at);
  else
    prs_conversation_view_set_conversation (self->conversation_view, conversation);
  if (conversation != NULL)
    gtk_stack_set_visible_child_name (self->content_stack, "conversation");
  else
    show_empty_page (self->content_stack, _("Welcome to Prosponsive"),
                     _("Pick a conversation, or start one with Ctrl+N. Workflows can post into conversations "
                       "through the local API; their messages appear here as they arrive."),
                     FALSE);
  update_title (self);
  _prs_window_mark_shown_read (self);
  _prs_window_approvals_shown (self);
}

static gboolean
sidebar_has_focus (PrsWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  return focus != NULL && (focus == GTK_WIDGET (self->conversation_list) ||
                           gtk_widget_is_ancestor (focus, GTK_WIDGET (self->conversation_list)));
}

static void
on_selected_changed (GtkSingleSelection *selection,
                     GParamSpec         *pspec,
                     PrsWindow          *self)
{
  PrsConversation *conversation = gtk_single_selection_get_selected_item (selection);

  /* GtkSingleSelection says "selected" also when only the selected row
   * moved (a message arrived in a conversation below it): the page on the
   * screen (Insights, Tools, …) stays unless another item was selected */
  if (conversation == self->shown)
    return;
  show_conversation (self, conversation);
  /* Folded, a click in the list opens the conversation. */
  if (conversation != NULL && adw_leaflet_get_folded (self->leaflet) && sidebar_has_focus (self))
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
}

static void
on_conversation_activate (GtkListView *list,
                          guint        position,
                          PrsWindow   *self)
{
  /* Selection mode: Enter toggles the row */
  if (gtk_list_view_get_model (list) == GTK_SELECTION_MODEL (self->multi_selection))
    {
      if (gtk_selection_model_is_selected (GTK_SELECTION_MODEL (self->multi_selection), position))
        gtk_selection_model_unselect_item (GTK_SELECTION_MODEL (self->multi_selection), position);
      else
        gtk_selection_model_select_item (GTK_SELECTION_MODEL (self->multi_selection), position, FALSE);
      return;
    }
  if (position == gtk_single_selection_get_selected (self->selection))
    show_conversation (self, gtk_single_selection_get_selected_item (self->selection));
  if (adw_leaflet_get_folded (self->leaflet))
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
}

/* A row clicked (prs-conversation-row.c): the selected one is shown again,
 * since selecting it changes nothing; another is left to the selection */
static void
conversation_clicked_activated (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  PrsConversation *selected = gtk_single_selection_get_selected_item (self->selection);

  if (selected != NULL && g_strcmp0 (prs_conversation_get_id (selected), g_variant_get_string (parameter, NULL)) == 0)
    prs_window_select_conversation (self, prs_conversation_get_id (selected));
}

static void
update_sidebar_page (PrsWindow *self)
{
  _prs_window_update_sidebar_page (self);
}

void
_prs_window_update_sidebar_page (PrsWindow *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (conversations (self)));

  if (gtk_search_bar_get_search_mode (self->search_bar))
    {
      _prs_window_search_panel (self);
      gtk_stack_set_visible_child_name (self->sidebar_stack, "search");
    }
  else if (n > 0)
    gtk_stack_set_visible_child_name (self->sidebar_stack, "list");
  else
    show_empty_page (self->sidebar_stack, _("No Conversations"),
                     _("Start one with the + button, or let an n8n workflow open one through the local API "
                       "(POST /api/conversations/resolve)."),
                     TRUE);
}

static void
on_conversations_changed (GListModel *model,
                          guint       position,
                          guint       removed,
                          guint       added,
                          PrsWindow  *self)
{
  update_sidebar_page (self);
}

static void
on_message_added (PrsService *service,
                  const char *conversation_id,
                  const char *message_id,
                  PrsWindow  *self)
{
  g_autoptr(GError) error = NULL;

  /* What arrives in the open conversation is read. The list follows the
   * store once per main loop turn: read this one row now, so its unread
   * count is the store's. */
  if (self->shown != NULL && gtk_window_is_active (GTK_WINDOW (self)) &&
      g_strcmp0 (prs_conversation_get_id (self->shown), conversation_id) == 0 &&
      g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "conversation") == 0)
    {
      if (!prs_conversation_list_update (conversations (self), conversation_id, &error))
        g_message ("Could not read a conversation: %s", error->message);
      _prs_window_mark_shown_read (self);
    }
}

/* GTK 4.8's list view builds rows for ~200 items around its anchor as
 * soon as it gets a model, which cost a new window ~100 ms with 1,000
 * conversations before its first frame. It gets the first screenful, then
 * REVEAL_STEP more a frame from the second frame on (a tick callback runs
 * before its frame is painted: the first frame is the first screenful's
 * alone) until it has them all (and follows the model). */
#define FIRST_SCREENFUL 20
#define REVEAL_STEP     20

static void
reveal_all (PrsWindow *self)
{
  if (self->reveal_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->reveal_id);
  self->reveal_id = 0;
  gtk_slice_list_model_set_size (self->revealed, G_MAXUINT);
}

static gboolean
reveal_more (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       user_data)
{
  PrsWindow *self = PRS_WINDOW (widget);
  guint size = gtk_slice_list_model_get_size (self->revealed) + REVEAL_STEP;

  if (!self->revealing)
    {
      self->revealing = TRUE;
      return G_SOURCE_CONTINUE;
    }
  if (size >= g_list_model_get_n_items (G_LIST_MODEL (conversations (self))))
    {
      self->reveal_id = 0;
      gtk_slice_list_model_set_size (self->revealed, G_MAXUINT);
      return G_SOURCE_REMOVE;
    }
  gtk_slice_list_model_set_size (self->revealed, size);
  return G_SOURCE_CONTINUE;
}

void
prs_window_select_conversation (PrsWindow  *self,
                                const char *conversation_id)
{
  prs_window_open_conversation_at (self, conversation_id, NULL);
}

void
prs_window_open_conversation_at (PrsWindow  *self,
                                 const char *conversation_id,
                                 const char *message_id)
{
  g_autoptr(GError) error = NULL;
  guint position;

  g_return_if_fail (PRS_IS_WINDOW (self));

  /* It may be new since the last main loop turn */
  if (!prs_conversation_list_flush (conversations (self), &error))
    g_message ("Could not read the conversations: %s", error->message);
  if (prs_conversation_list_find (conversations (self), conversation_id, &position) == NULL)
    return;

  if (position >= gtk_slice_list_model_get_size (self->revealed))
    reveal_all (self);
  g_free (self->open_at);
  self->open_at = g_strdup (message_id);
  if (gtk_single_selection_get_selected (self->selection) != position)
    gtk_single_selection_set_selected (self->selection, position);
  else
    /* Already selected (the Tools page was showing): show it again. */
    show_conversation (self, gtk_single_selection_get_selected_item (self->selection));
  g_clear_pointer (&self->open_at, g_free);
  if (adw_leaflet_get_folded (self->leaflet))
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
}

/* ---- sidebar rows ---- */

static void
setup_conversation_row (GtkSignalListItemFactory *factory,
                        GtkListItem              *item,
                        PrsWindow                *self)
{
  GtkWidget *row = prs_conversation_row_new ();

  _prs_window_setup_conversation_row (self, item, row);
  gtk_list_item_set_child (item, row);
}

static void
bind_conversation_row (GtkSignalListItemFactory *factory,
                       GtkListItem              *item,
                       PrsWindow                *self)
{
  prs_conversation_row_set_conversation (PRS_CONVERSATION_ROW (gtk_list_item_get_child (item)),
                                         gtk_list_item_get_item (item));
  _prs_window_bind_conversation_row (self, item);
}

static void
unbind_conversation_row (GtkSignalListItemFactory *factory,
                         GtkListItem              *item,
                         gpointer                  user_data)
{
  prs_conversation_row_set_conversation (PRS_CONVERSATION_ROW (gtk_list_item_get_child (item)), NULL);
}

/* ---- other actions ---- */

/* Shows the content page @name and gives it the focus, so that the keys
 * act on what is now on the screen, not on the button (≡) or the composer
 * that opened it */
static void
show_page (PrsWindow  *self,
           const char *name)
{
  GtkWidget *page;

  gtk_stack_set_visible_child_name (self->content_stack, name);
  update_title (self);
  if (adw_leaflet_get_folded (self->leaflet))
    adw_leaflet_navigate (self->leaflet, ADW_NAVIGATION_DIRECTION_FORWARD);
  page = gtk_stack_get_visible_child (self->content_stack);
  if (page != NULL)
    gtk_widget_child_focus (page, GTK_DIR_TAB_FORWARD);
}

static void
show_tools_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  reload_tools (self);
  show_page (self, "tools");
}

static void
show_agents_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (prs_agents_page_reload (agents_page (self), &error) < 0)
    prs_window_show_toast (self, error->message);
  show_page (self, "agents");
}

static void
show_schedules_activated (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);
  g_autoptr(GError) error = NULL;

  if (prs_schedules_page_reload (schedules_page (self), &error) < 0)
    prs_window_show_toast (self, error->message);
  show_page (self, "schedules");
}

/* A new schedule for the conversation shown, answered by its agent */
static void
schedule_here_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  if (self->shown == NULL)
    return;
  prs_schedules_page_edit (schedules_page (self), NULL, prs_conversation_get_slug (self->shown),
                           prs_conversation_get_default_agent (self->shown));
}

PrsSchedulesPage *
prs_window_get_schedules_page (PrsWindow *self)
{
  g_return_val_if_fail (PRS_IS_WINDOW (self), NULL);
  return schedules_page (self);
}

static void
show_insights_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  prs_insights_page_reload (insights_page (self));
  show_page (self, "insights");
}

PrsInsightsPage *
prs_window_get_insights_page (PrsWindow *self)
{
  g_return_val_if_fail (PRS_IS_WINDOW (self), NULL);
  return insights_page (self);
}

PrsAgentsPage *
prs_window_get_agents_page (PrsWindow *self)
{
  g_return_val_if_fail (PRS_IS_WINDOW (self), NULL);
  return agents_page (self);
}

static void
back_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  adw_leaflet_navigate (PRS_WINDOW (widget)->leaflet, ADW_NAVIGATION_DIRECTION_BACK);
}

static void
preferences_activated (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  PrsPreferencesWindow *preferences = prs_preferences_window_new (GTK_WINDOW (self), self->service);

  /* win.preferences-page opens on the page it names ("mcp", …) */
  if (parameter != NULL)
    adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (preferences),
                                                  g_variant_get_string (parameter, NULL));
  gtk_window_present (GTK_WINDOW (preferences));
}

static void
show_toast_activated (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  prs_window_show_toast (PRS_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

static void
on_tool_action (PrsConversationView *view,
                const char          *message_id,
                const char          *action,
                const char          *arguments,
                PrsWindow           *self)
{
  g_autoptr(GError) error = NULL;
  PrsRunner *runner = prs_service_get_runner (self->service);

  /* Approve, deny, edit, approve-all, retry: the runner enforces them */
  if (runner != NULL && !prs_runner_tool_action (runner, message_id, action, arguments, &error))
    prs_window_show_toast (self, error->message);
}

/* ---- agent runs ---- */

static void
update_busy (PrsWindow *self)
{
  _prs_window_update_busy (self);
}

void
_prs_window_update_busy (PrsWindow *self)
{
  PrsConversation *conversation = prs_conversation_view_get_conversation (self->conversation_view);
  PrsRunner *runner = prs_service_get_runner (self->service);
  PrsRun *run = NULL;

  if (runner != NULL && conversation != NULL)
    run = prs_runner_get_conversation_run (runner, prs_conversation_get_id (conversation));
  prs_composer_set_busy (prs_conversation_view_get_composer (self->conversation_view),
                         run != NULL && !prs_run_is_resting (run));
}

static void
on_run_changed (PrsRunner *runner,
                PrsRun    *run,
                PrsWindow *self)
{
  update_busy (self);
}

static void
on_message_changed (PrsService *service,
                    const char *conversation_id,
                    const char *message_id,
                    PrsWindow  *self)
{
  PrsMessageList *messages = prs_conversation_view_get_messages (self->conversation_view);

  /* Streamed text and tool call statuses change rows in place */
  if (messages != NULL &&
      g_strcmp0 (prs_message_list_get_conversation_id (messages), conversation_id) == 0)
    prs_message_list_message_changed (messages, message_id);
}

/* After the view stored the user's message: an in-app run answers it */
static void
on_message_sent (PrsConversationView *view,
                 const char          *agent_id,
                 PrsWindow           *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsRun) run = NULL;
  PrsConversation *conversation = prs_conversation_view_get_conversation (self->conversation_view);
  PrsRunner *runner = prs_service_get_runner (self->service);

  if (runner == NULL || conversation == NULL)
    return;
  run = prs_runner_start_chat (runner, prs_conversation_get_id (conversation), agent_id, &error);
  if (run == NULL)
    prs_window_show_toast (self, error->message);
  update_busy (self);
}

/* A Stop the database refused (the run waited, and its end could not be
 * stored): the run waits on as stored, and the person hears why, not
 * silence (docs/storage.md) */
static void
say_not_stopped (PrsWindow    *self,
                 const GError *error)
{
  g_autofree char *text = NULL;

  if (g_error_matches (error, PRS_ERROR, PRS_ERROR_STORE_BUSY))
    {
      prs_window_show_toast (self, _("Could not stop the run: the database is busy. Try again."));
      return;
    }
  /* Translators: a toast; %s says why, in a sentence */
  text = g_strdup_printf (_("Could not stop the run: %s"), error->message);
  prs_window_show_toast (self, text);
}

static void
on_composer_stop (PrsComposer *composer,
                  PrsWindow   *self)
{
  PrsConversation *conversation = prs_conversation_view_get_conversation (self->conversation_view);
  PrsRunner *runner = prs_service_get_runner (self->service);
  g_autoptr(GError) error = NULL;
  PrsRun *run;

  if (runner == NULL || conversation == NULL)
    return;
  run = prs_runner_get_conversation_run (runner, prs_conversation_get_id (conversation));
  if (run != NULL && !prs_runner_cancel (runner, prs_run_get_id (run), &error))
    say_not_stopped (self, error);
  update_busy (self);
}

/* ---- life ---- */

/* The disk is full: a banner over the conversation, until it is not. A
 * revealer measures its child also while it is concealed, and the banner's
 * wrapped text was laid out over a hundred times before the first frame:
 * the banner is hidden whenever it is not showing or sliding away. */
static void
on_storage_full (PrsService *service,
                 GParamSpec *pspec,
                 PrsWindow  *self)
{
  gboolean full = prs_service_get_storage_full (service);

  if (full)
    gtk_widget_set_visible (GTK_WIDGET (self->storage_banner), TRUE);
  gtk_revealer_set_reveal_child (self->storage_banner, full);
}

static void
on_storage_banner_revealed (GtkRevealer *banner,
                            GParamSpec  *pspec,
                            PrsWindow   *self)
{
  if (!gtk_revealer_get_reveal_child (banner) && !gtk_revealer_get_child_revealed (banner))
    gtk_widget_set_visible (GTK_WIDGET (banner), FALSE);
}

static void
check_storage_activated (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  PrsWindow *self = PRS_WINDOW (widget);

  if (!prs_service_check_storage (self->service))
    prs_window_show_toast (self, _("The disk is still full. Free some space, then check again."));
}

PrsWindow *
prs_window_new (gpointer    application,
                PrsService *service)
{
  PrsWindow *self;
  PrsDiscovery *discovery;
  GListModel *model;

  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);
  g_return_val_if_fail (prs_service_get_conversations (service) != NULL, NULL);

  self = g_object_new (PRS_TYPE_WINDOW, "application", application, NULL);
  self->service = g_object_ref (service);
  /* Frames before requests, when both want the cores */
  prs_service_give_way_to_window (service);
  prs_window_state_bind (GTK_WINDOW (self), prs_service_get_settings (service));
  /* The conversation menu's Agent submenu (read again whenever it opens) */
  self->agent_choice = prs_agent_choice_new (GTK_WIDGET (self), self->agent_menu, service);

  prs_conversation_view_set_service (self->conversation_view, service);
  g_signal_connect_object (self->conversation_view, "tool-action", G_CALLBACK (on_tool_action), self, 0);
  g_signal_connect_object (self->conversation_view, "message-action",
                           G_CALLBACK (_prs_window_on_message_action), self, 0);

  model = G_LIST_MODEL (prs_service_get_conversations (service));
  self->revealed = gtk_slice_list_model_new (g_object_ref (model), 0, FIRST_SCREENFUL);
  self->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (self->revealed)));
  gtk_single_selection_set_autoselect (self->selection, TRUE);
  g_signal_connect_object (self->selection, "notify::selected", G_CALLBACK (on_selected_changed), self, 0);
  g_signal_connect_object (model, "items-changed", G_CALLBACK (on_conversations_changed), self, 0);
  g_signal_connect_object (service, "message-added", G_CALLBACK (on_message_added), self, 0);
  g_signal_connect_object (service, "message-changed", G_CALLBACK (on_message_changed), self, 0);
  if (prs_service_get_runner (service) != NULL)
    g_signal_connect_object (prs_service_get_runner (service), "run-changed", G_CALLBACK (on_run_changed), self, 0);
  g_signal_connect_object (self->conversation_view, "message-sent", G_CALLBACK (on_message_sent), self, 0);
  g_signal_connect_object (prs_conversation_view_get_composer (self->conversation_view), "stop",
                           G_CALLBACK (on_composer_stop), self, 0);
  g_signal_connect_object (self->selection, "notify::selected", G_CALLBACK (update_busy), self,
                           G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  gtk_list_view_set_model (self->conversation_list, GTK_SELECTION_MODEL (self->selection));
  if (g_list_model_get_n_items (model) > FIRST_SCREENFUL)
    self->reveal_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), reveal_more, NULL, NULL);
  else
    gtk_slice_list_model_set_size (self->revealed, G_MAXUINT);
  update_sidebar_page (self);
  show_conversation (self, gtk_single_selection_get_selected_item (self->selection));

  g_signal_connect_object (self->storage_banner, "notify::child-revealed",
                           G_CALLBACK (on_storage_banner_revealed), self, 0);
  g_signal_connect_object (service, "notify::storage-full", G_CALLBACK (on_storage_full), self, 0);
  on_storage_full (service, NULL, self);

  discovery = prs_service_get_discovery (service);
  g_signal_connect_object (discovery, "notify::running", G_CALLBACK (on_discovery_running), self, 0);
  g_signal_connect_object (discovery, "finished", G_CALLBACK (on_discovery_finished), self, 0);
  on_discovery_running (discovery, NULL, self);
  _prs_window_conversations_start (self);
  _prs_window_approvals_start (self);

  /* Typing at once writes the message: the focus starts in the composer
   * of the conversation shown, else on the sidebar's list (GTK would give
   * it to the first button, "+", and Space there opened New Conversation:
   * docs/conversations.md "The window") */
  if (self->shown != NULL)
    prs_composer_focus (prs_conversation_view_get_composer (self->conversation_view));
  else if (g_list_model_get_n_items (model) > 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->conversation_list));

  return self;
}

PrsAgentChoice *
prs_window_get_agent_choice (PrsWindow *self)
{
  g_return_val_if_fail (PRS_IS_WINDOW (self), NULL);

  return self->agent_choice;
}

/* The menu buttons' popovers are built when they first open (see page
 * above) */
static void
build_primary_menu (GtkMenuButton *button,
                    gpointer       user_data)
{
  PrsWindow *self = user_data;

  if (gtk_menu_button_get_popover (button) == NULL)
    gtk_menu_button_set_menu_model (button, G_MENU_MODEL (self->primary_menu));
}

static void
build_conversation_menu (GtkMenuButton *button,
                         gpointer       user_data)
{
  PrsWindow *self = user_data;

  if (gtk_menu_button_get_popover (button) != NULL)
    return;
  gtk_menu_button_set_menu_model (button, G_MENU_MODEL (self->conversation_menu));
  /* Its Agent submenu lists the agents as they are when it opens */
  if (self->agent_choice != NULL)
    g_signal_connect_object (gtk_menu_button_get_popover (button), "show",
                             G_CALLBACK (prs_agent_choice_refresh), self->agent_choice, G_CONNECT_SWAPPED);
}

static void
prs_window_dispose (GObject *object)
{
  PrsWindow *self = PRS_WINDOW (object);

  if (self->service != NULL)
    _prs_window_conversations_dispose (self);
  _prs_window_approvals_dispose (self);
  if (self->conversation_list != NULL)
    gtk_list_view_set_model (self->conversation_list, NULL);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_WINDOW);
  /* Their stacks went with the template */
  self->agents_page = NULL;
  self->insights_page = NULL;
  self->schedules_page = NULL;
  self->search_panel = NULL;
  self->tools_page = NULL;
  g_clear_object (&self->agent_choice);
  g_clear_object (&self->selection);
  g_clear_object (&self->multi_selection);
  g_clear_pointer (&self->open_at, g_free);
  g_clear_pointer (&self->pending_deletions, g_hash_table_unref);
  g_clear_object (&self->revealed);
  g_clear_object (&self->shown);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_window_parent_class)->dispose (object);
}

static void
prs_window_class_init (PrsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_window_dispose;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, agent_menu);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, content_title);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, conversation_list);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, conversation_menu);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, conversation_menu_button);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, conversation_view);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, primary_menu);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, primary_menu_button);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, refresh_button);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, search_bar);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, search_button);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, selection_bar);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, selection_label);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, sidebar_stack);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, spinner);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, storage_banner);
  gtk_widget_class_bind_template_child (widget_class, PrsWindow, toast_overlay);

  gtk_widget_class_install_action (widget_class, "win.conversation-clicked", "s", conversation_clicked_activated);
  gtk_widget_class_install_action (widget_class, "win.show-tools", NULL, show_tools_activated);
  gtk_widget_class_install_action (widget_class, "win.show-agents", NULL, show_agents_activated);
  gtk_widget_class_install_action (widget_class, "win.show-schedules", NULL, show_schedules_activated);
  gtk_widget_class_install_action (widget_class, "win.show-insights", NULL, show_insights_activated);
  gtk_widget_class_install_action (widget_class, "win.schedule-here", NULL, schedule_here_activated);
  gtk_widget_class_install_action (widget_class, "win.refresh-tools", NULL, refresh_tools_activated);
  gtk_widget_class_install_action (widget_class, "win.back", NULL, back_activated);
  gtk_widget_class_install_action (widget_class, "win.preferences", NULL, preferences_activated);
  gtk_widget_class_install_action (widget_class, "win.preferences-page", "s", preferences_activated);
  gtk_widget_class_install_action (widget_class, "win.show-toast", "s", show_toast_activated);
  gtk_widget_class_install_action (widget_class, "win.check-storage", NULL, check_storage_activated);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_n, GDK_CONTROL_MASK, "win.new-conversation", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F2, 0, "win.rename-conversation", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_t, GDK_CONTROL_MASK, "win.show-tools", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "win.show-agents", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_i, GDK_CONTROL_MASK, "win.show-insights", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.refresh-tools", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_comma, GDK_CONTROL_MASK, "win.preferences", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.back", NULL);

  _prs_window_conversations_class_init (widget_class);
  _prs_window_approvals_class_init (widget_class);

  g_type_ensure (PRS_TYPE_CONVERSATION_VIEW);
}

/* A folded window is a phone's or a narrow one: the message list's
 * margins shrink there (style.css ".narrow"). They never make the content
 * wider than its 360 px, so folding does not depend on them
 * (docs/conversations.md "The window") */
static void
on_folded_changed (PrsWindow *self)
{
  if (adw_leaflet_get_folded (self->leaflet))
    gtk_widget_add_css_class (GTK_WIDGET (self), "narrow");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "narrow");
}

static void
prs_window_init (PrsWindow *self)
{
  GtkListItemFactory *factory;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_menu_button_set_create_popup_func (GTK_MENU_BUTTON (self->primary_menu_button), build_primary_menu, self, NULL);
  gtk_menu_button_set_create_popup_func (GTK_MENU_BUTTON (self->conversation_menu_button), build_conversation_menu,
                                         self, NULL);

  factory = gtk_signal_list_item_factory_new ();
  g_signal_connect (factory, "setup", G_CALLBACK (setup_conversation_row), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_conversation_row), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_conversation_row), NULL);
  gtk_list_view_set_factory (self->conversation_list, factory);
  g_object_unref (factory);
  g_signal_connect (self->conversation_list, "activate", G_CALLBACK (on_conversation_activate), self);
  _prs_window_conversations_init (self);
  g_signal_connect_swapped (self->leaflet, "notify::folded", G_CALLBACK (on_folded_changed), self);
  on_folded_changed (self);
}
