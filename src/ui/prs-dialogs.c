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

AdwToast *
prs_dialogs_new_toast (const char *text)
{
  AdwToast *toast = adw_toast_new ("");
  GtkWidget *label = gtk_label_new (text);

  /* Up to three lines, then cut: a toast stays a toast */
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_lines (GTK_LABEL (label), 3);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  /* Wide as one line when there is room: a wrapping label asks for less */
  gtk_label_set_natural_wrap_mode (GTK_LABEL (label), GTK_NATURAL_WRAP_NONE);
  gtk_widget_add_css_class (label, "heading");
  adw_toast_set_custom_title (toast, label);
  return toast;
}

void
prs_dialogs_set_toast_text (AdwToast   *toast,
                            const char *text)
{
  GtkWidget *label = adw_toast_get_custom_title (toast);

  g_return_if_fail (GTK_IS_LABEL (label));
  gtk_label_set_text (GTK_LABEL (label), text);
}
