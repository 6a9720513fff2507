/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-preferences.c: Preferences, the provider form, the Tools page and
 * PrsSettings with real widgets under Xvfb: a wrong provider key shows the
 * provider's own reason (a scripted provider answering 401), token rotation
 * from Preferences is refused by the running API at once (real HTTPS), and
 * the Tools page lists tools and checklists and opens n8n's editor.
 * With PRS_SCREENSHOT_DIR set, each Preferences page and the first-run
 * steps are captured there (design review; data/screenshots). */
#include "config.h"

#include <libsoup/soup.h>

#include "prs-api-token.h"
#include "prs-first-run.h"
#include "prs-launcher.h"
#include "prs-preferences-window.h"
#include "prs-service.h"
#include "prs-tools-page.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char       *data_dir;
  PrsService *service;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->data_dir = g_dir_make_tmp ("prs-prefs-XXXXXX", &error);
  g_assert_no_error (error);
  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  prs_service_stop (f->service);
  g_clear_object (&f->service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
}

/* ---- helpers ---- */

typedef struct
{
  AdwActionRow *row;
  const char   *state;
} RowWait;

static gboolean
row_in_state (gpointer data)
{
  RowWait *wait = data;

  return g_strcmp0 (g_object_get_data (G_OBJECT (wait->row), "state"), wait->state) == 0;
}

static gboolean
wait_row_state (GtkWidget  *row,
                const char *state)
{
  RowWait wait = { ADW_ACTION_ROW (row), state };

  return prs_test_wait_until (row_in_state, &wait);
}

static gboolean
subtitle_settled (gpointer data)
{
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (data));

  return subtitle != NULL && g_str_has_prefix (subtitle, "Asking") == FALSE &&
         g_str_has_prefix (subtitle, "Checks the URL") == FALSE;
}

/* ---- HTTPS ---- */

/* GET /api/conversations with @token over real HTTPS; the status. */
static guint
api_get (Fixture    *f,
         const char *path,
         const char *token)
{
  g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u%s", prs_service_get_port (f->service), path);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);

  if (token != NULL)
    {
      g_autofree char *bearer = g_strdup_printf ("Bearer %s", token);

      soup_message_headers_append (soup_message_get_request_headers (msg), "Authorization", bearer);
    }
  return prs_test_https_send (msg, 10, NULL, NULL);
}

/* ---- tests ---- */

static void
on_changed (PrsSettings *settings,
            const char  *key,
            char       **out)
{
  g_free (*out);
  *out = g_strdup (key);
}

static void
test_settings (void)
{
  g_autoptr(PrsSettings) settings = prs_settings_new ();
  g_autoptr(GSettings) gsettings = g_settings_new (APP_ID);
  g_autofree char *changed = NULL;
  g_auto(GStrv) schemes = g_settings_get_strv (gsettings, "open-link-schemes");

  g_assert_true (prs_settings_is_persistent (settings));
  /* Every default equals the schema's. */
  g_assert_cmpuint (prs_settings_get_discovery_interval (settings), ==, g_settings_get_uint (gsettings, "discovery-interval"));
  g_assert_cmpuint (prs_settings_get_api_port (settings), ==, g_settings_get_uint (gsettings, "api-port"));
  g_assert_cmpfloat (prs_settings_get_temperature (settings), ==, g_settings_get_double (gsettings, "temperature"));
  g_assert_true (g_strv_equal (prs_settings_get_open_link_schemes (settings), (const char * const *) schemes));
  g_assert_true (prs_settings_get_keep_running_in_background (settings));
  g_assert_cmpuint (prs_settings_get_max_tool_rounds (settings), ==, 8);
  g_assert_cmpuint (prs_settings_get_callback_timeout (settings), ==, 600);

  /* Both ways, with "changed::KEY". */
  g_signal_connect (settings, "changed::history-depth", G_CALLBACK (on_changed), &changed);
  g_settings_set_uint (gsettings, "history-depth", 33);
  g_assert_cmpuint (prs_settings_get_history_depth (settings), ==, 33);
  g_assert_cmpstr (changed, ==, "history-depth");
  prs_settings_set_discovery_interval (settings, 42);
  g_assert_cmpuint (g_settings_get_uint (gsettings, "discovery-interval"), ==, 42);
  g_settings_reset (gsettings, "history-depth");
  g_settings_reset (gsettings, "discovery-interval");
}

static gboolean
is_named (GtkWidget *widget,
          gpointer   name)
{
  return g_strcmp0 (gtk_widget_get_name (widget), name) == 0;
}

static gboolean
has_provider_row (gpointer root)
{
  return prs_test_find_widget (root, GTK_TYPE_WIDGET, is_named, (gpointer) "provider-row") != NULL;
}

/* How many times @needle is in @haystack */
static guint
count_of (const char *haystack,
          const char *needle)
{
  guint n = 0;

  for (const char *at = strstr (haystack, needle); at != NULL; at = strstr (at + 1, needle))
    n++;
  return n;
}

typedef struct
{
  GtkWidget  *row;
  const char *prefix;
} SubtitleWait;

static gboolean
subtitle_starts (gpointer data)
{
  SubtitleWait *wait = data;
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (wait->row));

  return subtitle != NULL && g_str_has_prefix (subtitle, wait->prefix);
}

static gboolean
discovery_idle (gpointer data)
{
  return !prs_discovery_get_running (data);
}

/* The n8n health row says what is wrong and the one fix for that failure
 * (no key: add it; no connection: the URL, or n8n itself), never a second,
 * generic fix after the message's own advice */
static void
test_n8n_health_fix (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", prs_test_free_port ());
  PrsPreferencesWindow *prefs = NULL;
  GtkWidget *health;
  SubtitleWait wait = { NULL, NULL };
  const char *subtitle;

  /* The discovery the service starts with (no URL yet) is over: Check
   * Health starts none while one runs */
  g_assert_true (prs_test_wait_until (discovery_idle, prs_service_get_discovery (f->service)));
  g_assert_true (prs_store_set_setting (prs_service_get_store (f->service), PRS_SETTING_N8N_URL, url, &error));
  g_assert_no_error (error);
  prefs = prs_preferences_window_new (NULL, f->service);
  gtk_window_present (GTK_WINDOW (prefs));
  health = wait.row = prs_test_find_named (GTK_WIDGET (prefs), "health-n8n");

  prs_preferences_window_check_health (prefs);
  wait.prefix = "No n8n API key";
  g_assert_true (prs_test_wait_until (subtitle_starts, &wait));
  /* Check Health asks the local API too: its answer comes before the next
   * check, or the service's stop, which waits for its connection */
  g_assert_true (wait_row_state (prs_test_find_named (GTK_WIDGET (prefs), "health-api"), "ok"));
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (health));
  g_assert_cmpstr (subtitle, ==, "No n8n API key is stored. Fix: add the key on the n8n page.");
  g_assert_cmpstr (g_object_get_data (G_OBJECT (health), "state"), ==, "error");

  /* A key, and nothing listening at the URL */
  g_assert_true (prs_secrets_store_sync (prs_service_get_secrets (f->service), PRS_SECRET_N8N_API_KEY,
                                         "n8n API key", "a-key", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (prs_test_wait_until (discovery_idle, prs_service_get_discovery (f->service)));
  prs_preferences_window_check_health (prefs);
  wait.prefix = "Could not reach n8n";
  g_assert_true (prs_test_wait_until (subtitle_starts, &wait));
  g_assert_true (wait_row_state (prs_test_find_named (GTK_WIDGET (prefs), "health-api"), "ok"));
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (health));
  g_assert_nonnull (strstr (subtitle, url));
  g_assert_nonnull (strstr (subtitle, "Fix: check the URL on the n8n page, and that n8n is running."));
  g_assert_cmpuint (count_of (subtitle, "Fix:"), ==, 1);
  g_assert_cmpuint (count_of (subtitle, "?"), ==, 0);
  /* The message prosponsive-ctl and the Tools page show is one hover away */
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (health), "connection refused"));

  gtk_window_destroy (GTK_WINDOW (prefs));
}

static void
test_provider_wrong_key (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PrsTestProvider) provider =
    prs_test_provider_start ("{\"kind\":\"openai\",\"turns\":["
                    "{\"response\":{\"status\":401,\"message\":\"Incorrect API key provided: wrong-***-key\"}},"
                    "{\"expect\":{\"headers\":{\"authorization\":\"Bearer right-key\"}},"
                    " \"response\":{\"models\":[{\"id\":\"model-a\"},{\"id\":\"model-b\"}]}}]}");
  g_autofree char *url = prs_test_provider_base_url (provider, "openai");
  PrsPreferencesWindow *prefs = prs_preferences_window_new (NULL, f->service);
  GtkWidget *root = GTK_WIDGET (prefs);
  GtkWidget *result;
  g_autoptr(GPtrArray) rows = NULL;
  const char *subtitle;

  gtk_window_present (GTK_WINDOW (prefs));
  prs_test_wait_frames (root, 2);
  prs_preferences_window_edit_provider (prefs, NULL);
  prs_test_wait_frames (root, 2);

  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "provider-name")), "Scripted");
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "provider-url")), url);
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "provider-key")), "wrong-key");
  prs_test_click (prs_test_find_named (root, "provider-test"));
  result = prs_test_find_named (root, "provider-test-result");
  g_assert_true (prs_test_wait_until (subtitle_settled, result));
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (result));
  /* The provider's own reason, and never the key. */
  g_assert_nonnull (strstr (subtitle, "Incorrect API key provided: wrong-***-key"));
  g_assert_null (strstr (subtitle, "wrong-key"));
  prs_test_screenshot (root, "prefs-provider-wrong-key");

  /* Saving is refused until a model was picked from the provider's list. */
  prs_test_click (prs_test_find_named (root, "provider-save"));
  g_assert_null (prs_store_lookup_provider (prs_service_get_store (f->service), "Scripted", NULL));

  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "provider-key")), "right-key");
  prs_test_click (prs_test_find_named (root, "provider-test"));
  g_assert_true (prs_test_wait_until (subtitle_settled, result));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (result)), ==, "Connected: 2 models available");
  prs_test_click (prs_test_find_named (root, "provider-save"));
  rows = prs_store_list_providers (prs_service_get_store (f->service), NULL);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_cmpstr (((PrsProviderRow *) g_ptr_array_index (rows, 0))->model, ==, "model-a");
  /* The key goes to the keyring without waiting on it; then the list shows it */
  g_assert_true (prs_test_wait_until (has_provider_row, root));
  g_assert_nonnull (prs_test_find_named (root, "provider-row"));

  gtk_window_destroy (GTK_WINDOW (prefs));
}

static AdwMessageDialog *
find_message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window))
        return ADW_MESSAGE_DIALOG (window);
    }
  return NULL;
}

/* ---- the port and the allowed origins ---- */

static guint
get_with_origin (guint       port,
                 const char *path,
                 const char *token,
                 const char *origin)
{
  g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u%s", port, path);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);

  if (token != NULL)
    {
      g_autofree char *bearer = g_strdup_printf ("Bearer %s", token);

      soup_message_headers_append (headers, "Authorization", bearer);
    }
  if (origin != NULL)
    soup_message_headers_append (headers, "Origin", origin);
  return prs_test_https_send (msg, 10, NULL, NULL);
}

static gboolean
row_state_is_error (gpointer row)
{
  return g_strcmp0 (g_object_get_data (row, "state"), "error") == 0;
}

static gboolean
is_null (gpointer pointer)
{
  return *(gpointer *) pointer == NULL;
}

/* Without --port the service listens on the api-port setting; a port
 * another program holds leaves the window's service running without the
 * API, Health says what to do, and the port set in Preferences is the
 * one of the next start */
static void
test_api_port (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = g_dir_make_tmp ("prs-prefs-port-XXXXXX", &error);
  g_autoptr(PrsSettings) settings = prs_settings_new ();
  g_autoptr(GSocket) taken = NULL;
  g_autoptr(PrsService) service = NULL;
  PrsPreferencesWindow *prefs;
  GtkWidget *health, *spin;
  guint port = 0;
  guint next_port = prs_test_free_port ();
  const char *subtitle;

  taken = prs_test_bind_loopback (&port);
  g_assert_true (g_socket_listen (taken, &error));
  g_object_set (settings, "api-port", port, NULL);

  service = prs_service_new (data_dir, 0);
  prs_service_set_api_optional (service, TRUE);
  g_assert_true (prs_service_start (service, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (prs_service_get_port (service), ==, port);
  g_assert_nonnull (prs_service_get_api_error (service));

  prefs = prs_preferences_window_new (NULL, service);
  gtk_window_present (GTK_WINDOW (prefs));
  prs_preferences_window_check_health (prefs);
  health = prs_test_find_named (GTK_WIDGET (prefs), "health-api");
  g_assert_true (prs_test_wait_until (row_state_is_error, health));
  subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (health));
  g_assert_nonnull (strstr (subtitle, "already in use"));
  g_assert_nonnull (strstr (subtitle, "change the port on the Local API page"));

  /* The advice, followed */
  spin = prs_test_find_named (GTK_WIDGET (prefs), "api-port");
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), next_port);
  g_assert_cmpuint (prs_settings_get_api_port (settings), ==, next_port);
  gtk_window_destroy (GTK_WINDOW (prefs));
  prs_service_stop (service);
  /* The window's reads still under way hold the service (and the data
   * folder's lock) until they end */
  g_object_add_weak_pointer (G_OBJECT (service), (gpointer *) &service);
  g_object_unref (service);
  g_assert_true (prs_test_wait_until (is_null, &service));

  service = prs_service_new (data_dir, 0);
  g_assert_true (prs_service_start (service, &error));
  g_assert_no_error (error);
  g_assert_null (prs_service_get_api_error (service));
  g_assert_cmpuint (prs_service_get_port (service), ==, next_port);
  g_assert_cmpuint (get_with_origin (next_port, "/api/health", NULL, NULL), ==, 200);
  prs_service_stop (service);
  g_clear_object (&service);

  /* --port wins */
  service = prs_service_new (data_dir, port);
  g_assert_cmpuint (prs_service_get_port (service), ==, port);
  g_clear_object (&service);

  /* The memory settings backend outlives this test */
  g_object_set (settings, "api-port", 3100, NULL);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  prs_test_remove_tree (data_dir);
}

typedef struct
{
  guint       port;
  const char *token;
  const char *origin;
  guint       status;
} OriginWait;

static gboolean
origin_answers (gpointer data)
{
  OriginWait *wait = data;

  return get_with_origin (wait->port, "/api/conversations", wait->token, wait->origin) == wait->status;
}

/* The Web Pages row edits allowed-origins, checked as it is typed; the
 * running API lets the origin in at once and keeps others out */
static void
test_allowed_origins (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *token = NULL;
  PrsSettings *settings = prs_service_get_settings (f->service);
  PrsPreferencesWindow *prefs;
  GtkWidget *row;
  OriginWait wait = { prs_service_get_port (f->service), NULL, "https://n8n.example.org", 200 };

  g_assert_true (prs_api_token_ensure (prs_service_get_secrets (f->service), f->data_dir, &token, &error));
  wait.token = token;
  g_assert_cmpuint (get_with_origin (wait.port, "/api/conversations", token, NULL), ==, 200);
  g_assert_cmpuint (get_with_origin (wait.port, "/api/conversations", token, wait.origin), ==, 403);

  prefs = prs_preferences_window_new (NULL, f->service);
  gtk_window_present (GTK_WINDOW (prefs));
  prs_test_wait_frames (GTK_WIDGET (prefs), 2);
  row = prs_test_find_named (GTK_WIDGET (prefs), "allowed-origins");

  /* Not an origin: refused, nothing saved */
  gtk_editable_set_text (GTK_EDITABLE (row), "https://n8n.example.org/path");
  g_signal_emit_by_name (row, "apply");
  g_assert_true (gtk_widget_has_css_class (row, "error"));
  g_assert_cmpuint (g_strv_length ((char **) prs_settings_get_allowed_origins (settings)), ==, 0);

  /* Saved as browsers send it */
  gtk_editable_set_text (GTK_EDITABLE (row), "HTTPS://N8N.example.org:443");
  g_signal_emit_by_name (row, "apply");
  g_assert_false (gtk_widget_has_css_class (row, "error"));
  g_assert_cmpstrv (prs_settings_get_allowed_origins (settings), ((const char *[]) { "https://n8n.example.org", NULL }));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (row)), ==, "https://n8n.example.org");

  g_assert_true (prs_test_wait_until (origin_answers, &wait));
  g_assert_cmpuint (get_with_origin (wait.port, "/api/conversations", token, "https://evil.example"), ==, 403);

  /* Emptied: no web page gets in */
  gtk_editable_set_text (GTK_EDITABLE (row), "");
  g_signal_emit_by_name (row, "apply");
  wait.status = 403;
  g_assert_true (prs_test_wait_until (origin_answers, &wait));
  gtk_window_destroy (GTK_WINDOW (prefs));
}

static gboolean
subtitle_is_expected (gpointer row)
{
  return g_strcmp0 (adw_action_row_get_subtitle (row), g_object_get_data (row, "expected")) == 0;
}

static gboolean
subtitle_changed (gpointer row)
{
  return !subtitle_is_expected (row);
}

static gboolean
widget_is_sensitive (gpointer widget)
{
  return gtk_widget_get_sensitive (widget);
}

static void
test_token_rotation (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *old_token = NULL;
  g_autofree char *new_token = NULL;
  PrsPreferencesWindow *prefs;
  GtkWidget *row, *reveal;
  AdwMessageDialog *dialog;

  g_assert_true (prs_api_token_ensure (prs_service_get_secrets (f->service), f->data_dir, &old_token, &error));
  g_assert_cmpuint (api_get (f, "/api/conversations", old_token), ==, 200);

  prefs = prs_preferences_window_new (NULL, f->service);
  gtk_window_present (GTK_WINDOW (prefs));
  prs_test_wait_frames (GTK_WIDGET (prefs), 2);
  row = prs_test_find_named (GTK_WIDGET (prefs), "api-token");
  reveal = prs_test_find_named (GTK_WIDGET (prefs), "api-token-reveal");
  /* Read from the keyring without waiting on it, and shown hidden: a
   * shared screen does not give the token away */
  g_assert_true (prs_test_wait_until (widget_is_sensitive, reveal));
  g_assert_null (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), old_token));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (reveal), ==, "Show Token");
  prs_test_click (reveal);
  g_object_set_data (G_OBJECT (row), "expected", old_token);
  g_assert_true (prs_test_wait_until (subtitle_is_expected, row));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, old_token);

  prs_test_click (prs_test_find_named (GTK_WIDGET (prefs), "api-token-rotate"));
  dialog = find_message_dialog ();
  g_assert_nonnull (dialog);
  adw_message_dialog_response (dialog, "rotate");
  gtk_window_destroy (GTK_WINDOW (dialog));
  g_assert_true (prs_test_wait_until (subtitle_changed, row));

  g_assert_true (prs_api_token_ensure (prs_service_get_secrets (f->service), f->data_dir, &new_token, &error));
  g_assert_cmpstr (new_token, !=, old_token);
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==, new_token);
  /* The running server refuses the old token from the next request on. */
  g_assert_cmpuint (api_get (f, "/api/conversations", old_token), ==, 401);
  g_assert_cmpuint (api_get (f, "/api/conversations", new_token), ==, 200);
  g_assert_cmpuint (api_get (f, "/api/health", NULL), ==, 200);

  gtk_window_destroy (GTK_WINDOW (prefs));
}

static void
on_launch (const char *uri,
           gpointer    user_data)
{
  g_free (*(char **) user_data);
  *(char **) user_data = g_strdup (uri);
}

#define CHECK(id, status, message) "{\"id\":\"" id "\",\"status\":\"" status "\",\"message\":\"" message "\"}"

static void
seed_discovery (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  PrsStore *store = prs_service_get_store (f->service);
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);
  static const PrsChecklistInsert rows[] = {
    { "wf-move-1", "Email Move To Folder", "email_move_to_folder", TRUE,
      "{\"workflowId\":\"wf-move-1\",\"workflowName\":\"Email Move To Folder\",\"discoverable\":true,"
      "\"toolName\":\"email_move_to_folder\",\"checks\":[" CHECK ("published", "pass", "The workflow is published.") ","
      CHECK ("webhook", "pass", "The Webhook node accepts POST.") "," CHECK ("webhook-url", "warn", "The Webhook node has no webhookId.") "]}" },
    { "wf-cron-2", "Nightly Report", NULL, FALSE,
      "{\"workflowId\":\"wf-cron-2\",\"workflowName\":\"Nightly Report\",\"discoverable\":false,\"toolName\":null,"
      "\"checks\":[" CHECK ("published", "pass", "The workflow is published.") ","
      CHECK ("webhook", "fail", "There is no Webhook trigger. Add a Webhook node with the HTTP method POST and a path.") "]}" },
  };
  g_autoptr(GArray) checklists = g_array_new (FALSE, FALSE, sizeof (PrsChecklistInsert));
  PrsTool *tool = prs_tool_new ();
  g_autoptr(JsonNode) def = json_node_new (JSON_NODE_VALUE);

  tool->name = g_strdup ("email_move_to_folder");
  tool->description = g_strdup ("Moves an email, by its IMAP UID, from one folder to another.");
  tool->workflow_id = g_strdup ("wf-move-1");
  tool->workflow_name = g_strdup ("Email Move To Folder");
  tool->webhook_path = g_strdup ("email-move-to-folder");
  tool->webhook_method = g_strdup ("POST");
  tool->response_mode = g_strdup ("lastNode");
  tool->params = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_param_free);
  g_ptr_array_add (tool->params, prs_param_new ("uid", PRS_PARAM_STRING, TRUE, NULL));
  json_node_set_string (def, "INBOX");
  g_ptr_array_add (tool->params, prs_param_new ("mailbox", PRS_PARAM_STRING, FALSE, def));
  g_ptr_array_add (tool->params, prs_param_new ("destination", PRS_PARAM_STRING, TRUE, NULL));
  g_ptr_array_add (tools, tool);

  g_array_append_vals (checklists, rows, G_N_ELEMENTS (rows));
  g_assert_true (prs_store_save_discovery (store, tools, checklists,
                                           g_get_real_time () / G_USEC_PER_SEC, &error));
  g_assert_no_error (error);
  g_assert_true (prs_store_set_setting (store, PRS_SETTING_N8N_URL, "http://127.0.0.1:5678", &error));
}

static void
test_tools_page (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *launched = NULL;
  g_autoptr(GError) error = NULL;
  PrsWindow *window;
  PrsToolsPage *page;
  GtkWidget *tool_row;

  seed_discovery (f);
  window = prs_window_new (NULL, f->service);
  g_object_ref_sink (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-tools", NULL));
  prs_test_wait_frames (GTK_WIDGET (window), 2);

  page = PRS_TOOLS_PAGE (prs_test_find_widget (GTK_WIDGET (window), PRS_TYPE_TOOLS_PAGE, NULL, NULL));
  g_assert_cmpint (prs_tools_page_reload (page, &error), ==, 1);
  tool_row = prs_test_find_named (GTK_WIDGET (page), "tool-row");
  g_assert_nonnull (prs_test_find_label (tool_row, "email_move_to_folder"));
  g_assert_nonnull (prs_test_find_label (tool_row, "string · optional, default INBOX — The mailbox"));
  /* The webhook, and what its result is in words, not n8n's identifier */
  g_assert_nonnull (prs_test_find_label (tool_row, "POST /webhook/email-move-to-folder"));
  g_assert_nonnull (prs_test_find_label (tool_row, "The result is the output of the last node."));
  g_assert_null (prs_test_find_label (tool_row, "Description"));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (page), "Nightly Report"));
  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (page),
                                         "Not a tool: There is no Webhook trigger. Add a Webhook node with the HTTP method POST and a path."));

  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (tool_row), TRUE);
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (prs_test_find_named (GTK_WIDGET (page), "workflow-row")), TRUE);
  prs_launcher_set_hook (on_launch, &launched);
  prs_test_click (prs_test_find_named (tool_row, "open-in-n8n"));
  prs_launcher_set_hook (NULL, NULL);
  g_assert_cmpstr (launched, ==, "http://127.0.0.1:5678/workflow/wf-move-1");
  prs_test_screenshot (GTK_WIDGET (window), "tools");

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
}

/* Not a check: captures each Preferences page and the first-run steps when
 * PRS_SCREENSHOT_DIR is set. */
static void
test_screenshots (Fixture       *f,
                  gconstpointer  data)
{
  static const char * const pages[] = { "general", "n8n", "providers", "api", "runs", NULL };
  PrsPreferencesWindow *prefs;
  PrsFirstRun *first_run;

  if (g_getenv ("PRS_SCREENSHOT_DIR") == NULL)
    {
      g_test_skip ("PRS_SCREENSHOT_DIR is not set");
      return;
    }

  seed_discovery (f);
  first_run = prs_first_run_new (NULL, f->service);
  gtk_window_present (GTK_WINDOW (first_run));
  prs_test_screenshot (GTK_WIDGET (first_run), "first-run-1");
  prs_test_click (prs_test_find_named (GTK_WIDGET (first_run), "first-run-next"));
  prs_test_screenshot (GTK_WIDGET (first_run), "first-run-2");
  prs_test_click (prs_test_find_named (GTK_WIDGET (first_run), "first-run-next"));
  prs_test_screenshot (GTK_WIDGET (first_run), "first-run-3");
  gtk_window_destroy (GTK_WINDOW (first_run));

  prefs = prs_preferences_window_new (NULL, f->service);
  gtk_window_set_default_size (GTK_WINDOW (prefs), 900, 800);
  gtk_window_present (GTK_WINDOW (prefs));
  for (guint i = 0; pages[i] != NULL; i++)
    {
      g_autofree char *name = g_strdup_printf ("prefs-%u-%s", i + 1, pages[i]);

      adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), pages[i]);
      if (i == 0)
        {
          GtkWidget *row = prs_test_find_named (GTK_WIDGET (prefs), "health-api");

          wait_row_state (row, "ok");
        }
      prs_test_screenshot (GTK_WIDGET (prefs), name);
    }
  gtk_window_destroy (GTK_WINDOW (prefs));
}

/* The page switcher tells every page apart by its icon too: at a narrow
 * width it shows icons alone */
static void
test_pages_told_apart (Fixture       *f,
                       gconstpointer  data)
{
  static const char * const pages[] = { "general", "n8n", "providers", "mcp", "api", "runs", NULL };
  g_autoptr(GHashTable) icons = g_hash_table_new (g_str_hash, g_str_equal);
  PrsPreferencesWindow *prefs = prs_preferences_window_new (NULL, f->service);

  gtk_window_present (GTK_WINDOW (prefs));
  for (guint i = 0; pages[i] != NULL; i++)
    {
      AdwPreferencesPage *page;

      adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), pages[i]);
      page = adw_preferences_window_get_visible_page (ADW_PREFERENCES_WINDOW (prefs));
      g_assert_cmpstr (adw_preferences_page_get_name (page), ==, pages[i]);
      g_assert_nonnull (adw_preferences_page_get_icon_name (page));
      g_assert_false (g_hash_table_contains (icons, adw_preferences_page_get_icon_name (page)));
      g_hash_table_add (icons, (gpointer) adw_preferences_page_get_icon_name (page));
    }
  gtk_window_destroy (GTK_WINDOW (prefs));
}

static gboolean
pointer_is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Escape leaves the first-run window, as Skip does */
static void
test_first_run_escape (Fixture       *f,
                       gconstpointer  data)
{
  PrsFirstRun *first_run = prs_first_run_new (NULL, f->service);

  g_object_add_weak_pointer (G_OBJECT (first_run), (gpointer *) &first_run);
  gtk_window_present (GTK_WINDOW (first_run));
  prs_test_wait_frames (GTK_WIDGET (first_run), 2);
  prs_test_click (prs_test_find_named (GTK_WIDGET (first_run), "first-run-next"));
  prs_test_press_keys (GTK_WIDGET (first_run), "Escape");
  g_assert_true (prs_test_wait_until (pointer_is_null, &first_run));
}

/* ---- size and maximized state, remembered across runs ---- */

static PrsWindow *
open_main_window (Fixture *f)
{
  PrsWindow *window = prs_window_new (NULL, f->service);

  g_object_ref_sink (window);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (GTK_WIDGET (window), 2);
  return window;
}

static void
close_main_window (PrsWindow **window)
{
  /* As the close button does: close-request, then the window is destroyed */
  gtk_window_close (GTK_WINDOW (*window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (window);
}

static void
test_window_size_remembered (Fixture       *f,
                      gconstpointer  data)
{
  PrsSettings *settings = prs_service_get_settings (f->service);
  PrsWindow *window = NULL;
  int width, height;
  gboolean maximized;

  /* Opened at the remembered size */
  g_object_set (settings, "window-width", 820, "window-height", 610, "window-maximized", FALSE, NULL);
  window = open_main_window (f);
  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 820);
  g_assert_cmpint (height, ==, 610);
  /* Shown that size (less the client-side decoration's shadow) */
  g_assert_cmpint (ABS (gtk_widget_get_width (GTK_WIDGET (window)) - 820), <=, 24);
  g_assert_false (gtk_window_is_maximized (GTK_WINDOW (window)));

  /* Resized (the default size follows the person's resizing), then closed */
  gtk_window_set_default_size (GTK_WINDOW (window), 940, 700);
  prs_test_wait_frames (GTK_WIDGET (window), 2);
  close_main_window (&window);
  g_object_get (settings, "window-width", &width, "window-height", &height, "window-maximized", &maximized, NULL);
  g_assert_cmpint (width, ==, 940);
  g_assert_cmpint (height, ==, 700);
  g_assert_false (maximized);

  /* Maximized when it was closed maximized; the size it comes back to is kept */
  g_object_set (settings, "window-maximized", TRUE, NULL);
  window = open_main_window (f);
  g_assert_true (gtk_window_is_maximized (GTK_WINDOW (window)));
  close_main_window (&window);
  g_object_get (settings, "window-width", &width, "window-height", &height, "window-maximized", &maximized, NULL);
  g_assert_true (maximized);
  g_assert_cmpint (width, ==, 940);
  g_assert_cmpint (height, ==, 700);

  /* The memory settings backend outlives this test */
  g_object_set (settings, "window-width", 1060, "window-height", 720, "window-maximized", FALSE, NULL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  {
    g_autoptr(GtkCssProvider) css = gtk_css_provider_new ();

    gtk_css_provider_load_from_resource (css, RESOURCE_PREFIX "/style.css");
    gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                                GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  }

  g_test_add_func ("/ui/prefs/settings", test_settings);
  g_test_add_func ("/ui/prefs/api-port", test_api_port);
#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/ui/prefs/provider-wrong-key", test_provider_wrong_key);
  ADD ("/ui/prefs/n8n-health-fix", test_n8n_health_fix);
  ADD ("/ui/prefs/token-rotation", test_token_rotation);
  ADD ("/ui/prefs/allowed-origins", test_allowed_origins);
  ADD ("/ui/prefs/tools-page", test_tools_page);
  ADD ("/ui/prefs/pages-told-apart", test_pages_told_apart);
  ADD ("/ui/prefs/first-run-escape", test_first_run_escape);
  ADD ("/ui/prefs/window-size-remembered", test_window_size_remembered);
  ADD ("/ui/prefs/screenshots", test_screenshots);
#undef ADD

  return g_test_run ();
}
