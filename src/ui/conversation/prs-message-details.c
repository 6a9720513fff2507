/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-message-details.c: what a reply says about itself — who answered
 * (provider, model), its tokens and timing in a popover, and a notice when
 * a provider failed and another answered (docs/providers.md: failover) —
 * and a message's menu (copy, Regenerate, Edit and Resend). Read from the
 * message's stored extra data, so it is the same after a restart. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-json.h"
#include "prs-message-details.h"

static JsonObject *
extra_of (PrsMessage *message)
{
  return prs_json_node_get_object (prs_message_get_extra (message));
}

static char *
format_ms (gint64 ms)
{
  if (ms < 1000)
    /* Translators: a duration in milliseconds */
    return g_strdup_printf (_("%d ms"), (int) ms);
  /* Translators: a duration in seconds, one decimal */
  return g_strdup_printf (_("%.1f s"), ms / 1000.0);
}

static void
add_row (GtkGrid    *grid,
         int         row,
         const char *label,
         const char *value)
{
  GtkWidget *name = gtk_label_new (label);
  GtkWidget *text = gtk_label_new (value);

  gtk_label_set_xalign (GTK_LABEL (name), 1.0);
  gtk_widget_add_css_class (name, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (text), 0.0);
  gtk_label_set_selectable (GTK_LABEL (text), TRUE);
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (text), 36);
  gtk_widget_set_can_focus (text, FALSE);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (text), GTK_ACCESSIBLE_RELATION_LABELLED_BY, name, NULL, -1);
  gtk_grid_attach (grid, name, 0, row, 1, 1);
  gtk_grid_attach (grid, text, 1, row, 1, 1);
}

static char *
count_text (JsonObject *usage,
            const char *member)
{
  gint64 n = prs_json_object_get_int (usage, member, -1);

  /* Translators: a token count the provider did not report */
  return n >= 0 ? g_strdup_printf ("%" G_GINT64_FORMAT, n) : g_strdup (_("Not reported"));
}

GtkWidget *
prs_message_details_new (PrsMessage *message)
{
  JsonObject *extra = extra_of (message);
  JsonObject *provider = prs_json_object_get_object (extra, "provider");
  JsonObject *usage = prs_json_object_get_object (extra, "usage");
  JsonObject *timing = prs_json_object_get_object (extra, "timing");
  JsonArray *failover = prs_json_object_get_array (extra, "failover");
  const char *provider_name = prs_json_object_get_string (provider, "name");
  const char *model = prs_json_object_get_string (extra, "model");
  g_autofree char *input = count_text (usage, "inputTokens");
  g_autofree char *output = count_text (usage, "outputTokens");
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *grid = gtk_grid_new ();
  GtkWidget *title = gtk_label_new (_("Message Details"));
  int row = 0;

  gtk_widget_add_css_class (title, "heading");
  gtk_label_set_xalign (GTK_LABEL (title), 0.0);
  gtk_box_append (GTK_BOX (box), title);
  gtk_grid_set_row_spacing (GTK_GRID (grid), 6);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
  if (provider_name == NULL)
    provider_name = prs_json_object_get_string (extra, "providerName");
  if (provider_name == NULL)
    provider_name = prs_json_object_get_string (extra, "provider");
  add_row (GTK_GRID (grid), row++, _("Provider"), provider_name != NULL ? provider_name : _("Unknown"));
  add_row (GTK_GRID (grid), row++, _("Model"), model != NULL ? model : _("Unknown"));
  add_row (GTK_GRID (grid), row++, _("Tokens in"), input);
  add_row (GTK_GRID (grid), row++, _("Tokens out"), output);
  if (timing != NULL)
    {
      g_autofree char *first = format_ms (prs_json_object_get_int (timing, "firstTokenMs", 0));
      g_autofree char *total = format_ms (prs_json_object_get_int (timing, "totalMs", 0));

      add_row (GTK_GRID (grid), row++, _("First token after"), first);
      add_row (GTK_GRID (grid), row++, _("Total time"), total);
    }
  else
    /* Translators: the time a reply took, for replies stored before it was measured */
    add_row (GTK_GRID (grid), row++, _("Time"), _("Not measured"));
  gtk_box_append (GTK_BOX (box), grid);

  for (guint i = 0; failover != NULL && i < json_array_get_length (failover); i++)
    {
      JsonObject *failed = json_array_get_object_element (failover, i);
      /* Translators: in a reply's details: a provider that failed before another answered, and why */
      g_autofree char *text = g_strdup_printf (_("%s failed first: %s"),
                                               prs_json_object_get_string (failed, "providerName"),
                                               prs_json_object_get_string (failed, "error"));
      GtkWidget *label = gtk_label_new (text);

      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 44);
      gtk_label_set_xalign (GTK_LABEL (label), 0.0);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_set_can_focus (label, FALSE);
      gtk_widget_add_css_class (label, "warning");
      gtk_box_append (GTK_BOX (box), label);
    }
  return box;
}

/* Made when first opened: most never are, and a popover in every row of
 * a long conversation costs memory */
static void
create_details (GtkMenuButton *button,
                gpointer       user_data)
{
  GtkWidget *popover = gtk_popover_new ();

  gtk_popover_set_child (GTK_POPOVER (popover), prs_message_details_new (user_data));
  gtk_menu_button_set_popover (button, popover);
}

GtkWidget *
prs_message_details_button_new (PrsMessage *message)
{
  GtkWidget *button = gtk_menu_button_new ();

  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "help-about-symbolic");
  gtk_menu_button_set_create_popup_func (GTK_MENU_BUTTON (button), create_details,
                                         g_object_ref (message), g_object_unref);
  gtk_widget_set_tooltip_text (button, _("Message Details"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Message Details"), -1);
  gtk_widget_set_valign (button, GTK_ALIGN_START);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "circular");
  gtk_widget_add_css_class (button, "message-details");
  return button;
}

GtkWidget *
prs_message_failover_notice_new (PrsMessage *message)
{
  JsonObject *extra = extra_of (message);
  JsonArray *failover = prs_json_object_get_array (extra, "failover");
  JsonObject *provider = prs_json_object_get_object (extra, "provider");
  const char *answered = prs_json_object_get_string (provider, "name");
  g_autoptr(GString) text = g_string_new (NULL);
  GtkWidget *box, *icon, *label;

  if (failover == NULL || json_array_get_length (failover) == 0)
    return NULL;
  if (answered == NULL)
    answered = prs_json_object_get_string (extra, "providerName");

  for (guint i = 0; i < json_array_get_length (failover); i++)
    {
      JsonObject *failed = json_array_get_object_element (failover, i);

      if (text->len > 0)
        g_string_append (text, " ");
      /* Translators: the first %s is an AI provider's name, the second why it failed */
      g_string_append_printf (text, _("%s failed: %s."), prs_json_object_get_string (failed, "providerName"),
                              prs_json_object_get_string (failed, "error"));
    }
  if (answered != NULL)
    {
      g_string_append (text, " ");
      /* Translators: %s is the AI provider that answered after another failed */
      g_string_append_printf (text, _("%s answered instead."), answered);
    }

  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_add_css_class (box, "failover-notice");
  icon = gtk_image_new_from_icon_name ("dialog-warning-symbolic");
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Failover"), -1);
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_widget_add_css_class (icon, "warning");
  label = gtk_label_new (text->str);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0.0);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_set_can_focus (label, FALSE);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_widget_add_css_class (label, "caption");
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), label);
  return box;
}

static void
create_actions (GtkMenuButton *button,
                gpointer       user_data)
{
  guint flags = GPOINTER_TO_UINT (user_data);
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) copy = g_menu_new ();

  g_menu_append (copy, _("Copy _Text"), "message-row.copy-text");
  g_menu_append (copy, _("Copy as _Markdown"), "message-row.copy-markdown");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (copy));
  if (flags != 0)
    {
      g_autoptr(GMenu) again = g_menu_new ();

      if (flags & 1)
        g_menu_append (again, _("_Regenerate"), "message-row.regenerate");
      if (flags & 2)
        g_menu_append (again, _("_Edit and Resend…"), "message-row.edit");
      g_menu_append_section (menu, NULL, G_MENU_MODEL (again));
    }
  gtk_menu_button_set_menu_model (button, G_MENU_MODEL (menu));
}

GtkWidget *
prs_message_actions_button_new (gboolean can_regenerate,
                                gboolean can_edit)
{
  GtkWidget *button = gtk_menu_button_new ();

  /* The menu is made when first opened (see create_details) */
  gtk_menu_button_set_icon_name (GTK_MENU_BUTTON (button), "view-more-symbolic");
  gtk_menu_button_set_create_popup_func (GTK_MENU_BUTTON (button), create_actions,
                                         GUINT_TO_POINTER ((can_regenerate ? 1 : 0) | (can_edit ? 2 : 0)), NULL);
  gtk_widget_set_tooltip_text (button, _("Message Menu"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Message Menu"), -1);
  gtk_widget_set_valign (button, GTK_ALIGN_START);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_add_css_class (button, "circular");
  gtk_widget_add_css_class (button, "message-menu");
  return button;
}
