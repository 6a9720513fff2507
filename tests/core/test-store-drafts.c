/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-store-drafts.c: what the person has written and not sent
 * (docs/conversations.md "Drafts"): kept per conversation without
 * touching the conversation's row, forgotten in the commit of the message
 * that sends it, gone with its conversation; the composer's save that does
 * not wait while another program writes; migration 15 from a
 * version-14 database, a step that changes the schema alone and so is run
 * at once, where one that copies rows leaves the database for the page
 * that shows its progress (docs/storage.md "Migrations"). */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-store.h"
#include "prs-store-private.h"
#include "prs-test-util.h"

typedef PrsTestStoreDir Fixture;

static char *
conversation_row (Fixture    *fixture,
                  const char *id)
{
  g_autofree char *sql = g_strdup_printf ("SELECT updated_at || ' ' || message_count || ' ' || unread_count"
                                          " FROM conversations WHERE id = '%s'", id);

  return prs_test_sql_query (fixture->db_path, sql);
}

static void
add_message (PrsStore   *store,
             const char *conversation_id,
             const char *kind)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert insert = { 0 };

  insert.conversation_id = conversation_id;
  insert.kind = kind;
  insert.content = "Hello";
  g_assert_true (prs_store_insert_message (store, &insert, NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
set_draft (PrsStore   *store,
           const char *conversation_id,
           const char *text)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_store_set_draft (store, conversation_id, text, &error));
  g_assert_no_error (error);
}

static void
test_keep_and_forget (Fixture       *fixture,
                      gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *inbox = prs_test_resolve_conversation (store, "inbox");
  g_autofree char *other = prs_test_resolve_conversation (store, "other");
  g_autofree char *row = NULL, *text = NULL, *count = NULL;

  g_assert_null (prs_store_dup_draft (store, inbox));

  /* Kept, replaced, and the conversation's row as it was: the list's
   * order and the API's updatedAt do not move for a draft */
  row = conversation_row (fixture, inbox);
  set_draft (store, inbox, "Half a thought");
  set_draft (store, inbox, "Half a thought, and more");
  set_draft (store, other, "Elsewhere");
  text = prs_store_dup_draft (store, inbox);
  g_assert_cmpstr (text, ==, "Half a thought, and more");
  g_clear_pointer (&text, g_free);
  g_assert_cmpstr (conversation_row (fixture, inbox), ==, row);

  /* Empty forgets it */
  set_draft (store, other, "");
  g_assert_null (prs_store_dup_draft (store, other));
  set_draft (store, other, "Elsewhere again");

  /* A workflow's message leaves the draft; the person's message sends it */
  add_message (store, inbox, "inbound");
  text = prs_store_dup_draft (store, inbox);
  g_assert_cmpstr (text, ==, "Half a thought, and more");
  g_clear_pointer (&text, g_free);
  add_message (store, inbox, "user");
  g_assert_null (prs_store_dup_draft (store, inbox));
  text = prs_store_dup_draft (store, other);
  g_assert_cmpstr (text, ==, "Elsewhere again");
  g_clear_pointer (&text, g_free);

  /* A draft for no conversation is refused; a deleted one takes its own */
  {
    g_autoptr(GError) error = NULL;

    g_assert_false (prs_store_set_draft (store, "no-such-conversation", "x", &error));
    g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
  }
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (prs_store_delete_conversation (store, other, &error));
    g_assert_no_error (error);
  }
  count = prs_test_sql_query (fixture->db_path, "SELECT count (*) FROM drafts");
  g_assert_cmpstr (count, ==, "0");
}

/* Another program holds the write lock (a long import, a person's sqlite3
 * shell): the composer's save is refused at once, as busy, where every
 * other write waits up to five seconds; the connection's next write waits
 * as before, and the draft goes in once the lock is gone. */
static void
test_try_once (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *inbox = prs_test_resolve_conversation (store, "inbox");
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  GSubprocess *holder = prs_test_sql_hold_process (fixture->db_path, 0);
  gint64 start = g_get_monotonic_time ();

  g_assert_false (prs_store_try_set_draft (store, inbox, "Typed while busy", &error));
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_USEC_PER_SEC / 2);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE_BUSY);
  g_assert_nonnull (strstr (error->message, fixture->db_path));
  g_assert_null (strstr (error->message, "seconds"));
  g_clear_error (&error);
  g_assert_null (prs_store_dup_draft (store, inbox));
  prs_test_sql_release_process (holder);

  /* The busy timeout is back: a write waits for a lock held a second */
  holder = prs_test_sql_hold_process (fixture->db_path, 1000);
  start = g_get_monotonic_time ();
  set_draft (store, inbox, "Waited for");
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 800 * G_TIME_SPAN_MILLISECOND);
  prs_test_sql_release_process (holder);

  /* With nobody holding it, the try writes */
  g_assert_true (prs_store_try_set_draft (store, inbox, "Typed after", &error));
  g_assert_no_error (error);
  text = prs_store_dup_draft (store, inbox);
  g_assert_cmpstr (text, ==, "Typed after");

  /* A real failure is not busy */
  g_assert_false (prs_store_try_set_draft (store, "no-such-conversation", "x", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
}

static void
test_migration_15 (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *conversation = NULL, *before = NULL, *after = NULL, *text = NULL;
  gboolean outdated = TRUE;

  store = prs_store_new_at_version (fixture->db_path, 14, &error);
  g_assert_no_error (error);
  g_clear_object (&store);
  conversation = prs_test_sql_conversation (fixture->db_path, "inbox");
  before = conversation_row (fixture, conversation);

  /* Only a table made: no page for it, the store opens up to date */
  store = prs_store_new_unless_outdated (fixture->dir, &outdated, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);
  g_assert_false (outdated);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 15);
  after = conversation_row (fixture, conversation);
  g_assert_cmpstr (after, ==, before);

  set_draft (store, conversation, "Written after the update");
  text = prs_store_dup_draft (store, conversation);
  g_assert_cmpstr (text, ==, "Written after the update");
}

static void
count_call (double   fraction,
            gpointer user_data)
{
  (*(guint *) user_data)++;
}

/* prosponsive-ctl and the headless service say nothing of it either */
static void
test_migration_15_quiet (Fixture       *fixture,
                         gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  guint calls = 0;

  store = prs_store_new_at_version (fixture->db_path, 14, &error);
  g_assert_no_error (error);
  g_clear_object (&store);
  store = prs_store_new_with_progress (fixture->dir, count_call, &calls, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 15);
  g_assert_cmpuint (calls, ==, 0);
}

/* A step that copies rows still waits for the page (or the headless log) */
static void
test_copying_step_waits (Fixture       *fixture,
                         gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *version = NULL;
  gboolean outdated = FALSE;

  g_free (prs_test_sql_old_history (fixture->db_path, 13, "inbox", 10));
  store = prs_store_new_unless_outdated (fixture->dir, &outdated, &error);
  g_assert_no_error (error);
  g_assert_null (store);
  g_assert_true (outdated);
  version = prs_test_sql_query (fixture->db_path, "PRAGMA user_version");
  g_assert_cmpstr (version, ==, "13");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store-drafts/" path, Fixture, NULL, prs_test_store_dir_setup, func, prs_test_store_dir_teardown)
  ADD ("keep-and-forget", test_keep_and_forget);
  ADD ("try-once", test_try_once);
  ADD ("migration/15", test_migration_15);
  ADD ("migration/15-quiet", test_migration_15_quiet);
  ADD ("copying-step-waits", test_copying_step_waits);
#undef ADD

  return g_test_run ();
}
