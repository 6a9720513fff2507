/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-background.c: the real PrsApplication (its sources are compiled in)
 * under Xvfb. With keep-running-in-background on (the default), closing
 * the last window leaves the service running: /api/health still answers
 * over HTTPS, until app.quit ends it. With the setting off, closing the
 * window ends the application. A data folder that must be refused is said in
 * a dialog. */
#include "config.h"

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "prs-application.h"
#include "prs-ui-test-util.h"

typedef struct
{
  PrsApplication *app;
  guint           port;
  guint           health_status;
  gboolean        closed_window;
  gboolean        quit_requested;
  gboolean        timed_out;
  int             exit_status;
  char           *refusal;       /* the start error dialog's text */
} Run;

static gboolean
accept_any (SoupMessage *m, GTlsCertificate *c, GTlsCertificateFlags e, gpointer d)
{
  return TRUE;
}

static void
on_health (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Run *run = user_data;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, NULL);

  run->health_status = soup_message_get_status (soup_session_get_async_result_message (SOUP_SESSION (source), result));
  /* Quit (Ctrl+Q / the menu) ends the background service. */
  run->quit_requested = TRUE;
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
}

static gboolean
check_health (gpointer user_data)
{
  Run *run = user_data;
  static SoupSession *session;
  g_autofree char *url = g_strdup_printf ("https://127.0.0.1:%u/api/health", run->port);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);

  /* No window is left, yet the application still runs. */
  g_assert_null (gtk_application_get_windows (GTK_APPLICATION (run->app)));
  if (session == NULL)
    session = soup_session_new ();
  g_signal_connect (msg, "accept-certificate", G_CALLBACK (accept_any), NULL);
  soup_session_send_and_read_async (session, msg, G_PRIORITY_DEFAULT, NULL, on_health, run);
  return G_SOURCE_REMOVE;
}

static gboolean
close_window (gpointer user_data)
{
  Run *run = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (run->app));

  /* The first-run window may be over the main window: close them all. */
  while ((windows = gtk_application_get_windows (GTK_APPLICATION (run->app))) != NULL)
    gtk_window_destroy (GTK_WINDOW (windows->data));
  run->closed_window = TRUE;
  g_timeout_add (300, check_health, run);
  return G_SOURCE_REMOVE;
}

static gboolean
close_only (gpointer user_data)
{
  Run *run = user_data;
  GList *windows;

  while ((windows = gtk_application_get_windows (GTK_APPLICATION (run->app))) != NULL)
    gtk_window_destroy (GTK_WINDOW (windows->data));
  run->closed_window = TRUE;
  return G_SOURCE_REMOVE;
}

static void
run_app_in (Run         *run,
            const char  *dir,
            GSourceFunc  after_activate)
{
  run->port = prs_test_free_port ();
  run->app = prs_application_new ();
  run->timed_out = prs_test_run_app_on (G_APPLICATION (run->app), dir, run->port, after_activate, run);
  run->exit_status = prs_application_get_exit_status (run->app);
  g_clear_object (&run->app);
}

static void
run_app (Run        *run,
         GSourceFunc after_activate)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prs-background-XXXXXX", &error);

  g_assert_no_error (error);
  run_app_in (run, dir, after_activate);
  prs_test_remove_tree (dir);
}

static void
test_keeps_running (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  Run run = { 0 };

  g_settings_reset (settings, "keep-running-in-background");
  run_app (&run, close_window);
  g_assert_false (run.timed_out);
  g_assert_true (run.closed_window);
  g_assert_true (run.quit_requested);
  g_assert_cmpuint (run.health_status, ==, 200);
}

static void
test_quits_when_off (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  Run run = { 0 };

  g_settings_set_boolean (settings, "keep-running-in-background", FALSE);
  run_app (&run, close_only);
  g_settings_reset (settings, "keep-running-in-background");
  /* The run ended by itself when the window closed, not by the timeout. */
  g_assert_true (run.closed_window);
  g_assert_false (run.timed_out);
}

static gboolean
answer_start_error (gpointer user_data)
{
  Run *run = user_data;
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (run->app));

  /* The service did not start: one window, the dialog saying why */
  g_assert_cmpuint (g_list_length (windows), ==, 1);
  g_assert_true (ADW_IS_MESSAGE_DIALOG (windows->data));
  run->refusal = g_strdup (adw_message_dialog_get_body (windows->data));
  adw_message_dialog_response (windows->data, "quit");
  return G_SOURCE_REMOVE;
}

/* A data folder the app must refuse (here a prosponsive.db planted as a
 * link) is said in a window, not only on a terminal nobody sees; Quit
 * ends the application with a failure status. */
static void
test_start_refused (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prs-background-XXXXXX", &error);
  g_autofree char *target = g_build_filename (dir, "elsewhere.db", NULL);
  g_autofree char *data = g_build_filename (dir, "data", NULL);
  g_autofree char *db = g_build_filename (data, "prosponsive.db", NULL);
  Run run = { 0 };

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (data, 0700), ==, 0);
  g_assert_cmpint (symlink (target, db), ==, 0);

  run_app_in (&run, data, answer_start_error);
  g_assert_false (run.timed_out);
  g_assert_nonnull (run.refusal);
  g_assert_nonnull (strstr (run.refusal, db));
  g_assert_nonnull (strstr (run.refusal, "symbolic link"));
  g_assert_cmpint (run.exit_status, ==, EXIT_FAILURE);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));

  g_free (run.refusal);
  prs_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/background/keeps-running", test_keeps_running);
  g_test_add_func ("/ui/background/quits-when-off", test_quits_when_off);
  g_test_add_func ("/ui/background/start-refused", test_start_refused);
  return g_test_run ();
}
