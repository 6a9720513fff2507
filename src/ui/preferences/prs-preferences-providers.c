/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-preferences-providers.c: the AI Providers page of Preferences: the
 * providers in the order they are tried, on/off, edit (the provider form as
 * a subpage), remove. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-preferences-window-private.h"

static void
save_order (PrsPreferencesWindow *self,
            GPtrArray            *rows)
{
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < rows->len; i++)
    {
      PrsProviderRow *row = g_ptr_array_index (rows, i);

      row->priority = (int) i;
      if (!prs_store_update_provider (prs_service_get_store (self->service), row, &error))
        {
          prs_preferences_toast (self, error->message);
          break;
        }
    }
  prs_preferences_reload_providers (self);
}

static void
on_move_clicked (GtkButton            *button,
                 PrsPreferencesWindow *self)
{
  const char *id = g_object_get_data (G_OBJECT (button), "provider-id");
  int delta = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "delta"));
  g_autoptr(GPtrArray) rows = prs_store_list_providers (prs_service_get_store (self->service), NULL);

  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      PrsProviderRow *row = g_ptr_array_index (rows, i);
      int j = (int) i + delta;

      if (g_strcmp0 (row->id, id) != 0)
        continue;
      if (j < 0 || j >= (int) rows->len)
        return;
      rows->pdata[i] = rows->pdata[j];
      rows->pdata[j] = row;
      save_order (self, rows);
      return;
    }
}

static void
on_enabled_changed (GtkSwitch            *sw,
                    GParamSpec           *pspec,
                    PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  const char *id = g_object_get_data (G_OBJECT (sw), "provider-id");

  if (!prs_providers_set_enabled (prs_service_get_providers (self->service), id,
                                  gtk_switch_get_active (sw), &error))
    prs_preferences_toast (self, error->message);
}

static void
on_edit_clicked (GtkButton            *button,
                 PrsPreferencesWindow *self)
{
  prs_preferences_window_edit_provider (self, g_object_get_data (G_OBJECT (button), "provider-id"));
}

static void
on_removed (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = prs_providers_write_finish (PRS_PROVIDERS (source), result, &error);

  if (id == NULL)
    prs_preferences_toast (self, error->message);
  prs_preferences_reload_providers (self);
}

static void
on_remove_response (AdwMessageDialog     *dialog,
                    const char           *response,
                    PrsPreferencesWindow *self)
{
  const char *id = g_object_get_data (G_OBJECT (dialog), "provider-id");

  if (g_strcmp0 (response, "remove") != 0)
    return;
  /* The row goes at once; the key leaves the keyring without waiting on it */
  prs_providers_remove_async (prs_service_get_providers (self->service), id, NULL, on_removed,
                              g_object_ref (self));
}

static void
on_remove_clicked (GtkButton            *button,
                   PrsPreferencesWindow *self)
{
  const char *name = g_object_get_data (G_OBJECT (button), "provider-name");
  g_autofree char *heading = g_strdup_printf (_("Remove “%s”?"), name);
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading,
                                              _("Its API key is removed from the keyring too."));

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "remove", _("_Remove"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "provider-id",
                          g_strdup (g_object_get_data (G_OBJECT (button), "provider-id")), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_remove_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
tag_button (GtkWidget            *button,
            const PrsProviderRow *row,
            GCallback             callback,
            PrsPreferencesWindow *self)
{
  g_object_set_data_full (G_OBJECT (button), "provider-id", g_strdup (row->id), g_free);
  g_object_set_data_full (G_OBJECT (button), "provider-name", g_strdup (row->name), g_free);
  g_signal_connect (button, "clicked", callback, self);
}

void
prs_preferences_reload_providers (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = prs_store_list_providers (prs_service_get_store (self->service), &error);

  for (guint i = 0; i < self->provider_rows->len; i++)
    adw_preferences_group_remove (self->providers_group, g_ptr_array_index (self->provider_rows, i));
  g_ptr_array_set_size (self->provider_rows, 0);

  if (rows == NULL)
    {
      prs_preferences_toast (self, error->message);
      return;
    }

  for (guint i = 0; i < rows->len; i++)
    {
      const PrsProviderRow *row = g_ptr_array_index (rows, i);
      g_autofree char *subtitle = NULL;
      GtkWidget *widget, *button, *sw;

      /* Translators: "1. OpenAI-compatible · gpt-4o-mini" */
      subtitle = g_strdup_printf (_("%u. %s · %s"), i + 1, prs_provider_kind_get_label (row->kind),
                                  row->model != NULL ? row->model : "");
      widget = prs_preferences_action_row (row->name, subtitle);
      gtk_widget_set_name (widget, "provider-row");

      button = prs_preferences_icon_button ("go-up-symbolic", _("Try Earlier"), "provider-up");
      gtk_widget_set_sensitive (button, i > 0);
      g_object_set_data (G_OBJECT (button), "delta", GINT_TO_POINTER (-1));
      tag_button (button, row, G_CALLBACK (on_move_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), button);

      button = prs_preferences_icon_button ("go-down-symbolic", _("Try Later"), "provider-down");
      gtk_widget_set_sensitive (button, i + 1 < rows->len);
      g_object_set_data (G_OBJECT (button), "delta", GINT_TO_POINTER (1));
      tag_button (button, row, G_CALLBACK (on_move_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), button);

      button = prs_preferences_icon_button ("document-edit-symbolic", _("Edit"), "provider-edit");
      tag_button (button, row, G_CALLBACK (on_edit_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), button);

      button = prs_preferences_icon_button ("user-trash-symbolic", _("Remove"), "provider-remove");
      tag_button (button, row, G_CALLBACK (on_remove_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), button);

      sw = gtk_switch_new ();
      gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
      gtk_switch_set_active (GTK_SWITCH (sw), row->enabled);
      gtk_widget_set_tooltip_text (sw, _("Use this provider"));
      gtk_accessible_update_property (GTK_ACCESSIBLE (sw), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Use this provider"), -1);
      g_object_set_data_full (G_OBJECT (sw), "provider-id", g_strdup (row->id), g_free);
      g_signal_connect (sw, "notify::active", G_CALLBACK (on_enabled_changed), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), sw);

      adw_preferences_group_add (self->providers_group, widget);
      g_ptr_array_add (self->provider_rows, widget);
    }

  if (rows->len == 0)
    {
      GtkWidget *widget = prs_preferences_action_row (_("No providers yet"), _("Add one to let agents answer: OpenAI-compatible, Ollama, Anthropic or Google Gemini."));

      adw_preferences_group_add (self->providers_group, widget);
      g_ptr_array_add (self->provider_rows, widget);
    }
}

static void
on_provider_saved (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = prs_provider_editor_save_finish (PRS_PROVIDER_EDITOR (source), result, &error);

  if (id == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        prs_preferences_toast (self, error->message);
      return;
    }
  prs_preferences_reload_providers (self);
  if (self->provider_editor == PRS_PROVIDER_EDITOR (source))
    adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
  prs_preferences_toast (self, _("Provider saved"));
  prs_preferences_check_provider_health (self);
}

static void
on_provider_save_clicked (PrsPreferencesWindow *self)
{
  prs_provider_editor_save_async (self->provider_editor, self->cancellable, on_provider_saved,
                                  g_object_ref (self));
}

void
prs_preferences_window_edit_provider (PrsPreferencesWindow *self,
                                      const char           *provider_id)
{
  g_autoptr(PrsProviderRow) row = NULL;
  GtkWidget *editor = prs_provider_editor_new (self->service);

  g_return_if_fail (PRS_IS_PREFERENCES_WINDOW (self));

  if (provider_id != NULL)
    row = prs_store_lookup_provider (prs_service_get_store (self->service), provider_id, NULL);
  prs_provider_editor_load (PRS_PROVIDER_EDITOR (editor), row);
  self->provider_editor = PRS_PROVIDER_EDITOR (editor);
  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self),
                                          prs_preferences_subpage_new (self, row != NULL ? _("Edit Provider") : _("Add Provider"),
                                                                       _("_Save"), "provider-save",
                                                                       G_CALLBACK (on_provider_save_clicked), editor));
}

void
prs_preferences_on_add_provider_clicked (PrsPreferencesWindow *self)
{
  prs_preferences_window_edit_provider (self, NULL);
}
