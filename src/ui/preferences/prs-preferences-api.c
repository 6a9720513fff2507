/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-preferences-api.c: the Local API page of Preferences: address and
 * port, the bearer token (copy, rotate), the n8n credential, the
 * certificate (fingerprint, export) and LAN listening. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-api-guard.h"
#include "prs-api-token.h"
#include "prs-n8n-setup.h"
#include "prs-preferences-window-private.h"
#include "prs-status-row.h"
#include "prs-tls.h"
#include "prs-token-row.h"

static void
show_token (PrsPreferencesWindow *self)
{
  prs_token_row_set (self->token_row, self->token, _("Not available"));
}

void
prs_preferences_wipe_token (PrsPreferencesWindow *self)
{
  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_clear_pointer (&self->token, g_free);
}

static void
on_copy_token_clicked (PrsPreferencesWindow *self)
{
  if (self->token == NULL)
    return;
  prs_preferences_copy_text (GTK_WIDGET (self), self->token);
  prs_preferences_toast (self, _("Token copied"));
}

/* The token came from the keyring (made on a first run), or a new one
 * after Rotate; FALSE when not */
static gboolean
take_token (PrsPreferencesWindow *self,
            GAsyncResult         *result)
{
  g_autoptr(GError) error = NULL;
  char *token = prs_api_token_finish (result, &error);

  if (token == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          prs_preferences_toast (self, error->message);
          show_token (self);
        }
      return FALSE;
    }
  prs_preferences_wipe_token (self);
  self->token = token;
  show_token (self);
  return TRUE;
}

static void
on_token_read (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;

  take_token (self, result);
}

static void
on_token_rotated (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;

  if (take_token (self, result))
    prs_preferences_toast (self, _("New token in use. Update the “Prosponsive API” credential in n8n."));
}

static void
on_rotate_response (AdwMessageDialog     *dialog,
                    const char           *response,
                    PrsPreferencesWindow *self)
{
  if (g_strcmp0 (response, "rotate") != 0)
    return;
  prs_api_token_rotate_async (prs_service_get_secrets (self->service), prs_service_get_data_dir (self->service),
                              self->cancellable, on_token_rotated, g_object_ref (self));
}

static void
on_rotate_clicked (PrsPreferencesWindow *self)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Rotate the Token?"),
                                              _("The current token stops working at once: n8n workflows "
                                                "get 401 until their “Prosponsive API” credential holds the new one."));

  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "rotate", _("_Rotate"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rotate", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_rotate_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
on_credential_created (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = prs_n8n_setup_create_credential_finish (PRS_N8N_CLIENT (source), result, &error);

  gtk_widget_set_sensitive (GTK_WIDGET (self->credential_button), TRUE);
  if (id == NULL)
    {
      prs_status_row_set_state (self->credential_row, "error", error->message);
      return;
    }
  if (self->token != NULL)
    prs_n8n_setup_remember_credential (prs_service_get_store (self->service), id, self->token, NULL);
  prs_status_row_set_state (self->credential_row, "ok",
                 _("Created in n8n with the current token. Choose it in your HTTP Request nodes (Header Auth)."));
}

static void
on_credential_client (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsN8nClient) client = prs_service_dup_n8n_client_finish (PRS_SERVICE (source), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (client == NULL || self->token == NULL)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->credential_button), TRUE);
      prs_status_row_set_state (self->credential_row, "error", error != NULL ? error->message : _("No token"));
      return;
    }
  prs_status_row_set_state (self->credential_row, "busy", _("Creating the credential in n8n…"));
  prs_n8n_setup_create_credential_async (client, self->token, self->cancellable, on_credential_created,
                                         g_object_ref (self));
}

static void
on_credential_clicked (PrsPreferencesWindow *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->credential_button), FALSE);
  prs_service_dup_n8n_client_async (self->service, _("Connect n8n first: enter its URL and an API key on the n8n page."),
                                    self->cancellable, on_credential_client, g_object_ref (self));
}

static void
on_copy_fingerprint_clicked (GtkButton            *button,
                             PrsPreferencesWindow *self)
{
  prs_preferences_copy_text (GTK_WIDGET (self), g_object_get_data (G_OBJECT (button), "text"));
  prs_preferences_toast (self, _("Copied"));
}

static void
on_export_response (GtkNativeDialog      *dialog,
                    int                   response,
                    PrsPreferencesWindow *self)
{
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *pem = NULL;

  if (response == GTK_RESPONSE_ACCEPT && self->certificate != NULL)
    {
      file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      pem = prs_tls_dup_pem (self->certificate);
      if (!g_file_replace_contents (file, pem, strlen (pem), NULL, FALSE, G_FILE_CREATE_NONE, NULL, NULL, &error))
        prs_preferences_toast (self, error->message);
      else
        prs_preferences_toast (self, _("Certificate exported"));
    }
  g_object_unref (dialog);
}

static void
on_export_clicked (PrsPreferencesWindow *self)
{
  GtkFileChooserNative *dialog;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  dialog = gtk_file_chooser_native_new (_("Export Certificate"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), "prosponsive-api.pem");
  G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_copy_url_clicked (PrsPreferencesWindow *self)
{
  g_autofree char *url = prs_preferences_dup_api_url (self);

  prs_preferences_copy_text (GTK_WIDGET (self), url);
  prs_preferences_toast (self, _("Copied"));
}

static void
on_sources_apply (AdwEntryRow          *row,
                  PrsPreferencesWindow *self)
{
  g_auto(GStrv) parts = g_strsplit_set (gtk_editable_get_text (GTK_EDITABLE (row)), " ,;", -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) sources = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *s = g_strstrip (parts[i]);

      if (s[0] != '\0')
        g_strv_builder_add (builder, s);
    }
  sources = g_strv_builder_end (builder);
  g_object_set (prs_service_get_settings (self->service), "allowed-sources", sources, NULL);
  prs_preferences_toast (self, _("Saved; applies the next time Prosponsive starts"));
}

/* Each entry must be an origin (docs/api.md): saved as a browser sends it,
 * or refused, naming the first that is not */
static void
on_origins_apply (AdwEntryRow          *row,
                  PrsPreferencesWindow *self)
{
  g_auto(GStrv) parts = g_strsplit_set (gtk_editable_get_text (GTK_EDITABLE (row)), " ,;", -1);
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) origins = NULL;
  g_autofree char *shown = NULL;

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *s = g_strstrip (parts[i]);
      g_autofree char *origin = NULL;

      if (s[0] == '\0')
        continue;
      origin = prs_api_guard_normalize_origin (s);
      if (origin == NULL)
        {
          /* Translators: %s is what was typed */
          g_autofree char *text = g_strdup_printf (_("“%s” is not an origin: write it as https://host or "
                                                     "https://host:port, without a path."), s);

          gtk_widget_add_css_class (GTK_WIDGET (row), "error");
          prs_preferences_toast (self, text);
          return;
        }
      g_strv_builder_add (builder, origin);
    }
  gtk_widget_remove_css_class (GTK_WIDGET (row), "error");
  origins = g_strv_builder_end (builder);
  g_object_set (prs_service_get_settings (self->service), "allowed-origins", origins, NULL);
  shown = g_strjoinv (" ", origins);
  gtk_editable_set_text (GTK_EDITABLE (row), shown);
  prs_preferences_toast (self, _("Allowed origins saved"));
}

static void
build_origins (PrsPreferencesWindow *self)
{
  PrsSettings *settings = prs_service_get_settings (self->service);
  g_autofree char *origins = g_strjoinv (" ", (char **) prs_settings_get_allowed_origins (settings));
  GtkWidget *row = adw_entry_row_new ();

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Allowed Origins (e.g. https://n8n.example.org)"));
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  adw_entry_row_set_input_purpose (ADW_ENTRY_ROW (row), GTK_INPUT_PURPOSE_URL);
  gtk_editable_set_text (GTK_EDITABLE (row), origins);
  gtk_widget_set_name (row, "allowed-origins");
  g_signal_connect (row, "apply", G_CALLBACK (on_origins_apply), self);
  adw_preferences_group_add (self->origins_group, row);
}

void
prs_preferences_build_api (PrsPreferencesWindow *self)
{
  PrsSettings *settings = prs_service_get_settings (self->service);
  g_autofree char *api_url = prs_preferences_dup_api_url (self);
  g_autofree char *sources = g_strjoinv (" ", (char **) prs_settings_get_allowed_sources (settings));
  g_autoptr(GError) error = NULL;
  GtkWidget *row, *button;

  row = prs_preferences_action_row (_("Address"), api_url);
  gtk_widget_set_name (row, "api-url");
  button = prs_preferences_icon_button ("edit-copy-symbolic", _("Copy Address"), "api-url-copy");
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (on_copy_url_clicked), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_preferences_group_add (self->api_group, row);
  adw_preferences_group_add (self->api_group,
                             prs_preferences_spin_row (self, _("Port"), _("Applies the next time Prosponsive starts"),
                                                       "api-port", 1, 65535, 1, 0));

  row = prs_token_row_new (_("Bearer Token"), "api-token");
  self->token_row = ADW_ACTION_ROW (row);
  button = prs_preferences_icon_button ("edit-copy-symbolic", _("Copy Token"), "api-token-copy");
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (on_copy_token_clicked), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  prs_preferences_suffix_button (row, _("R_otate…"), "api-token-rotate", G_CALLBACK (on_rotate_clicked), self);
  adw_preferences_group_add (self->token_group, row);
  /* From the keyring, without waiting on it */
  prs_token_row_set (self->token_row, NULL, _("Reading the keyring…"));
  prs_api_token_ensure_async (prs_service_get_secrets (self->service), prs_service_get_data_dir (self->service),
                              self->cancellable, on_token_read, g_object_ref (self));

  row = prs_preferences_action_row (_("“Prosponsive API” Credential in n8n"),
                                    _("A Header Auth credential holding “Authorization: Bearer TOKEN”, for HTTP Request nodes"));
  self->credential_row = ADW_ACTION_ROW (row);
  gtk_widget_set_name (row, "n8n-credential");
  self->credential_button = GTK_BUTTON (prs_preferences_suffix_button (row, _("_Create in n8n"), "n8n-credential-create",
                                                                       G_CALLBACK (on_credential_clicked), self));
  adw_preferences_group_add (self->token_group, row);

  self->certificate = prs_tls_ensure_certificate (prs_service_get_data_dir (self->service), &error);
  if (self->certificate != NULL)
    {
      g_autofree char *fingerprint = prs_tls_dup_fingerprint (self->certificate);
      g_autofree char *path = g_build_filename (prs_service_get_data_dir (self->service), PRS_TLS_CERT_FILE, NULL);
      g_autofree char *trust = NULL;

      row = prs_preferences_action_row (_("SHA-256 Fingerprint"), fingerprint);
      gtk_widget_set_name (row, "api-fingerprint");
      gtk_widget_add_css_class (row, "monospace-subtitle");
      button = prs_preferences_icon_button ("edit-copy-symbolic", _("Copy Fingerprint"), "api-fingerprint-copy");
      g_object_set_data_full (G_OBJECT (button), "text", g_strdup (fingerprint), g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (on_copy_fingerprint_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
      adw_preferences_group_add (self->cert_group, row);

      row = prs_preferences_action_row (_("Export Certificate"), _("A PEM file n8n can trust"));
      prs_preferences_suffix_button (row, _("_Export…"), "api-export-pem", G_CALLBACK (on_export_clicked), self);
      adw_preferences_group_add (self->cert_group, row);

      /* Translators: %s is the certificate file's path */
      trust = g_strdup_printf (_("Start n8n with NODE_EXTRA_CA_CERTS=%s so it trusts this certificate. "
                                 "Otherwise HTTP Request nodes need “Ignore SSL Issues”, which also accepts an impostor on that port."),
                               path);
      adw_preferences_group_set_description (self->cert_group, trust);
    }
  else
    prs_preferences_toast (self, error->message);

  adw_preferences_group_add (self->lan_group,
                             prs_preferences_switch_row (self, _("Listen on the Local Network"),
                                                         _("Also accept other computers, from the allowed addresses only"),
                                                         "lan-listening"));
  row = adw_entry_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Allowed Addresses (e.g. 192.168.1.0/24)"));
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (row), sources);
  gtk_widget_set_name (row, "allowed-sources");
  g_signal_connect (row, "apply", G_CALLBACK (on_sources_apply), self);
  g_object_bind_property (settings, "lan-listening", row, "sensitive", G_BINDING_SYNC_CREATE);
  adw_preferences_group_add (self->lan_group, row);

  build_origins (self);
}
