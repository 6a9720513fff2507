/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-background.c: the real PrsApplication (its sources are compiled in)
 * under Xvfb. With keep-running-in-background on (the default), closing
 * the last window leaves the service running: /api/health still answers
 * over HTTPS, until app.quit ends it. With the setting off, closing the
 * window ends the application. */
#include "config.h"

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

static gboolean
give_up (gpointer user_data)
{
  Run *run = user_data;

  run->timed_out = TRUE;
  g_application_quit (G_APPLICATION (run->app));
  return G_SOURCE_REMOVE;
}

static void
run_app (Run        *run,
         GSourceFunc after_activate)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prs-background-XXXXXX", &error);
  g_autofree char *port = NULL;
  guint timeout;
  int status;

  g_assert_no_error (error);
  run->port = prs_test_free_port ();
  port = g_strdup_printf ("%u", run->port);
  {
    char *argv[] = { (char *) "prosponsive", (char *) "--data-dir", dir, (char *) "--port", port, NULL };

    run->app = prs_application_new ();
    timeout = g_timeout_add_seconds (30, give_up, run);
    g_idle_add (after_activate, run);
    status = g_application_run (G_APPLICATION (run->app), G_N_ELEMENTS (argv) - 1, argv);
  }
  g_assert_cmpint (status, ==, 0);
  if (!run->timed_out)
    g_source_remove (timeout);
  g_clear_object (&run->app);
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/background/keeps-running", test_keeps_running);
  g_test_add_func ("/ui/background/quits-when-off", test_quits_when_off);
  return g_test_run ();
}
