/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-store-migrate.c: a migration of a large history on a worker thread
 * (prs_store_migrate_async, docs/storage.md "Migrations"): its progress
 * reaches the caller's thread, only grows and ends at 1.0; the history is
 * intact after it; a cancelled one leaves the database as it was; an
 * up-to-date or new database opens at once without it. prosponsive-ctl
 * says it updates the database; prosponsive --headless logs how far it
 * has come and starts its API after (both from the build, beside). */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "prs-error.h"
#include "prs-store.h"
#include "prs-test-util.h"

typedef PrsTestStoreDir Fixture;

/* Enough rows that migration 14 runs long enough to report from within
 * (a few hundred milliseconds here) */
#define HISTORY_MESSAGES 20000
/* … and runs that migrations 8 and 13 do (each with a model call) */
#define HISTORY_RUNS 5000

/* What must survive a migration: every message's columns and what the
 * search index finds */
#define HISTORY_DIGEST \
  "SELECT count (*) || ' ' || total (length (content)) || ' ' || max (rowid) || ' ' ||" \
  "  (SELECT count (*) FROM message_search WHERE message_search MATCH 'hangar') || ' ' ||" \
  "  (SELECT count (*) FROM message_search WHERE message_search MATCH '\"flight 7919\"') || ' ' ||" \
  "  (SELECT group_concat (id || kind || seq || created_at, '') FROM" \
  "     (SELECT * FROM messages WHERE rowid % 997 = 0 ORDER BY rowid))" \
  " FROM messages"

typedef struct
{
  GArray   *fractions;
  GThread  *thread;         /* where the reports must arrive */
  gboolean  wrong_thread;
  gboolean  notified;       /* progress_notify ran */
  gboolean  reported_after_notify;
  gboolean  done;
  gboolean  ok;
  GError   *error;
  GCancellable *cancel_at;  /* cancelled at the first report past 0.2 */
} Watch;

static void
on_progress (double   fraction,
             gpointer user_data)
{
  Watch *watch = user_data;

  if (g_thread_self () != watch->thread)
    watch->wrong_thread = TRUE;
  if (watch->notified)
    watch->reported_after_notify = TRUE;
  g_array_append_val (watch->fractions, fraction);
  if (watch->cancel_at != NULL && fraction > 0.2)
    g_cancellable_cancel (watch->cancel_at);
}

static void
on_progress_notify (gpointer user_data)
{
  Watch *watch = user_data;

  if (g_thread_self () != watch->thread)
    watch->wrong_thread = TRUE;
  watch->notified = TRUE;
}

static void
on_migrated (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Watch *watch = user_data;

  watch->ok = prs_store_migrate_finish (result, &watch->error);
  watch->done = TRUE;
}

static void
watch_run (Watch      *watch,
           const char *data_dir)
{
  watch->fractions = g_array_new (FALSE, FALSE, sizeof (double));
  watch->thread = g_thread_self ();
  prs_store_migrate_async (data_dir, on_progress, watch, on_progress_notify, watch->cancel_at,
                           on_migrated, watch);
  while (!watch->done || !watch->notified)
    g_main_context_iteration (NULL, TRUE);
}

static void
watch_clear (Watch *watch)
{
  g_clear_pointer (&watch->fractions, g_array_unref);
  g_clear_error (&watch->error);
  g_clear_object (&watch->cancel_at);
  *watch = (Watch) { 0 };
}

static int
version_of (Fixture *fixture)
{
  g_autofree char *text = prs_test_sql_query (fixture->db_path, "PRAGMA user_version");

  return (int) g_ascii_strtoll (text, NULL, 10);
}

/* The window's and the headless service's start on a database version 13
 * wrote: it is seen to be outdated without being changed, migrated on a
 * worker with progress told on this thread, and its history is intact */
static void
test_worker_progress (Fixture       *fixture,
                      gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *before = NULL, *after = NULL, *check = NULL;
  Watch watch = { 0 };
  gboolean outdated = FALSE;
  guint within = 0;

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", HISTORY_MESSAGES));
  before = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);

  store = prs_store_new_unless_outdated (fixture->dir, &outdated, &error);
  g_assert_no_error (error);
  g_assert_null (store);
  g_assert_true (outdated);
  g_assert_cmpint (version_of (fixture), ==, 13);

  watch_run (&watch, fixture->dir);
  g_assert_no_error (watch.error);
  g_assert_true (watch.ok);
  g_assert_false (watch.wrong_thread);
  g_assert_false (watch.reported_after_notify);

  /* From 0.0 to 1.0, growing at every report, with reports between:
   * from within migration 14, the only step, as it copies the rows */
  g_assert_cmpuint (watch.fractions->len, >=, 3);
  g_assert_cmpfloat (g_array_index (watch.fractions, double, 0), ==, 0.0);
  g_assert_cmpfloat (g_array_index (watch.fractions, double, watch.fractions->len - 1), ==, 1.0);
  for (guint i = 1; i < watch.fractions->len; i++)
    {
      double fraction = g_array_index (watch.fractions, double, i);

      g_assert_cmpfloat (fraction, >, g_array_index (watch.fractions, double, i - 1));
      if (fraction > 0.0 && fraction < 1.0)
        within++;
    }
  g_assert_cmpuint (within, >=, 10);


  g_assert_cmpint (version_of (fixture), ==, prs_store_get_latest_version ());
  after = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);
  g_assert_cmpstr (after, ==, before);
  check = prs_test_sql_query (fixture->db_path, "PRAGMA integrity_check");
  g_assert_cmpstr (check, ==, "ok");

  /* Now up to date: it opens at once */
  store = prs_store_new_unless_outdated (fixture->dir, &outdated, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  g_assert_false (outdated);
  watch_clear (&watch);
}

typedef struct
{
  const char *db_path;
  GArray     *fractions;
  GArray     *versions;   /* int: the version committed at each report */
} Versioned;

/* Told on the migrating thread, within its step: another connection reads
 * the version committed so far (the running step's is not yet) */
static void
on_versioned_progress (double   fraction,
                       gpointer user_data)
{
  Versioned *versioned = user_data;
  g_autofree char *text = prs_test_sql_query (versioned->db_path, "PRAGMA user_version");
  int version = (int) g_ascii_strtoll (text, NULL, 10);

  g_array_append_val (versioned->fractions, fraction);
  g_array_append_val (versioned->versions, version);
}

/* The reports while step @step ran: those after step @step - 1 committed,
 * before @step did — its start's own report the first of them, at most */
static guint
reports_during (Versioned *versioned,
                int        step)
{
  guint n = 0;

  for (guint i = 0; i < versioned->versions->len; i++)
    if (g_array_index (versioned->versions, int, i) == step - 1)
      n++;
  return n;
}

/* A database older than model_calls (version 4, the first with runs):
 * migration 8 makes the model calls of the runs' transcripts, and 13
 * copies them with the runs. Counted before the first step, the table was
 * not there; the bar moves all the same while each of them runs, grows at
 * every report and ends at 1.0 */
static void
test_progress_counted_late (Fixture       *fixture,
                            gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *chat = prs_test_sql_old_history (fixture->db_path, 4, "inbox", 10);
  g_autofree char *calls = NULL;
  Versioned versioned = { fixture->db_path, g_array_new (FALSE, FALSE, sizeof (double)),
                          g_array_new (FALSE, FALSE, sizeof (int)) };

  prs_test_sql_old_runs (fixture->db_path, chat, HISTORY_RUNS);
  store = prs_store_new_with_progress (fixture->dir, on_versioned_progress, &versioned, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, prs_store_get_latest_version ());
  calls = prs_test_sql_query (fixture->db_path, "SELECT count (*) FROM model_calls");
  g_assert_cmpstr (calls, ==, G_STRINGIFY (HISTORY_RUNS));

  g_assert_cmpfloat (g_array_index (versioned.fractions, double, 0), ==, 0.0);
  g_assert_cmpfloat (g_array_index (versioned.fractions, double, versioned.fractions->len - 1), ==, 1.0);
  for (guint i = 1; i < versioned.fractions->len; i++)
    g_assert_cmpfloat (g_array_index (versioned.fractions, double, i), >,
                       g_array_index (versioned.fractions, double, i - 1));
  /* Reports strictly between the step's start and its commit */
  g_assert_cmpuint (reports_during (&versioned, 13), >=, 3);
  g_assert_cmpuint (reports_during (&versioned, 8), >=, 3);
  g_array_unref (versioned.fractions);
  g_array_unref (versioned.versions);
}

/* Stopped within its step (Quit on the page, SIGTERM headless): the step's
 * transaction is undone, the database is as it was, and it can be
 * migrated again */
static void
test_worker_cancelled (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autofree char *before = NULL, *after = NULL;
  Watch watch = { 0 };

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", HISTORY_MESSAGES));
  before = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);

  watch.cancel_at = g_cancellable_new ();
  watch_run (&watch, fixture->dir);
  g_assert_error (watch.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (watch.ok);
  g_assert_cmpfloat (g_array_index (watch.fractions, double, watch.fractions->len - 1), <, 1.0);
  g_assert_cmpint (version_of (fixture), ==, 13);
  after = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);
  g_assert_cmpstr (after, ==, before);
  watch_clear (&watch);

  watch_run (&watch, fixture->dir);
  g_assert_no_error (watch.error);
  g_assert_cmpint (version_of (fixture), ==, prs_store_get_latest_version ());
  watch_clear (&watch);
}

/* A step that fails says why and leaves the database as it was (each
 * step is its own transaction) */
static void
test_worker_fails (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autofree char *before = NULL, *after = NULL;
  Watch watch = { 0 };

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", 100));
  /* Migration 14 makes messages_new: here one is in its way */
  g_free (prs_test_sql_query (fixture->db_path, "CREATE TABLE messages_new (x)"));
  before = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);

  watch_run (&watch, fixture->dir);
  g_assert_error (watch.error, PRS_ERROR, PRS_ERROR_STORE);
  g_assert_nonnull (strstr (watch.error->message, "version 14"));
  g_assert_cmpint (version_of (fixture), ==, 13);
  after = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);
  g_assert_cmpstr (after, ==, before);
  watch_clear (&watch);
}

/* A caller that stops iterating in its callback (the application quits
 * there when the migration was stopped or failed) has heard
 * progress_notify by then: what it frees (the application's reference)
 * is not left to a source that never runs */
static void
test_worker_notified_by_callback (Fixture       *fixture,
                                  gconstpointer  user_data)
{
  Watch watch = { 0 };

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", 100));
  watch.fractions = g_array_new (FALSE, FALSE, sizeof (double));
  watch.thread = g_thread_self ();
  prs_store_migrate_async (fixture->dir, on_progress, &watch, on_progress_notify, NULL, on_migrated, &watch);
  while (!watch.done)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (watch.notified);
  g_assert_true (watch.ok);
  g_assert_false (watch.wrong_thread);
  watch_clear (&watch);
}

static void
on_migrated_unwatched (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  GError **error = user_data;

  g_assert_false (prs_store_migrate_finish (result, error));
}

/* Nobody listening to the progress: cancelling still stops it, and the
 * database stays as it was (prs-store.h) */
static void
test_worker_cancelled_unwatched (Fixture       *fixture,
                                 gconstpointer  user_data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", 100));
  g_cancellable_cancel (cancellable);
  prs_store_migrate_async (fixture->dir, NULL, NULL, NULL, cancellable, on_migrated_unwatched, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (version_of (fixture), ==, 13);
}

static gboolean
cancel_now (gpointer cancellable)
{
  g_cancellable_cancel (cancellable);
  return G_SOURCE_REMOVE;
}

/* Another program holds the write lock: a Quit meanwhile stops the
 * migration at once, not when SQLite's wait for the lock ends (the
 * progress handler does not run while SQLite waits) */
static void
test_worker_cancelled_while_locked (Fixture       *fixture,
                                    gconstpointer  user_data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  GThread *hold;
  gint64 start;

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", 100));
  before = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);
  hold = prs_test_sql_hold (fixture->db_path, 4000);
  start = g_get_monotonic_time ();
  prs_store_migrate_async (fixture->dir, NULL, NULL, NULL, cancellable, on_migrated_unwatched, &error);
  g_timeout_add (300, cancel_now, cancellable);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  /* Cancelled after 0.3 s; the lock is let go after 4 s */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_thread_join (hold);
  g_assert_cmpint (version_of (fixture), ==, 13);
  after = prs_test_sql_query (fixture->db_path, HISTORY_DIGEST);
  g_assert_cmpstr (after, ==, before);
}

static void
count_call (double   fraction,
            gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* A new database is made at once, an up-to-date one just opened: neither
 * is outdated, and nobody hears of progress (prosponsive-ctl says nothing) */
static void
test_new_and_current (Fixture       *fixture,
                      gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;
  g_autofree char *old_dir = g_build_filename (fixture->dir, "old", NULL);
  g_autofree char *old_path = g_build_filename (old_dir, "prosponsive.db", NULL);
  g_autofree char *new_dir = g_build_filename (fixture->dir, "new", NULL);
  gboolean outdated = TRUE;
  guint calls = 0;

  store = prs_store_new_unless_outdated (fixture->dir, &outdated, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  g_assert_false (outdated);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, prs_store_get_latest_version ());
  g_clear_object (&store);

  /* Made new with someone listening: still not a word */
  g_assert_cmpint (g_mkdir (new_dir, 0700), ==, 0);
  store = prs_store_new_with_progress (new_dir, count_call, &calls, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, prs_store_get_latest_version ());
  g_assert_cmpuint (calls, ==, 0);
  g_clear_object (&store);

  store = prs_store_new_with_progress (fixture->dir, count_call, &calls, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls, ==, 0);
  g_clear_object (&store);

  /* An older one: told on this thread, from 0.0 to 1.0 */
  g_assert_cmpint (g_mkdir (old_dir, 0700), ==, 0);
  g_free (prs_test_sql_old_history (old_path, 12, "inbox", 10));
  store = prs_store_new_with_progress (old_dir, count_call, &calls, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls, >=, 2);
}

/* prosponsive-ctl opens the database per command: before a migration
 * that takes a step it says so on standard error, once; not otherwise */
static void
test_ctl_says (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autofree char *ctl = g_test_build_filename (G_TEST_BUILT, "..", "src", "app", "prosponsive-ctl", NULL);

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", 100));
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *out = NULL, *err = NULL;
      const char *argv[] = { ctl, "--data-dir", fixture->dir, "conversation", "list", NULL };
      int status = 0;

      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_assert_nonnull (strstr (out, "inbox"));
      /* The first time only: the database is up to date after it */
      if (i == 0)
        g_assert_cmpstr (err, ==, "Updating the database…\n");
      else
        g_assert_cmpstr (err, ==, "");
    }
  g_assert_cmpint (version_of (fixture), ==, prs_store_get_latest_version ());
}

/* prosponsive --headless: a line every tenth of the way, and the service
 * (its API) only once the database is up to date */
static void
test_headless_logs (Fixture       *fixture,
                    gconstpointer  user_data)
{
  g_autofree char *service = g_test_build_filename (G_TEST_BUILT, "..", "src", "app", "prosponsive-service",
                                                    NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autofree char *port = g_strdup_printf ("%u", prs_test_free_port ());
  g_autoptr(GString) said = g_string_new (NULL);
  int last_percent = 0;
  guint progress_lines = 0;
  gboolean running = FALSE;

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", HISTORY_MESSAGES));
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                              service, "--data-dir", fixture->dir, "--port", port, NULL);
  g_assert_no_error (error);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  while (!running)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (lines, NULL, NULL, &error);
      int percent;

      g_assert_no_error (error);
      g_assert_nonnull (line);
      g_string_append_printf (said, "%s\n", line);
      if (sscanf (line, "Updating the database: %d %% done.", &percent) == 1)
        {
          g_assert_cmpint (percent, >, last_percent);
          last_percent = percent;
          progress_lines++;
          /* Not serving yet */
          g_assert_false (running);
        }
      running = g_str_has_prefix (line, "Prosponsive is running without a window");
    }
  g_assert_true (g_str_has_prefix (said->str, "Updating the database of an older version"));
  g_assert_cmpint (last_percent, ==, 100);
  g_assert_cmpuint (progress_lines, >=, 2);
  g_assert_cmpint (version_of (fixture), ==, prs_store_get_latest_version ());
  g_subprocess_send_signal (process, SIGTERM);
  g_subprocess_wait (process, NULL, &error);
  g_assert_no_error (error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store-migrate/" path, Fixture, NULL, prs_test_store_dir_setup, func, \
              prs_test_store_dir_teardown)
  ADD ("worker-progress", test_worker_progress);
  ADD ("progress-counted-late", test_progress_counted_late);
  ADD ("worker-cancelled", test_worker_cancelled);
  ADD ("worker-cancelled-unwatched", test_worker_cancelled_unwatched);
  ADD ("worker-cancelled-while-locked", test_worker_cancelled_while_locked);
  ADD ("worker-notified-by-callback", test_worker_notified_by_callback);
  ADD ("worker-fails", test_worker_fails);
  ADD ("new-and-current", test_new_and_current);
  ADD ("ctl-says", test_ctl_says);
  ADD ("headless-logs", test_headless_logs);
#undef ADD

  return g_test_run ();
}
