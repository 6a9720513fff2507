/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-window-approvals.c: a tool call waiting for approval, said in the
 * window that has the focus but does not show its conversation
 * (docs/runs.md "Notifications"): one toast at a time, naming the
 * conversation and the tool (or how many calls wait), with Open; it goes
 * as soon as the calls it speaks of are decided, expire or their
 * conversation is deleted. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-control-chars.h"
#include "prs-dialogs.h"
#include "prs-json.h"
#include "prs-window-private.h"

typedef struct
{
  char *message_id;
  char *conversation_id;
  char *tool_name;
} Announced;

static void
announced_free (gpointer data)
{
  Announced *call = data;

  g_free (call->message_id);
  g_free (call->conversation_id);
  g_free (call->tool_name);
  g_free (call);
}

/* The conversation's page is the one a person sees: selected, the
 * content stack on it, and not folded away behind the sidebar */
static gboolean
shows_conversation (PrsWindow  *self,
                    const char *conversation_id)
{
  return self->shown != NULL &&
         g_strcmp0 (prs_conversation_get_id (self->shown), conversation_id) == 0 &&
         g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "conversation") == 0 &&
         (!adw_leaflet_get_folded (self->leaflet) ||
          g_strcmp0 (adw_leaflet_get_visible_child_name (self->leaflet), "content") == 0);
}

/* What the toast says of one call: an MCP client's calls (`mcp serve`)
 * wait in the conversation of that name, worded as their notification is */
static char *
describe_call (PrsWindow *self,
               Announced *call)
{
  g_autoptr(JsonObject) conversation = prs_store_get_conversation (prs_service_get_store (self->service),
                                                                   call->conversation_id, NULL);
  const char *slug = conversation != NULL ? prs_json_object_get_string (conversation, "slug") : NULL;
  /* A title starts as its slug, which may hold control characters */
  const char *stored = conversation != NULL ? prs_json_object_get_string (conversation, "title") : NULL;
  g_autofree char *title = prs_text_blank_controls (stored != NULL ? stored : "", -1, FALSE);

  if (g_strcmp0 (slug, PRS_MCP_CLIENTS_CONVERSATION) == 0)
    /* Translators: %s is a tool's name */
    return g_strdup_printf (_("An MCP client wants to run “%s”."), call->tool_name);
  /* Translators: a toast; the first %s is a conversation's title, the second a tool's name */
  return g_strdup_printf (_("The agent in “%s” wants to run “%s”."), title, call->tool_name);
}

/* libadwaita 1.2 crashed (a freed animation unreferenced) when a toast
 * was dismissed during the animation that shows it (300 ms, 500 ms when
 * it replaces another): a toast whose calls are decided goes once it has
 * been on the screen at least this long. One still queued behind another
 * toast has no animation yet, and is taken out of the queue at once. */
#define DISMISS_DELAY_MS 600

static void
on_toast_dismissed (AdwToast  *toast,
                    PrsWindow *self)
{
  if (self->approval_toast != toast)
    return;
  g_clear_handle_id (&self->approval_dismiss_id, g_source_remove);
  g_clear_object (&self->approval_toast);
  self->approval_seen_at = 0;
  g_ptr_array_set_size (self->announced_calls, 0);
}

/* Whether the overlay shows the approval toast now (a toast widget of it
 * among the overlay's children), rather than keeping it queued */
static gboolean
toast_on_screen (PrsWindow *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->toast_overlay)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autoptr(AdwToast) toast = NULL;

      if (g_object_class_find_property (G_OBJECT_GET_CLASS (child), "toast") == NULL)
        continue;
      g_object_get (child, "toast", &toast, NULL);
      if (toast == self->approval_toast)
        return TRUE;
    }
  return FALSE;
}

static gboolean
dismiss_later (gpointer data)
{
  PrsWindow *self = data;
  gint64 now = g_get_monotonic_time ();

  self->approval_dismiss_id = 0;
  if (self->approval_toast == NULL)
    return G_SOURCE_REMOVE;
  if (toast_on_screen (self))
    {
      gint64 until;

      if (self->approval_seen_at == 0)
        self->approval_seen_at = now;
      /* Maybe still coming in: its animation ends before this */
      until = self->approval_seen_at + DISMISS_DELAY_MS * G_TIME_SPAN_MILLISECOND;
      if (now < until)
        {
          self->approval_dismiss_id = g_timeout_add ((guint) ((until - now) / G_TIME_SPAN_MILLISECOND) + 1,
                                                     dismiss_later, self);
          return G_SOURCE_REMOVE;
        }
    }
  adw_toast_dismiss (self->approval_toast);
  return G_SOURCE_REMOVE;
}

static void
set_open_target (PrsWindow  *self,
                 const char *conversation_id)
{
  g_autoptr(GVariant) target = g_variant_ref_sink (g_variant_new_string (conversation_id));

  /* libadwaita keeps a reference only when the target changes */
  adw_toast_set_action_target_value (self->approval_toast, target);
}

/* The toast says what is waiting now; Open goes to the latest call's
 * conversation. It is changed in place (libadwaita shows a toast's new
 * title and target), so a second call does not queue a second toast. */
static void
update_toast (PrsWindow *self)
{
  Announced *latest;
  g_autofree char *text = NULL;

  if (self->announced_calls->len == 0)
    {
      if (self->approval_toast != NULL && self->approval_dismiss_id == 0)
        self->approval_dismiss_id = g_timeout_add (DISMISS_DELAY_MS, dismiss_later, self);
      return;
    }
  g_clear_handle_id (&self->approval_dismiss_id, g_source_remove);
  latest = g_ptr_array_index (self->announced_calls, self->announced_calls->len - 1);
  if (self->announced_calls->len == 1)
    text = describe_call (self, latest);
  else
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tool call is waiting for approval.",
                                      "%u tool calls are waiting for approval.",
                                      self->announced_calls->len),
                            self->announced_calls->len);

  if (self->approval_toast == NULL)
    {
      self->approval_toast = g_object_ref (prs_dialogs_new_toast (text));
      adw_toast_set_button_label (self->approval_toast, _("_Open"));
      adw_toast_set_action_name (self->approval_toast, "win.open-conversation");
      set_open_target (self, latest->conversation_id);
      g_signal_connect_object (self->approval_toast, "dismissed", G_CALLBACK (on_toast_dismissed), self, 0);
      adw_toast_overlay_add_toast (self->toast_overlay, self->approval_toast);
      return;
    }
  prs_dialogs_set_toast_text (self->approval_toast, text);
  set_open_target (self, latest->conversation_id);
}

void
prs_window_announce_approval (PrsWindow  *self,
                              const char *conversation_id,
                              const char *message_id,
                              const char *tool_name)
{
  Announced *call;

  g_return_if_fail (PRS_IS_WINDOW (self));
  g_return_if_fail (conversation_id != NULL && message_id != NULL && tool_name != NULL);

  /* Its card is on the screen already */
  if (shows_conversation (self, conversation_id))
    return;
  /* Said already (a run resumed) */
  for (guint i = 0; i < self->announced_calls->len; i++)
    if (g_str_equal (((Announced *) g_ptr_array_index (self->announced_calls, i))->message_id, message_id))
      return;
  call = g_new0 (Announced, 1);
  call->message_id = g_strdup (message_id);
  call->conversation_id = g_strdup (conversation_id);
  call->tool_name = g_strdup (tool_name);
  g_ptr_array_add (self->announced_calls, call);
  update_toast (self);
}

/* Drops the calls @gone says no longer wait; the toast follows */
static void
forget_calls (PrsWindow     *self,
              gboolean     (*gone) (PrsWindow *self, Announced *call, const char *message_id),
              const char    *message_id)
{
  gboolean changed = FALSE;

  for (guint i = self->announced_calls->len; i > 0; i--)
    if (gone (self, g_ptr_array_index (self->announced_calls, i - 1), message_id))
      {
        g_ptr_array_remove_index (self->announced_calls, i - 1);
        changed = TRUE;
      }
  if (changed)
    update_toast (self);
}

static gboolean
call_decided (PrsWindow  *self,
              Announced  *call,
              const char *message_id)
{
  g_autoptr(JsonNode) message = NULL;

  if (g_strcmp0 (call->message_id, message_id) != 0)
    return FALSE;
  message = prs_store_get_message (prs_service_get_store (self->service), call->message_id, NULL);
  return message == NULL ||
         g_strcmp0 (prs_json_object_get_string (prs_json_node_get_object (message), "status"), "proposed") != 0;
}

/* Approved or denied (here, by prosponsive-ctl, the API or a
 * notification), or expired */
static void
on_message_changed (PrsService *service,
                    const char *conversation_id,
                    const char *message_id,
                    PrsWindow  *self)
{
  forget_calls (self, call_decided, message_id);
}

static gboolean
conversation_deleted (PrsWindow  *self,
                      Announced  *call,
                      const char *message_id)
{
  return !prs_store_has_conversation (prs_service_get_store (self->service), call->conversation_id);
}

/* A deletion takes conversations out of the list; their messages change
 * no more (no message-changed for them) */
static void
on_conversations_changed (GListModel *model,
                          guint       position,
                          guint       removed,
                          guint       added,
                          PrsWindow  *self)
{
  if (removed > 0 && self->announced_calls->len > 0)
    forget_calls (self, conversation_deleted, NULL);
}

static gboolean
in_shown_conversation (PrsWindow  *self,
                       Announced  *call,
                       const char *message_id)
{
  return self->shown != NULL && g_strcmp0 (prs_conversation_get_id (self->shown), call->conversation_id) == 0;
}

/* A conversation was opened (by Open, or by hand): its calls' cards are
 * what the person sees now, and the toast speaks of them no more */
void
_prs_window_approvals_shown (PrsWindow *self)
{
  if (self->announced_calls != NULL && self->announced_calls->len > 0)
    forget_calls (self, in_shown_conversation, NULL);
}

static void
open_conversation_activated (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  prs_window_select_conversation (PRS_WINDOW (widget), g_variant_get_string (parameter, NULL));
}

void
_prs_window_approvals_class_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.open-conversation", "s", open_conversation_activated);
}

void
_prs_window_approvals_start (PrsWindow *self)
{
  self->announced_calls = g_ptr_array_new_with_free_func (announced_free);
  g_signal_connect_object (self->service, "message-changed", G_CALLBACK (on_message_changed), self, 0);
  g_signal_connect_object (prs_service_get_conversations (self->service), "items-changed",
                           G_CALLBACK (on_conversations_changed), self, 0);
}

void
_prs_window_approvals_dispose (PrsWindow *self)
{
  g_clear_handle_id (&self->approval_dismiss_id, g_source_remove);
  if (self->approval_toast != NULL)
    g_signal_handlers_disconnect_by_func (self->approval_toast, on_toast_dismissed, self);
  g_clear_object (&self->approval_toast);
  g_clear_pointer (&self->announced_calls, g_ptr_array_unref);
}
