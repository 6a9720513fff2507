/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-drafts.c: what the person writes in the composer stays with the
 * conversation it was written in (docs/conversations.md "Drafts"), in the
 * real window under a real X server: another conversation opens with its
 * own text (and no Undo into the other's), the text is saved a second
 * after typing and when the conversation is left, Send forgets it, and a
 * new window shows what the last one left unsent; while another process
 * holds the database the window goes on and nothing typed is lost. */
#include "config.h"

#include <adwaita.h>

#include "prs-composer.h"
#include "prs-conversation-view.h"
#include "prs-ui-test-util.h"
#include "prs-window.h"

typedef struct
{
  char       *data_dir;
  char       *db_path;
  char       *alpha;
  char       *beta;
  PrsService *service;
  PrsWindow  *window;
} Fixture;

static PrsWindow *
open_window (Fixture *f)
{
  PrsWindow *window = prs_window_new (NULL, f->service);

  g_object_ref_sink (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1060, 720);
  gtk_window_present (GTK_WINDOW (window));
  prs_test_wait_frames (GTK_WIDGET (window), 3);
  return window;
}

static void
close_window (PrsWindow **window)
{
  gtk_window_destroy (GTK_WINDOW (*window));
  g_clear_object (window);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = NULL;

  f->data_dir = g_dir_make_tmp ("prs-ui-drafts-XXXXXX", &error);
  g_assert_no_error (error);
  f->db_path = g_build_filename (f->data_dir, "prosponsive.db", NULL);
  store = prs_store_new (f->data_dir, &error);
  g_assert_no_error (error);
  f->alpha = prs_test_resolve_conversation (store, "alpha");
  f->beta = prs_test_resolve_conversation (store, "beta");
  g_clear_object (&store);

  f->service = prs_service_new (f->data_dir, prs_test_free_port ());
  g_assert_true (prs_service_start (f->service, &error));
  g_assert_no_error (error);
  f->window = open_window (f);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  if (f->window != NULL)
    close_window (&f->window);
  prs_service_stop (f->service);
  g_clear_object (&f->service);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  prs_test_remove_tree (f->data_dir);
  g_free (f->data_dir);
  g_free (f->db_path);
  g_free (f->alpha);
  g_free (f->beta);
}

static PrsComposer *
composer (Fixture *f)
{
  return prs_conversation_view_get_composer (prs_window_get_conversation_view (f->window));
}

static GtkTextBuffer *
composer_buffer (Fixture *f)
{
  GtkWidget *view = prs_test_find_widget (GTK_WIDGET (composer (f)), GTK_TYPE_TEXT_VIEW, NULL, NULL);

  g_assert_nonnull (view);
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
}

/* As typing does: at the cursor, undoable */
static void
type (Fixture    *f,
      const char *text)
{
  gtk_text_buffer_insert_interactive_at_cursor (composer_buffer (f), text, -1, TRUE);
}

static void
open_conversation (Fixture    *f,
                   const char *id)
{
  prs_window_select_conversation (f->window, id);
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
}

static void
assert_composer (Fixture    *f,
                 const char *text)
{
  g_autofree char *shown = prs_composer_dup_text (composer (f));

  g_assert_cmpstr (shown, ==, text);
}

/* The draft another connection reads, as after a crash */
static char *
stored_draft (Fixture    *f,
              const char *id)
{
  g_autofree char *sql = g_strdup_printf ("SELECT text FROM drafts WHERE conversation_id = '%s'", id);

  return prs_test_sql_query (f->db_path, sql);
}

typedef struct
{
  Fixture    *f;
  const char *id;
  const char *text;
} Expected;

static gboolean
draft_is (gpointer data)
{
  Expected *expected = data;
  g_autofree char *text = stored_draft (expected->f, expected->id);

  return g_strcmp0 (text, expected->text) == 0;
}

static void
test_per_conversation (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *stored = NULL;
  gint64 typed;

  open_conversation (f, f->alpha);
  assert_composer (f, "");

  /* Saved about a second after typing, with no other step */
  typed = g_get_monotonic_time ();
  type (f, "Half a thought");
  g_assert_true (prs_test_wait_until (draft_is, &(Expected) { f, f->alpha, "Half a thought" }));
  g_assert_cmpint (g_get_monotonic_time () - typed, >=, 900 * G_TIME_SPAN_MILLISECOND);

  /* Leaving saves what was typed since, at once; the other conversation
   * opens with its own (empty) text, and Undo cannot reach the first */
  type (f, ", and more");
  open_conversation (f, f->beta);
  assert_composer (f, "");
  stored = stored_draft (f, f->alpha);
  g_assert_cmpstr (stored, ==, "Half a thought, and more");
  g_assert_false (gtk_text_buffer_get_can_undo (composer_buffer (f)));
  g_assert_null (stored_draft (f, f->beta));

  type (f, "For beta");
  open_conversation (f, f->alpha);
  assert_composer (f, "Half a thought, and more");
  g_clear_pointer (&stored, g_free);
  stored = stored_draft (f, f->beta);
  g_assert_cmpstr (stored, ==, "For beta");

  /* Send: the message is stored, its draft is gone with it */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (composer (f)), "composer.send", NULL));
  assert_composer (f, "");
  g_assert_null (stored_draft (f, f->alpha));
  prs_test_wait_frames (GTK_WIDGET (f->window), 2);
  g_assert_null (stored_draft (f, f->alpha));

  /* Unsent text outlives its window */
  open_conversation (f, f->beta);
  type (f, ", still");
  close_window (&f->window);
  g_clear_pointer (&stored, g_free);
  stored = stored_draft (f, f->beta);
  g_assert_cmpstr (stored, ==, "For beta, still");
  f->window = open_window (f);
  open_conversation (f, f->beta);
  assert_composer (f, "For beta, still");
  open_conversation (f, f->alpha);
  assert_composer (f, "");
}

/* The longest gap between two firings of a 100 ms timeout: how long the
 * main loop (typing, painting) stopped */
typedef struct
{
  gint64 last;
  gint64 longest;
} Ticks;

static gboolean
tick (gpointer data)
{
  Ticks *ticks = data;
  gint64 now = g_get_monotonic_time ();

  if (ticks->last != 0)
    ticks->longest = MAX (ticks->longest, now - ticks->last);
  ticks->last = now;
  return G_SOURCE_CONTINUE;
}

static gboolean
set_flag (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* The main loop runs @ms milliseconds, as while a person types */
static void
run_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, set_flag, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* Another program holds the database's write lock while the person types:
 * the window goes on (the saves do not wait), the text stays in the
 * composer and with its conversation, goes into the store soon after the
 * lock is gone, and closing the window waits for a lock held a moment. */
static void
test_busy_database (Fixture       *f,
                    gconstpointer  data)
{
  Ticks ticks = { 0 };
  GSubprocess *holder;
  g_autofree char *stored = NULL;
  guint tick_id;
  gint64 released;

  open_conversation (f, f->alpha);
  holder = prs_test_sql_hold_process (f->db_path, 0);
  tick_id = g_timeout_add (100, tick, &ticks);
  for (guint i = 0; i < 6; i++)
    {
      type (f, "word ");
      run_for (500);
    }
  g_source_remove (tick_id);
  g_test_message ("longest stop of the main loop: %" G_GINT64_FORMAT " ms", ticks.longest / 1000);
  g_assert_cmpint (ticks.longest, <, 1500 * G_TIME_SPAN_MILLISECOND);
  assert_composer (f, "word word word word word word ");
  g_assert_null (stored_draft (f, f->alpha));

  /* Left and come back to while the lock is held: still there */
  open_conversation (f, f->beta);
  type (f, "For beta");
  run_for (1200);
  g_assert_null (stored_draft (f, f->beta));
  open_conversation (f, f->alpha);
  assert_composer (f, "word word word word word word ");

  /* The lock gone, both are stored within a few seconds, with no typing */
  prs_test_sql_release_process (holder);
  released = g_get_monotonic_time ();
  g_assert_true (prs_test_wait_until (draft_is, &(Expected) { f, f->alpha, "word word word word word word " }));
  g_assert_true (prs_test_wait_until (draft_is, &(Expected) { f, f->beta, "For beta" }));
  g_assert_cmpint (g_get_monotonic_time () - released, <, 4 * G_USEC_PER_SEC);

  /* Closing the window while the lock is held a moment saves the text */
  type (f, "and the last");
  holder = prs_test_sql_hold_process (f->db_path, 1500);
  close_window (&f->window);
  stored = stored_draft (f, f->alpha);
  g_assert_cmpstr (stored, ==, "word word word word word word and the last");
  prs_test_sql_release_process (holder);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  gtk_init ();
  adw_init ();

  g_test_add ("/ui/drafts/per-conversation", Fixture, NULL, fixture_setup, test_per_conversation,
              fixture_teardown);
  g_test_add ("/ui/drafts/busy-database", Fixture, NULL, fixture_setup, test_busy_database,
              fixture_teardown);

  return g_test_run ();
}
