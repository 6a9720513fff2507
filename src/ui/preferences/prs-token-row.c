/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-token-row.c: the API token shown hidden (prs-token-row.h). */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-token-row.h"

#define TOKEN_KEY "prs-token"
#define REVEAL_KEY "prs-token-reveal"
/* As many dots whatever the token: its length is no one's business */
#define HIDDEN "●●●●●●●●●●●●●●●●●●●●"

static void
wipe (gpointer data)
{
  char *token = data;

  memset (token, 0, strlen (token));
  g_free (token);
}

static void
update (AdwActionRow *row)
{
  GtkToggleButton *reveal = g_object_get_data (G_OBJECT (row), REVEAL_KEY);
  const char *token = g_object_get_data (G_OBJECT (row), TOKEN_KEY);
  gboolean shown = gtk_toggle_button_get_active (reveal);

  if (token != NULL)
    adw_action_row_set_subtitle (row, shown ? token : HIDDEN);
  gtk_widget_set_sensitive (GTK_WIDGET (reveal), token != NULL);
  gtk_button_set_icon_name (GTK_BUTTON (reveal), shown ? "view-conceal-symbolic" : "view-reveal-symbolic");
  gtk_widget_set_tooltip_text (GTK_WIDGET (reveal), shown ? _("Hide Token") : _("Show Token"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (reveal), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  shown ? _("Hide Token") : _("Show Token"), -1);
}

GtkWidget *
prs_token_row_new (const char *title,
                   const char *name)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *reveal = gtk_toggle_button_new ();
  g_autofree char *reveal_name = g_strconcat (name, "-reveal", NULL);

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  gtk_widget_set_name (row, name);
  gtk_widget_add_css_class (row, "monospace-subtitle");
  gtk_widget_set_valign (reveal, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (reveal, "flat");
  gtk_widget_set_name (reveal, reveal_name);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), reveal);
  g_object_set_data (G_OBJECT (row), REVEAL_KEY, reveal);
  g_signal_connect_swapped (reveal, "toggled", G_CALLBACK (update), row);
  update (ADW_ACTION_ROW (row));
  return row;
}

void
prs_token_row_set (AdwActionRow *row,
                   const char   *token,
                   const char   *status)
{
  g_return_if_fail (ADW_IS_ACTION_ROW (row));

  g_object_set_data_full (G_OBJECT (row), TOKEN_KEY, g_strdup (token), token != NULL ? wipe : NULL);
  if (token == NULL)
    adw_action_row_set_subtitle (row, status);
  update (row);
}
