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
#include "prs-dialogs.h"
#include "prs-error.h"
#include "prs-n8n-client.h"
#include "prs-preferences-window-private.h"
#include "prs-status-row.h"

G_DEFINE_FINAL_TYPE (PrsPreferencesWindow, prs_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/* ---- helpers ---- */

void
prs_preferences_toast (PrsPreferencesWindow *self,
                       const char           *text)
{
  adw_preferences_window_add_toast (ADW_PREFERENCES_WINDOW (self), prs_dialogs_new_toast (text));
}

GtkWidget *
prs_preferences_action_row (const char *title,
                            const char *subtitle)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  return row;
}

GtkWidget *
prs_preferences_suffix_button (GtkWidget  *row,
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

GtkWidget *
prs_preferences_icon_button (const char *icon,
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

void
prs_preferences_copy_text (GtkWidget  *widget,
                           const char *text)
{
  gdk_clipboard_set_text (gtk_widget_get_clipboard (widget), text);
}

GtkWidget *
prs_preferences_switch_row (PrsPreferencesWindow *self,
                            const char           *title,
                            const char           *subtitle,
                            const char           *key)
{
  GtkWidget *row = prs_preferences_action_row (title, subtitle);
  GtkWidget *sw = gtk_switch_new ();

  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  gtk_widget_set_name (sw, key);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), sw);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), sw);
  g_object_bind_property (prs_service_get_settings (self->service), key, sw, "active",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);
  return row;
}

GtkWidget *
prs_preferences_spin_row (PrsPreferencesWindow *self,
                          const char           *title,
                          const char           *subtitle,
                          const char           *key,
                          double                min,
                          double                max,
                          double                step,
                          guint                 digits)
{
  GtkWidget *row = prs_preferences_action_row (title, subtitle);
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

GtkWidget *
prs_preferences_subpage_new (PrsPreferencesWindow *self,
                             const char           *title,
                             const char           *action_label,
                             const char           *action_name,
                             GCallback             action,
                             GtkWidget            *content)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *back = prs_preferences_icon_button ("go-previous-symbolic", _("Back"), "subpage-back");
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

char *
prs_preferences_dup_api_url (PrsPreferencesWindow *self)
{
  return g_strdup_printf ("https://127.0.0.1:%u", prs_service_get_port (self->service));
}

/* ---- health ---- */

/* What the last discovery's failure of @kind was, and the one fix for it:
 * the stored message (prosponsive-ctl's and the Tools page's words, which
 * carry their own advice) stays in the row's tooltip. NULL for a kind with
 * no fix of its own. */
static char *
dup_n8n_failure_text (PrsDiscoveryFailure  kind,
                      const char          *url)
{
  switch (kind)
    {
    case PRS_DISCOVERY_FAILURE_NO_KEY:
      return g_strdup (_("No n8n API key is stored. Fix: add the key on the n8n page."));
    case PRS_DISCOVERY_FAILURE_KEY_REFUSED:
      /* Translators: %s is the n8n URL */
      return g_strdup_printf (_("n8n at %s refused the API key. Fix: check the key on the n8n page."), url);
    case PRS_DISCOVERY_FAILURE_UNREACHABLE:
      /* Translators: %s is the n8n URL */
      return g_strdup_printf (_("Could not reach n8n at %s. Fix: check the URL on the n8n page, and that n8n is running."),
                              url);
    case PRS_DISCOVERY_FAILURE_BAD_ANSWER:
      /* Translators: %s is the n8n URL */
      return g_strdup_printf (_("n8n at %s answered with something Prosponsive cannot read. "
                                "Fix: check that the URL on the n8n page is n8n’s own address."), url);
    case PRS_DISCOVERY_FAILURE_NOT_SET_UP:
    case PRS_DISCOVERY_FAILURE_OTHER:
    default:
      return NULL;
    }
}

static void
update_n8n_health (PrsPreferencesWindow *self)
{
  PrsStore *store = prs_service_get_store (self->service);
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);
  g_autofree char *url = prs_store_dup_setting (store, PRS_SETTING_N8N_URL);
  gint64 attempt = 0, success = 0;
  g_autofree char *last_error = NULL;
  const char *detail = NULL;

  prs_store_get_discovery_status (store, &attempt, &success, &last_error);

  if (prs_discovery_get_running (discovery))
    prs_status_row_set_state (self->health_n8n, "busy", _("Asking n8n for its workflows…"));
  else if (url == NULL || url[0] == '\0')
    prs_status_row_set_state (self->health_n8n, "error", _("Not set up. Fix: enter the n8n URL and an API key on the n8n page."));
  else if (attempt == 0)
    prs_status_row_set_state (self->health_n8n, "idle", _("Not checked yet"));
  else if (last_error != NULL && attempt > success)
    {
      PrsDiscoveryFailure kind = prs_store_get_discovery_failure (store);
      g_autofree char *text = dup_n8n_failure_text (kind, url);

      if (kind == PRS_DISCOVERY_FAILURE_NOT_SET_UP)
        /* The URL was entered since: the discovery it starts checks it */
        prs_status_row_set_state (self->health_n8n, "idle", _("Not checked yet"));
      else if (text != NULL)
        {
          prs_status_row_set_state (self->health_n8n, "error", text);
          detail = last_error;
        }
      else
        /* A failure of no kind above (the keyring, the database): its
         * message says what to do */
        prs_status_row_set_state (self->health_n8n, "error", last_error);
    }
  else
    {
      /* Translators: %s is the n8n URL */
      g_autofree char *text = g_strdup_printf (_("Reachable and authorised at %s"), url);

      prs_status_row_set_state (self->health_n8n, "ok", text);
    }
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->health_n8n), detail);
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

void
prs_preferences_check_provider_health (PrsPreferencesWindow *self)
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
  g_autofree char *url = prs_preferences_dup_api_url (self);

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

  if (prs_service_get_api_error (self->service) != NULL)
    {
      /* Translators: %s says why the local API did not start */
      g_autofree char *text = g_strdup_printf (_("The API did not start: %s Fix: change the port on the Local API "
                                                 "page and restart Prosponsive."),
                                               prs_service_get_api_error (self->service)->message);

      prs_status_row_set_state (self->health_api, "error", text);
      return;
    }
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
  prs_preferences_check_provider_health (self);
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
      prs_preferences_toast (self, error->message);
      gtk_widget_add_css_class (GTK_WIDGET (row), "error");
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (row), "error");
  if (!prs_store_set_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL, url, &error))
    {
      prs_preferences_toast (self, error->message);
      return;
    }
  gtk_editable_set_text (GTK_EDITABLE (row), url);
  prs_preferences_toast (self, _("n8n URL saved"));
}

static void
on_key_title (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autofree char *key = prs_secrets_lookup_finish (PRS_SECRETS (source), result, NULL);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->n8n_key_row),
                                 key != NULL ? _("API Key (stored; type a new one to replace it)") : _("API Key"));
  if (key != NULL)
    memset (key, 0, strlen (key));
}

/* Whether a key is stored, from the keyring without waiting on it */
static void
update_key_title (PrsPreferencesWindow *self)
{
  prs_secrets_lookup_async (prs_service_get_secrets (self->service), PRS_SECRET_N8N_API_KEY, self->cancellable,
                            on_key_title, g_object_ref (self));
}

static void
on_n8n_key_saved (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PrsPreferencesWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!prs_secrets_store_finish (PRS_SECRETS (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        prs_preferences_toast (self, error->message);
      return;
    }
  prs_preferences_toast (self, _("n8n API key saved in the keyring"));
  update_key_title (self);
}

static void
on_n8n_key_apply (AdwEntryRow          *row,
                  PrsPreferencesWindow *self)
{
  g_autofree char *key = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));

  if (key[0] == '\0')
    return;
  prs_secrets_store_async (prs_service_get_secrets (self->service), PRS_SECRET_N8N_API_KEY,
                           _("Prosponsive: n8n API key"), key, self->cancellable, on_n8n_key_saved,
                           g_object_ref (self));
  memset (key, 0, strlen (key));
  gtk_editable_set_text (GTK_EDITABLE (row), "");
}

static void
on_refresh_clicked (PrsPreferencesWindow *self)
{
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);

  if (!prs_discovery_get_running (discovery))
    prs_discovery_run_async (discovery, NULL, on_health_run_done, NULL);
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
  prs_preferences_toast (self, _("Link schemes saved"));
}

/* ---- building ---- */

static GtkWidget *
health_row (AdwPreferencesGroup *group,
            const char          *title,
            const char          *name)
{
  GtkWidget *row = prs_preferences_action_row (title, NULL);

  gtk_widget_set_name (row, name);
  adw_preferences_group_add (group, row);
  prs_status_row_set_state (ADW_ACTION_ROW (row), "idle", _("Not checked yet"));
  return row;
}

/* The General page: health, background, links. */
static void
build_general (PrsPreferencesWindow *self)
{
  PrsSettings *settings = prs_service_get_settings (self->service);
  g_autofree char *schemes = g_strjoinv (" ", (char **) prs_settings_get_open_link_schemes (settings));
  GtkWidget *row;

  self->health_n8n = ADW_ACTION_ROW (health_row (self->health_group, _("n8n"), "health-n8n"));
  self->health_provider = ADW_ACTION_ROW (health_row (self->health_group, _("AI provider"), "health-provider"));
  self->health_api = ADW_ACTION_ROW (health_row (self->health_group, _("Local API"), "health-api"));
  self->health_keyring = ADW_ACTION_ROW (health_row (self->health_group, _("Keyring"), "health-keyring"));

  adw_preferences_group_add (self->background_group,
                             prs_preferences_switch_row (self, _("Keep Running in Background"),
                                                         _("Closing the window keeps the local API answering n8n. Quit (Ctrl+Q) stops it."),
                                                         "keep-running-in-background"));

  row = adw_entry_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Schemes of Links That Can Be Opened"));
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (row), schemes);
  gtk_widget_set_name (row, "link-schemes");
  g_signal_connect (row, "apply", G_CALLBACK (on_schemes_apply), self);
  adw_preferences_group_add (self->links_group, row);
}

static void
build_n8n (PrsPreferencesWindow *self)
{
  g_autofree char *url = prs_store_dup_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL);
  GtkWidget *row;

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
  /* Titled at once; whether a key is stored comes when the keyring answers */
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("API Key"));
  adw_entry_row_set_show_apply_button (ADW_ENTRY_ROW (row), TRUE);
  gtk_widget_set_name (row, "n8n-key");
  g_signal_connect (row, "apply", G_CALLBACK (on_n8n_key_apply), self);
  adw_preferences_group_add (self->n8n_group, row);
  update_key_title (self);

  adw_preferences_group_add (self->discovery_group,
                             prs_preferences_spin_row (self, _("Discovery Interval"), _("Minutes between two automatic scans"),
                                                       "discovery-interval", 1, 1440, 1, 0));
  row = prs_preferences_action_row (_("Last Result"), NULL);
  self->discovery_row = ADW_ACTION_ROW (row);
  gtk_widget_set_name (row, "discovery-status");
  self->discovery_button = GTK_BUTTON (prs_preferences_suffix_button (row, _("_Refresh Now"), "discovery-refresh",
                                                                      G_CALLBACK (on_refresh_clicked), self));
  adw_preferences_group_add (self->discovery_group, row);
}

static void
build (PrsPreferencesWindow *self)
{
  build_general (self);
  build_n8n (self);
  prs_preferences_build_api (self);
  prs_preferences_build_runs (self);
  prs_preferences_reload_providers (self);
  prs_preferences_build_mcp (self);
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
  g_clear_handle_id (&self->mcp_reload_id, g_source_remove);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->health_session);
  g_clear_object (&self->certificate);
  g_clear_pointer (&self->provider_rows, g_ptr_array_unref);
  g_clear_pointer (&self->rule_rows, g_ptr_array_unref);
  g_clear_pointer (&self->mcp_rows, g_ptr_array_unref);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_preferences_window_parent_class)->dispose (object);
}

static void
prs_preferences_window_finalize (GObject *object)
{
  PrsPreferencesWindow *self = PRS_PREFERENCES_WINDOW (object);

  prs_preferences_wipe_token (self);

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
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, origins_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, links_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, mcp_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, n8n_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, providers_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, rules_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, timeouts_group);
  gtk_widget_class_bind_template_child (widget_class, PrsPreferencesWindow, token_group);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_add_provider_clicked",
                                                G_CALLBACK (prs_preferences_on_add_provider_clicked));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_add_mcp_clicked",
                                                G_CALLBACK (prs_preferences_on_add_mcp_clicked));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_add_rule_clicked",
                                                G_CALLBACK (prs_preferences_on_add_rule_clicked));
  gtk_widget_class_bind_template_callback (widget_class, on_health_clicked);
}

static void
prs_preferences_window_init (PrsPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->provider_rows = g_ptr_array_new ();
  self->rule_rows = g_ptr_array_new ();
  self->mcp_rows = g_ptr_array_new ();
  self->health_session = soup_session_new_with_options ("timeout", 5, NULL);
}
