/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-store-schedules.c: scheduled prompts in the store (the schedules
 * migration, prs-store-schedules.c): the migration from the version
 * before, saving and reading, Run Now requests, and firing as one
 * transaction that never handles a due time twice. */
#include "config.h"

#include <sqlite3.h>

#include "prs-error.h"
#include "prs-store-schedules.h"
#include "prs-test-util.h"

/* The schedules' migration */
#define SCHEDULES_VERSION 7

typedef PrsTestStoreDir Fixture;

static gint64
count (const char *db_path,
       const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 result = -1;

  g_assert_cmpint (sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    result = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return result;
}

static void
fill_row (PrsScheduleRow *row,
          const char     *name)
{
  row->name = (char *) name;
  row->conversation_slug = (char *) "Morning";
  row->agent_id = (char *) "prosponsive";
  row->prompt = (char *) "What is on today?";
  row->recurrence_json = (char *) "{\"kind\":\"every\",\"minutes\":30}";
  row->enabled = TRUE;
  row->missed = (char *) PRS_SCHEDULE_MISSED_RUN;
  row->base_at = 1000;
}

static void
test_migration (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *conversation = NULL;
  PrsScheduleRow row = { 0 };

  /* A database of the version before, with a conversation and a rule */
  store = prs_store_new_at_version (fixture->db_path, SCHEDULES_VERSION - 1, &error);
  g_assert_no_error (error);
  /* Through SQL: the store's own writes follow the latest schema */
  conversation = prs_test_sql_conversation (fixture->db_path, "Morning");
  g_assert_true (prs_store_add_approval_rule (store, "email_move", NULL, NULL, "approve", NULL, &error));
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, SCHEDULES_VERSION, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, SCHEDULES_VERSION);
  {
    g_autofree char *sql = g_strdup_printf ("SELECT count (*) FROM conversations WHERE id = '%s'", conversation);
    g_autofree char *count = prs_test_sql_query (fixture->db_path, sql);

    g_assert_cmpstr (count, ==, "1");
  }
  rows = prs_store_list_schedules (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (rows->len, ==, 0);
  fill_row (&row, "Briefing");
  row.conversation_id = conversation;
  g_assert_true (prs_store_add_schedule (store, &row, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count (fixture->db_path, "SELECT count(*) FROM approval_rules"), ==, 1);
}

static void
test_crud (Fixture       *fixture,
           gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_store_new_for_path (fixture->db_path, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsScheduleRow) loaded = NULL;
  g_autoptr(PrsScheduleRow) copy = NULL;
  g_autoptr(GPtrArray) rows = NULL;
  g_autofree char *id = NULL;
  PrsScheduleRow row = { 0 }, other = { 0 };

  fill_row (&row, "Briefing");
  row.context_json = (char *) "{\"team\":\"ops\"}";
  g_assert_true (prs_store_add_schedule (store, &row, &id, &error));
  g_assert_no_error (error);

  /* Names are unique ignoring case */
  fill_row (&other, "BRIEFING");
  g_assert_false (prs_store_add_schedule (store, &other, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_EXISTS);
  g_clear_error (&error);

  loaded = prs_store_lookup_schedule (store, "briefing", &error);
  g_assert_no_error (error);
  g_assert_nonnull (loaded);
  g_assert_cmpstr (loaded->id, ==, id);
  g_assert_cmpstr (loaded->context_json, ==, "{\"team\":\"ops\"}");
  g_assert_cmpint (loaded->base_at, ==, 1000);
  g_assert_cmpint (loaded->last_fired_at, ==, 0);
  g_assert_null (loaded->conversation_id);
  copy = prs_schedule_row_copy (loaded);
  g_assert_cmpstr (copy->prompt, ==, "What is on today?");

  /* An edit keeps what firing owns */
  g_free (copy->prompt);
  copy->prompt = g_strdup ("And tomorrow?");
  g_assert_true (prs_store_update_schedule (store, copy, &error));
  g_assert_no_error (error);
  g_clear_pointer (&loaded, prs_schedule_row_free);
  loaded = prs_store_lookup_schedule (store, id, &error);
  g_assert_cmpstr (loaded->prompt, ==, "And tomorrow?");

  /* Turned off, then on: base_at moves and the problem goes */
  g_assert_true (prs_store_set_schedule_enabled (store, id, FALSE, 5000, &error));
  g_clear_pointer (&loaded, prs_schedule_row_free);
  loaded = prs_store_lookup_schedule (store, id, NULL);
  g_assert_false (loaded->enabled);
  g_assert_cmpint (loaded->base_at, ==, 1000);
  g_assert_true (prs_store_set_schedule_enabled (store, id, TRUE, 6000, &error));
  g_clear_pointer (&loaded, prs_schedule_row_free);
  loaded = prs_store_lookup_schedule (store, id, NULL);
  g_assert_true (loaded->enabled);
  g_assert_cmpint (loaded->base_at, ==, 6000);

  rows = prs_store_list_schedules (store, &error);
  g_assert_cmpuint (rows->len, ==, 1);
  g_assert_true (prs_store_remove_schedule (store, id, &error));
  g_assert_false (prs_store_remove_schedule (store, id, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_null (prs_store_lookup_schedule (store, id, &error));
  g_assert_no_error (error);
}

static void
test_fire_once (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_store_new_for_path (fixture->db_path, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsScheduleRow) loaded = NULL;
  g_autoptr(GPtrArray) unstarted = NULL;
  g_autofree char *id = NULL;
  g_autofree char *conversation = prs_test_resolve_conversation (store, "Morning");
  g_autofree char *message_id = NULL;
  PrsScheduleRow row = { 0 };
  PrsScheduleFire fire = { 0 };
  PrsMessageInsert message = { 0 };
  gboolean fired = FALSE;

  fill_row (&row, "Briefing");
  g_assert_true (prs_store_add_schedule (store, &row, &id, &error));

  message.conversation_id = conversation;
  message.kind = "inbound";
  message.content = "What is on today?";
  message.status = "pending";
  fire.schedule_id = id;
  fire.kind = PRS_SCHEDULE_FIRE_DUE;
  fire.due_at = 2800;
  fire.conversation_id = conversation;
  fire.message = &message;
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, &message_id, &error));
  g_assert_no_error (error);
  g_assert_true (fired);
  g_assert_nonnull (message_id);

  /* The same due time, or an earlier one, is never handled again */
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, NULL, &error));
  g_assert_false (fired);
  fire.due_at = 2000;
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, NULL, &error));
  g_assert_false (fired);
  /* Nor before base_at */
  fire.due_at = 900;
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, NULL, &error));
  g_assert_false (fired);

  loaded = prs_store_lookup_schedule (store, id, NULL);
  g_assert_cmpint (loaded->last_fired_at, ==, 2800);
  g_assert_cmpstr (loaded->conversation_id, ==, conversation);
  g_assert_cmpint (count (fixture->db_path, "SELECT count(*) FROM messages WHERE kind = 'inbound'"), ==, 1);
  g_assert_cmpint (count (fixture->db_path, "SELECT count(*) FROM schedule_fires"), ==, 1);

  /* Fired, and no run began: a restart starts it */
  unstarted = prs_store_list_unstarted_schedule_messages (store, &error);
  g_assert_cmpuint (unstarted->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (unstarted, 0), ==, message_id);

  /* Turned off: nothing is due */
  g_assert_true (prs_store_set_schedule_enabled (store, id, FALSE, 0, &error));
  fire.due_at = 4600;
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, NULL, &error));
  g_assert_false (fired);
}

static void
test_run_requests (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_store_new_for_path (fixture->db_path, NULL);
  g_autoptr(PrsStore) other = prs_store_new_for_path (fixture->db_path, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsScheduleRow) loaded = NULL;
  g_autofree char *id = NULL;
  PrsScheduleRow row = { 0 };
  PrsScheduleFire fire = { 0 };
  gboolean fired = FALSE, withdrawn = TRUE;
  gint64 version;

  fill_row (&row, "Briefing");
  g_assert_true (prs_store_add_schedule (store, &row, &id, &error));
  version = prs_store_get_data_version (store);

  /* Another connection asks; this one sees that something changed */
  g_assert_true (prs_store_request_schedule_run (other, id, 123456789, &error));
  g_assert_cmpint (prs_store_get_data_version (store), !=, version);
  loaded = prs_store_lookup_schedule (store, id, NULL);
  g_assert_cmpint (loaded->run_requested_at, ==, 123456789);

  /* Answered once: the request goes with the fire */
  fire.schedule_id = id;
  fire.kind = PRS_SCHEDULE_FIRE_MANUAL;
  fire.due_at = 123;
  fire.run_requested_at = 123456789;
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, NULL, &error));
  g_assert_true (fired);
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, NULL, &error));
  g_assert_false (fired);
  g_assert_true (prs_store_withdraw_schedule_run (other, id, 123456789, &withdrawn, &error));
  g_assert_false (withdrawn);

  /* Withdrawn before anyone answered: nothing to answer any more */
  g_assert_true (prs_store_request_schedule_run (other, id, 223456789, &error));
  g_assert_true (prs_store_withdraw_schedule_run (other, id, 223456789, &withdrawn, &error));
  g_assert_true (withdrawn);
  fire.run_requested_at = 223456789;
  g_assert_true (prs_store_fire_schedule (store, &fire, &fired, NULL, NULL, &error));
  g_assert_false (fired);
  /* A manual run never moves last_fired_at */
  g_clear_pointer (&loaded, prs_schedule_row_free);
  loaded = prs_store_lookup_schedule (store, id, NULL);
  g_assert_cmpint (loaded->last_fired_at, ==, 0);
  g_assert_cmpint (loaded->run_requested_at, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store-schedules/" path, Fixture, NULL, prs_test_store_dir_setup, func, prs_test_store_dir_teardown)

  ADD ("migration", test_migration);
  ADD ("crud", test_crud);
  ADD ("fire-once", test_fire_once);
  ADD ("run-requests", test_run_requests);

#undef ADD

  return g_test_run ();
}
