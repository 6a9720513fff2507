/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-dialogs.c: the shared questions (prs-dialogs.h). */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-dialogs.h"

static gboolean
destroy_idle (gpointer data)
{
  gtk_window_destroy (GTK_WINDOW (data));
  return G_SOURCE_REMOVE;
}

/* The dialog is transient for the editor: it finishes its response before
 * the editor goes */
static void
destroy_soon (GtkWindow *editor)
{
  g_idle_add_full (G_PRIORITY_DEFAULT, destroy_idle, g_object_ref (editor), g_object_unref);
}

static void
on_discard_response (AdwMessageDialog *dialog,
                     const char       *response,
                     GtkWindow        *editor)
{
  PrsDialogsSaveFunc save = g_object_get_data (G_OBJECT (dialog), "save");
  AdwToastOverlay *toasts = g_object_get_data (G_OBJECT (dialog), "toasts");
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (response, "save") == 0 && save != NULL && !save (editor, &error))
    adw_toast_overlay_add_toast (toasts, prs_dialogs_new_toast (error->message));
  else if (g_strcmp0 (response, "save") == 0 || g_strcmp0 (response, "discard") == 0)
    destroy_soon (editor);
}

void
prs_dialogs_ask_discard (GtkWindow          *editor,
                         const char         *body,
                         PrsDialogsSaveFunc  save,
                         AdwToastOverlay    *toasts)
{
  AdwMessageDialog *dialog;

  g_return_if_fail (GTK_IS_WINDOW (editor));
  g_return_if_fail (save == NULL || ADW_IS_TOAST_OVERLAY (toasts));

  dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (editor, _("Discard Changes?"), body));
  adw_message_dialog_add_responses (dialog, "cancel", _("_Keep Editing"), "discard", _("_Discard"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
  if (save != NULL)
    {
      adw_message_dialog_add_response (dialog, "save", _("_Save"));
      adw_message_dialog_set_response_appearance (dialog, "save", ADW_RESPONSE_SUGGESTED);
    }
  adw_message_dialog_set_default_response (dialog, save != NULL ? "save" : "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  g_object_set_data (G_OBJECT (dialog), "save", save);
  g_object_set_data (G_OBJECT (dialog), "toasts", toasts);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_discard_response), editor, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

AdwMessageDialog *
prs_dialogs_new_delete (GtkWindow  *parent,
                        const char *heading,
                        const char *body)
{
  AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (parent, heading, body));

  adw_message_dialog_add_responses (dialog, "cancel", _("_Cancel"), "delete", _("_Delete"), NULL);
  adw_message_dialog_set_response_appearance (dialog, "delete", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (dialog, "cancel");
  adw_message_dialog_set_close_response (dialog, "cancel");
  return dialog;
}

/* A toast's margins, padding and spacing around its title and buttons
 * (libadwaita 1.2's style: 12 px margins, 18 px padding, the gaps) */
#define TOAST_FRAME_WIDTH 72

/* A toast's title: a label that wraps, as wide as one line when the window
 * has room. libadwaita 1.2 gives a toast the height its title needs at the
 * title's natural width, then narrows it to the window: a one-line natural
 * width in a phone's window drew three lines in the height of one. So the
 * natural width is no wider than the window leaves the title. */
#define PRS_TYPE_TOAST_TITLE (prs_toast_title_get_type ())
G_DECLARE_FINAL_TYPE (PrsToastTitle, prs_toast_title, PRS, TOAST_TITLE, GtkWidget)

struct _PrsToastTitle
{
  GtkWidget  parent_instance;
  GtkWidget *label;
};

G_DEFINE_FINAL_TYPE (PrsToastTitle, prs_toast_title, GTK_TYPE_WIDGET)

static void
prs_toast_title_measure (GtkWidget      *widget,
                         GtkOrientation  orientation,
                         int             for_size,
                         int            *minimum,
                         int            *natural,
                         int            *minimum_baseline,
                         int            *natural_baseline)
{
  PrsToastTitle *self = PRS_TOAST_TITLE (widget);
  GtkWidget *toast = widget;
  GtkWidget *overlay;
  int room;

  gtk_widget_measure (self->label, orientation, for_size, minimum, natural,
                      minimum_baseline, natural_baseline);
  if (orientation != GTK_ORIENTATION_HORIZONTAL)
    return;

  /* The toast is the overlay's child; its buttons are its other children */
  while ((overlay = gtk_widget_get_parent (toast)) != NULL && !ADW_IS_TOAST_OVERLAY (overlay))
    toast = overlay;
  if (overlay == NULL || gtk_widget_get_width (overlay) <= 0)
    return;
  room = gtk_widget_get_width (overlay) - TOAST_FRAME_WIDTH;
  for (GtkWidget *child = gtk_widget_get_first_child (toast); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (child != widget && !gtk_widget_is_ancestor (widget, child) && gtk_widget_get_visible (child))
      {
        int button = 0;

        gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &button, NULL, NULL);
        room -= button;
      }
  *natural = MAX (*minimum, MIN (*natural, room));
}

static void
prs_toast_title_size_allocate (GtkWidget *widget,
                               int        width,
                               int        height,
                               int        baseline)
{
  gtk_widget_allocate (PRS_TOAST_TITLE (widget)->label, width, height, baseline, NULL);
}

static GtkSizeRequestMode
prs_toast_title_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
prs_toast_title_dispose (GObject *object)
{
  g_clear_pointer (&PRS_TOAST_TITLE (object)->label, gtk_widget_unparent);
  G_OBJECT_CLASS (prs_toast_title_parent_class)->dispose (object);
}

static void
prs_toast_title_class_init (PrsToastTitleClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_toast_title_dispose;
  widget_class->measure = prs_toast_title_measure;
  widget_class->size_allocate = prs_toast_title_size_allocate;
  widget_class->get_request_mode = prs_toast_title_get_request_mode;
}

static void
prs_toast_title_init (PrsToastTitle *self)
{
  self->label = gtk_label_new (NULL);
  /* Up to three lines, then cut: a toast stays a toast */
  gtk_label_set_wrap (GTK_LABEL (self->label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (self->label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_lines (GTK_LABEL (self->label), 3);
  gtk_label_set_ellipsize (GTK_LABEL (self->label), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (self->label), 0.0);
  /* Wide as one line when there is room: a wrapping label asks for less */
  gtk_label_set_natural_wrap_mode (GTK_LABEL (self->label), GTK_NATURAL_WRAP_NONE);
  gtk_widget_add_css_class (self->label, "heading");
  gtk_widget_set_parent (self->label, GTK_WIDGET (self));
}

AdwToast *
prs_dialogs_new_toast (const char *text)
{
  AdwToast *toast = adw_toast_new ("");

  adw_toast_set_custom_title (toast, g_object_new (PRS_TYPE_TOAST_TITLE, NULL));
  prs_dialogs_set_toast_text (toast, text);
  return toast;
}

void
prs_dialogs_set_toast_text (AdwToast   *toast,
                            const char *text)
{
  GtkWidget *title = adw_toast_get_custom_title (toast);

  g_return_if_fail (PRS_IS_TOAST_TITLE (title));
  gtk_label_set_text (GTK_LABEL (PRS_TOAST_TITLE (title)->label), text);
}
