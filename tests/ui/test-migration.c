/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-migration.c: the real PrsApplication (its sources are compiled in)
 * under Xvfb on a database an older version wrote (docs/storage.md
 * "Migrations"). The window shows at once with a page saying that the
 * conversations are being updated and how far it has come; the normal
 * window replaces it when the migration is done. Quit (Ctrl+Q) during the
 * migration stops it and leaves the database as it was; a migration that
 * fails says why on the page, whose Quit ends the application. Steps
 * that change the schema alone are made at once, with no page.
 * PRS_TEST_MIGRATION_MESSAGES sets the history's size (screenshots of the
 * page, with PRS_SCREENSHOT_DIR, need a longer migration). */
#include "config.h"

#include <string.h>

#include "prs-application.h"
#include "prs-migration-window.h"
#include "prs-ui-test-util.h"

typedef struct
{
  PrsApplication *app;
  char           *dir;
  char           *db_path;
  gboolean        saw_page;
  gboolean        saw_window;
  gboolean        page_gone;     /* when the main window showed */
  gboolean        timed_out;
  double          last_fraction;
  gboolean        shrank;        /* the bar went back */
  gboolean        shot;
  guint           fractions;     /* different fractions seen */
  guint           poll_id;
  /* Another program (prosponsive-ctl) writes for this long as the app
   * starts: the migration waits for it, so the page stays up that long
   * however fast the machine */
  guint           hold_ms;
  int             exit_status;
  int             version_after;
} Run;

/* Enough that the page is up for a second or so on the test machine */
static guint
history_size (void)
{
  const char *size = g_getenv ("PRS_TEST_MIGRATION_MESSAGES");

  return size != NULL ? (guint) g_ascii_strtoull (size, NULL, 10) : 40000;
}

static PrsMigrationWindow *
find_page (Run *run)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (run->app)); l != NULL; l = l->next)
    if (PRS_IS_MIGRATION_WINDOW (l->data))
      return l->data;
  return NULL;
}

static PrsWindow *
find_main_window (Run *run)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (run->app)); l != NULL; l = l->next)
    if (PRS_IS_WINDOW (l->data))
      return l->data;
  return NULL;
}

static void
run_app (Run         *run,
         GSourceFunc  after_activate)
{
  GThread *holder = run->hold_ms > 0 ? prs_test_sql_hold (run->db_path, run->hold_ms) : NULL;

  run->app = prs_application_new ();
  /* after_activate runs before the migration's end */
  run->timed_out = prs_test_run_app_on (G_APPLICATION (run->app), run->dir, prs_test_free_port (),
                                        after_activate, run);
  g_clear_handle_id (&run->poll_id, g_source_remove);
  if (holder != NULL)
    g_thread_join (holder);
  run->exit_status = prs_application_get_exit_status (run->app);
  g_clear_object (&run->app);
  {
    g_autofree char *version = prs_test_sql_query (run->db_path, "PRAGMA user_version");

    run->version_after = (int) g_ascii_strtoll (version, NULL, 10);
  }
}

static void
run_setup (Run  *run,
           guint messages)
{
  g_autoptr(GError) error = NULL;

  run->dir = g_dir_make_tmp ("prs-migration-XXXXXX", &error);
  g_assert_no_error (error);
  run->db_path = g_build_filename (run->dir, "prosponsive.db", NULL);
  g_free (prs_test_sql_old_history (run->db_path, 13, "hangar-log", messages));
}

static void
run_clear (Run *run)
{
  prs_test_remove_tree (run->dir);
  g_clear_pointer (&run->dir, g_free);
  g_clear_pointer (&run->db_path, g_free);
}

/* The page as a person and a screen reader meet it */
static GtkProgressBar *
check_page (PrsMigrationWindow *page)
{
  GtkWidget *status = prs_test_find_named (GTK_WIDGET (page), "migration-status");
  GtkWidget *bar = prs_test_find_named (GTK_WIDGET (page), "migration-progress");

  g_assert_true (ADW_IS_STATUS_PAGE (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "Updating Your Conversations");
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "nothing is lost"));
  g_assert_true (GTK_IS_PROGRESS_BAR (bar));
  g_assert_true (gtk_widget_get_mapped (bar));
  return GTK_PROGRESS_BAR (bar);
}

static gboolean
poll_progress (gpointer user_data)
{
  Run *run = user_data;
  PrsMigrationWindow *page = find_page (run);
  PrsWindow *window = find_main_window (run);

  if (page != NULL)
    {
      GtkProgressBar *bar = GTK_PROGRESS_BAR (prs_test_find_named (GTK_WIDGET (page), "migration-progress"));
      double fraction = gtk_progress_bar_get_fraction (bar);

      if (fraction < run->last_fraction)
        run->shrank = TRUE;
      if (fraction != run->last_fraction)
        run->fractions++;
      run->last_fraction = fraction;
      /* Well on its way (with PRS_SCREENSHOT_DIR: a long history, or the
       * page is gone before the picture) */
      if (fraction >= 0.3 && !run->shot)
        {
          run->shot = TRUE;
          prs_test_screenshot (GTK_WIDGET (page), "migration-page");
        }
    }
  if (window == NULL)
    return G_SOURCE_CONTINUE;

  /* The normal window took the page's place */
  run->poll_id = 0;
  run->saw_window = TRUE;
  run->page_gone = page == NULL;
  prs_test_wait_frames (GTK_WIDGET (window), 2);
  g_action_group_activate_action (G_ACTION_GROUP (run->app), "quit", NULL);
  return G_SOURCE_REMOVE;
}

static gboolean
watch_migration (gpointer user_data)
{
  Run *run = user_data;
  PrsMigrationWindow *page = find_page (run);

  /* At once, and alone: no main window before the migration is done */
  g_assert_nonnull (page);
  g_assert_null (find_main_window (run));
  run->saw_page = TRUE;
  check_page (page);
  run->poll_id = g_timeout_add (10, poll_progress, run);
  return G_SOURCE_REMOVE;
}

static void
test_page_then_window (void)
{
  g_autofree char *before = NULL, *after = NULL;
  Run run = { 0 };

  run_setup (&run, history_size ());
  run.hold_ms = 1500;
  before = prs_test_sql_query (run.db_path, "SELECT count (*) || ' ' || total (length (content)) FROM messages");
  run_app (&run, watch_migration);
  g_assert_false (run.timed_out);
  g_assert_true (run.saw_page);
  g_assert_true (run.saw_window);
  g_assert_true (run.page_gone);
  g_assert_false (run.shrank);
  /* The bar moved while the page was up, and ended full */
  g_assert_cmpuint (run.fractions, >=, 2);
  g_assert_cmpfloat (run.last_fraction, ==, 1.0);
  g_assert_cmpint (run.exit_status, ==, 0);
  g_assert_cmpint (run.version_after, ==, prs_store_get_latest_version ());
  after = prs_test_sql_query (run.db_path, "SELECT count (*) || ' ' || total (length (content)) FROM messages");
  g_assert_cmpstr (after, ==, before);
  run_clear (&run);
}

static gboolean
close_page (gpointer user_data)
{
  Run *run = user_data;
  PrsMigrationWindow *page = find_page (run);

  g_assert_nonnull (page);
  run->saw_page = TRUE;
  prs_test_wait_frames (GTK_WIDGET (page), 1);
  /* As the window's close button does */
  gtk_window_close (GTK_WINDOW (page));
  return G_SOURCE_REMOVE;
}

/* Closing the page: the migration stops (its step undone) and the
 * application ends, the database at the version it was */
static void
test_quit_during (void)
{
  Run run = { 0 };

  run_setup (&run, history_size ());
  run.hold_ms = 2000;
  run_app (&run, close_page);
  g_assert_false (run.timed_out);
  g_assert_true (run.saw_page);
  g_assert_cmpint (run.version_after, ==, 13);
  run_clear (&run);
}

static gboolean
is_error_shown (gpointer user_data)
{
  Run *run = user_data;
  PrsMigrationWindow *page = find_page (run);

  return page != NULL && gtk_widget_get_visible (prs_test_find_named (GTK_WIDGET (page), "migration-quit"));
}

static gboolean
answer_failure (gpointer user_data)
{
  Run *run = user_data;
  PrsMigrationWindow *page;
  GtkWidget *status, *quit;

  g_assert_true (prs_test_wait_until (is_error_shown, run));
  page = find_page (run);
  run->saw_page = TRUE;
  status = prs_test_find_named (GTK_WIDGET (page), "migration-status");
  quit = prs_test_find_named (GTK_WIDGET (page), "migration-quit");
  /* Why, in words, and that nothing was lost */
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==,
                   "Your Conversations Could Not Be Updated");
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "messages_new"));
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "Nothing in your conversations is lost"));
  g_assert_false (gtk_widget_get_visible (prs_test_find_named (GTK_WIDGET (page), "migration-progress")));
  g_assert_null (find_main_window (run));
  prs_test_wait_frames (GTK_WIDGET (page), 1);
  prs_test_screenshot (GTK_WIDGET (page), "migration-failed");
  /* Quit has the focus: Enter ends the application */
  g_assert_true (gtk_widget_has_focus (quit));
  prs_test_press_keys (GTK_WIDGET (page), "Return");
  return G_SOURCE_REMOVE;
}

static void
test_failure_said (void)
{
  Run run = { 0 };

  run_setup (&run, 100);
  /* Migration 14 makes messages_new: here one is in its way */
  g_free (prs_test_sql_query (run.db_path, "CREATE TABLE messages_new (x)"));
  run_app (&run, answer_failure);
  g_assert_false (run.timed_out);
  g_assert_true (run.saw_page);
  g_assert_cmpint (run.exit_status, ==, EXIT_FAILURE);
  g_assert_cmpint (run.version_after, ==, 13);
  run_clear (&run);
}

static gboolean
see_windows (gpointer user_data)
{
  Run *run = user_data;

  run->saw_page = find_page (run) != NULL;
  run->saw_window = find_main_window (run) != NULL;
  g_application_quit (G_APPLICATION (run->app));
  return G_SOURCE_REMOVE;
}

/* Steps that change the schema alone (15 makes a table) take
 * milliseconds: made at once, with no page flashing by */
static void
test_schema_only_at_once (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  Run run = { 0 };

  run.dir = g_dir_make_tmp ("prs-migration-XXXXXX", &error);
  g_assert_no_error (error);
  run.db_path = g_build_filename (run.dir, "prosponsive.db", NULL);
  store = prs_store_new_at_version (run.db_path, 14, &error);
  g_assert_no_error (error);
  g_clear_object (&store);

  run_app (&run, see_windows);
  g_assert_false (run.timed_out);
  g_assert_false (run.saw_page);
  g_assert_true (run.saw_window);
  g_assert_cmpint (run.exit_status, ==, 0);
  g_assert_cmpint (run.version_after, ==, prs_store_get_latest_version ());
  run_clear (&run);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  /* First: its keys reach only the first application of the process */
  g_test_add_func ("/prs/migration/failure-said", test_failure_said);
  g_test_add_func ("/prs/migration/page-then-window", test_page_then_window);
  g_test_add_func ("/prs/migration/quit-during", test_quit_during);
  g_test_add_func ("/prs/migration/schema-only-at-once", test_schema_only_at_once);

  return g_test_run ();
}
