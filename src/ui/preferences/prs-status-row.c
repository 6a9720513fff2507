/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-status-row.c: a check's state on an AdwActionRow (see the header). */
#include "config.h"

#include "prs-status-row.h"

void
prs_status_row_set_state (AdwActionRow *row,
                          const char   *state,
                          const char   *subtitle)
{
  GtkWidget *icon;
  GtkWidget *spinner;

  g_return_if_fail (ADW_IS_ACTION_ROW (row));
  g_return_if_fail (state != NULL);

  icon = g_object_get_data (G_OBJECT (row), "state-icon");
  spinner = g_object_get_data (G_OBJECT (row), "state-spinner");
  if (icon == NULL)
    {
      icon = gtk_image_new ();
      spinner = gtk_spinner_new ();
      /* The subtitle may carry outside text (an n8n URL's "&", a server's
       * error): shown as it is, not read as markup */
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_add_prefix (row, icon);
      adw_action_row_add_prefix (row, spinner);
      g_object_set_data (G_OBJECT (row), "state-icon", icon);
      g_object_set_data (G_OBJECT (row), "state-spinner", spinner);
    }

  gtk_widget_remove_css_class (icon, "success");
  gtk_widget_remove_css_class (icon, "warning");
  gtk_widget_remove_css_class (icon, "error");
  gtk_widget_remove_css_class (icon, "dim-label");
  gtk_spinner_set_spinning (GTK_SPINNER (spinner), g_str_equal (state, "busy"));
  gtk_widget_set_visible (spinner, g_str_equal (state, "busy"));
  gtk_widget_set_visible (icon, !g_str_equal (state, "busy"));

  if (g_str_equal (state, "ok"))
    {
      gtk_image_set_from_icon_name (GTK_IMAGE (icon), "emblem-ok-symbolic");
      gtk_widget_add_css_class (icon, "success");
    }
  else if (g_str_equal (state, "warn"))
    {
      gtk_image_set_from_icon_name (GTK_IMAGE (icon), "dialog-warning-symbolic");
      gtk_widget_add_css_class (icon, "warning");
    }
  else if (g_str_equal (state, "error"))
    {
      gtk_image_set_from_icon_name (GTK_IMAGE (icon), "dialog-error-symbolic");
      gtk_widget_add_css_class (icon, "error");
    }
  else
    {
      gtk_image_set_from_icon_name (GTK_IMAGE (icon), "content-loading-symbolic");
      gtk_widget_add_css_class (icon, "dim-label");
    }
  g_object_set_data_full (G_OBJECT (row), "state", g_strdup (state), g_free);
  adw_action_row_set_subtitle (row, subtitle);
}
