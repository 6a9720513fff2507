/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The window follows the session language: started with LANGUAGE=de (and a
 * German locale), the real window shows German strings from the build's
 * own catalogue, and so do the store's and n8n's errors that the window, its
 * toasts and prosponsive-ctl show. */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "prs-error.h"
#include "prs-n8n-client.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

static void
test_german_window (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = g_dir_make_tmp ("prs-test-l10n-XXXXXX", &error);
  g_autoptr(PrsService) service = NULL;
  PrsWindow *window;
  const char *english = "No Conversations";
  const char *german = g_dgettext (GETTEXT_PACKAGE, english);

  g_assert_no_error (error);

  /* The catalogue really translates this string… */
  g_test_message ("“%s” → “%s”", english, german);
  g_assert_cmpstr (german, !=, english);

  /* …and the window shows the translation. */
  service = prs_service_new (data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (service, &error));
  g_assert_no_error (error);

  window = prs_window_new (NULL, service);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (GTK_WIDGET (window), 2);

  g_assert_nonnull (prs_test_find_label (GTK_WIDGET (window), german));
  g_assert_null (prs_test_find_label (GTK_WIDGET (window), english));

  gtk_window_destroy (GTK_WINDOW (window));
  prs_service_stop (service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* A store's error reaches a person in their language: the phrase saying
 * what failed (marked with N_() where it is written) with SQLite's reason,
 * and a sentence of the store's own. */
static void
test_german_store_errors (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = g_dir_make_tmp ("prs-test-l10n-XXXXXX", &error);
  g_autofree char *conversation_id = NULL;
  g_autoptr(PrsStore) store = NULL;
  PrsMessageInsert message = { .conversation_id = "no-such-conversation", .kind = "user", .content = "Hallo" };

  g_assert_no_error (error);
  store = prs_store_new (data_dir, &error);
  g_assert_no_error (error);

  g_assert_false (prs_store_insert_message (store, &message, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  g_assert_cmpstr (error->message, ==, "Es gibt keine Unterhaltung „no-such-conversation“.");
  g_clear_error (&error);

  /* SQLite refuses every new message */
  conversation_id = prs_test_resolve_conversation (store, "inbox");
  prs_test_store_exec (store, "CREATE TRIGGER refuse BEFORE INSERT ON messages"
                              " BEGIN SELECT RAISE (ABORT, 'refused'); END");

  message.conversation_id = conversation_id;
  g_assert_false (prs_store_insert_message (store, &message, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
  g_assert_cmpstr (error->message, ==, "Die Nachricht konnte nicht gespeichert werden: refused");

  g_clear_object (&store);
  prs_test_remove_tree (data_dir);
}

static void
on_listed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  GError **error = user_data;
  g_autoptr(GPtrArray) items = prs_n8n_client_list_workflows_finish (PRS_N8N_CLIENT (source), result, error);

  g_assert_null (items);
  g_assert_nonnull (*error);
}

/* n8n's errors are shown as they are: in Preferences (a URL refused as it
 * is typed) and on the Tools page (why discovery failed). */
static void
test_german_n8n_errors (void)
{
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", prs_test_free_port ());
  g_autoptr(PrsN8nClient) client = prs_n8n_client_new (url, "key");
  g_autoptr(GError) error = NULL;
  g_autofree char *normalized = prs_n8n_client_normalize_base_url ("ftp://x", &error);
  g_autofree char *expected = NULL;

  g_assert_null (normalized);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_assert_cmpstr (error->message, ==, "Die n8n-URL muss mit http:// oder https:// beginnen, nicht mit ftp:. "
                                       "Bitte die Adresse der n8n-Instanz eingeben, zum Beispiel http://127.0.0.1:5678.");
  g_clear_error (&error);

  prs_n8n_client_list_workflows_async (client, TRUE, NULL, on_listed, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_N8N_UNREACHABLE);
  expected = g_strdup_printf ("Verbindung zu n8n unter %s nicht möglich: Verbindung abgelehnt. Läuft n8n?", url);
  g_assert_cmpstr (error->message, ==, expected);
}

int
main (int   argc,
      char *argv[])
{
  const char *localedir = g_getenv ("PRS_TEST_LOCALEDIR");

  /* The test's environment names a German locale; without it installed
   * (build-aux/install-deps.sh generates it) this cannot show German. */
  if (setlocale (LC_ALL, "") == NULL)
    g_error ("The locale %s is not installed: run build-aux/install-deps.sh", g_getenv ("LC_ALL"));

  bindtextdomain (GETTEXT_PACKAGE, localedir != NULL ? localedir : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/translation/german-window", test_german_window);
  g_test_add_func ("/ui/translation/german-store-errors", test_german_store_errors);
  g_test_add_func ("/ui/translation/german-n8n-errors", test_german_n8n_errors);

  return g_test_run ();
}
