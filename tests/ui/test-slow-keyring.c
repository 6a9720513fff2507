/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-slow-keyring.c: the real PrsApplication (its sources compiled in)
 * under Xvfb, on a session bus of its own whose Secret Service answers every
 * call 10 s late: prs-slow-secret-service in front of the real
 * gnome-keyring-daemon that tests/run-with-keyring.sh started on another
 * private bus. The window must present its first frame long before the
 * keyring's first answer, the main loop and the frame clock must keep going
 * while the keyring has not answered (Preferences opens, its pages switch),
 * and once the keyring has answered, what depends on a secret is right: the
 * n8n page says a key is stored. Secrets read on the main thread would
 * freeze the window for the whole wait. */
#include "config.h"

#include <glib/gstdio.h>

#include "prs-application.h"
#include "prs-preferences-window.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

#define KEYRING_DELAY_MS     10000
/* Half the keyring's delay: a window that waited for any answer of the
 * keyring would come after 10 s. How fast the first frame comes is
 * measured, not asserted: bench/run's startup line. */
#define FIRST_FRAME_MAX_US   (KEYRING_DELAY_MS * 1000 / 2)
/* The longest the main loop, or the frame clock, may stall: a tenth of
 * the keyring's delay, so that any wait for the keyring on the main thread
 * fails, while a machine busy beside the test (176 ms seen) does not */
#define STALL_MAX_US         (KEYRING_DELAY_MS * 1000 / 10)
#define PROBE_INTERVAL_MS    20
/* Each step of the keyring chain (session, search, secrets) takes 10 s */
#define ANSWER_MAX_US        (90 * G_USEC_PER_SEC)
#define KEY_STORED_TITLE     "API Key (stored; type a new one to replace it)"

typedef struct
{
  char           *data_dir;
  PrsApplication *app;
  gint64          start;         /* g_application_run () called */
  gint64          first_paint;   /* the main window's first frame drawn */
  gint64          last_probe;
  gint64          probe_max_gap; /* the main loop's longest stall */
  gint64          last_frame;
  gint64          frame_max_gap; /* the frame clock's longest stall */
  guint           frames;
  guint           prefs_frames;
  gboolean        measuring;
} Run;

static void
on_first_paint (GdkFrameClock *clock,
                Run           *run)
{
  g_signal_handlers_disconnect_by_func (clock, on_first_paint, run);
  run->first_paint = g_get_monotonic_time ();
}

static void
on_window_realize (GtkWidget *window,
                   Run       *run)
{
  g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint", G_CALLBACK (on_first_paint), run);
}

static void
on_window_added (GtkApplication *app,
                 GtkWindow      *window,
                 Run            *run)
{
  /* Only the first window is the main one */
  if (run->first_paint == 0 && !gtk_widget_get_realized (GTK_WIDGET (window)))
    g_signal_connect_after (window, "realize", G_CALLBACK (on_window_realize), run);
}

static gboolean
probe (gpointer user_data)
{
  Run *run = user_data;
  gint64 now = g_get_monotonic_time ();

  if (run->measuring && run->last_probe != 0)
    run->probe_max_gap = MAX (run->probe_max_gap, now - run->last_probe);
  run->last_probe = now;
  return G_SOURCE_CONTINUE;
}

/* Keeps the frame clock drawing every frame, and measures its gaps */
static gboolean
on_tick (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       user_data)
{
  Run *run = user_data;
  gint64 now = g_get_monotonic_time ();

  if (run->measuring && run->last_frame != 0)
    {
      run->frame_max_gap = MAX (run->frame_max_gap, now - run->last_frame);
      run->frames++;
    }
  run->last_frame = now;
  return G_SOURCE_CONTINUE;
}

static gboolean
wake_up (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* Runs the main context until @condition holds or @deadline (monotonic) */
static gboolean
iterate_until (gboolean (*condition) (gpointer data),
               gpointer   data,
               gint64     deadline)
{
  /* Wakes the loop up now and then, so that the deadline is seen */
  guint wake = g_timeout_add (50, wake_up, NULL);

  while (!condition (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (wake);
  return condition (data);
}

static gboolean
never (gpointer data)
{
  return FALSE;
}

static gboolean
window_painted (gpointer data)
{
  return ((Run *) data)->first_paint != 0;
}

static gboolean
key_title_is_stored (gpointer data)
{
  return g_strcmp0 (adw_preferences_row_get_title (data), KEY_STORED_TITLE) == 0;
}

static gboolean
prefs_painted (gpointer data)
{
  return ((Run *) data)->prefs_frames > 0;
}

static void
count_prefs_frame (GdkFrameClock *clock,
                   Run           *run)
{
  run->prefs_frames++;
}

/* Opens Preferences as the menu would and waits for its first frame: it
 * asks the keyring whether an n8n key is stored, without waiting on it. */
static GtkWidget *
open_preferences (Run       *run,
                  GtkWindow *main_window)
{
  GtkWidget *prefs = NULL;
  g_autoptr(GList) toplevels = NULL;
  gint64 asked = g_get_monotonic_time ();

  gtk_widget_activate_action (GTK_WIDGET (main_window), "win.preferences", NULL);
  toplevels = gtk_window_list_toplevels ();
  for (GList *l = toplevels; l != NULL; l = l->next)
    if (PRS_IS_PREFERENCES_WINDOW (l->data))
      prefs = l->data;
  g_assert_nonnull (prefs);
  /* Presented, so realized: its first frame is still to come */
  g_assert_true (gtk_widget_get_realized (prefs));
  g_signal_connect (gtk_widget_get_frame_clock (prefs), "after-paint", G_CALLBACK (count_prefs_frame), run);
  g_assert_true (iterate_until (prefs_painted, run, asked + FIRST_FRAME_MAX_US));
  g_signal_handlers_disconnect_by_func (gtk_widget_get_frame_clock (prefs), count_prefs_frame, run);
  return prefs;
}

static gboolean
drive (gpointer user_data)
{
  Run *run = user_data;
  GtkWindow *window;
  GtkWidget *prefs, *key_row;
  static const char * const pages[] = { "n8n", "providers", "api", "general", "n8n", NULL };
  guint probe_id;
  gint64 keyring_due;

  /* The first frame, long before the keyring's first answer */
  g_assert_true (iterate_until (window_painted, run, run->start + 10 * G_USEC_PER_SEC));
  g_test_message ("first frame after %" G_GINT64_FORMAT " ms", (run->first_paint - run->start) / 1000);
  g_assert_cmpint (run->first_paint - run->start, <, FIRST_FRAME_MAX_US);
  window = gtk_application_get_active_window (GTK_APPLICATION (run->app));
  g_assert_true (PRS_IS_WINDOW (window));

  /* From now until the keyring's first answer can come (no call is
   * answered sooner than 10 s after the start): the main loop and the
   * frames go on */
  probe_id = g_timeout_add (PROBE_INTERVAL_MS, probe, run);
  gtk_widget_add_tick_callback (GTK_WIDGET (window), on_tick, run, NULL);
  run->measuring = TRUE;

  /* Building Preferences and laying it out is work of its own, bounded
   * by its first frame coming long before the keyring answers; the stalls measured are
   * those of a window that waits for nothing but the keyring */
  run->measuring = FALSE;
  prefs = open_preferences (run, window);
  run->last_probe = run->last_frame = 0;
  run->measuring = TRUE;
  key_row = prs_test_find_named (prefs, "n8n-key");
  for (guint i = 0; pages[i] != NULL; i++)
    {
      adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), pages[i]);
      g_assert_cmpstr (adw_preferences_window_get_visible_page_name (ADW_PREFERENCES_WINDOW (prefs)), ==, pages[i]);
      prs_test_wait_frames (prefs, 2);
    }
  keyring_due = run->start + KEYRING_DELAY_MS * 1000;
  iterate_until (never, NULL, keyring_due);
  /* A main loop blocked until now shows here, not in a probe to come */
  probe (run);
  run->measuring = FALSE;
  g_source_remove (probe_id);
  g_test_message ("until the keyring's first answer: longest stall of the main loop %" G_GINT64_FORMAT
                  " ms, of the frames %" G_GINT64_FORMAT " ms (%u frames)",
                  run->probe_max_gap / 1000, run->frame_max_gap / 1000, run->frames);
  g_assert_cmpint (run->probe_max_gap, <, STALL_MAX_US);
  g_assert_cmpint (run->frame_max_gap, <, STALL_MAX_US);
  g_assert_cmpuint (run->frames, >, 10 * (KEYRING_DELAY_MS / 1000) / 2);
  /* The keyring has not answered yet: the row is titled, the key not known to be stored */
  g_assert_false (key_title_is_stored (key_row));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (key_row)), ==, "API Key");

  /* Then the answer comes, and the n8n page says a key is stored */
  g_assert_true (iterate_until (key_title_is_stored, key_row, run->start + ANSWER_MAX_US));
  g_test_message ("the n8n key was known after %" G_GINT64_FORMAT " ms",
                  (g_get_monotonic_time () - run->start) / 1000);

  gtk_window_destroy (GTK_WINDOW (prefs));
  g_application_quit (G_APPLICATION (run->app));
  return G_SOURCE_REMOVE;
}

/* Stores an n8n URL and key the way a person would, with prosponsive-ctl,
 * straight into the keyring (no delay: its own bus) */
static void
seed_n8n_key (const char *data_dir)
{
  g_autoptr(GSubprocess) ctl = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u", prs_test_free_port ());
  g_autofree char *fallback = g_build_filename (data_dir, "secrets.json", NULL);

  ctl = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_SILENCE, &error,
                          g_getenv ("PRS_TEST_CTL"), "--data-dir", data_dir,
                          "n8n", "set", "--url", url, "--api-key-stdin", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (ctl, "n8n-key-in-the-keyring\n", NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_successful (ctl));
  /* In the keyring, not in the fallback file */
  g_assert_false (g_file_test (fallback, G_FILE_TEST_EXISTS));
}

/* prs-slow-secret-service on the current session bus, in front of the
 * keyring on @keyring_bus; returns once it owns the name */
static GSubprocess *
start_slow_service (const char *keyring_bus)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *helper = g_test_build_filename (G_TEST_BUILT, "prs-slow-secret-service", NULL);
  g_autofree char *delay = g_strdup_printf ("%u", KEYRING_DELAY_MS);
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *line = NULL;
  GSubprocess *service;

  service = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, helper, keyring_bus, delay, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (service));
  line = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (line, ==, "ready");
  return service;
}

static void
test_slow_keyring (void)
{
  g_autoptr(GError) error = NULL;
  /* Kept to the end of the process: its last unref would wait for the
   * application's connection to go, which libsecret keeps */
  static GTestDBus *bus;
  g_autoptr(GSubprocess) slow = NULL;
  g_autofree char *keyring_bus = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));
  g_autofree char *display = g_strdup (g_getenv ("DISPLAY"));
  g_autofree char *port = g_strdup_printf ("%u", prs_test_free_port ());
  g_autofree char *fallback = NULL;
  Run run = { 0 };
  int status;

  if (g_getenv ("PRS_KEYRING_INNER") == NULL)
    {
      g_test_skip ("run through tests/run-with-keyring.sh (meson test does)");
      return;
    }
  g_assert_nonnull (g_getenv ("PRS_TEST_CTL"));
  g_assert_nonnull (keyring_bus);
  g_assert_nonnull (display);
  run.data_dir = g_dir_make_tmp ("prs-slow-keyring-XXXXXX", &error);
  g_assert_no_error (error);
  seed_n8n_key (run.data_dir);

  /* From here on the session bus is a new one, where only the slow
   * service offers secrets */
  bus = g_test_dbus_new (G_TEST_DBUS_NONE);
  g_test_dbus_up (bus);
  /* which unsets the X server's address too */
  g_setenv ("DISPLAY", display, TRUE);
  slow = start_slow_service (keyring_bus);

  {
    char *argv[] = { (char *) "prosponsive", (char *) "--data-dir", run.data_dir, (char *) "--port", port, NULL };

    run.app = prs_application_new ();
    g_signal_connect (run.app, "window-added", G_CALLBACK (on_window_added), &run);
    g_idle_add (drive, &run);
    run.start = g_get_monotonic_time ();
    status = g_application_run (G_APPLICATION (run.app), G_N_ELEMENTS (argv) - 1, argv);
  }
  g_assert_cmpint (status, ==, 0);
  g_clear_object (&run.app);

  fallback = g_build_filename (run.data_dir, "secrets.json", NULL);
  g_assert_false (g_file_test (fallback, G_FILE_TEST_EXISTS));
  g_subprocess_force_exit (slow);
  g_subprocess_wait (slow, NULL, NULL);
  g_test_dbus_stop (bus);
  prs_test_remove_tree (run.data_dir);
  g_free (run.data_dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ui/slow-keyring/window-never-waits", test_slow_keyring);
  return g_test_run ();
}
