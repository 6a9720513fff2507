/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-first-run.c: three pages (n8n, AI provider, local API) with Back and
 * Next. Every Test talks to the real service: the n8n step stores the URL
 * and key, then runs a discovery and reports what it found or why it
 * failed; the provider step asks the provider for its models. */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "prs-api-token.h"
#include "prs-dialogs.h"
#include "prs-error.h"
#include "prs-first-run.h"
#include "prs-n8n-client.h"
#include "prs-n8n-setup.h"
#include "prs-provider-editor.h"
#include "prs-status-row.h"
#include "prs-tls.h"
#include "prs-token-row.h"

static const char * const steps[] = { "n8n", "provider", "api", NULL };

struct _PrsFirstRun
{
  AdwWindow          parent_instance;

  PrsService        *service;
  GCancellable      *cancellable;
  guint              step;
  gboolean           n8n_test_pending;
  char              *token;

  AdwEntryRow       *n8n_url_row;
  AdwEntryRow       *n8n_key_row;
  AdwActionRow      *n8n_test_row;
  GtkButton         *n8n_test_button;
  PrsProviderEditor *provider_editor;
  AdwActionRow      *token_row;
  AdwActionRow      *credential_row;
  GtkButton         *credential_button;
  AdwActionRow      *import_row;
  GtkButton         *import_button;
  AdwPreferencesGroup *examples_group;
  GtkSwitch         *ignore_tls_switch;

  AdwWindowTitle    *title;
  GtkButton         *back_button;
  GtkButton         *next_button;
  GtkStack          *stack;
  AdwToastOverlay   *toast_overlay;
};

G_DEFINE_FINAL_TYPE (PrsFirstRun, prs_first_run, ADW_TYPE_WINDOW)

gboolean
prs_first_run_is_needed (PrsService *service)
{
  g_autofree char *url = NULL;
  g_autoptr(GPtrArray) providers = NULL;

  g_return_val_if_fail (PRS_IS_SERVICE (service), FALSE);

  url = prs_store_dup_setting (prs_service_get_store (service), PRS_SETTING_N8N_URL);
  providers = prs_store_list_providers (prs_service_get_store (service), NULL);
  return (url == NULL || url[0] == '\0') && (providers == NULL || providers->len == 0);
}

static void
toast (PrsFirstRun *self,
       const char  *text)
{
  adw_toast_overlay_add_toast (self->toast_overlay, prs_dialogs_new_toast (text));
}

static GtkWidget *
action_row (const char *title,
            const char *subtitle,
            const char *name)
{
  GtkWidget *row = adw_action_row_new ();

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  if (name != NULL)
    gtk_widget_set_name (row, name);
  return row;
}

static GtkWidget *
suffix_button (GtkWidget  *row,
               const char *label,
               const char *name)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_set_name (button, name);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
  return button;
}

static void
copy_button (PrsFirstRun *self,
             GtkWidget   *row,
             const char  *tooltip,
             const char  *text);

/* A page: a scrolled, clamped column with a heading, then @groups. */
static GtkWidget *
page_new (const char *icon_name,
          const char *title,
          const char *description,
          GtkWidget  *content)
{
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  GtkWidget *icon = gtk_image_new_from_icon_name (icon_name);
  GtkWidget *heading = gtk_label_new (title);
  GtkWidget *body = gtk_label_new (description);

  /* Not an AdwStatusPage: it scrolls on its own inside this page. */
  gtk_image_set_pixel_size (GTK_IMAGE (icon), 64);
  gtk_widget_add_css_class (icon, "dim-label");
  gtk_widget_set_margin_top (icon, 24);
  gtk_widget_add_css_class (heading, "title-1");
  gtk_label_set_wrap (GTK_LABEL (heading), TRUE);
  gtk_label_set_justify (GTK_LABEL (heading), GTK_JUSTIFY_CENTER);
  gtk_label_set_wrap (GTK_LABEL (body), TRUE);
  gtk_label_set_justify (GTK_LABEL (body), GTK_JUSTIFY_CENTER);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_box_append (GTK_BOX (box), heading);
  gtk_box_append (GTK_BOX (box), body);
  gtk_box_set_spacing (GTK_BOX (box), 12);
  gtk_widget_set_margin_bottom (body, 12);
  gtk_box_append (GTK_BOX (box), content);
  gtk_widget_set_margin_bottom (box, 24);
  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  adw_clamp_set_maximum_size (ADW_CLAMP (clamp), 560);
  adw_clamp_set_child (ADW_CLAMP (clamp), box);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), clamp);
  return scrolled;
}

/* ---- steps ---- */

static void
show_step (PrsFirstRun *self)
{
  g_autofree char *subtitle = g_strdup_printf (_("Step %u of 3"), self->step + 1);

  gtk_stack_set_visible_child_name (self->stack, steps[self->step]);
  adw_window_title_set_title (self->title, _("Set Up Prosponsive"));
  adw_window_title_set_subtitle (self->title, subtitle);
  gtk_button_set_label (self->back_button, self->step == 0 ? _("_Skip") : _("_Back"));
  gtk_button_set_label (self->next_button, steps[self->step + 1] == NULL ? _("_Done") : _("_Next"));
}

const char *
prs_first_run_get_step (PrsFirstRun *self)
{
  g_return_val_if_fail (PRS_IS_FIRST_RUN (self), NULL);

  return steps[self->step];
}

static void
on_finished_discovery (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(GPtrArray) tools = prs_discovery_run_finish (PRS_DISCOVERY (source), result, NULL);
}

static void
finish (PrsFirstRun *self)
{
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);

  /* The examples may have added tools: the main window sees them at once. */
  if (!prs_discovery_get_running (discovery))
    prs_discovery_run_async (discovery, NULL, on_finished_discovery, NULL);
  gtk_window_close (GTK_WINDOW (self));
}

static void
on_back_clicked (PrsFirstRun *self)
{
  if (self->step == 0)
    {
      gtk_window_close (GTK_WINDOW (self));
      return;
    }
  self->step--;
  show_step (self);
}

static void
next_step (PrsFirstRun *self)
{
  if (steps[self->step + 1] == NULL)
    {
      finish (self);
      return;
    }
  self->step++;
  show_step (self);
}

static void
on_provider_saved (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = prs_provider_editor_save_finish (PRS_PROVIDER_EDITOR (source), result, &error);

  if (self->service == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (self->next_button), TRUE);
  if (id == NULL)
    {
      toast (self, error->message);
      return;
    }
  toast (self, _("Provider saved"));
  next_step (self);
}

static void
on_next_clicked (PrsFirstRun *self)
{
  /* Saved only once tested: the model comes from the provider's list.
   * Untested, the step is skipped (Preferences can add one later). */
  if (g_str_equal (steps[self->step], "provider") &&
      prs_provider_editor_get_tested_ok (self->provider_editor))
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->next_button), FALSE);
      prs_provider_editor_save_async (self->provider_editor, self->cancellable, on_provider_saved,
                                      g_object_ref (self));
      return;
    }
  next_step (self);
}

/* ---- n8n ---- */

static void
n8n_test_finished (PrsFirstRun  *self,
                   GPtrArray    *tools,
                   const GError *error)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->n8n_test_button), TRUE);
  if (tools == NULL)
    {
      prs_status_row_set_state (self->n8n_test_row, "error", error->message);
      return;
    }
  else
    {
      g_autoptr(JsonArray) checks = prs_store_list_workflow_checks (prs_service_get_store (self->service), NULL);
      guint n_workflows = checks != NULL ? json_array_get_length (checks) : 0;
      g_autofree char *tools_text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Connected: %u tool found",
                                                                  "Connected: %u tools found", tools->len), tools->len);
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s in %u published workflow",
                                                            "%s in %u published workflows", n_workflows),
                                               tools_text, n_workflows);

      prs_status_row_set_state (self->n8n_test_row, "ok", text);
    }
}

static void
on_n8n_discovery (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) tools = prs_discovery_run_finish (PRS_DISCOVERY (source), result, &error);

  if (self->service == NULL)
    return;
  n8n_test_finished (self, tools, error);
}

static void
start_n8n_discovery (PrsFirstRun *self)
{
  prs_discovery_run_async (prs_service_get_discovery (self->service), NULL, on_n8n_discovery, g_object_ref (self));
}

static void
on_discovery_running (PrsDiscovery *discovery,
                      GParamSpec   *pspec,
                      PrsFirstRun  *self)
{
  /* A scheduled run was going on when Test was pressed: test after it. */
  if (!prs_discovery_get_running (discovery) && self->n8n_test_pending)
    {
      self->n8n_test_pending = FALSE;
      start_n8n_discovery (self);
    }
}

static void
n8n_test_failed (PrsFirstRun *self,
                 const char  *message)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->n8n_test_button), TRUE);
  prs_status_row_set_state (self->n8n_test_row, "error", message);
}

/* URL and key are saved: a discovery tests them */
static void
test_n8n_now (PrsFirstRun *self)
{
  PrsDiscovery *discovery = prs_service_get_discovery (self->service);

  gtk_widget_set_sensitive (GTK_WIDGET (self->n8n_test_button), FALSE);
  prs_status_row_set_state (self->n8n_test_row, "busy", _("Reading the published workflows…"));
  if (prs_discovery_get_running (discovery))
    self->n8n_test_pending = TRUE;
  else
    start_n8n_discovery (self);
}

static gboolean
save_n8n_url (PrsFirstRun  *self,
              const char   *url,
              GError      **error)
{
  if (!prs_store_set_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL, url, error))
    return FALSE;
  gtk_editable_set_text (GTK_EDITABLE (self->n8n_url_row), url);
  return TRUE;
}

static void
on_n8n_key_saved (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;

  if (!prs_secrets_store_finish (PRS_SECRETS (source), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        n8n_test_failed (self, error->message);
      return;
    }
  gtk_editable_set_text (GTK_EDITABLE (self->n8n_key_row), "");
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->n8n_key_row),
                                 _("API Key (stored; type a new one to replace it)"));
  test_n8n_now (self);
}

/* No key typed: one must be stored already */
static void
on_n8n_key_checked (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *stored = prs_secrets_lookup_finish (PRS_SECRETS (source), result, &error);
  const char *url = g_object_get_data (G_OBJECT (self->n8n_url_row), "prs-url");

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (stored == NULL)
    {
      n8n_test_failed (self, error != NULL ? error->message
                       : _("Enter the API key: create one in n8n under Settings → n8n API."));
      return;
    }
  memset (stored, 0, strlen (stored));
  if (!save_n8n_url (self, url, &error))
    {
      n8n_test_failed (self, error->message);
      return;
    }
  test_n8n_now (self);
}

/* The URL and the key typed (or the one stored) are saved, the key in the
 * keyring without waiting on it, then a discovery tests them */
static void
on_n8n_test_clicked (PrsFirstRun *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = prs_n8n_client_normalize_base_url (gtk_editable_get_text (GTK_EDITABLE (self->n8n_url_row)), &error);
  g_autofree char *key = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->n8n_key_row))));
  PrsSecrets *secrets = prs_service_get_secrets (self->service);

  if (url == NULL)
    {
      prs_status_row_set_state (self->n8n_test_row, "error", error->message);
      return;
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->n8n_test_button), FALSE);
  prs_status_row_set_state (self->n8n_test_row, "busy", _("Reading the keyring…"));
  if (key[0] == '\0')
    {
      g_object_set_data_full (G_OBJECT (self->n8n_url_row), "prs-url", g_steal_pointer (&url), g_free);
      prs_secrets_lookup_async (secrets, PRS_SECRET_N8N_API_KEY, self->cancellable,
                                on_n8n_key_checked, g_object_ref (self));
      return;
    }
  if (!save_n8n_url (self, url, &error))
    {
      n8n_test_failed (self, error->message);
      return;
    }
  prs_secrets_store_async (secrets, PRS_SECRET_N8N_API_KEY, _("Prosponsive: n8n API key"), key,
                           self->cancellable, on_n8n_key_saved, g_object_ref (self));
  memset (key, 0, strlen (key));
}

static GtkWidget *
build_n8n_page (PrsFirstRun *self)
{
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *row;
  g_autofree char *url = prs_store_dup_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_URL);

  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         _("Create an API key in n8n under Settings → n8n API. "
                                           "Prosponsive keeps it in the keyring."));
  row = adw_entry_row_new ();
  self->n8n_url_row = ADW_ENTRY_ROW (row);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("n8n URL, for example http://127.0.0.1:5678"));
  adw_entry_row_set_input_purpose (ADW_ENTRY_ROW (row), GTK_INPUT_PURPOSE_URL);
  gtk_editable_set_text (GTK_EDITABLE (row), url != NULL ? url : "");
  gtk_widget_set_name (row, "first-run-n8n-url");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  row = adw_password_entry_row_new ();
  self->n8n_key_row = ADW_ENTRY_ROW (row);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("API Key"));
  gtk_widget_set_name (row, "first-run-n8n-key");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  row = action_row (_("Connection"), _("Test finds the workflows Prosponsive can use as tools"), "first-run-n8n-result");
  self->n8n_test_row = ADW_ACTION_ROW (row);
  self->n8n_test_button = GTK_BUTTON (suffix_button (row, _("_Test"), "first-run-n8n-test"));
  g_signal_connect_swapped (self->n8n_test_button, "clicked", G_CALLBACK (on_n8n_test_clicked), self);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

  return page_new ("network-server-symbolic", _("Connect n8n"),
                   _("Prosponsive finds your published n8n workflows with a POST Webhook trigger and offers them to agents as tools."),
                   group);
}

/* ---- API and n8n setup ---- */

static void
on_copy_clicked (GtkButton   *button,
                 PrsFirstRun *self)
{
  const char *text = g_object_get_data (G_OBJECT (button), "text");
  const char *what = g_object_get_data (G_OBJECT (button), "what");

  if (g_strcmp0 (what, "token") == 0)
    text = self->token;
  if (text == NULL)
    return;
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
  toast (self, _("Copied"));
}

static void
copy_button (PrsFirstRun *self,
             GtkWidget   *row,
             const char  *tooltip,
             const char  *text)
{
  GtkWidget *button = gtk_button_new_from_icon_name ("edit-copy-symbolic");

  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (button, "flat");
  gtk_widget_set_tooltip_text (button, tooltip);
  gtk_accessible_update_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL, tooltip, -1);
  if (text != NULL)
    g_object_set_data_full (G_OBJECT (button), "text", g_strdup (text), g_free);
  else
    g_object_set_data (G_OBJECT (button), "what", (gpointer) "token");
  g_signal_connect (button, "clicked", G_CALLBACK (on_copy_clicked), self);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), button);
}

/* The n8n client, its key read without waiting on the keyring; then
 * @next (the credential, the examples) */
static void
with_client (PrsFirstRun         *self,
             GAsyncReadyCallback  next)
{
  prs_service_dup_n8n_client_async (self->service, _("Connect n8n first (step 1)."), self->cancellable,
                                    next, g_object_ref (self));
}

static PrsN8nClient *
client_finish (PrsFirstRun   *self,
               GAsyncResult  *result,
               GError       **error)
{
  PrsN8nClient *client = prs_service_dup_n8n_client_finish (self->service, result, error);

  if (client != NULL)
    prs_n8n_client_set_timeout (client, 30);
  return client;
}

static void
on_credential_created (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = prs_n8n_setup_create_credential_finish (PRS_N8N_CLIENT (source), result, &error);

  if (self->service == NULL)
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (self->credential_button), id == NULL);
  if (id == NULL)
    {
      prs_status_row_set_state (self->credential_row, "error", error->message);
      return;
    }
  if (self->token != NULL)
    prs_n8n_setup_remember_credential (prs_service_get_store (self->service), id, self->token, NULL);
  prs_status_row_set_state (self->credential_row, "ok",
                 _("Created. HTTP Request nodes use it with Authentication → Generic → Header Auth."));
}

static void
on_credential_client (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsN8nClient) client = NULL;

  if (self->service == NULL)
    return;
  client = client_finish (self, result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (client == NULL || self->token == NULL)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->credential_button), TRUE);
      prs_status_row_set_state (self->credential_row, "error", error != NULL ? error->message : _("The token is not available."));
      return;
    }
  prs_status_row_set_state (self->credential_row, "busy", _("Creating the credential…"));
  prs_n8n_setup_create_credential_async (client, self->token, self->cancellable, on_credential_created,
                                         g_object_ref (self));
}

static void
on_credential_clicked (PrsFirstRun *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->credential_button), FALSE);
  with_client (self, on_credential_client);
}

static void
on_examples_imported (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) results = prs_n8n_setup_import_examples_finish (PRS_N8N_CLIENT (source), result, NULL, &error);
  guint n_ok = 0;

  if (self->service == NULL)
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (self->import_button), results == NULL);
  if (results == NULL)
    {
      prs_status_row_set_state (self->import_row, "error", error->message);
      return;
    }

  for (guint i = 0; i < results->len; i++)
    {
      PrsExampleResult *example = g_ptr_array_index (results, i);
      const char *state = example->id == NULL ? "error" : example->active ? "ok" : "warn";
      g_autofree char *subtitle = NULL;
      GtkWidget *row;

      if (example->id != NULL)
        n_ok++;
      if (example->message != NULL)
        subtitle = g_strdup (example->message);
      else
        subtitle = g_strdup (_("Imported and published"));
      row = action_row (example->name, NULL, "first-run-example");
      adw_preferences_group_add (self->examples_group, row);
      prs_status_row_set_state (ADW_ACTION_ROW (row), state, subtitle);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->examples_group), TRUE);
  {
    g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u workflow imported",
                                                          "%u of %u workflows imported", results->len),
                                             n_ok, results->len);

    prs_status_row_set_state (self->import_row, n_ok == results->len ? "ok" : "warn", text);
  }
}

static void
on_import_client (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsN8nClient) client = NULL;
  g_auto(GStrv) templates = NULL;
  g_autofree char *api_url = NULL;
  g_autofree char *credential_id = NULL;
  PrsExampleOptions options = { 0 };

  if (self->service == NULL)
    return;
  client = client_finish (self, result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (client == NULL || (templates = prs_n8n_setup_load_examples (&error)) == NULL)
    {
      gtk_widget_set_sensitive (GTK_WIDGET (self->import_button), TRUE);
      prs_status_row_set_state (self->import_row, "error", error->message);
      return;
    }

  api_url = g_strdup_printf ("https://127.0.0.1:%u", prs_service_get_port (self->service));
  credential_id = prs_store_dup_setting (prs_service_get_store (self->service), PRS_SETTING_N8N_CREDENTIAL_ID);
  options.api_base_url = api_url;
  options.credential_id = credential_id;
  options.ignore_tls_errors = gtk_switch_get_active (self->ignore_tls_switch);
  prs_status_row_set_state (self->import_row, "busy", _("Importing…"));
  prs_n8n_setup_import_examples_async (client, (const char * const *) templates, &options, self->cancellable,
                                       on_examples_imported, g_object_ref (self));
}

static void
on_import_clicked (PrsFirstRun *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->import_button), FALSE);
  with_client (self, on_import_client);
}

static void
on_token (GObject      *source,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(PrsFirstRun) self = user_data;
  g_autoptr(GError) error = NULL;
  char *token = prs_api_token_finish (result, &error);

  if (token == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || self->service == NULL)
        return;
      toast (self, error->message);
      prs_token_row_set (self->token_row, NULL, _("Not available"));
      return;
    }
  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);
  self->token = token;
  prs_token_row_set (self->token_row, token, NULL);
}

static GtkWidget *
build_api_page (PrsFirstRun *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 24);
  GtkWidget *api_group = adw_preferences_group_new ();
  GtkWidget *trust_group = adw_preferences_group_new ();
  GtkWidget *setup_group = adw_preferences_group_new ();
  g_autofree char *api_url = g_strdup_printf ("https://127.0.0.1:%u", prs_service_get_port (self->service));
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *cert_path = g_build_filename (prs_service_get_data_dir (self->service), PRS_TLS_CERT_FILE, NULL);
  g_autofree char *trust = NULL;
  GtkWidget *row, *sw;

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (api_group), _("Your Local API"));
  row = action_row (_("Address"), api_url, "first-run-api-url");
  copy_button (self, row, _("Copy Address"), api_url);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (api_group), row);

  /* From the keyring, without waiting on it (made on a first run) */
  row = prs_token_row_new (_("Bearer Token"), "first-run-token");
  self->token_row = ADW_ACTION_ROW (row);
  prs_token_row_set (self->token_row, NULL, _("Reading the keyring…"));
  prs_api_token_ensure_async (prs_service_get_secrets (self->service), prs_service_get_data_dir (self->service),
                              self->cancellable, on_token, g_object_ref (self));
  copy_button (self, row, _("Copy Token"), NULL);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (api_group), row);

  certificate = prs_tls_ensure_certificate (prs_service_get_data_dir (self->service), &error);
  if (certificate != NULL)
    {
      g_autofree char *fingerprint = prs_tls_dup_fingerprint (certificate);

      row = action_row (_("Certificate SHA-256 Fingerprint"), fingerprint, "first-run-fingerprint");
      gtk_widget_add_css_class (row, "monospace-subtitle");
      copy_button (self, row, _("Copy Fingerprint"), fingerprint);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (api_group), row);
    }
  row = action_row (_("Certificate File (PEM)"), cert_path, "first-run-cert-path");
  copy_button (self, row, _("Copy Path"), cert_path);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (api_group), row);

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (trust_group), _("Make n8n Trust the Certificate"));
  /* Translators: %s is the certificate file's path */
  trust = g_strdup_printf (_("Best: start n8n with the environment variable NODE_EXTRA_CA_CERTS=%s (in Docker, "
                             "mount the file and point the variable at it).\n\n"
                             "Or: turn on “Ignore SSL Issues” in each HTTP Request node that calls Prosponsive. "
                             "Then n8n accepts any certificate on that address, so another program listening there "
                             "could receive the token."), cert_path);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (trust_group), trust);
  row = action_row (_("Ignore SSL Issues in the Example Workflows"),
                    _("Turn off once n8n runs with NODE_EXTRA_CA_CERTS"), "first-run-ignore-tls");
  sw = gtk_switch_new ();
  self->ignore_tls_switch = GTK_SWITCH (sw);
  gtk_switch_set_active (GTK_SWITCH (sw), TRUE);
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), sw);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), sw);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (trust_group), row);

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (setup_group), _("Set Up Your n8n"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (setup_group),
                                         _("Done through n8n’s API with the key from step 1."));
  row = action_row (_("“Prosponsive API” Credential"),
                    _("Header Auth holding “Authorization: Bearer” and the token, for workflows that call Prosponsive"),
                    "first-run-credential");
  self->credential_row = ADW_ACTION_ROW (row);
  self->credential_button = GTK_BUTTON (suffix_button (row, _("_Create"), "first-run-credential-create"));
  g_signal_connect_swapped (self->credential_button, "clicked", G_CALLBACK (on_credential_clicked), self);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (setup_group), row);

  row = action_row (_("Example Workflows"),
                    _("Hello World (a tool), IMAP New Email and Email Move To Folder"), "first-run-import");
  self->import_row = ADW_ACTION_ROW (row);
  self->import_button = GTK_BUTTON (suffix_button (row, _("_Import"), "first-run-import-button"));
  g_signal_connect_swapped (self->import_button, "clicked", G_CALLBACK (on_import_clicked), self);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (setup_group), row);

  self->examples_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->examples_group, _("Imported"));
  gtk_widget_set_visible (GTK_WIDGET (self->examples_group), FALSE);

  gtk_box_append (GTK_BOX (box), api_group);
  gtk_box_append (GTK_BOX (box), trust_group);
  gtk_box_append (GTK_BOX (box), setup_group);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->examples_group));
  return page_new ("network-transmit-receive-symbolic", _("Let n8n Call Prosponsive"),
                   _("Workflows reach Prosponsive over HTTPS on this computer, with the token below."), box);
}

/* ---- life ---- */

PrsFirstRun *
prs_first_run_new (GtkWindow  *parent,
                   PrsService *service)
{
  PrsFirstRun *self;

  g_return_val_if_fail (PRS_IS_SERVICE (service), NULL);
  g_return_val_if_fail (prs_service_get_providers (service) != NULL, NULL);

  self = g_object_new (PRS_TYPE_FIRST_RUN, "transient-for", parent, NULL);
  self->service = g_object_ref (service);

  gtk_stack_add_named (self->stack, build_n8n_page (self), "n8n");
  self->provider_editor = PRS_PROVIDER_EDITOR (prs_provider_editor_new (service));
  gtk_stack_add_named (self->stack,
                       page_new ("user-available-symbolic", _("Add an AI Provider"),
                                 _("The model that answers in conversations and decides which tools to call. "
                                   "More providers can be added in Preferences."),
                                 GTK_WIDGET (self->provider_editor)),
                       "provider");
  gtk_stack_add_named (self->stack, build_api_page (self), "api");

  g_signal_connect_object (prs_service_get_discovery (service), "notify::running",
                           G_CALLBACK (on_discovery_running), self, 0);
  show_step (self);
  return self;
}

static void
prs_first_run_dispose (GObject *object)
{
  PrsFirstRun *self = PRS_FIRST_RUN (object);

  g_cancellable_cancel (self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), PRS_TYPE_FIRST_RUN);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->service);

  G_OBJECT_CLASS (prs_first_run_parent_class)->dispose (object);
}

static void
prs_first_run_finalize (GObject *object)
{
  PrsFirstRun *self = PRS_FIRST_RUN (object);

  if (self->token != NULL)
    memset (self->token, 0, strlen (self->token));
  g_free (self->token);

  G_OBJECT_CLASS (prs_first_run_parent_class)->finalize (object);
}

static void
prs_first_run_class_init (PrsFirstRunClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = prs_first_run_dispose;
  object_class->finalize = prs_first_run_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, RESOURCE_PREFIX "/ui/prs-first-run.ui");
  gtk_widget_class_bind_template_child (widget_class, PrsFirstRun, back_button);
  gtk_widget_class_bind_template_child (widget_class, PrsFirstRun, next_button);
  gtk_widget_class_bind_template_child (widget_class, PrsFirstRun, stack);
  gtk_widget_class_bind_template_child (widget_class, PrsFirstRun, title);
  gtk_widget_class_bind_template_child (widget_class, PrsFirstRun, toast_overlay);
  gtk_widget_class_bind_template_callback (widget_class, on_back_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_next_clicked);
  /* As Skip does: what earlier steps saved stays, the rest waits for Preferences */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
prs_first_run_init (PrsFirstRun *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
}
