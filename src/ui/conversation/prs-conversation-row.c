/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-conversation-row.c: one conversation in the sidebar, following its
 * PrsConversation's notifications. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-control-chars.h"
#include "prs-conversation-row.h"

struct _PrsConversationRow
{
  GtkWidget        parent_instance;

  PrsConversation *conversation;

  GtkWidget       *box;
  GtkWidget       *check;           /* NULL until selection mode */
  GtkWidget       *pin_icon;        /* NULL until first pinned */
  GtkLabel        *subtitle_label;
  GtkLabel        *time_label;
  GtkLabel        *title_label;
  GtkLabel        *unread_label;    /* NULL until first unread */
};

G_DEFINE_FINAL_TYPE (PrsConversationRow, prs_conversation_row, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_MENU_REQUESTED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GtkWidget *
prs_conversation_row_new (void)
{
  return g_object_new (PRS_TYPE_CONVERSATION_ROW, NULL);
}

char *
prs_conversation_row_format_time (GDateTime *time,
                                  GDateTime *now)
{
  g_autoptr(GDateTime) today = NULL;
  GTimeSpan since_midnight;

  if (time == NULL)
    return g_strdup ("");

  today = g_date_time_new_local (g_date_time_get_year (now), g_date_time_get_month (now),
                                 g_date_time_get_day_of_month (now), 0, 0, 0);
  since_midnight = g_date_time_difference (time, today);
  if (since_midnight >= 0)
    return g_date_time_format (time, "%H:%M");
  if (since_midnight >= -G_TIME_SPAN_DAY)
    return g_strdup (_("Yesterday"));
  if (since_midnight >= -6 * G_TIME_SPAN_DAY)
    return g_date_time_format (time, "%a");
  if (g_date_time_get_year (time) == g_date_time_get_year (now))
    return g_date_time_format (time, "%e %b");
  return g_date_time_format (time, "%e %b %Y");
}

/* Puts @child, in a GtkBox, into a new box of its own at the same place */
static GtkWidget *
wrap_in_box (GtkWidget      *child,
             GtkOrientation  orientation,
             int             spacing)
{
  GtkWidget *parent = gtk_widget_get_parent (child);
  GtkWidget *before = gtk_widget_get_prev_sibling (child);
  GtkWidget *box = gtk_box_new (orientation, spacing);

  g_object_ref (child);
  gtk_box_remove (GTK_BOX (parent), child);
  gtk_box_append (GTK_BOX (box), child);
  g_object_unref (child);
  gtk_box_insert_child_after (GTK_BOX (parent), box, before);
  return box;
}

/* The pin and the unread count show on few rows: each is made, with the
 * box that puts it beside the title or under the time, when a row first
 * needs it */
static void
add_pin_icon (PrsConversationRow *self)
{
  GtkWidget *title_box = wrap_in_box (GTK_WIDGET (self->title_label), GTK_ORIENTATION_HORIZONTAL, 6);

  self->pin_icon = g_object_new (GTK_TYPE_IMAGE,
                                 "icon-name", "view-pin-symbolic",
                                 "accessible-role", GTK_ACCESSIBLE_ROLE_PRESENTATION,
                                 NULL);
  gtk_widget_add_css_class (self->pin_icon, "dim-label");
  gtk_box_prepend (GTK_BOX (title_box), self->pin_icon);
}

static void
add_unread_label (PrsConversationRow *self)
{
  GtkWidget *time_box = wrap_in_box (GTK_WIDGET (self->time_label), GTK_ORIENTATION_VERTICAL, 4);

  gtk_widget_set_valign (time_box, GTK_ALIGN_CENTER);
  self->unread_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_widget_set_halign (GTK_WIDGET (self->unread_label), GTK_ALIGN_END);
  gtk_widget_add_css_class (GTK_WIDGET (self->unread_label), "unread-badge");
  gtk_widget_add_css_class (GTK_WIDGET (self->unread_label), "caption-heading");
  gtk_widget_add_css_class (GTK_WIDGET (self->unread_label), "numeric");
  gtk_box_append (GTK_BOX (time_box), GTK_WIDGET (self->unread_label));
}

static void
update (PrsConversationRow *self)
{
  PrsConversation *conversation = self->conversation;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *time = NULL;
  g_autofree char *unread = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *title = NULL;
  g_autofree char *accessible = NULL;
  guint n_unread, n_messages;

  if (conversation == NULL)
    return;

  n_unread = prs_conversation_get_unread_count (conversation);
  n_messages = prs_conversation_get_message_count (conversation);
  time = prs_conversation_row_format_time (prs_conversation_get_updated_at (conversation), now);
  unread = g_strdup_printf ("%u", n_unread);
  if (prs_conversation_get_archived (conversation))
    /* Translators: the subtitle of an archived conversation in the sidebar */
    subtitle = g_strdup (_("Archived"));
  else if (g_strcmp0 (prs_conversation_get_slug (conversation), prs_conversation_get_title (conversation)) != 0)
    /* A slug may hold what a workflow sent: a tab, a line break, an escape */
    subtitle = prs_text_blank_controls (prs_conversation_get_slug (conversation), -1, FALSE);
  else if (n_messages == 0)
    subtitle = g_strdup (_("No messages yet"));
  else
    subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u message", "%u messages", n_messages), n_messages);

  /* A title starts as its slug (docs/api.md): one line, as shown anywhere */
  title = prs_text_blank_controls (prs_conversation_get_title (conversation), -1, FALSE);
  gtk_label_set_text (self->title_label, title);
  gtk_label_set_text (self->subtitle_label, subtitle);
  gtk_label_set_text (self->time_label, time);
  if (n_unread > 0 && self->unread_label == NULL)
    add_unread_label (self);
  if (self->unread_label != NULL)
    {
      gtk_label_set_text (self->unread_label, unread);
      gtk_widget_set_visible (GTK_WIDGET (self->unread_label), n_unread > 0);
    }
  if (prs_conversation_get_pinned (conversation) && self->pin_icon == NULL)
    add_pin_icon (self);
  if (self->pin_icon != NULL)
    gtk_widget_set_visible (self->pin_icon, prs_conversation_get_pinned (conversation));
  if (n_unread > 0)
    gtk_widget_add_css_class (GTK_WIDGET (self), "unread");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self), "unread");

  accessible = n_unread > 0
    ? g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %u unread message", "%s, %u unread messages", n_unread),
                       title, n_unread)
    : g_strdup (title);
  if (prs_conversation_get_pinned (conversation))
    {
      /* Translators: a screen reader's name of a pinned conversation: its title (and unread count) */
      g_autofree char *pinned = g_strdup_printf (_("%s, pinned"), accessible);

      g_free (accessible);
      accessible = g_steal_pointer (&pinned);
    }
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, accessible, -1);
}

static void
on_notify (PrsConversation    *conversation,
           GParamSpec         *pspec,
           PrsConversationRow *self)
{
  update (self);
}

void
prs_conversation_row_set_conversation (PrsConversationRow *self,
                                       PrsConversation    *conversation)
{
  g_return_if_fail (PRS_IS_CONVERSATION_ROW (self));

  if (self->conversation == conversation)
    return;
  if (self->conversation != NULL)
    g_signal_handlers_disconnect_by_func (self->conversation, on_notify, self);
  g_set_object (&self->conversation, conversation);
  if (conversation != NULL)
    g_signal_connect_object (conversation, "notify", G_CALLBACK (on_notify), self, 0);
  update (self);
}

PrsConversation *
prs_conversation_row_get_conversation (PrsConversationRow *self)
{
  g_return_val_if_fail (PRS_IS_CONVERSATION_ROW (self), NULL);
  return self->conversation;
}

/* The check button shows in selection mode only. A screenful of rows is
 * built before the window's first frame, so it is made when first shown. */
static gboolean
in_selection_mode (PrsConversationRow *self)
{
  return self->check != NULL && gtk_widget_get_visible (self->check);
}

void
prs_conversation_row_set_selection (PrsConversationRow *self,
                                    gboolean            selection_mode,
                                    gboolean            selected)
{
  g_return_if_fail (PRS_IS_CONVERSATION_ROW (self));

  if (self->check == NULL)
    {
      if (!selection_mode)
        return;
      self->check = gtk_check_button_new ();
      gtk_widget_set_valign (self->check, GTK_ALIGN_CENTER);
      gtk_widget_set_can_focus (self->check, FALSE);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (self->check), "conversation-row.toggle-selected");
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->check), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Select"), -1);
      gtk_box_prepend (GTK_BOX (self->box), self->check);
    }
  gtk_widget_set_visible (self->check, selection_mode);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (self->check), selected);
}

void
prs_conversation_row_request_menu (PrsConversationRow *self,
                                   double              x,
                                   double              y)
{
  g_return_if_fail (PRS_IS_CONVERSATION_ROW (self));

  if (x < 0 && y < 0)
    {
      x = gtk_widget_get_width (GTK_WIDGET (self)) / 2.0;
      y = gtk_widget_get_height (GTK_WIDGET (self)) / 2.0;
    }
  if (self->conversation != NULL && !in_selection_mode (self))
    g_signal_emit (self, signals[SIGNAL_MENU_REQUESTED], 0, x, y);
}

static void
on_secondary_pressed (GtkGestureClick    *gesture,
                      int                 n_press,
                      double              x,
                      double              y,
                      PrsConversationRow *self)
{
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  prs_conversation_row_request_menu (self, x, y);
}

/* In selection mode a click toggles the row, before the list sees it.
 * Otherwise the window hears of it: the list only tells of a change of
 * selection, and a click on the row already selected must still open its
 * conversation (from the Tools page, or the folded sidebar) */
static void
on_primary_pressed (GtkGestureClick    *gesture,
                    int                 n_press,
                    double              x,
                    double              y,
                    PrsConversationRow *self)
{
  if (!in_selection_mode (self))
    {
      if (self->conversation != NULL)
        gtk_widget_activate_action (GTK_WIDGET (self), "win.conversation-clicked", "s",
                                    prs_conversation_get_id (self->conversation));
      return;
    }
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
  gtk_widget_activate_action (GTK_WIDGET (self), "listitem.select", "(bb)", TRUE, FALSE);
}

static void
toggle_selected_activated (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  /* The list item's own action: toggles this row, keeps the others */
  gtk_widget_activate_action (widget, "listitem.select", "(bb)", TRUE, FALSE);
}

static void
prs_conversation_row_dispose (GObject *object)
{
  PrsConversationRow *self = PRS_CONVERSATION_ROW (object);
  GtkWidget *child;

  prs_conversation_row_set_conversation (self, NULL);
  /* The box takes the labels, the pin and the check button with it */
  g_clear_pointer (&self->box, gtk_widget_unparent);
  self->check = self->pin_icon = NULL;
  /* A row's menu is its child too, and may still be up when the row goes */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  self->title_label = self->subtitle_label = self->time_label = self->unread_label = NULL;

  G_OBJECT_CLASS (prs_conversation_row_parent_class)->dispose (object);
}

static void
prs_conversation_row_class_init (PrsConversationRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_conversation_row_dispose;

  /**
   * PrsConversationRow::menu-requested:
   * @x: where, in the row
   * @y: where, in the row
   */
  signals[SIGNAL_MENU_REQUESTED] =
    g_signal_new ("menu-requested", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_DOUBLE, G_TYPE_DOUBLE);

  gtk_widget_class_install_action (widget_class, "conversation-row.toggle-selected", NULL,
                                   toggle_selected_activated);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "conversationrow");
}

static GtkLabel *
start_label (const char *css_class)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (css_class != NULL)
    {
      gtk_widget_add_css_class (label, css_class);
      gtk_widget_add_css_class (label, "dim-label");
    }
  return GTK_LABEL (label);
}

/* Built in code, not from a template: a screenful of rows is made before
 * the window's first frame, and GtkBuilder cost each row twice as many
 * instructions as these calls. Each widget of a row costs the first frame
 * more again (styled, measured, drawn): the boxes for a pin or an unread
 * count come with them (see wrap_in_box) */
static void
build (PrsConversationRow *self)
{
  GtkWidget *text_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);

  self->box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_widget_set_margin_top (self->box, 6);
  gtk_widget_set_margin_bottom (self->box, 6);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  gtk_widget_set_hexpand (text_box, TRUE);
  gtk_widget_set_valign (text_box, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (self->box), text_box);

  self->title_label = start_label (NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self->title_label), TRUE);
  gtk_box_append (GTK_BOX (text_box), GTK_WIDGET (self->title_label));
  self->subtitle_label = start_label ("caption");
  gtk_box_append (GTK_BOX (text_box), GTK_WIDGET (self->subtitle_label));

  self->time_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->time_label, 1);
  gtk_widget_set_valign (GTK_WIDGET (self->time_label), GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (GTK_WIDGET (self->time_label), "caption");
  gtk_widget_add_css_class (GTK_WIDGET (self->time_label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (self->time_label), "numeric");
  gtk_box_append (GTK_BOX (self->box), GTK_WIDGET (self->time_label));
}

static void
prs_conversation_row_init (PrsConversationRow *self)
{
  GtkGesture *gesture;

  build (self);

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_SECONDARY);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_secondary_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "pressed", G_CALLBACK (on_primary_pressed), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}
