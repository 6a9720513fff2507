/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-preferences-mcp.c: the MCP Servers page of Preferences: each server
 * with its state, on/off, shared with MCP clients, Test, Edit (the form as
 * a subpage) and Remove (confirmed); Add opens the empty form. The rows
 * follow the hub: a server that connects or fails says so at once. */
#include "config.h"

#include <glib/gi18n.h>

#include "prs-mcp-server-editor.h"
#include "prs-preferences-window-private.h"

/* NULL once the window is going */
static PrsMcpHub *
hub (PrsPreferencesWindow *self)
{
  return self->service != NULL ? prs_service_get_mcp_hub (self->service) : NULL;
}

static const char *
row_id (gpointer widget)
{
  return g_object_get_data (G_OBJECT (widget), "mcp-server-id");
}

/* ---- Switches ---- */

static void
on_enabled_changed (GtkSwitch            *sw,
                    GParamSpec           *pspec,
                    PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (!prs_mcp_hub_set_enabled (hub (self), row_id (sw), gtk_switch_get_active (sw), &error))
    prs_preferences_toast (self, error->message);
}

static void
on_shared_changed (GtkSwitch            *sw,
                   GParamSpec           *pspec,
                   PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (!prs_mcp_hub_set_shared (hub (self), row_id (sw), gtk_switch_get_active (sw), &error))
    prs_preferences_toast (self, error->message);
}

/* ---- Test, edit, remove ---- */

static void
on_tested (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GtkWidget) row = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) info = prs_mcp_hub_test_finish (PRS_MCP_HUB (source), result, &error);
  GtkWidget *button = g_object_get_data (G_OBJECT (row), "mcp-test-button");
  g_autofree char *text = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  gtk_widget_set_sensitive (button, TRUE);
  text = info != NULL ? prs_mcp_server_editor_describe_test (info) : g_strdup (error->message);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), text);
}

static void
on_test_clicked (GtkButton            *button,
                 PrsPreferencesWindow *self)
{
  GtkWidget *row = g_object_get_data (G_OBJECT (button), "mcp-row");
  PrsMcpServerItem *item = prs_mcp_hub_find_server (hub (self), row_id (button));

  if (item == NULL)
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (button), FALSE);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Connecting…"));
  prs_mcp_hub_test_async (hub (self), prs_mcp_server_item_get_row (item), NULL, NULL, self->cancellable,
                          on_tested, g_object_ref (row));
}

static void
on_edit_clicked (GtkButton            *button,
                 PrsPreferencesWindow *self)
{
  prs_preferences_window_edit_mcp_server (self, row_id (button));
}

static void
on_remove_response (AdwMessageDialog     *dialog,
                    const char           *response,
                    PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (g_strcmp0 (response, "remove") != 0)
    return;
  if (!prs_mcp_hub_remove_server (hub (self), row_id (dialog), &error))
    prs_preferences_toast (self, error->message);
}

static void
on_remove_clicked (GtkButton            *button,
                   PrsPreferencesWindow *self)
{
  PrsMcpServerItem *item = prs_mcp_hub_find_server (hub (self), row_id (button));
  g_autofree char *heading = NULL;
  GtkWidget *dialog;

  if (item == NULL)
    return;
  heading = g_strdup_printf (_("Remove “%s”?"), prs_mcp_server_item_get_name (item));
  dialog = adw_message_dialog_new (GTK_WINDOW (self), heading,
                                   _("Agents can no longer use its tools. Its secret values are removed from the "
                                     "keyring too."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "remove", _("_Remove"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_object_set_data_full (G_OBJECT (dialog), "mcp-server-id", g_strdup (row_id (button)), g_free);
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_remove_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

/* ---- Rows ---- */

static void
tag (gpointer    widget,
     const char *id)
{
  g_object_set_data_full (G_OBJECT (widget), "mcp-server-id", g_strdup (id), g_free);
}

static GtkWidget *
switch_for (PrsPreferencesWindow *self,
            const char           *id,
            gboolean              active,
            const char           *label,
            GCallback             callback)
{
  GtkWidget *sw = gtk_switch_new ();

  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  gtk_switch_set_active (GTK_SWITCH (sw), active);
  gtk_widget_set_tooltip_text (sw, label);
  gtk_accessible_update_property (GTK_ACCESSIBLE (sw), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
  tag (sw, id);
  g_signal_connect (sw, "notify::active", callback, self);
  return sw;
}

static void
update_status (GtkWidget        *expander,
               PrsMcpServerItem *item)
{
  g_autofree char *status = prs_mcp_server_item_dup_status (item);

  adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (expander), status);
}

static void
on_item_status (PrsMcpServerItem *item,
                GParamSpec       *pspec,
                GtkWidget        *expander)
{
  update_status (expander, item);
}

static GtkWidget *
button_row (PrsPreferencesWindow *self,
            const char           *id,
            const char           *title,
            const char           *subtitle,
            const char           *label,
            const char           *name,
            GCallback             callback)
{
  GtkWidget *row = prs_preferences_action_row (title, subtitle);
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_name (button, name);
  g_signal_connect (button, "clicked", callback, self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  tag (button, id);
  g_object_set_data (G_OBJECT (button), "mcp-row", row);
  g_object_set_data (G_OBJECT (row), "mcp-test-button", button);
  return row;
}

static GtkWidget *
server_row (PrsPreferencesWindow *self,
            PrsMcpServerItem     *item)
{
  const PrsMcpServerRow *row = prs_mcp_server_item_get_row (item);
  GtkWidget *expander = adw_expander_row_new ();
  GtkWidget *shared;
  g_autofree char *how = NULL;

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), row->name);
  gtk_widget_set_name (expander, "mcp-server-row");
  update_status (expander, item);
  g_signal_connect_object (item, "notify::status", G_CALLBACK (on_item_status), expander, 0);
  adw_expander_row_add_action (ADW_EXPANDER_ROW (expander),
                               switch_for (self, row->id, row->enabled, _("Use this server"),
                                           G_CALLBACK (on_enabled_changed)));

  how = prs_mcp_server_row_describe (row);
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), prs_preferences_action_row (_("Runs as"), how));

  shared = prs_preferences_action_row (_("Shared with MCP Clients"),
                                       _("Other programs that use Prosponsive as an MCP server may call its tools, "
                                         "with approval."));
  adw_action_row_add_suffix (ADW_ACTION_ROW (shared),
                             switch_for (self, row->id, row->shared, _("Share with MCP clients"),
                                         G_CALLBACK (on_shared_changed)));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), shared);

  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander),
                            button_row (self, row->id, _("Test"), _("Connects once and says what it offers."),
                                        _("_Test"), "mcp-server-test", G_CALLBACK (on_test_clicked)));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander),
                            button_row (self, row->id, _("Settings"), NULL, _("_Edit…"), "mcp-server-edit",
                                        G_CALLBACK (on_edit_clicked)));
  adw_expander_row_add_row (ADW_EXPANDER_ROW (expander),
                            button_row (self, row->id, _("Remove"), NULL, _("_Remove…"), "mcp-server-remove",
                                        G_CALLBACK (on_remove_clicked)));
  return expander;
}

void
prs_preferences_reload_mcp (PrsPreferencesWindow *self)
{
  GListModel *servers = hub (self) != NULL ? prs_mcp_hub_get_servers (hub (self)) : NULL;
  guint n = servers != NULL ? g_list_model_get_n_items (servers) : 0;

  if (servers == NULL || self->mcp_rows == NULL)
    return;

  for (guint i = 0; i < self->mcp_rows->len; i++)
    adw_preferences_group_remove (self->mcp_group, g_ptr_array_index (self->mcp_rows, i));
  g_ptr_array_set_size (self->mcp_rows, 0);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PrsMcpServerItem) item = g_list_model_get_item (servers, i);
      GtkWidget *row = server_row (self, item);

      adw_preferences_group_add (self->mcp_group, row);
      g_ptr_array_add (self->mcp_rows, row);
    }
  if (n == 0)
    {
      GtkWidget *row = prs_preferences_action_row (_("No MCP servers yet"),
                                                   _("Add a program (such as one started with npx) or the "
                                                     "address of a server."));

      adw_preferences_group_add (self->mcp_group, row);
      g_ptr_array_add (self->mcp_rows, row);
    }
}

static gboolean
on_reload_idle (gpointer data)
{
  PrsPreferencesWindow *self = data;

  self->mcp_reload_id = 0;
  prs_preferences_reload_mcp (self);
  return G_SOURCE_REMOVE;
}

/* Rebuilt from the main loop: the change may come from one of the rows'
 * own switches, still at work */
static void
on_servers_changed (GListModel           *servers,
                    guint                 position,
                    guint                 removed,
                    guint                 added,
                    PrsPreferencesWindow *self)
{
  if (self->mcp_reload_id == 0 && self->mcp_rows != NULL)
    self->mcp_reload_id = g_idle_add (on_reload_idle, self);
}

void
prs_preferences_build_mcp (PrsPreferencesWindow *self)
{
  if (hub (self) == NULL)
    return;
  /* Servers added with prosponsive-ctl meanwhile show (and connect) */
  prs_mcp_hub_reload (hub (self));
  g_signal_connect_object (prs_mcp_hub_get_servers (hub (self)), "items-changed",
                           G_CALLBACK (on_servers_changed), self, 0);
  prs_preferences_reload_mcp (self);
}

/* ---- The form ---- */

static void
on_mcp_save_clicked (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (!prs_mcp_server_editor_save (self->mcp_editor, &error))
    {
      prs_preferences_toast (self, error->message);
      return;
    }
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
  prs_preferences_toast (self, _("MCP server saved"));
}

void
prs_preferences_window_edit_mcp_server (PrsPreferencesWindow *self,
                                        const char           *server_id)
{
  PrsMcpServerItem *item = server_id != NULL ? prs_mcp_hub_find_server (hub (self), server_id) : NULL;
  GtkWidget *editor = prs_mcp_server_editor_new (self->service);

  g_return_if_fail (PRS_IS_PREFERENCES_WINDOW (self));

  if (item != NULL)
    prs_mcp_server_editor_load (PRS_MCP_SERVER_EDITOR (editor), prs_mcp_server_item_get_row (item));
  self->mcp_editor = PRS_MCP_SERVER_EDITOR (editor);
  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self),
                                          prs_preferences_subpage_new (self, item != NULL ? _("Edit MCP Server")
                                                                                          : _("Add MCP Server"),
                                                                       _("_Save"), "mcp-save",
                                                                       G_CALLBACK (on_mcp_save_clicked), editor));
}

void
prs_preferences_on_add_mcp_clicked (PrsPreferencesWindow *self)
{
  prs_preferences_window_edit_mcp_server (self, NULL);
}
