/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-first-run.c: the first-run setup driven through its real widgets
 * against a real n8n and a scripted AI provider; run by
 * tests/n8n/test-first-run.py, which starts both, passes them here through
 * the environment (PRS_TEST_N8N_URL, PRS_TEST_N8N_KEY, PRS_TEST_PROVIDER_URL,
 * PRS_TEST_PROVIDER_KEY, PRS_TEST_DATA_DIR) and afterwards checks n8n and
 * searches the files and this program's output for the secrets. Nothing
 * secret is printed here. */
#include "config.h"

#include "prs-first-run.h"
#include "prs-preferences-window.h"
#include "prs-service.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

static const char *
row_state (GtkWidget *row)
{
  return g_object_get_data (G_OBJECT (row), "state");
}

static gboolean
settled (gpointer row)
{
  const char *state = row_state (row);

  return state != NULL && g_strcmp0 (state, "busy") != 0;
}

/* n8n activations and discovery take a few seconds */
static void
wait_settled (GtkWidget *row)
{
  g_assert_true (prs_test_wait_until (settled, row));
}

static gboolean
editor_tested (gpointer root)
{
  const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (prs_test_find_named (root, "provider-test-result")));

  return g_str_has_prefix (subtitle, "Connected") || strstr (subtitle, "rejected") != NULL;
}

static gboolean
has_hello_tool (gpointer service)
{
  g_autoptr(PrsTool) tool = prs_store_lookup_tool (prs_service_get_store (service), "hello_world", NULL);

  return tool != NULL && !prs_discovery_get_running (prs_service_get_discovery (service));
}

static gboolean
at_api_step (gpointer data)
{
  return g_strcmp0 (prs_first_run_get_step (data), "api") == 0;
}

static void
test_first_run (void)
{
  const char *data_dir = g_getenv ("PRS_TEST_DATA_DIR");
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsService) service = NULL;
  PrsWindow *window;
  PrsFirstRun *first_run;
  GtkWidget *root, *row;
  g_autofree char *credential_id = NULL;

  g_assert_nonnull (data_dir);
  service = prs_service_new (data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (service, &error));
  g_assert_no_error (error);
  g_assert_true (prs_first_run_is_needed (service));

  window = prs_window_new (NULL, service);
  g_object_ref_sink (window);
  gtk_window_present (GTK_WINDOW (window));
  first_run = prs_first_run_new (GTK_WINDOW (window), service);
  root = GTK_WIDGET (first_run);
  gtk_window_present (GTK_WINDOW (first_run));
  prs_test_wait_frames (root, 2);

  /* 1. n8n: Test runs a discovery and says what it found. */
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "first-run-n8n-url")), g_getenv ("PRS_TEST_N8N_URL"));
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "first-run-n8n-key")), "wrong-n8n-key");
  row = prs_test_find_named (root, "first-run-n8n-result");
  prs_test_click (prs_test_find_named (root, "first-run-n8n-test"));
  wait_settled (row);
  g_assert_cmpstr (row_state (row), ==, "error");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "rejected the API key"));
  g_print ("# n8n with a wrong key: %s\n", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));

  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "first-run-n8n-key")), g_getenv ("PRS_TEST_N8N_KEY"));
  prs_test_click (prs_test_find_named (root, "first-run-n8n-test"));
  wait_settled (row);
  g_assert_cmpstr (row_state (row), ==, "ok");
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "Connected: 0 tools found"));
  g_print ("# n8n: %s\n", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  prs_test_click (prs_test_find_named (root, "first-run-next"));
  g_assert_cmpstr (prs_first_run_get_step (first_run), ==, "provider");

  /* 2. A provider: Test loads its models; Next saves it. */
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "provider-url")), g_getenv ("PRS_TEST_PROVIDER_URL"));
  gtk_editable_set_text (GTK_EDITABLE (prs_test_find_named (root, "provider-key")), g_getenv ("PRS_TEST_PROVIDER_KEY"));
  prs_test_click (prs_test_find_named (root, "provider-test"));
  for (guint i = 0; i < 3 && !editor_tested (root); i++)
    prs_test_wait_until (editor_tested, root);
  g_assert_true (g_str_has_prefix (adw_action_row_get_subtitle (ADW_ACTION_ROW (prs_test_find_named (root, "provider-test-result"))),
                                   "Connected"));
  /* The provider and its key are saved first (the keyring without waiting) */
  prs_test_click (prs_test_find_named (root, "first-run-next"));
  g_assert_true (prs_test_wait_until (at_api_step, first_run));
  g_assert_cmpstr (prs_first_run_get_step (first_run), ==, "api");
  {
    g_autoptr(GPtrArray) providers = prs_store_list_providers (prs_service_get_store (service), NULL);

    g_assert_cmpuint (providers->len, ==, 1);
    g_assert_cmpstr (((PrsProviderRow *) g_ptr_array_index (providers, 0))->model, ==, "scripted-model");
  }

  /* 3. The credential, then the examples. */
  row = prs_test_find_named (root, "first-run-credential");
  prs_test_click (prs_test_find_named (root, "first-run-credential-create"));
  wait_settled (row);
  g_print ("# credential: %s\n", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  g_assert_cmpstr (row_state (row), ==, "ok");
  credential_id = prs_store_dup_setting (prs_service_get_store (service), "n8n-api-credential-id");
  g_assert_nonnull (credential_id);

  row = prs_test_find_named (root, "first-run-import");
  prs_test_click (prs_test_find_named (root, "first-run-import-button"));
  wait_settled (row);
  g_print ("# examples: %s\n", adw_action_row_get_subtitle (ADW_ACTION_ROW (row)));
  for (GtkWidget *r = prs_test_find_named (root, "first-run-example"); r != NULL; r = gtk_widget_get_next_sibling (r))
    if (ADW_IS_ACTION_ROW (r))
      g_print ("#   %s [%s]: %s\n", adw_preferences_row_get_title (ADW_PREFERENCES_ROW (r)), row_state (r),
               adw_action_row_get_subtitle (ADW_ACTION_ROW (r)));
  g_assert_cmpstr (row_state (prs_test_find_named (root, "first-run-example")), ==, "ok");  /* Hello World, published */

  /* Done: discovery runs and finds the Hello World tool. */
  prs_test_click (prs_test_find_named (root, "first-run-next"));
  g_assert_true (prs_test_wait_until (has_hello_tool, service) || prs_test_wait_until (has_hello_tool, service));
  g_print ("# hello_world discovered\n");

  /* Preferences write GSettings (the keyfile the driver searches). */
  {
    PrsPreferencesWindow *prefs = prs_preferences_window_new (GTK_WINDOW (window), service);

    gtk_window_present (GTK_WINDOW (prefs));
    prs_test_wait_frames (GTK_WIDGET (prefs), 2);
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (prs_test_find_named (GTK_WIDGET (prefs), "discovery-interval")), 30);
    g_assert_cmpuint (prs_settings_get_discovery_interval (prs_service_get_settings (service)), ==, 30);
    g_settings_sync ();
    gtk_window_destroy (GTK_WINDOW (prefs));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_object_unref (window);
  prs_service_stop (service);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();
  g_test_add_func ("/ui/first-run/real-n8n", test_first_run);
  return g_test_run ();
}
