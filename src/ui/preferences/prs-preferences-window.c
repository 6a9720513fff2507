/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-preferences-window.c: Preferences. Settings rows are bound to
 * PrsSettings properties (never to GSettings directly); the n8n key,
 * provider keys and the API token go to and come from PrsSecrets only. The
 * provider form and the rule form open as subpages. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>
#include <libsoup/soup.h>

#include "prs-api-token.h"
#include "prs-error.h"
#include "prs-n8n-client.h"
#include "prs-n8n-setup.h"
#include "prs-preferences-window.h"
#include "prs-provider-editor.h"
#include "prs-status-row.h"
#include "prs-tls.h"

struct _PrsPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  PrsService           *service;
  GCancellable         *cancellable;
  GPtrArray            *provider_rows;
  GPtrArray            *rule_rows;
  char                 *token;            /* shown; wiped in finalize */
  GTlsCertificate      *certificate;
  SoupSession          *health_session;

  /* health */
  AdwActionRow         *health_n8n;
  AdwActionRow         *health_provider;
  AdwActionRow         *health_api;
  AdwActionRow         *health_keyring;

  /* n8n */
  AdwEntryRow          *n8n_url_row;
  AdwEntryRow          *n8n_key_row;
  AdwActionRow         *discovery_row;
  GtkButton            *discovery_button;
  GtkSpinner           *discovery_spinner;

  /* api */
  AdwActionRow         *token_row;
  AdwActionRow         *credential_row;
  GtkButton            *credential_button;

  /* forms */
  PrsProviderEditor    *provider_editor;
  AdwComboRow          *rule_tool;
  AdwComboRow          *rule_agent;
  AdwComboRow          *rule_conversation;
  AdwComboRow          *rule_action;

  AdwPreferencesGroup  *health_group;
  AdwPreferencesGroup  *background_group;
  AdwPreferencesGroup  *links_group;
  AdwPreferencesGroup  *n8n_group;
  AdwPreferencesGroup  *discovery_group;
  AdwPreferencesGroup  *providers_group;
  AdwPreferencesGroup  *api_group;
  AdwPreferencesGroup  *token_group;
  AdwPreferencesGroup  *cert_group;
  AdwPreferencesGroup  *lan_group;
  AdwPreferencesGroup  *rules_group;
  AdwPreferencesGroup  *inference_group;
  AdwPreferencesGroup  *timeouts_group;
};

G_DEFINE_FINAL_TYPE (PrsPreferencesWindow, prs_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/* ---- helpers ---- */

static void
toast (PrsPreferencesWindow *self,
       const char           *text)
{
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), adw_toast_new (text));
}

static GtkWidget *
action_row (const char *title,
            const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  return row;
}

static GtkWidget *
suffix_button (GtkWidget  *row,
               const char *label,
               const char *name,
               GCallback   callback,
               gpointer    data)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_name (button, name);
  g_signal_connect_swapped (button, "clicked", callback, data);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  return button;
}

static GtkWidget *
icon_button (const char *icon,
             const char *tooltip,
             const char *name)
{
  GtkWidget *button = gtk_button_new_from_icon_name (icon);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  gtk_widget_set_name (button, name);
  gtk_widget_add_css_class (button, "flat");
  return button;
}

static void
copy_text (GtkWidget  *widget,
           const char *text)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
}

/* A row with a switch bound to a boolean settings property. */
static GtkWidget *
switch_row (PrsPreferencesWindow *self,
            const char           *title,
            const char           *subtitle,
            const char           *key)
{
  GtkWidget *row = action_row (title, subtitle);
  GtkWidget *sw = gtk_switch_new ();

  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  gtk_widget_set_name (sw, key);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), sw);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), sw);
  g_object_bind_property (prs_service_get_settings (self->service), key, sw, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  return row;
}

/* A row with a spin button bound to a numeric settings property. */
static GtkWidget *
spin_row (PrsPreferencesWindow *self,
          const char           *title,
          const char           *subtitle,
          const char           *key,
          double                min,
          double                max,
          double                step,
          guint                 digits)
{
  GtkWidget *row = action_row (title, subtitle);
  GtkWidget *spin = gtk_spin_button_new_with_range (min, max, step);

  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  gtk_widget_set_name (spin, key);
  gtk_accessible_update_property (GTK_ACCESSIBLE (spin), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  g_object_bind_property (prs_service_get_settings (self->service), key, spin, "value",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  return row;
}

static char *
dup_api_url (PrsPreferencesWindow *self)
{
  return g_strdup_printf ("https://127.0.0.1:%u", prs_service_get_port (self->service));
}

/* ---- health ---- */

static void
update_n8n_health (PrsPreferencesWindow *self)
{
  PrsStore *store = prs_service_get_store (self->service);
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);
  g_autofree char *url = prs_store_dup_setting (store, PRS_SETTING_N8N_URL);
  gint64 attempt = 0, success = 0;
  g_autofree char *last_error = NULL;

  prs_store_get_discovery_status (store, &attempt, &success, &last_error);

  if (prs_discovery_get_running (discovery))
    prs_status_row_set_state (self->health_n8n, "busy", _("Asking n8n for its workflows…"));
  else if (url == NULL || url[0] == '\0')
    prs_status_row_set_state (self->health_n8n, "error", _("Not set up. Fix: enter the n8n URL and an API key on the n8n page."));
  else if (attempt == 0)
    prs_status_row_set_state (self->health_n8n, "idle", _("Not checked yet"));
  else if (last_error != NULL && attempt > success)
    {
      g_autofree char *text = g_strdup_printf (_("%s Fix: check the URL and key on the n8n page."), last_error);

      prs_status_row_set_state (self->health_n8n, "error", text);
    }
  else
    {
      /* Translators: %s is the n8n URL */
      g_autofree char *text = g_strdup_printf (_("Reachable and authorised at %s"), url);

      prs_status_row_set_state (self->health_n8n, "ok", text);
    }
}

static void
update_discovery_row (PrsPreferencesWindow *self)
{
  PrsStore *store = prs_service_get_store (self->service);
  gboolean running = prs_discovery_get_running (prs_service_get_discovery (self->service));
  gint64 attempt = 0, success = 0;
  g_autofree char *last_error = NULL;
  g_autoptr(GPtrArray) tools = NULL;

  prs_store_get_discovery_status (store, &attempt, &success, &last_error);
  tools = prs_store_list_tools (store, NULL);

  gtk_widget_set_sensitive (GTK_WIDGET (self->discovery_button), !running);
  if (running)
    prs_status_row_set_state (self->discovery_row, "busy", _("Discovering…"));
  else if (attempt == 0)
    prs_status_row_set_state (self->discovery_row, "idle", _("Not run yet"));
  else if (last_error != NULL && attempt > success)
    prs_status_row_set_state (self->discovery_row, "error", last_error);
  else
    {
      g_autoptr(GDateTime) when = g_date_time_new_from_unix_local (success);
      g_autofree char *time = g_date_time_format (when, "%c");
      guint n = tools != NULL ? tools->len : 0;
      g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u tool", "%u tools", n), n);
      /* Translators: a date and time, then "3 tools" */
      g_autofree char *text = g_strdup_printf (_("%s: %s found"), time, count);

      prs_status_row_set_state (self->discovery_row, "ok", text);
    }
}

static void
on_discovery_changed (PrsPreferencesWindow *self)
{
  update_n8n_health (self);
  update_discovery_row (self);
}

static void
on_provider_models (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autoptr(GPtrArray) models = NULL;
  g_autoptr(GError) error = NULL;
  const char *name = g_object_get_data (G_OBJECT (self->health_provider), "provider-name");

  models = prs_providers_list_models_finish (PRS_PROVIDERS (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (models == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("%s Fix: check it on the AI Providers page."), error->message);

      prs_status_row_set_state (self->health_provider, "error", text);
    }
  else
    {
      /* Translators: %s is a provider's name */
      g_autofree char *text = g_strdup_printf (_("%s answers"), name);

      prs_status_row_set_state (self->health_provider, "ok", text);
    }
}

static void
check_provider_health (PrsPreferencesWindow *self)
{
  PrsProviders *providers = prs_service_get_providers (self->service);
  g_autoptr(GPtrArray) rows = prs_store_list_providers (prs_service_get_store (self->service), NULL);
  PrsProviderRow *first = NULL;

  for (guint i = 0; rows != NULL && i < rows->len && first == NULL; i++)
    {
      PrsProviderRow *row = g_ptr_array_index (rows, i);

      if (row->enabled)
        first = row;
    }

  if (providers == NULL || first == NULL)
    {
      prs_status_row_set_state (self->health_provider, "error",
                     rows != NULL && rows->len > 0
                       ? _("Every provider is turned off. Fix: turn one on on the AI Providers page.")
                       : _("No AI provider. Fix: add one on the AI Providers page."));
      return;
    }

  g_object_set_data_full (G_OBJECT (self->health_provider), "provider-name", g_strdup (first->name), g_free);
  prs_status_row_set_state (self->health_provider, "busy", _("Asking the provider…"));
  prs_providers_list_models_async (providers, first->id, self->cancellable, on_provider_models, g_object_ref (self));
}

static gboolean
on_accept_certificate (SoupMessage          *msg,
                       GTlsCertificate      *certificate,
                       GTlsCertificateFlags  errors,
                       PrsPreferencesWindow *self)
{
  return self->certificate != NULL && g_tls_certificate_is_same (certificate, self->certificate);
}

static void
on_health_answer (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autoptr(GBytes) body = NULL;
  g_autoptr(GError) error = NULL;
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (source), result);
  g_autofree char *url = dup_api_url (self);

  body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (body != NULL && soup_message_get_status (msg) == SOUP_STATUS_OK)
    {
      /* Translators: %s is the API's URL */
      g_autofree char *text = g_strdup_printf (_("Listening on %s"), url);

      prs_status_row_set_state (self->health_api, "ok", text);
    }
  else
    {
      /* Translators: %s is the API's URL, then the error */
      g_autofree char *text = g_strdup_printf (_("No answer at %s (%s). Fix: another program may use the port; "
                                                 "change it on the Local API page and restart Prosponsive."),
                                               url, error != NULL ? error->message : soup_message_get_reason_phrase (msg));

      prs_status_row_set_state (self->health_api, "error", text);
    }
}

static void
check_api_health (PrsPreferencesWindow *self)
{
  g_autofree char *url = NULL;
  g_autoptr(SoupMessage) msg = NULL;

  url = g_strdup_printf ("https://127.0.0.1:%u/api/health", prs_service_get_port (self->service));
  msg = soup_message_new (SOUP_METHOD_GET, url);
  g_signal_connect_object (msg, "accept-certificate", G_CALLBACK (on_accept_certificate), self, 0);
  prs_status_row_set_state (self->health_api, "busy", _("Calling /api/health…"));
  soup_session_send_and_read_async (self->health_session, msg, G_PRIORITY_DEFAULT, self->cancellable,
                                    on_health_answer, g_object_ref (self));
}

static void
check_keyring (PrsPreferencesWindow *self)
{
  if (prs_secrets_is_using_fallback (prs_service_get_secrets (self->service)))
    prs_status_row_set_state (self->health_keyring, "warn",
                   _("No keyring answered, so keys are kept in a file only you can read, in the data folder. "
                     "Fix: install and unlock GNOME Keyring (or another Secret Service), then restart Prosponsive."));
  else
    prs_status_row_set_state (self->health_keyring, "ok", _("Keys and the token are kept in the keyring"));
}

static void
on_health_run_done (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GPtrArray) tools = prs_discovery_run_finish (PRS_DISCOVERY (source), result, NULL);
}

void
prs_preferences_window_check_health (PrsPreferencesWindow *self)
{
  PrsDiscovery *discovery;
  g_autofree char *url = NULL;

  g_return_if_fail (PRS_IS_PREFERENCES_WINDOW (self));

  discovery = prs_service_get_discovery (self->service);
  url = prs_store_dup_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL);
  if (url != NULL && url[0] != '\0' && !prs_discovery_get_running (discovery))
    prs_discovery_run_async (discovery, NULL, on_health_run_done, NULL);
  update_n8n_health (self);
  check_provider_health (self);
  check_api_health (self);
  check_keyring (self);
}

static void
on_health_clicked (PrsPreferencesWindow *self)
{
  prs_preferences_window_check_health (self);
}

/* ---- n8n ---- */

static void
on_n8n_url_apply (AdwEntryRow          *row,
                  PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = prs_n8n_client_normalize_base_url (gtk_editable_get_text (GTK_EDITABLE (row)), &error);

  if (url == NULL)
    {
      toast (self, error->message);
      gtk_widget_add_css_class (GTK_WIDGET (row), "error");
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (row), "error");
  if (!prs_store_set_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL, url, &error))
    {
      toast (self, error->message);
      return;
    }
  gtk_editable_set_text (GTK_EDITABLE (row), url);
  toast (self, _("n8n URL saved"));
}

static void
update_key_title (PrsPreferencesWindow *self)
{
  g_autofree char *key = prs_secrets_lookup_sync (prs_service_get_secrets (self->service),
                                                  PRS_SECRET_N8N_API_KEY, NULL, NULL);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->n8n_key_row),
                                 key != NULL ? _("API Key (stored; type a new one to replace it)") : _("API Key"));
  if (key != NULL)
    memset (key, 0, strlen (key));
}

static void
on_n8n_key_apply (AdwEntryRow          *row,
                  PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *key = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));

  if (key[0] == '\0')
    return;
  if (!prs_secrets_store_sync (prs_service_get_secrets (self->service), PRS_SECRET_N8N_API_KEY,
                               _("Prosponsive: n8n API key"), key, NULL, &error))
    toast (self, error->message);
  else
    toast (self, _("n8n API key saved in the keyring"));
  memset (key, 0, strlen (key));
  gtk_editable_set_text (GTK_EDITABLE (row), "");
  update_key_title (self);
}

static void
on_refresh_clicked (PrsPreferencesWindow *self)
{
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);

  if (!prs_discovery_get_running (discovery))
    prs_discovery_run_async (discovery, NULL, on_health_run_done, NULL);
}

/* ---- providers ---- */

static void reload_providers (PrsPreferencesWindow *self);

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
          toast (self, error->message);
          break;
        }
    }
  reload_providers (self);
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
    toast (self, error->message);
}

static void
on_edit_clicked (GtkButton            *button,
                 PrsPreferencesWindow *self)
{
  prs_preferences_window_edit_provider (self, g_object_get_data (G_OBJECT (button), "provider-id"));
}

static void
on_remove_response (AdwMessageDialog     *dialog,
                    const char           *response,
                    PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  const char *id = g_object_get_data (G_OBJECT (dialog), "provider-id");

  if (g_strcmp0 (response, "remove") != 0)
    return;
  if (!prs_providers_remove (prs_service_get_providers (self->service), id, &error))
    toast (self, error->message);
  reload_providers (self);
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

static void
reload_providers (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = prs_store_list_providers (prs_service_get_store (self->service), &error);

  for (guint i = 0; i < self->provider_rows->len; i++)
    adw_preferences_group_remove (self->providers_group, g_ptr_array_index (self->provider_rows, i));
  g_ptr_array_set_size (self->provider_rows, 0);

  if (rows == NULL)
    {
      toast (self, error->message);
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
      widget = action_row (row->name, subtitle);
      gtk_widget_set_name (widget, "provider-row");

      button = icon_button ("go-up-symbolic", _("Try Earlier"), "provider-up");
      gtk_widget_set_sensitive (button, i > 0);
      g_object_set_data (G_OBJECT (button), "delta", GINT_TO_POINTER (-1));
      tag_button (button, row, G_CALLBACK (on_move_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), button);

      button = icon_button ("go-down-symbolic", _("Try Later"), "provider-down");
      gtk_widget_set_sensitive (button, i + 1 < rows->len);
      g_object_set_data (G_OBJECT (button), "delta", GINT_TO_POINTER (1));
      tag_button (button, row, G_CALLBACK (on_move_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), button);

      button = icon_button ("document-edit-symbolic", _("Edit"), "provider-edit");
      tag_button (button, row, G_CALLBACK (on_edit_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (widget), button);

      button = icon_button ("user-trash-symbolic", _("Remove"), "provider-remove");
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
      GtkWidget *widget = action_row (_("No providers yet"), _("Add one to let agents answer: OpenAI-compatible, Ollama, Anthropic or Google Gemini."));

      adw_preferences_group_add (self->providers_group, widget);
      g_ptr_array_add (self->provider_rows, widget);
    }
}

static void
on_provider_save_clicked (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;

  if (!prs_provider_editor_save (self->provider_editor, NULL, &error))
    {
      toast (self, error->message);
      return;
    }
  reload_providers (self);
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
  toast (self, _("Provider saved"));
  check_provider_health (self);
}

static GtkWidget *
subpage_new (PrsPreferencesWindow *self,
             const char           *title,
             const char           *action_label,
             const char           *action_name,
             GCallback             action,
             GtkWidget            *content)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *back = icon_button ("go-previous-symbolic", _("Back"), "subpage-back");
  GtkWidget *button = gtk_button_new_with_mnemonic (action_label);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *clamp = adw_clamp_new ();

  g_signal_connect_swapped (back, "clicked", G_CALLBACK (adw_preferences_window_close_subpage), self);
  gtk_widget_remove_css_class (back, "flat");
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), back);
  gtk_widget_add_css_class (button, "suggested-action");
  gtk_widget_set_name (button, action_name);
  g_signal_connect_swapped (button, "clicked", action, self);
  adw_header_bar_pack_end (ADW_HEADER_BAR (header), button);
  adw_header_bar_set_title_widget (ADW_HEADER_BAR (header), adw_window_title_new (title, NULL));
  gtk_box_append (GTK_BOX (box), header);

  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_widget_set_margin_top (content, 24);
  gtk_widget_set_margin_bottom (content, 24);
  gtk_widget_set_margin_start (content, 12);
  gtk_widget_set_margin_end (content, 12);
  adw_clamp_set_child (ADW_CLAMP (clamp), content);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), clamp);
  gtk_box_append (GTK_BOX (box), scrolled);
  return box;
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
                                          subpage_new (self, row != NULL ? _("Edit Provider") : _("Add Provider"),
                                                       _("_Save"), "provider-save",
                                                       G_CALLBACK (on_provider_save_clicked), editor));
}

static void
on_add_provider_clicked (PrsPreferencesWindow *self)
{
  prs_preferences_window_edit_provider (self, NULL);
}

/* ---- approval rules ---- */

static const char *
nullable_string (JsonObject *object,
                 const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static void reload_rules (PrsPreferencesWindow *self);

static void
on_rule_remove_clicked (GtkButton            *button,
                        PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  gint64 id = *(gint64 *) g_object_get_data (G_OBJECT (button), "rule-id");

  if (!prs_store_remove_approval_rule (prs_service_get_store (self->service), id, &error))
    toast (self, error->message);
  reload_rules (self);
}

static void
reload_rules (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) rules = prs_store_list_approval_rules (prs_service_get_store (self->service), &error);

  for (guint i = 0; i < self->rule_rows->len; i++)
    adw_preferences_group_remove (self->rules_group, g_ptr_array_index (self->rule_rows, i));
  g_ptr_array_set_size (self->rule_rows, 0);

  if (rules == NULL)
    {
      toast (self, error->message);
      return;
    }

  for (guint i = 0; i < json_array_get_length (rules); i++)
    {
      JsonObject *rule = json_array_get_object_element (rules, i);
      const char *tool = nullable_string (rule, "tool");
      const char *agent = nullable_string (rule, "agentId");
      const char *conversation = nullable_string (rule, "conversationSlug");
      gboolean approve = g_strcmp0 (nullable_string (rule, "action"), "approve") == 0;
      g_autofree char *title = NULL;
      g_autofree char *subtitle = NULL;
      gint64 *id = g_new (gint64, 1);
      GtkWidget *row, *button;

      *id = json_object_get_int_member_with_default (rule, "id", 0);
      title = approve
        ? g_strdup_printf (_("Approve %s"), tool != NULL ? tool : _("every tool"))
        : g_strdup_printf (_("Deny %s"), tool != NULL ? tool : _("every tool"));
      /* Translators: the agent and conversation a rule applies to */
      subtitle = g_strdup_printf (_("Agent: %s · Conversation: %s"), agent != NULL ? agent : _("any"),
                                  conversation != NULL ? conversation : _("any"));
      row = action_row (title, subtitle);
      gtk_widget_set_name (row, "rule-row");
      button = icon_button ("user-trash-symbolic", _("Remove Rule"), "rule-remove");
      g_object_set_data_full (G_OBJECT (button), "rule-id", id, g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (on_rule_remove_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
      adw_preferences_group_add (self->rules_group, row);
      g_ptr_array_add (self->rule_rows, row);
    }

  if (json_array_get_length (rules) == 0)
    {
      GtkWidget *row = action_row (_("No rules"), _("Every tool call asks for approval."));

      adw_preferences_group_add (self->rules_group, row);
      g_ptr_array_add (self->rule_rows, row);
    }
}

/* The chosen value of a picker; NULL for "Any" (position 0). */
static const char *
picked (AdwComboRow *row)
{
  GStrv values = g_object_get_data (G_OBJECT (row), "values");
  guint i = adw_combo_row_get_selected (row);

  if (values == NULL || i == 0 || i == GTK_INVALID_LIST_POSITION || i > g_strv_length (values))
    return NULL;
  return values[i - 1];
}

static void
on_rule_save_clicked (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  const char *action = adw_combo_row_get_selected (self->rule_action) == 0 ? "approve" : "deny";

  if (!prs_store_add_approval_rule (prs_service_get_store (self->service), picked (self->rule_tool),
                                    picked (self->rule_agent), picked (self->rule_conversation), action,
                                    NULL, &error))
    {
      toast (self, error->message);
      return;
    }
  reload_rules (self);
  adw_preferences_window_close_subpage (ADW_PREFERENCES_WINDOW (self));
}

/* A picker: "Any" then @labels; @values (same order) are what is stored. */
static AdwComboRow *
picker_row (const char *title,
            const char *name,
            const char *any,
            GPtrArray  *labels,
            GPtrArray  *values)
{
  AdwComboRow *row = ADW_COMBO_ROW (adw_combo_row_new ());
  GtkStringList *list = gtk_string_list_new (NULL);

  if (any != NULL)
    gtk_string_list_append (list, any);
  for (guint i = 0; labels != NULL && i < labels->len; i++)
    gtk_string_list_append (list, g_ptr_array_index (labels, i));
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (row, G_LIST_MODEL (list));
  g_object_unref (list);
  gtk_widget_set_name (GTK_WIDGET (row), name);
  if (values != NULL)
    {
      GPtrArray *copy = g_ptr_array_new ();

      for (guint i = 0; i < values->len; i++)
        g_ptr_array_add (copy, g_strdup (g_ptr_array_index (values, i)));
      g_ptr_array_add (copy, NULL);
      g_object_set_data_full (G_OBJECT (row), "values", g_ptr_array_free (copy, FALSE), (GDestroyNotify) g_strfreev);
    }
  return row;
}

static void
on_add_rule_clicked (PrsPreferencesWindow *self)
{
  PrsStore *store = prs_service_get_store (self->service);
  g_autoptr(GPtrArray) tools = prs_store_list_tools (store, NULL);
  g_autoptr(GPtrArray) agents = prs_store_list_agents (store, NULL);
  g_autoptr(JsonArray) conversations = prs_store_list_conversations (store, NULL);
  g_autoptr(GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) actions = g_ptr_array_new ();
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         _("The rule applies to calls that match every choice below."));

  for (guint i = 0; tools != NULL && i < tools->len; i++)
    {
      const PrsTool *tool = g_ptr_array_index (tools, i);

      g_ptr_array_add (labels, g_strdup (tool->name));
      g_ptr_array_add (values, g_strdup (tool->name));
    }
  self->rule_tool = picker_row (_("Tool"), "rule-tool", _("Any tool"), labels, values);
  g_ptr_array_set_size (labels, 0);
  g_ptr_array_set_size (values, 0);

  for (guint i = 0; agents != NULL && i < agents->len; i++)
    {
      const PrsAgent *agent = g_ptr_array_index (agents, i);

      g_ptr_array_add (labels, g_strdup (agent->name));
      g_ptr_array_add (values, g_strdup (agent->id));
    }
  self->rule_agent = picker_row (_("Agent"), "rule-agent", _("Any agent"), labels, values);
  g_ptr_array_set_size (labels, 0);
  g_ptr_array_set_size (values, 0);

  for (guint i = 0; conversations != NULL && i < json_array_get_length (conversations); i++)
    {
      JsonObject *conversation = json_array_get_object_element (conversations, i);

      g_ptr_array_add (labels, g_strdup (json_object_get_string_member_with_default (conversation, "title", "")));
      g_ptr_array_add (values, g_strdup (json_object_get_string_member_with_default (conversation, "slug", "")));
    }
  self->rule_conversation = picker_row (_("Conversation"), "rule-conversation", _("Any conversation"), labels, values);

  g_ptr_array_add (actions, _("Approve automatically"));
  g_ptr_array_add (actions, _("Deny automatically"));
  self->rule_action = picker_row (_("Action"), "rule-action", NULL, actions, NULL);

  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_tool));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_agent));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_conversation));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), GTK_WIDGET (self->rule_action));

  adw_preferences_window_present_subpage (ADW_PREFERENCES_WINDOW (self),
                                          subpage_new (self, _("Add Rule"), _("_Add"), "rule-save",
                                                       G_CALLBACK (on_rule_save_clicked), group));
}

/* ---- API: token, certificate, n8n credential ---- */

static void
show_token (PrsPreferencesWindow *self)
{
  adw_action_row_set_subtitle (self->token_row, self->token != NULL ? self->token : _("Not available"));
}

static void
wipe_token (PrsPreferencesWindow *self)
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
  copy_text (GTK_WIDGET (self), self->token);
  toast (self, _("Token copied"));
}

static void
on_rotate_response (AdwMessageDialog     *dialog,
                    const char           *response,
                    PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  char *token = NULL;

  if (g_strcmp0 (response, "rotate") != 0)
    return;
  if (!prs_api_token_rotate (prs_service_get_secrets (self->service), prs_service_get_data_dir (self->service),
                             &token, &error))
    {
      toast (self, error->message);
      return;
    }
  wipe_token (self);
  self->token = token;
  show_token (self);
  toast (self, _("New token in use. Update the “Prosponsive API” credential in n8n."));
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
on_credential_clicked (PrsPreferencesWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsN8nClient) client = prs_service_dup_n8n_client (self->service, _("Connect n8n first: enter its URL and an API key on the n8n page."), &error);

  if (client == NULL || self->token == NULL)
    {
      prs_status_row_set_state (self->credential_row, "error", error != NULL ? error->message : _("No token"));
      return;
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->credential_button), FALSE);
  prs_status_row_set_state (self->credential_row, "busy", _("Creating the credential in n8n…"));
  prs_n8n_setup_create_credential_async (client, self->token, self->cancellable, on_credential_created,
                                         g_object_ref (self));
}

static void
on_copy_fingerprint_clicked (GtkButton            *button,
                             PrsPreferencesWindow *self)
{
  copy_text (GTK_WIDGET (self), g_object_get_data (G_OBJECT (button), "text"));
  toast (self, _("Copied"));
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
        toast (self, error->message);
      else
        toast (self, _("Certificate exported"));
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
  g_autofree char *url = dup_api_url (self);

  copy_text (GTK_WIDGET (self), url);
  toast (self, _("Copied"));
}

/* ---- links ---- */

static void
on_schemes_apply (AdwEntryRow          *row,
                  PrsPreferencesWindow *self)
{
  g_auto(GStrv) parts = g_strsplit_set (gtk_editable_get_text (GTK_EDITABLE (row)), " ,;", -1);
  g_autoptr(GPtrArray) schemes = g_ptr_array_new ();

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *s = g_strstrip (parts[i]);

      if (s[0] != '\0')
        g_ptr_array_add (schemes, g_ascii_strdown (s, -1));
    }
  g_ptr_array_add (schemes, NULL);
  g_object_set (prs_service_get_settings (self->service), "open-link-schemes", schemes->pdata, NULL);
  for (guint i = 0; schemes->pdata[i] != NULL; i++)
    g_free (schemes->pdata[i]);
  toast (self, _("Link schemes saved"));
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
  toast (self, _("Saved; applies the next time Prosponsive starts"));
}

/* ---- building ---- */

static GtkWidget *
health_row (AdwPreferencesGroup *group,
            const char          *title,
            const char          *name)
{
  GtkWidget *row = action_row (title, NULL);

  gtk_widget_set_name (row, name);
  adw_preferences_group_add (group, row);
  prs_status_row_set_state (ADW_ACTION_ROW (row), "idle", _("Not checked yet"));
  return row;
}

static void
build (PrsPreferencesWindow *self)
{
  PrsSettings *settings = prs_service_get_settings (self->service);
  g_autofree char *url = prs_store_dup_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL);
  g_autofree char *api_url = dup_api_url (self);
  g_autofree char *schemes = g_strjoinv (" ", (char **) prs_settings_get_open_link_schemes (settings));
  g_autofree char *sources = g_strjoinv (" ", (char **) prs_settings_get_allowed_sources (settings));
  g_autoptr(GError) error = NULL;
  GtkWidget *row, *button;

  /* General */
  self->health_n8n = ADW_ACTION_ROW (health_row (self->health_group, _("n8n"), "health-n8n"));
  self->health_provider = ADW_ACTION_ROW (health_row (self->health_group, _("AI provider"), "health-provider"));
  self->health_api = ADW_ACTION_ROW (health_row (self->health_group, _("Local API"), "health-api"));
  self->health_keyring = ADW_ACTION_ROW (health_row (self->health_group, _("Keyring"), "health-keyring"));

  adw_preferences_group_add (self->background_group,
                             switch_row (self, _("Keep Running in Background"),
                                         _("Closing the window keeps the local API answering n8n. Quit (Ctrl+Q) stops it."),
                                         "keep-running-in-background"));

  row = adw_entry_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Schemes of Links That Can Be Opened"));
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (row), schemes);
  gtk_widget_set_name (row, "link-schemes");
  g_signal_connect (row, "apply", G_CALLBACK (on_schemes_apply), self);
  adw_preferences_group_add (self->links_group, row);

  /* n8n */
  row = adw_entry_row_new ();
  self->n8n_url_row = ADW_ENTRY_ROW (row);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("URL"));
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  adw_entry_row_set_input_purpose (ADW_ENTRY_ROW (row), GTK_INPUT_PURPOSE_URL);
  gtk_editable_set_text (GTK_EDITABLE (row), url != NULL ? url : "");
  gtk_widget_set_name (row, "n8n-url");
  g_signal_connect (row, "apply", G_CALLBACK (on_n8n_url_apply), self);
  adw_preferences_group_add (self->n8n_group, row);

  row = adw_password_entry_row_new ();
  self->n8n_key_row = ADW_ENTRY_ROW (row);
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  gtk_widget_set_name (row, "n8n-key");
  g_signal_connect (row, "apply", G_CALLBACK (on_n8n_key_apply), self);
  adw_preferences_group_add (self->n8n_group, row);
  update_key_title (self);

  adw_preferences_group_add (self->discovery_group,
                             spin_row (self, _("Discovery Interval"), _("Minutes between two automatic scans"),
                                       "discovery-interval", 1, 1440, 1, 0));
  row = action_row (_("Last Result"), NULL);
  self->discovery_row = ADW_ACTION_ROW (row);
  gtk_widget_set_name (row, "discovery-status");
  self->discovery_button = GTK_BUTTON (suffix_button (row, _("_Refresh Now"), "discovery-refresh",
                                                      G_CALLBACK (on_refresh_clicked), self));
  adw_preferences_group_add (self->discovery_group, row);

  /* Local API */
  row = action_row (_("Address"), api_url);
  gtk_widget_set_name (row, "api-url");
  button = icon_button ("edit-copy-symbolic", _("Copy Address"), "api-url-copy");
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (on_copy_url_clicked), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  adw_preferences_group_add (self->api_group, row);
  adw_preferences_group_add (self->api_group,
                             spin_row (self, _("Port"), _("Applies the next time Prosponsive starts"),
                                       "api-port", 1, 65535, 1, 0));

  row = action_row (_("Bearer Token"), NULL);
  self->token_row = ADW_ACTION_ROW (row);
  gtk_widget_set_name (row, "api-token");
  gtk_widget_add_css_class (row, "monospace-subtitle");
  button = icon_button ("edit-copy-symbolic", _("Copy Token"), "api-token-copy");
  g_signal_connect_swapped (button, "clicked", G_CALLBACK (on_copy_token_clicked), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  suffix_button (row, _("R_otate…"), "api-token-rotate", G_CALLBACK (on_rotate_clicked), self);
  adw_preferences_group_add (self->token_group, row);
  if (!prs_api_token_ensure (prs_service_get_secrets (self->service), prs_service_get_data_dir (self->service),
                             &self->token, &error))
    {
      toast (self, error->message);
      g_clear_error (&error);
    }
  show_token (self);

  row = action_row (_("“Prosponsive API” Credential in n8n"),
                    _("A Header Auth credential holding “Authorization: Bearer TOKEN”, for HTTP Request nodes"));
  self->credential_row = ADW_ACTION_ROW (row);
  gtk_widget_set_name (row, "n8n-credential");
  self->credential_button = GTK_BUTTON (suffix_button (row, _("_Create in n8n"), "n8n-credential-create",
                                                       G_CALLBACK (on_credential_clicked), self));
  adw_preferences_group_add (self->token_group, row);

  self->certificate = prs_tls_ensure_certificate (prs_service_get_data_dir (self->service), &error);
  if (self->certificate != NULL)
    {
      g_autofree char *fingerprint = prs_tls_dup_fingerprint (self->certificate);
      g_autofree char *path = g_build_filename (prs_service_get_data_dir (self->service), PRS_TLS_CERT_FILE, NULL);
      g_autofree char *trust = NULL;

      row = action_row (_("SHA-256 Fingerprint"), fingerprint);
      gtk_widget_set_name (row, "api-fingerprint");
      gtk_widget_add_css_class (row, "monospace-subtitle");
      button = icon_button ("edit-copy-symbolic", _("Copy Fingerprint"), "api-fingerprint-copy");
      g_object_set_data_full (G_OBJECT (button), "text", g_strdup (fingerprint), g_free);
      g_signal_connect (button, "clicked", G_CALLBACK (on_copy_fingerprint_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
      adw_preferences_group_add (self->cert_group, row);

      row = action_row (_("Export Certificate"), _("A PEM file n8n can trust"));
      suffix_button (row, _("_Export…"), "api-export-pem", G_CALLBACK (on_export_clicked), self);
      adw_preferences_group_add (self->cert_group, row);

      /* Translators: %s is the certificate file's path */
      trust = g_strdup_printf (_("Start n8n with NODE_EXTRA_CA_CERTS=%s so it trusts this certificate. "
                                 "Otherwise HTTP Request nodes need “Ignore SSL Issues”, which also accepts an impostor on that port."),
                               path);
      adw_preferences_group_set_description (self->cert_group, trust);
    }
  else
    toast (self, error->message);

  adw_preferences_group_add (self->lan_group,
                             switch_row (self, _("Listen on the Local Network"),
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

  /* Agent runs */
  adw_preferences_group_add (self->inference_group,
                             spin_row (self, _("Maximum Output Tokens"), _("The most tokens a model may write in one reply"),
                                       "max-output-tokens", 16, 1048576, 256, 0));
  adw_preferences_group_add (self->inference_group,
                             spin_row (self, _("Temperature"), _("Lower is more predictable, higher more varied"),
                                       "temperature", 0, 2, 0.1, 1));
  adw_preferences_group_add (self->inference_group,
                             spin_row (self, _("History Depth"), _("Earlier messages sent with in-app chat"),
                                       "history-depth", 0, 1000, 1, 0));
  adw_preferences_group_add (self->inference_group,
                             spin_row (self, _("Maximum Tool Rounds"), _("Tool call rounds before a run stops"),
                                       "max-tool-rounds", 1, 100, 1, 0));
  adw_preferences_group_add (self->timeouts_group,
                             spin_row (self, _("AI Provider"), _("Seconds before failing over to the next provider"),
                                       "inference-timeout", 5, 3600, 5, 0));
  adw_preferences_group_add (self->timeouts_group,
                             spin_row (self, _("Tool Call"), _("Seconds to wait for a workflow; never retried"),
                                       "tool-call-timeout", 5, 3600, 5, 0));
  adw_preferences_group_add (self->timeouts_group,
                             spin_row (self, _("Callback"), _("Seconds to wait for a workflow that answered “Workflow was started”"),
                                       "callback-timeout", 10, 86400, 10, 0));

  reload_providers (self);
  reload_rules (self);
  update_discovery_row (self);
}

/* ---- life ---- */

PrsPreferencesWindow *
prs_preferences_window_new (GtkWindow  *parent,
                            PrsService *service)
{
  PrsPreferencesWindow *self;
  PrsDiscovery *discovery;

  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);

  self = g_object_new (PRS_TYPE_PREFERENCES_WINDOW, "transient-for", parent, NULL);
  self->service = g_object_ref (service);
  build (self);

  discovery = prs_service_get_discovery (service);
  g_signal_connect_object (discovery, "notify::running", G_CALLBACK (on_discovery_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (discovery, "finished", G_CALLBACK (on_discovery_changed), self, G_CONNECT_SWAPPED);

  prs_preferences_window_check_health (self);
  return self;
}

static void
prs_preferences_window_dispose (GObject *object)
{
  PrsPreferencesWindow *self = PRS_PREFERENCES_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->health_session);
  g_clear_object (&self->certificate);
  g_clear_pointer (&self->provider_rows, g_ptr_array_unref);
  g_clear_pointer (&self->rule_rows, g_ptr_array_unref);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_preferences_window_parent_class)->dispose (object);
}

static void
prs_preferences_window_finalize (GObject *object)
{
  PrsPreferencesWindow *self = PRS_PREFERENCES_WINDOW (object);

  wipe_token (self);

  G_OBJECT_CLASS (prs_preferences_window_parent_class)->finalize (object);
}

static void
prs_preferences_window_class_init (PrsPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_preferences_window_dispose;
  object_class->finalize = prs_preferences_window_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, api_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, background_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, cert_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, discovery_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, health_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, inference_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, lan_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, links_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, n8n_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, providers_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, rules_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, timeouts_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, token_group);
  gtk_widget_class_bind_template_callback (widget_class, on_add_provider_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_add_rule_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_health_clicked);
}

static void
prs_preferences_window_init (PrsPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->provider_rows = g_ptr_array_new ();
  self->rule_rows = g_ptr_array_new ();
  self->health_session = soup_session_new_with_options ("timeout", 5, NULL);
}
