/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-composer.c: the message entry under a conversation. */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "prs-composer.h"

struct _PrsComposer
{
  GtkWidget      parent_instance;

  GStrv          agent_ids;
  GtkStringList *agent_names;
  guint          agent;        /* the agent picked, an index in agent_ids */
  gboolean       busy;

  GtkWidget     *agent_picker; /* made when there are two agents to pick from */
  GtkWidget     *box;
  GtkWidget     *button_stack;
  GtkWidget     *placeholder;
  GtkWidget     *scroller;
  GtkWidget     *send_button;
  GtkWidget     *stop_button;
  GtkWidget     *text_view;
};

G_DEFINE_FINAL_TYPE (PrsComposer, prs_composer, GTK_TYPE_WIDGET)

enum
{
  SIGNAL_SEND,
  SIGNAL_STOP,
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkTextBuffer *
buffer (PrsComposer *self)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->text_view));
}

char *
prs_composer_dup_text (PrsComposer *self)
{
  GtkTextIter start, end;

  g_return_val_if_fail (PRS_IS_COMPOSER (self), NULL);

  gtk_text_buffer_get_bounds (buffer (self), &start, &end);
  return gtk_text_buffer_get_text (buffer (self), &start, &end, FALSE);
}

void
prs_composer_set_text (PrsComposer *self,
                       const char  *text)
{
  g_return_if_fail (PRS_IS_COMPOSER (self));
  /* Not undoable: Ctrl+Z must not bring back another conversation's draft */
  gtk_text_buffer_begin_irreversible_action (buffer (self));
  gtk_text_buffer_set_text (buffer (self), text != NULL ? text : "", -1);
  gtk_text_buffer_end_irreversible_action (buffer (self));
}

void
prs_composer_focus (PrsComposer *self)
{
  g_return_if_fail (PRS_IS_COMPOSER (self));
  gtk_widget_grab_focus (self->text_view);
}

static void
update_send_enabled (PrsComposer *self)
{
  g_autofree char *text = prs_composer_dup_text (self);

  g_strstrip (text);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "composer.send", !self->busy && text[0] != '\0');
  gtk_widget_set_visible (self->placeholder, gtk_text_buffer_get_char_count (buffer (self)) == 0);
}

void
prs_composer_set_placeholder (PrsComposer *self,
                              const char  *text)
{
  g_return_if_fail (PRS_IS_COMPOSER (self));
  gtk_label_set_text (GTK_LABEL (self->placeholder), text != NULL ? text : "");
}

void
prs_composer_set_busy (PrsComposer *self,
                       gboolean     busy)
{
  g_return_if_fail (PRS_IS_COMPOSER (self));

  self->busy = !!busy;
  gtk_stack_set_visible_child_name (GTK_STACK (self->button_stack), busy ? "stop" : "send");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "composer.stop", busy);
  update_send_enabled (self);
}

static void
on_agent_picked (GtkDropDown *picker,
                 GParamSpec  *pspec,
                 PrsComposer *self)
{
  self->agent = gtk_drop_down_get_selected (picker);
}

/* A drop-down builds its popover, list and search entry with itself: the
 * picker is made when a second agent first needs it, not with every
 * window's composer */
static void
ensure_agent_picker (PrsComposer *self)
{
  if (self->agent_picker != NULL)
    return;
  self->agent_picker = gtk_drop_down_new (G_LIST_MODEL (g_object_ref (self->agent_names)), NULL);
  gtk_widget_set_valign (self->agent_picker, GTK_ALIGN_END);
  gtk_widget_set_tooltip_text (self->agent_picker, _("Agent"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->agent_picker), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Agent"), -1);
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->agent_picker), self->agent);
  g_signal_connect_object (self->agent_picker, "notify::selected", G_CALLBACK (on_agent_picked), self, 0);
  gtk_box_prepend (GTK_BOX (self->box), self->agent_picker);
}

void
prs_composer_set_agents (PrsComposer        *self,
                         const char * const *ids,
                         const char * const *names)
{
  g_autofree char *current = NULL;

  g_return_if_fail (PRS_IS_COMPOSER (self));
  g_return_if_fail (ids != NULL && names != NULL);

  current = g_strdup (prs_composer_get_agent (self));
  g_strfreev (self->agent_ids);
  self->agent_ids = g_strdupv ((char **) ids);
  gtk_string_list_splice (self->agent_names, 0,
                          g_list_model_get_n_items (G_LIST_MODEL (self->agent_names)),
                          (const char * const *) names);
  /* One agent needs no picker. */
  if (g_strv_length (self->agent_ids) > 1)
    ensure_agent_picker (self);
  if (self->agent_picker != NULL)
    gtk_widget_set_visible (self->agent_picker, g_strv_length (self->agent_ids) > 1);
  prs_composer_set_agent (self, current);
}

void
prs_composer_set_agent (PrsComposer *self,
                        const char  *agent_id)
{
  g_return_if_fail (PRS_IS_COMPOSER (self));

  self->agent = 0;
  for (guint i = 0; self->agent_ids != NULL && self->agent_ids[i] != NULL; i++)
    if (g_strcmp0 (self->agent_ids[i], agent_id) == 0)
      {
        self->agent = i;
        break;
      }
  if (self->agent_picker != NULL)
    gtk_drop_down_set_selected (GTK_DROP_DOWN (self->agent_picker), self->agent);
}

const char *
prs_composer_get_agent (PrsComposer *self)
{
  g_return_val_if_fail (PRS_IS_COMPOSER (self), NULL);

  if (self->agent_ids == NULL || self->agent >= g_strv_length (self->agent_ids))
    return NULL;
  return self->agent_ids[self->agent];
}

static void
send_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  PrsComposer *self = PRS_COMPOSER (widget);
  g_autofree char *text = prs_composer_dup_text (self);
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  if (self->busy || stripped[0] == '\0')
    return;

  /* Emptied first: a handler that could not store the message puts the
   * text back, and nothing may empty it after that */
  prs_composer_set_text (self, "");
  g_signal_emit (self, signals[SIGNAL_SEND], 0, text, prs_composer_get_agent (self));
}

static void
stop_activated (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  g_signal_emit (widget, signals[SIGNAL_STOP], 0);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                PrsComposer           *self)
{
  if (keyval != GDK_KEY_Return && keyval != GDK_KEY_KP_Enter && keyval != GDK_KEY_ISO_Enter)
    return FALSE;
  /* Shift+Enter (and Ctrl+Enter) add a line. */
  if ((state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK)) != 0)
    return FALSE;

  gtk_widget_activate_action (GTK_WIDGET (self), "composer.send", NULL);
  return TRUE;
}

static void
on_buffer_changed (GtkTextBuffer *text_buffer,
                   PrsComposer   *self)
{
  update_send_enabled (self);
  g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

static void
prs_composer_dispose (GObject *object)
{
  PrsComposer *self = PRS_COMPOSER (object);
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_COMPOSER);
  /* The template's unnamed top child too. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_object (&self->agent_names);

  G_OBJECT_CLASS (prs_composer_parent_class)->dispose (object);
}

static void
prs_composer_finalize (GObject *object)
{
  PrsComposer *self = PRS_COMPOSER (object);

  g_strfreev (self->agent_ids);

  G_OBJECT_CLASS (prs_composer_parent_class)->finalize (object);
}

static void
prs_composer_class_init (PrsComposerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_composer_dispose;
  object_class->finalize = prs_composer_finalize;

  /**
   * PrsComposer::send:
   * @text: what the user wrote
   * @agent_id: (nullable): the agent picked
   */
  signals[SIGNAL_SEND] =
    g_signal_new ("send", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
  signals[SIGNAL_STOP] =
    g_signal_new ("stop", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /**
   * PrsComposer::changed:
   *
   * The text changed, by typing or by prs_composer_set_text ().
   */
  signals[SIGNAL_CHANGED] =
    g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-composer.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsComposer, box);
  gtk_widget_class_bind_template_child (widget_class, PrsComposer, button_stack);
  gtk_widget_class_bind_template_child (widget_class, PrsComposer, placeholder);
  gtk_widget_class_bind_template_child (widget_class, PrsComposer, scroller);
  gtk_widget_class_bind_template_child (widget_class, PrsComposer, send_button);
  gtk_widget_class_bind_template_child (widget_class, PrsComposer, stop_button);
  gtk_widget_class_bind_template_child (widget_class, PrsComposer, text_view);

  gtk_widget_class_install_action (widget_class, "composer.send", NULL, send_activated);
  gtk_widget_class_install_action (widget_class, "composer.stop", NULL, stop_activated);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "composer");
}

static void
prs_composer_init (PrsComposer *self)
{
  GtkEventController *keys;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->agent_names = gtk_string_list_new (NULL);

  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect (keys, "key-pressed", G_CALLBACK (on_key_pressed), self);
  gtk_widget_add_controller (self->text_view, keys);

  g_signal_connect_object (buffer (self), "changed", G_CALLBACK (on_buffer_changed), self, 0);
  prs_composer_set_busy (self, FALSE);
}
