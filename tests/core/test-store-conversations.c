/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-store-conversations.c: migration 9 (from a version-8 database),
 * the conversation list's order (12), indexes of pending rows only (14),
 * pinning, archiving, deleting (at once, and in the steps Undo needs, with
 * a workflow resolving the slug in between, and a stop between the steps),
 * no row left behind, the search index, and Regenerate / Edit and Resend. */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "prs-context.h"
#include "prs-error.h"
#include "prs-store.h"
#include "prs-store-private.h"
#include "prs-test-util.h"

typedef PrsTestStoreDir Fixture;

static gint64
count (Fixture    *fixture,
       const char *sql)
{
  g_autofree char *text = prs_test_sql_query (fixture->db_path, sql);

  return text != NULL ? g_ascii_strtoll (text, NULL, 10) : -1;
}

static char *
add_message (PrsStore   *store,
             const char *conversation_id,
             const char *kind,
             const char *content,
             const char *context_json,
             const char *extra_json)
{
  g_autoptr(GError) error = NULL;
  PrsMessageInsert insert = { 0 };
  char *id = NULL;

  insert.conversation_id = conversation_id;
  insert.kind = kind;
  insert.content = content;
  insert.agent_id = g_str_equal (kind, "notice") ? NULL : "prosponsive";
  insert.context_json = context_json;
  insert.extra_json = extra_json;
  g_assert_true (prs_store_insert_message (store, &insert, &id, NULL, &error));
  g_assert_no_error (error);
  return id;
}

/* The message ids @text finds, in rank order, joined with spaces; with
 * @snippets each followed by its snippet, joined with "; " */
static char *
search_hits (PrsStore   *store,
             const char *text,
             gboolean    snippets)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = prs_store_search (store, text, 50, NULL, &error);
  g_autoptr(GString) ids = g_string_new (NULL);

  g_assert_no_error (error);
  g_assert_nonnull (hits);
  for (guint i = 0; i < hits->len; i++)
    {
      PrsSearchHit *hit = g_ptr_array_index (hits, i);

      if (ids->len > 0)
        g_string_append (ids, snippets ? "; " : " ");
      g_string_append (ids, hit->message_id);
      if (snippets)
        g_string_append_printf (ids, " %s", hit->snippet);
    }
  return g_string_free (g_steal_pointer (&ids), FALSE);
}

static char *
search_ids (PrsStore   *store,
            const char *text)
{
  return search_hits (store, text, FALSE);
}

/* The search index holds exactly what its view gives for every message:
 * an index built afresh from the view, in a temporary table, has the same
 * words at the same places and the same sizes. (FTS5's integrity-check in
 * SQLite 3.40 reads no external content, and its rebuild cannot read a
 * view that uses json_tree.) */
static void
assert_search_index_exact (Fixture *fixture)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_open_v2 (fixture->db_path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                                 "CREATE VIRTUAL TABLE temp.expected USING fts5 ("
                                 "  body, tools, context, tokenize = 'unicode61 remove_diacritics 2');"
                                 "INSERT INTO temp.expected (rowid, body, tools, context)"
                                 "  SELECT message_rowid, body, tools, context FROM main.message_search_source;"
                                 "CREATE VIRTUAL TABLE temp.expected_words USING fts5vocab (temp, expected, instance);"
                                 "CREATE VIRTUAL TABLE temp.indexed_words"
                                 "  USING fts5vocab (main, message_search, instance);",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT (SELECT count (*) FROM (SELECT * FROM temp.expected_words"
                                       "         EXCEPT SELECT * FROM temp.indexed_words))"
                                       "     + (SELECT count (*) FROM (SELECT * FROM temp.indexed_words"
                                       "         EXCEPT SELECT * FROM temp.expected_words))"
                                       "     + (SELECT count (*) FROM (SELECT id, sz FROM temp.expected_docsize"
                                       "         EXCEPT SELECT id, sz FROM main.message_search_docsize))"
                                       "     + (SELECT count (*) FROM (SELECT id, sz FROM main.message_search_docsize"
                                       "         EXCEPT SELECT id, sz FROM temp.expected_docsize))",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  g_assert_cmpint (sqlite3_column_int (stmt, 0), ==, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

static void
assert_no_orphans (Fixture *fixture)
{
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM messages WHERE conversation_id NOT IN"
                                   " (SELECT id FROM conversations)"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM runs WHERE conversation_id NOT IN"
                                   " (SELECT id FROM conversations)"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM tool_calls WHERE run_id NOT IN (SELECT id FROM runs)"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM context_fields WHERE conversation_id NOT IN"
                                   " (SELECT id FROM conversations)"), ==, 0);
  /* The index's own rows (FTS5's docsize table: one per message indexed);
   * the index reads its text from the messages themselves */
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM message_search_docsize WHERE id NOT IN"
                                   " (SELECT rowid FROM messages)"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM messages WHERE rowid NOT IN"
                                   " (SELECT id FROM message_search_docsize)"), ==, 0);
  g_assert_null (prs_test_sql_query (fixture->db_path, "PRAGMA foreign_key_check"));
  g_free (prs_test_sql_query (fixture->db_path,
                              "INSERT INTO message_search (message_search) VALUES ('integrity-check')"));
  assert_search_index_exact (fixture);
}

static void
save_run_with_call (PrsStore   *store,
                    const char *run_id,
                    const char *conversation_id,
                    const char *message_id)
{
  g_autoptr(GError) error = NULL;
  PrsRunRow run = { 0 };
  PrsToolCallRow call = { 0 };

  run.id = (char *) run_id;
  run.conversation_id = (char *) conversation_id;
  run.agent_id = (char *) "prosponsive";
  run.origin = (char *) "agent-inference";
  run.status = (char *) "completed";
  run.transcript_json = (char *) "[]";
  g_assert_true (prs_store_save_run (store, &run, &error));
  g_assert_no_error (error);
  call.id = g_strconcat (run_id, "-call", NULL);
  call.run_id = (char *) run_id;
  call.message_id = (char *) message_id;
  call.round = 1;
  call.name = (char *) "email_move";
  call.arguments_json = (char *) "{\"uid\":\"12345\"}";
  call.status = (char *) "succeeded";
  g_assert_true (prs_store_save_tool_call (store, &call, NULL, NULL, &error));
  g_assert_no_error (error);
  g_free (call.id);
}

/* ---- migration 9 ---- */

static void
test_migration_9 (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autofree char *inbox = NULL, *other = NULL, *inbound = NULL, *call = NULL, *reply = NULL;
  g_autofree char *ids = NULL, *fresh = NULL, *rowid_before = NULL, *rowid_after = NULL, *fk = NULL;
  g_autoptr(GPtrArray) fields = NULL;
  g_autoptr(JsonNode) context = NULL;
  PrsMessageInsert insert = { 0 };

  /* A version-8 database: two conversations, an inbound message with its
   * Request Context, a tool call, a reply; a run and its call; fields */
  store = prs_store_new_at_version (fixture->db_path, 8, &error);
  g_assert_no_error (error);
  inbox = prs_test_sql_conversation (fixture->db_path, "Email Inbox");
  other = prs_test_sql_conversation (fixture->db_path, "Other");
  insert.conversation_id = inbox;
  insert.kind = "inbound";
  insert.content = "New email from Alice";
  insert.context_json = "{\"subject\":\"Quarterly zeppelin budget\",\"uid\":\"12345\"}";
  inbound = prs_test_sql_message (fixture->db_path, &insert, 1);
  insert.kind = "tool-call";
  insert.content = "email_move";
  insert.context_json = NULL;
  insert.extra_json = "{\"name\":\"email_move\",\"arguments\":{\"destination\":\"Archive/Hangar\",\"uid\":\"12345\"}}";
  call = prs_test_sql_message (fixture->db_path, &insert, 2);
  insert.kind = "assistant";
  insert.content = "Moved the message about the **zeppelin** budget.";
  insert.extra_json = "not json";  /* never written by the store, read as nothing */
  reply = prs_test_sql_message (fixture->db_path, &insert, 3);
  save_run_with_call (store, "run-1", inbox, call);
  context = json_from_string ("{\"subject\":\"Quarterly zeppelin budget\"}", NULL);
  fields = prs_context_discover_fields (context);
  g_assert_true (prs_store_record_context_fields (store, inbox, inbound, NULL, fields, &error));
  g_assert_no_error (error);
  rowid_before = prs_test_sql_query (fixture->db_path, "SELECT group_concat (rowid || id, ',') FROM messages");
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 9, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 9);
  fk = prs_store_dup_pragma (store, "foreign_keys", &error);
  g_assert_cmpstr (fk, ==, "1");

  /* Every row kept, with its rowid, now the messages' own key */
  rowid_after = prs_test_sql_query (fixture->db_path, "SELECT group_concat (rowid || id, ',') FROM messages");
  g_assert_cmpstr (rowid_after, ==, rowid_before);
  list = prs_store_list_conversations (store, &error);
  g_assert_cmpuint (json_array_get_length (list), ==, 2);
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (list, 0), "pinned"));
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (list, 0), "archived"));
  assert_no_orphans (fixture);

  /* The index was built for what was there: text, tool arguments, context */
  ids = search_ids (store, "zeppelin");
  g_assert_true (strstr (ids, inbound) != NULL && strstr (ids, reply) != NULL);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "hangar");
  g_assert_cmpstr (ids, ==, call);
  g_clear_pointer (&ids, g_free);

  /* Deleting removes the conversation and everything that was its */
  g_assert_true (prs_store_delete_conversation (store, inbox, &error));
  g_assert_no_error (error);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM messages"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM runs"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM tool_calls"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM context_fields"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM message_search_docsize"), ==, 0);
  assert_no_orphans (fixture);
  g_assert_true (prs_store_has_conversation (store, other));

  /* …and its slug starts a fresh conversation */
  fresh = prs_test_resolve_conversation (store, "Email Inbox");
  g_assert_cmpstr (fresh, !=, inbox);
  g_assert_false (prs_store_delete_conversation (store, inbox, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

/* ---- migration 12 ---- */

/* The slugs of the list, in its order */
static char *
listed_slugs (PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) list = prs_store_list_conversations (store, &error);
  g_autoptr(GString) slugs = g_string_new (NULL);

  g_assert_no_error (error);
  for (guint i = 0; i < json_array_get_length (list); i++)
    g_string_append_printf (slugs, "%s%s", i > 0 ? "," : "",
                            json_object_get_string_member (json_array_get_object_element (list, i), "slug"));
  return g_string_free (g_steal_pointer (&slugs), FALSE);
}

/* What SQLite's EXPLAIN QUERY PLAN says of @sql, its steps joined by ";" */
static char *
query_plan (const char *db_path,
            const char *sql)
{
  g_autofree char *explain = g_strconcat ("EXPLAIN QUERY PLAN ", sql, NULL);
  g_autoptr(GString) plan = g_string_new (NULL);
  sqlite3_stmt *stmt = NULL;
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, explain, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    g_string_append_printf (plan, "%s%s", plan->len > 0 ? ";" : "", sqlite3_column_text (stmt, 3));
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return g_string_free (g_steal_pointer (&plan), FALSE);
}

static void
test_migration_12 (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL, *plan = NULL;
  const char *slugs[] = { "old", "new", "pinned", "archived", "deleted", "same-time" };

  /* A version-11 database with one conversation of each kind */
  store = prs_store_new_at_version (fixture->db_path, 11, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (slugs); i++)
    g_free (prs_test_sql_conversation (fixture->db_path, slugs[i]));
  g_free (prs_test_sql_query (fixture->db_path,
                              "UPDATE conversations SET updated_at = '2026-02-01T00:00:00.000Z'"
                              " WHERE slug IN ('new', 'archived')"));
  g_free (prs_test_sql_query (fixture->db_path, "UPDATE conversations SET pinned = 1 WHERE slug = 'pinned'"));
  g_free (prs_test_sql_query (fixture->db_path, "UPDATE conversations SET archived = 1 WHERE slug = 'archived'"));
  g_free (prs_test_sql_query (fixture->db_path,
                              "UPDATE conversations SET deleted_at = '2026-03-01T00:00:00.000Z' WHERE slug = 'deleted'"));
  before = listed_slugs (store);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 12, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 12);

  /* The same list in the same order, read along the index, not sorted */
  after = listed_slugs (store);
  g_assert_cmpstr (after, ==, before);
  g_assert_true (g_str_has_prefix (after, "pinned,new,"));
  g_assert_true (g_str_has_suffix (after, ",archived"));
  g_assert_null (strstr (after, "deleted"));
  plan = query_plan (fixture->db_path,
                     "SELECT id FROM conversations WHERE deleted_at IS NULL"
                     " ORDER BY pinned DESC, archived, updated_at DESC, created_at DESC, id");
  g_assert_cmpstr (plan, ==, "SCAN conversations USING INDEX conversations_order");
}

/* What the lookups by status find: the requests still pending (a start's
 * recovery), then the runs not finished, in their order */
static char *
status_lookups (Fixture  *fixture,
                PrsStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) runs = prs_store_list_unfinished_runs (store, &error);
  g_autofree char *pending = prs_test_sql_query (fixture->db_path,
                                                 "SELECT group_concat (id) FROM (SELECT id FROM messages"
                                                 " WHERE kind = 'inbound' AND status = 'pending' ORDER BY id)");
  GString *text = g_string_new (pending);

  g_assert_no_error (error);
  for (guint i = 0; i < runs->len; i++)
    g_string_append_printf (text, " %s", ((PrsRunRow *) g_ptr_array_index (runs, i))->id);
  return g_string_free (text, FALSE);
}

/* After migration 14 (m1 and m3 have keys): only the keys indexed, still
 * unique, still found along the index */
static void
assert_dedup_keys_indexed (Fixture  *fixture,
                           PrsStore *store)
{
  g_autofree char *left = NULL;
  g_autofree char *plan = NULL;

  g_assert_cmpint (count (fixture, "SELECT count (*) FROM messages INDEXED BY messages_dedup_key"
                                   " WHERE dedup_key IS NOT NULL"), ==, 2);
  left = prs_test_sql_query (fixture->db_path, "SELECT sql FROM sqlite_schema WHERE name = 'messages_dedup_key'");
  g_assert_cmpstr (left, ==,
                   "CREATE UNIQUE INDEX messages_dedup_key ON messages (dedup_key) WHERE dedup_key IS NOT NULL");
  g_clear_pointer (&left, g_free);
  plan = query_plan (fixture->db_path, "SELECT id FROM messages WHERE dedup_key = 'exec:m1'");
  g_assert_cmpstr (plan, ==, "SEARCH messages USING INDEX messages_dedup_key (dedup_key=?)");
  g_clear_pointer (&plan, g_free);
  left = prs_store_find_message_by_dedup_key (store, "exec:m3");
  g_assert_cmpstr (left, ==, "m3");
  g_clear_pointer (&left, g_free);
  {
    sqlite3 *db = NULL;

    g_assert_cmpint (sqlite3_open_v2 (fixture->db_path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_exec (db, "UPDATE messages SET dedup_key = 'exec:m1' WHERE id = 'm5'", NULL, NULL, NULL),
                     ==, SQLITE_CONSTRAINT);
    sqlite3_close (db);
  }
  g_assert_null (prs_test_sql_query (fixture->db_path,
                                     "SELECT * FROM sqlite_schema WHERE sql LIKE '%dedup_key TEXT UNIQUE%'"));
}

/* Every column of every message, rowid first, as one text */
#define MESSAGE_ROWS \
  "SELECT group_concat (quote (rowid) || quote (id) || quote (conversation_id) || seq || kind" \
  " || quote (content) || quote (status) || quote (agent_id) || quote (context_json)" \
  " || quote (execution_json) || quote (dedup_key) || quote (extra_json) || created_at" \
  " || quote (superseded_at), '|') FROM (SELECT * FROM messages ORDER BY rowid)"

static void
test_migration_14 (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *conversation = NULL, *sql = NULL, *before = NULL, *after = NULL, *plan = NULL;
  g_autofree char *left = NULL, *found_before = NULL, *found_after = NULL;
  g_autofree char *rows_before = NULL, *rows_after = NULL;

  /* A version-13 database: requests pending and answered, a reply, runs
   * running, waiting and finished */
  store = prs_store_new_at_version (fixture->db_path, 13, &error);
  g_assert_no_error (error);
  conversation = prs_test_sql_conversation (fixture->db_path, "inbox");
  sql = g_strdup_printf (
    "INSERT INTO messages (id, conversation_id, seq, kind, content, status, agent_id, created_at) VALUES"
    " ('m1', '%1$s', 1, 'inbound', 'first', 'answered', 'mail', '2026-03-20T09:00:00.000Z'),"
    " ('m2', '%1$s', 2, 'assistant', 'reply', 'complete', 'mail', '2026-03-20T09:00:01.000Z'),"
    " ('m3', '%1$s', 3, 'inbound', 'second', 'pending', 'mail', '2026-03-20T09:00:02.000Z'),"
    " ('m4', '%1$s', 4, 'user', 'hello', NULL, NULL, '2026-03-20T09:00:03.000Z'),"
    " ('m5', '%1$s', 5, 'inbound', 'third', 'pending', NULL, '2026-03-20T09:00:04.000Z');"
    "UPDATE messages SET dedup_key = 'exec:' || id WHERE id IN ('m1', 'm3');"
    "UPDATE messages SET superseded_at = '2026-03-20T10:00:00.000Z' WHERE id = 'm2';"
    "INSERT INTO messages (id, conversation_id, seq, kind, content, context_json, extra_json, created_at) VALUES"
    " ('m6', '%1$s', 6, 'tool-call', NULL, NULL, '{\"name\":\"search\",\"arguments\":{\"q\":\"hangar\"}}',"
    "  '2026-03-20T09:00:05.000Z'),"
    " ('m7', '%1$s', 7, 'inbound', 'fourth', '{\"customer\":\"Acme\"}', NULL, '2026-03-20T09:00:06.000Z');"
    "INSERT INTO runs (id, conversation_id, agent_id, origin, status, created_at, updated_at) VALUES"
    " ('r1', '%1$s', 'mail', 'chat', 'running', '2026-03-20T09:00:05.000Z', '2026-03-20T09:00:05.000Z'),"
    " ('r2', '%1$s', 'mail', 'chat', 'awaiting_approval', '2026-03-20T09:00:00.000Z',"
    "  '2026-03-20T09:00:00.000Z'),"
    " ('r3', '%1$s', 'mail', 'agent-inference', 'completed', '2026-03-20T08:00:00.000Z', '2026-03-20T08:00:00.000Z'),"
    " ('r4', '%1$s', 'mail', 'inference', 'failed', '2026-03-20T07:00:00.000Z', '2026-03-20T07:00:00.000Z');",
    conversation);
  prs_test_store_exec (store, sql);
  rows_before = prs_test_sql_query (fixture->db_path, MESSAGE_ROWS);
  before = status_lookups (fixture, store);
  g_assert_cmpstr (before, ==, "m3,m5 r2 r1");
  found_before = search_hits (store, "second OR reply OR hangar OR acme OR hel*", TRUE);
  g_assert_cmpstr (found_before, !=, "");
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 14, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 14);

  /* The messages as they were, rowids and all */
  rows_after = prs_test_sql_query (fixture->db_path, MESSAGE_ROWS);
  g_assert_cmpstr (rows_after, ==, rows_before);

  assert_dedup_keys_indexed (fixture, store);

  /* The same rows found, along indexes that hold only those rows */
  after = status_lookups (fixture, store);
  g_assert_cmpstr (after, ==, before);
  plan = query_plan (fixture->db_path, "SELECT id FROM messages WHERE kind = 'inbound' AND status = 'pending'");
  g_assert_cmpstr (plan, ==, "SEARCH messages USING INDEX messages_pending (status=?)");
  g_clear_pointer (&plan, g_free);
  plan = query_plan (fixture->db_path, "SELECT id FROM runs WHERE status IN ('running', 'awaiting_approval')");
  g_assert_cmpstr (plan, ==, "SEARCH runs USING INDEX runs_active (status=?)");
  g_assert_cmpint (count (fixture, "SELECT count (*) FROM messages INDEXED BY messages_pending"
                                   " WHERE status = 'pending'"), ==, 2);
  left = prs_test_sql_query (fixture->db_path,
                             "SELECT group_concat (name) FROM sqlite_schema WHERE name IN"
                             " ('conversations_updated_at', 'messages_agent_id', 'messages_status', 'runs_status')");
  g_assert_null (left);
  g_assert_cmpint (count (fixture, "SELECT count (*) FROM pragma_integrity_check WHERE integrity_check <> 'ok'"),
                   ==, 0);

  /* The search index taken over as it was: the same hits, ranks and
   * snippets, and no copy of the text beside it */
  found_after = search_hits (store, "second OR reply OR hangar OR acme OR hel*", TRUE);
  g_assert_cmpstr (found_after, ==, found_before);
  g_assert_null (prs_test_sql_query (fixture->db_path,
                                     "SELECT name FROM sqlite_schema WHERE name = 'message_search_content'"));
  assert_no_orphans (fixture);
  /* A message edited or deleted leaves the index with the words it had */
  prs_test_store_exec (store, "UPDATE messages SET content = 'zeppelin' WHERE id = 'm2';"
                              "DELETE FROM messages WHERE id = 'm6';");
  g_clear_pointer (&found_after, g_free);
  found_after = search_hits (store, "reply OR hangar OR zeppelin", TRUE);
  g_assert_true (g_str_has_prefix (found_after, "m2 ") && strstr (found_after, "zeppelin") != NULL);
  g_assert_null (strchr (found_after, ';'));
  assert_no_orphans (fixture);

  /* Answered and finished, they leave the indexes */
  prs_test_store_exec (store, "UPDATE messages SET status = 'answered' WHERE id = 'm3';"
                              "UPDATE runs SET status = 'completed' WHERE id = 'r2';");
  g_free (after);
  after = status_lookups (fixture, store);
  g_assert_cmpstr (after, ==, "m5 r1");
}

/* ---- pinning and archiving ---- */

static const char *
slug_at (JsonArray *list,
         guint      i)
{
  return json_object_get_string_member (json_array_get_object_element (list, i), "slug");
}

static void
test_pin_archive (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autoptr(JsonObject) row = NULL;
  g_autofree char *a = prs_test_resolve_conversation (store, "a");
  g_autofree char *b = prs_test_resolve_conversation (store, "b");
  g_autofree char *c = prs_test_resolve_conversation (store, "c");
  g_autofree char *m = add_message (store, c, "user", "newest", NULL, NULL);

  /* Newest first; pinned before; archived after */
  g_assert_true (prs_store_set_conversation_pinned (store, a, TRUE, &error));
  g_assert_true (prs_store_set_conversation_archived (store, c, TRUE, &error));
  g_assert_no_error (error);
  list = prs_store_list_conversations (store, &error);
  g_assert_cmpstr (slug_at (list, 0), ==, "a");
  g_assert_cmpstr (slug_at (list, 1), ==, "b");
  g_assert_cmpstr (slug_at (list, 2), ==, "c");

  /* Archiving unpins, pinning unarchives */
  g_assert_true (prs_store_set_conversation_archived (store, a, TRUE, &error));
  row = prs_store_get_conversation (store, a, &error);
  g_assert_false (json_object_get_boolean_member (row, "pinned"));
  g_assert_true (json_object_get_boolean_member (row, "archived"));
  g_clear_pointer (&row, json_object_unref);
  g_assert_true (prs_store_set_conversation_pinned (store, a, TRUE, &error));
  row = prs_store_get_conversation (store, a, &error);
  g_assert_true (json_object_get_boolean_member (row, "pinned"));
  g_assert_false (json_object_get_boolean_member (row, "archived"));

  /* An archived conversation still answers to its slug */
  g_free (prs_test_resolve_conversation (store, "c"));
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM conversations"), ==, 3);

  g_assert_false (prs_store_set_conversation_pinned (store, "nope", TRUE, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

/* ---- deleting in steps ---- */

static void
test_delete_undo (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) list = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *inbox = prs_test_resolve_conversation (store, "Email Inbox");
  g_autofree char *first = add_message (store, inbox, "user", "the old question", NULL, NULL);
  g_autofree char *second = add_message (store, inbox, "assistant", "the old answer", NULL, NULL);
  g_autofree char *fresh = NULL, *late = NULL, *merged = NULL, *ids = NULL;
  PrsMessageInsert insert = { 0 };

  save_run_with_call (store, "run-1", inbox, second);
  g_assert_true (prs_store_mark_conversation_deleted (store, inbox, &error));
  g_assert_no_error (error);

  /* Gone for every reader; every row kept */
  list = prs_store_list_conversations (store, &error);
  g_assert_cmpuint (json_array_get_length (list), ==, 0);
  g_assert_false (prs_store_has_conversation (store, inbox));
  g_assert_null (prs_store_get_conversation (store, inbox, &error));
  g_assert_no_error (error);
  ids = search_ids (store, "old");
  g_assert_cmpstr (ids, ==, "");
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM messages"), ==, 2);
  insert.conversation_id = inbox;
  insert.kind = "inbound";
  insert.content = "late";
  g_assert_false (prs_store_insert_message (store, &insert, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* A workflow resolves the slug meanwhile: a fresh conversation */
  fresh = prs_test_resolve_conversation (store, "Email Inbox");
  g_assert_cmpstr (fresh, !=, inbox);
  late = add_message (store, fresh, "inbound", "arrived while deleted", NULL, NULL);

  /* Undo: the conversation is back, with what arrived, numbered on */
  g_assert_true (prs_store_restore_conversation (store, inbox, &merged, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (merged, ==, fresh);
  g_assert_false (prs_store_has_conversation (store, fresh));
  messages = prs_store_list_messages (store, inbox, 0, 10, &error);
  g_assert_cmpuint (json_array_get_length (messages), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "id"), ==, late);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (messages, 2), "seq"), ==, 3);
  g_clear_pointer (&list, json_array_unref);
  list = prs_store_list_conversations (store, &error);
  g_assert_cmpuint (json_array_get_length (list), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (list, 0), "messageCount"), ==, 3);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "arrived");
  g_assert_cmpstr (ids, ==, late);
  assert_no_orphans (fixture);

  /* Deleted for good: marked, confirmed, purged */
  g_assert_true (prs_store_mark_conversation_deleted (store, inbox, &error));
  g_assert_cmpint (prs_store_purge_deleted_conversations (store, &error), ==, 0);
  g_assert_true (prs_store_confirm_conversation_deletion (store, inbox, &error));
  g_assert_cmpint (prs_store_purge_deleted_conversations (store, &error), ==, 1);
  g_assert_no_error (error);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM conversations"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM messages"), ==, 0);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM runs"), ==, 0);
  assert_no_orphans (fixture);
  g_assert_false (prs_store_restore_conversation (store, inbox, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

/* Prosponsive stopped between the steps: the next start finishes them */
static void
test_delete_recover (Fixture       *fixture,
                     gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) restored = NULL;
  g_autofree char *undoable = prs_test_resolve_conversation (store, "undoable");
  g_autofree char *confirmed = prs_test_resolve_conversation (store, "confirmed");
  g_autofree char *kept = prs_test_resolve_conversation (store, "kept");

  g_free (add_message (store, undoable, "user", "one", NULL, NULL));
  g_free (add_message (store, confirmed, "user", "two", NULL, NULL));
  g_assert_true (prs_store_mark_conversation_deleted (store, undoable, &error));
  g_assert_true (prs_store_mark_conversation_deleted (store, confirmed, &error));
  g_assert_true (prs_store_confirm_conversation_deletion (store, confirmed, &error));
  g_assert_no_error (error);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_test_store_dir_open (fixture);
  restored = prs_store_recover_deletions (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (restored->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (restored, 0), ==, undoable);
  g_assert_true (prs_store_has_conversation (store, undoable));
  g_assert_false (prs_store_has_conversation (store, confirmed));
  g_assert_cmpint (prs_store_purge_deleted_conversations (store, &error), ==, 1);
  g_assert_true (prs_store_has_conversation (store, kept));
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM conversations"), ==, 2);
  assert_no_orphans (fixture);
}

/* ---- search ---- */

static gboolean
markup_is_well_formed (const char *markup)
{
  GMarkupParser parser = { 0 };
  g_autoptr(GMarkupParseContext) context = g_markup_parse_context_new (&parser, 0, NULL, NULL);
  g_autofree char *document = g_strconcat ("<markup>", markup, "</markup>", NULL);

  return g_markup_parse_context_parse (context, document, -1, NULL) &&
         g_markup_parse_context_end_parse (context, NULL);
}

static void
test_search (Fixture       *fixture,
             gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *inbox = prs_test_resolve_conversation (store, "Email Inbox");
  g_autofree char *chat = prs_test_resolve_conversation (store, "Chat");
  g_autofree char *once = add_message (store, chat, "user", "Is the crème brûlée ready? <b>Bold</b> & more", NULL, NULL);
  g_autofree char *twice = add_message (store, chat, "assistant", "Crème brûlée, crème brûlée.", NULL, NULL);
  g_autofree char *mail = add_message (store, inbox, "inbound", "New email",
                                       "{\"from\":\"alice@example.com\",\"deep\":{\"items\":[{\"tag\":\"Invoice-7781\"}]}}", NULL);
  g_autofree char *call = add_message (store, inbox, "tool-call", "email_move", NULL,
                                       "{\"name\":\"email_move\",\"arguments\":{\"destination\":\"Receipts/2026\"}}");
  g_autofree char *ids = NULL, *text = NULL, *markup = NULL, *plain = NULL;
  g_autoptr(GArray) ranges = NULL;
  PrsSearchHit *hit;

  /* Diacritics folded; more matches rank first */
  ids = search_ids (store, "creme brulee");
  text = g_strjoin (" ", twice, once, NULL);
  g_assert_cmpstr (ids, ==, text);
  g_clear_pointer (&ids, g_free);
  g_clear_pointer (&text, g_free);
  /* The word still being typed is a prefix; a finished one is not */
  ids = search_ids (store, "brul");
  g_assert_true (strstr (ids, once) != NULL);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "brul ");
  g_assert_cmpstr (ids, ==, "");
  g_clear_pointer (&ids, g_free);
  /* Request Context values, at any depth; tool names and arguments */
  ids = search_ids (store, "alice@example.com");
  g_assert_cmpstr (ids, ==, mail);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "invoice-7781");
  g_assert_cmpstr (ids, ==, mail);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "receipts");
  g_assert_cmpstr (ids, ==, call);
  g_clear_pointer (&ids, g_free);

  /* FTS5 syntax when it parses; plain words, never an error, when not */
  ids = search_ids (store, "body: brûlée");
  g_assert_true (strstr (ids, once) != NULL && strstr (ids, twice) != NULL);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "receipts OR alice");
  g_assert_true (strstr (ids, call) != NULL && strstr (ids, mail) != NULL);
  g_clear_pointer (&ids, g_free);
  {
    const char *bad[] = { "\"crème", "NEAR(", "crème AND", "email: crème", "(((", "crème*)", "\"", "-", "*",
                          "crème OR", NULL };

    for (guint i = 0; bad[i] != NULL; i++)
      {
        g_autoptr(GPtrArray) some = prs_store_search (store, bad[i], 10, NULL, &error);

        g_assert_no_error (error);
        g_assert_nonnull (some);
        /* Read as the plain word */
        if (g_str_equal (bad[i], "\"crème") || g_str_equal (bad[i], "crème*)"))
          g_assert_cmpuint (some->len, ==, 2);
      }
  }

  /* The snippet: matches marked, markup escaped */
  hits = prs_store_search (store, "bold", 10, NULL, &error);
  g_assert_cmpuint (hits->len, ==, 1);
  hit = g_ptr_array_index (hits, 0);
  g_assert_cmpstr (hit->conversation_id, ==, chat);
  g_assert_cmpstr (hit->conversation_slug, ==, "Chat");
  g_assert_cmpint (hit->seq, ==, 1);
  g_assert_true (strstr (hit->snippet, PRS_SEARCH_MARK_START "Bold" PRS_SEARCH_MARK_END) != NULL);
  markup = prs_search_snippet_to_markup (hit->snippet);
  g_assert_true (strstr (markup, "&lt;b&gt;<b>Bold</b>&lt;/b&gt; &amp; more") != NULL);
  g_assert_true (markup_is_well_formed (markup));
  plain = prs_search_snippet_to_text (hit->snippet, &ranges);
  g_assert_cmpuint (ranges->len, ==, 1);
  text = g_utf8_substring (plain, g_array_index (ranges, PrsSearchRange, 0).start,
                           g_array_index (ranges, PrsSearchRange, 0).end);
  g_assert_cmpstr (text, ==, "Bold");

  /* A changed message is found by what it says now */
  g_assert_true (prs_store_update_message (store, twice, NULL, "Tiramisu instead", NULL, &error));
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "tiramisu");
  g_assert_cmpstr (ids, ==, twice);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "creme");
  g_assert_cmpstr (ids, ==, once);

  g_cancellable_cancel (cancellable);
  g_assert_null (prs_store_search (store, "creme", 10, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  assert_no_orphans (fixture);
}

static void
test_plain_query (void)
{
  const struct { const char *text; const char *query; } cases[] = {
    { "invoice", "\"invoice\"*" },
    { "invoice ", "\"invoice\"" },
    { "  two words", "\"two\" \"words\"*" },
    { "say \"hi\"", "\"say\" \"\"\"hi\"\"\"*" },
    { "- & ", "" },
    { "", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *query = prs_search_plain_query (cases[i].text);

      g_assert_cmpstr (query, ==, cases[i].query);
    }
}

/* The snippet of @text's first hit as plain text, with its first match */
static char *
first_snippet (PrsStore    *store,
               const char  *text,
               char       **out_match)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) hits = prs_store_search (store, text, 10, NULL, &error);
  g_autoptr(GArray) ranges = NULL;
  char *plain;

  g_assert_no_error (error);
  g_assert_cmpuint (hits->len, >=, 1);
  plain = prs_search_snippet_to_text (((PrsSearchHit *) g_ptr_array_index (hits, 0))->snippet, &ranges);
  g_assert_cmpuint (ranges->len, >=, 1);
  *out_match = g_utf8_substring (plain, g_array_index (ranges, PrsSearchRange, 0).start,
                                 g_array_index (ranges, PrsSearchRange, 0).end);
  return plain;
}

/* Words of scripts written without spaces, Korean words with their
 * particles, and emoji: found as parts of the text (the index's unicode61
 * reads a Japanese sentence as one word, and no emoji at all) */
static void
test_search_cjk (Fixture       *fixture,
                 gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *chat = prs_test_resolve_conversation (store, "Chat");
  g_autofree char *other = prs_test_resolve_conversation (store, "Other");
  g_autofree char *ja = add_message (store, chat, "user", "明日東京に行きます", NULL, NULL);
  g_autofree char *zh = add_message (store, chat, "assistant", "今天**天气**很好，我们去公园吧。", NULL, NULL);
  g_autofree char *ko = add_message (store, chat, "user", "내일 서울에서 만나요", NULL, NULL);
  g_autofree char *rocket = add_message (store, chat, "user", "Launch 🚀 at noon, café after", NULL, NULL);
  g_autofree char *call = add_message (store, chat, "tool-call", "translate", NULL,
                                       "{\"name\":\"translate\",\"arguments\":{\"text\":\"東京タワー\"}}");
  g_autofree char *gone = add_message (store, other, "user", "東京駅で会いましょう", NULL, NULL);
  g_autofree char *ids = NULL, *match = NULL, *plain = NULL;
  g_autofree char *newest_first = g_strjoin (" ", call, ja, NULL);

  g_assert_true (prs_store_delete_conversation (store, other, &error));
  g_assert_no_error (error);
  /* Newest first; a deleted conversation's message is gone with it */
  ids = search_ids (store, "東京");
  g_assert_cmpstr (ids, ==, newest_first);
  g_clear_pointer (&ids, g_free);
  plain = first_snippet (store, "東京", &match);
  g_assert_cmpstr (match, ==, "東京");
  g_assert_cmpstr (plain, ==, "translate 東京タワー");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);
  /* A Chinese word of two characters, in a reply read as a reader sees it */
  plain = first_snippet (store, "天气", &match);
  g_assert_cmpstr (match, ==, "天气");
  g_assert_cmpstr (plain, ==, "今天天气很好，我们去公园吧。");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);
  /* A Korean word without its particle */
  ids = search_ids (store, "서울");
  g_assert_cmpstr (ids, ==, ko);
  g_clear_pointer (&ids, g_free);
  /* An emoji, alone and with a word found through the index (its
   * diacritics folded, the last one a prefix) */
  ids = search_ids (store, "🚀");
  g_assert_cmpstr (ids, ==, rocket);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "🚀 caf");
  g_assert_cmpstr (ids, ==, rocket);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "noon 🚀");
  g_assert_cmpstr (ids, ==, rocket);
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "🚀 tea");
  g_assert_cmpstr (ids, ==, "");
  g_clear_pointer (&ids, g_free);
  /* Every word must be there */
  ids = search_ids (store, "東京 天气");
  g_assert_cmpstr (ids, ==, "");
  g_clear_pointer (&ids, g_free);
  ids = search_ids (store, "大阪");
  g_assert_cmpstr (ids, ==, "");
  g_clear_pointer (&ids, g_free);
  /* A cancelled search says so, as one through the index does */
  g_cancellable_cancel (cancellable);
  g_assert_null (prs_store_search (store, "大阪", 10, cancellable, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  (void) zh;
  (void) gone;
  assert_no_orphans (fixture);
}

/* A reply's snippet is the text a reader sees, not its Markdown */
static void
test_search_markdown (Fixture       *fixture,
                      gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *chat = prs_test_resolve_conversation (store, "Chat");
  g_autoptr(GString) long_reply = g_string_new ("# Weekly digest\n\n");
  g_autofree char *plain = NULL, *match = NULL;

  g_free (add_message (store, chat, "assistant",
                       "**Received:** 3 invoices from *Alice* &amp; [the bank](https://bank.example)\n\n"
                       "- `ledger` updated\n- ~~old~~ total", NULL, NULL));
  plain = first_snippet (store, "invoices", &match);
  g_assert_cmpstr (plain, ==, "Received: 3 invoices from Alice & the bank ledger updated old total");
  g_assert_cmpstr (match, ==, "invoices");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);

  /* A match inside emphasis and a link keeps its highlight on the word */
  plain = first_snippet (store, "bank", &match);
  g_assert_cmpstr (match, ==, "bank");
  g_assert_null (strstr (plain, "]("));
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);

  /* Deep in a long reply: cut around the match, "…" where it was cut,
   * no Markdown left from the cut */
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (long_reply, "**Item %u:** filler words here\n", i);
  g_string_append (long_reply, "**Status:** reconciled at last\n");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (long_reply, "**Tail %u:** more filler\n", i);
  g_free (add_message (store, chat, "assistant", long_reply->str, NULL, NULL));
  plain = first_snippet (store, "reconciled", &match);
  g_assert_cmpstr (match, ==, "reconciled");
  g_assert_true (g_str_has_prefix (plain, "…"));
  g_assert_true (g_str_has_suffix (plain, "…"));
  g_assert_nonnull (strstr (plain, "Status: reconciled at last"));
  g_assert_null (strstr (plain, "*"));
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);

  /* A person's own text is not Markdown: shown as typed */
  g_free (add_message (store, chat, "user", "what is 2*3*4 for **mortgages**?", NULL, NULL));
  plain = first_snippet (store, "mortgages", &match);
  g_assert_cmpstr (plain, ==, "what is 2*3*4 for **mortgages**?");
}

/* A reply longer than 64 KiB: @line repeated to past that, then @tail */
static char *
make_long_reply (const char *line,
                 const char *tail)
{
  GString *text = g_string_new ("# Weekly digest\n\n");

  while (text->len <= 70 * 1024)
    g_string_append (text, line);
  g_string_append (text, tail);
  return g_string_free (text, FALSE);
}

/* A long reply's snippet shows plain words too: md4c reads a window of it
 * from a block's start, not FTS5's fragment, whose cut Markdown would show */
static void
test_search_long_markdown (Fixture       *fixture,
                           gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *chat = prs_test_resolve_conversation (store, "Chat");
  g_autofree char *lines = make_long_reply ("**Item:** filler words with `code` and [a link](https://example.org/a)\n",
                                       "**Status:** reconciled with `ledger` at [the bank](https://bank.example) "
                                       "and *more* words after it **here**\n\nLast paragraph.\n");
  g_autofree char *paragraphs = make_long_reply ("A paragraph has **bold words** and `code`\nover two lines.\n\n",
                                            "The end *says* the ledger was **balanced** in [the books]"
                                            "(https://books.example) today.\n");
  g_autofree char *code = make_long_reply ("Step: run `make` and **check**.\n\n",
                                      "```sh\nmake check\nmake dist **distcheck** `x`\n```\n\nDone.\n");
  g_autofree char *one_line = make_long_reply ("some **bold** and `code` words ",
                                                "some **bold** and quarterly totals and some **bold** and `code` words "
                                                "some **bold** and `code` words some **bold** and `code` words "
                                                "some **bold** and `code` words some **bold** and `code` words");
  g_autofree char *plain = NULL, *match = NULL;

  g_free (add_message (store, chat, "assistant", lines, NULL, NULL));
  plain = first_snippet (store, "reconciled", &match);
  g_assert_cmpstr (match, ==, "reconciled");
  g_assert_cmpstr (plain, ==, "…code and a link Status: reconciled with ledger at the bank and more words after it…");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);

  g_free (add_message (store, chat, "assistant", paragraphs, NULL, NULL));
  plain = first_snippet (store, "balanced", &match);
  g_assert_cmpstr (match, ==, "balanced");
  g_assert_cmpstr (plain, ==, "…end says the ledger was balanced in the books today.");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);

  /* In a fenced block, the code as it is, as in a short reply */
  g_free (add_message (store, chat, "assistant", code, NULL, NULL));
  plain = first_snippet (store, "distcheck", &match);
  g_assert_cmpstr (match, ==, "distcheck");
  g_assert_cmpstr (plain, ==, "…make check make dist **distcheck** `x`…");
  g_clear_pointer (&plain, g_free);
  g_clear_pointer (&match, g_free);

  /* One line longer than the window on each side: cut between words */
  g_free (add_message (store, chat, "assistant", one_line, NULL, NULL));
  plain = first_snippet (store, "quarterly", &match);
  g_assert_cmpstr (match, ==, "quarterly");
  g_assert_cmpstr (plain, ==, "…code words some bold and quarterly totals and some bold and code words some bold "
                              "and…");
}

/* The first snippet of a long reply made of filler, then @tail, found by
 * @word, and its match */
static char *
long_snippet (PrsStore   *store,
              const char *chat,
              const char *tail,
              const char *word)
{
  g_autofree char *reply = make_long_reply ("Step: run `make` and **check**.\n\n", tail);
  g_autofree char *match = NULL;
  char *plain;

  g_free (add_message (store, chat, "assistant", reply, NULL, NULL));
  plain = first_snippet (store, word, &match);
  g_assert_cmpstr (match, ==, word);
  return plain;
}

/* A long reply's window is the block md4c sees the match in (CommonMark's
 * rules): the code of a fenced block closed only by a fence as long, of
 * indented code across its blank lines, a list item's paragraph as text;
 * a reference link reads as its text with its definition far below */
static void
test_search_long_blocks (Fixture       *fixture,
                         gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *chat = prs_test_resolve_conversation (store, "Chat");
  struct { const char *tail, *word, *snippet; } cases[] = {
    /* A ``` line does not close a ```` block, nor a fence with text after it */
    { "````md\n```sh\nmake check\n```\n\nThen **distcheck** here\n````\n\nDone.\n",
      "distcheck", "…```sh make check ``` Then **distcheck** here…" },
    { "```\nstep one\n``` not a close\n\nmore code\n\nthe **fenced** words\n```\n\nDone.\n",
      "fenced", "…a close more code the **fenced** words…" },
    /* Indented code goes on past its blank lines */
    { "Run this:\n\n    ./configure\n\n    make **installcheck** now\n\n    echo done\n\nDone.\n",
      "installcheck", "…./configure make **installcheck** now echo done…" },
    /* … but a list item's paragraph indented as much is no code */
    { "1. Step one\n\n    Run the tests\n    before the **release**\n\nDone.\n",
      "release", "…Run the tests before the release…" },
    /* HTML is no block of its own to md4c here (MD_FLAG_NOHTML): a
     * paragraph whose tags read as the conversation shows them, as text */
    { "<div>\nThe **markup** words\n</div>\n\nDone.\n",
      "markup", "…<div> The markup words </div>…" },
    { "Press <kbd>**Ctrl**</kbd> and go.\n\nDone.\n",
      "Ctrl", "…Press <kbd>Ctrl</kbd> and go.…" },
    /* A reference's definition, far below the window, comes with it */
    { "See [The Bank][B1] for **reconciled** totals.\n\nDone.\n\n[b1]: https://bank.example\n",
      "reconciled", "…See The Bank for reconciled totals.…" },
    /* A block quote is the block, also when it breaks a paragraph, with
     * its lazy continuation lines, blank lines and headings in it */
    { "Intro words\n> The **quoted** words\n> go on\nlazily here\n\nDone.\n",
      "quoted", "…The quoted words go on lazily here…" },
    { "> # Notes\n>\n> First one\n>\n> The **qpara** line\n# After\n",
      "qpara", "…Notes First one The qpara line…" },
    { "- Item\n\n  > quoted **qitem** text\n  > more\n\nDone.\n",
      "qitem", "…quoted qitem text more…" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *plain = long_snippet (store, chat, cases[i].tail, cases[i].word);

      g_assert_cmpstr (plain, ==, cases[i].snippet);
    }
}

/* A long block quote's window, cut far below its start, still reads its
 * fenced code as code: the fence's line comes first */
static void
test_search_long_quote (Fixture       *fixture,
                        gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autofree char *chat = prs_test_resolve_conversation (store, "Chat");
  g_autoptr(GString) tail = g_string_new ("> Before the code\n>\n> ```\n");
  g_autofree char *plain = NULL;

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (tail, "> code line %03u with some filler words to fill the quote\n", i);
  g_string_append (tail, "> the *qfenced* line\n> ```\n> After *emphasis* words\n\nDone.\n");
  plain = long_snippet (store, chat, tail->str, "qfenced");
  g_assert_true (g_str_has_suffix (plain, "to fill the quote the *qfenced* line After emphasis words…"));
}

/* ---- Regenerate, Edit and Resend ---- */

static void
test_supersede (Fixture       *fixture,
                gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) superseded = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *chat = prs_test_resolve_conversation (store, "Chat");
  g_autofree char *question = add_message (store, chat, "user", "What is 2+2?", NULL, NULL);
  g_autofree char *answer = add_message (store, chat, "assistant", "5", NULL, NULL);
  g_autofree char *notice = add_message (store, chat, "notice", "A note", NULL, NULL);
  g_autofree char *trigger = NULL, *edited = NULL, *inbox = NULL;

  g_assert_true (prs_store_supersede_last_answer (store, chat, &trigger, &superseded, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (trigger, ==, question);
  g_assert_cmpuint (superseded->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (superseded, 0), ==, answer);
  node = prs_store_get_message (store, answer, &error);
  g_assert_nonnull (json_object_get_string_member (json_node_get_object (node), "supersededAt"));
  g_clear_pointer (&node, json_node_unref);
  node = prs_store_get_message (store, question, &error);
  g_assert_null (json_object_get_string_member (json_node_get_object (node), "supersededAt"));
  g_clear_pointer (&node, json_node_unref);

  /* Nothing left to answer again: no answer since */
  g_assert_false (prs_store_supersede_last_answer (store, chat, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  /* Edit and Resend: the question goes with its answers; a new one comes */
  g_free (add_message (store, chat, "assistant", "4", NULL, NULL));
  g_clear_pointer (&superseded, g_ptr_array_unref);
  g_assert_true (prs_store_replace_last_user_message (store, chat, "What is 3+3?", NULL, &edited, &superseded, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (superseded->len, ==, 2);
  node = prs_store_get_message (store, edited, &error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "content"), ==, "What is 3+3?");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "agentId"), ==, "prosponsive");
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (node), "seq"), ==, 5);
  g_assert_cmpint (count (fixture, "SELECT count(*) FROM messages WHERE superseded_at IS NULL"), ==, 1);
  g_assert_false (prs_store_replace_last_user_message (store, chat, "  ", NULL, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  /* What came from a workflow is not asked again from here */
  inbox = prs_test_resolve_conversation (store, "Email Inbox");
  g_free (add_message (store, inbox, "user", "hi", NULL, NULL));
  g_free (add_message (store, inbox, "inbound", "mail", NULL, NULL));
  g_free (add_message (store, inbox, "assistant", "about the mail", NULL, NULL));
  g_assert_false (prs_store_supersede_last_answer (store, inbox, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_assert_false (prs_store_replace_last_user_message (store, inbox, "x", NULL, NULL, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store-conversations/" path, Fixture, NULL, prs_test_store_dir_setup, func, prs_test_store_dir_teardown)
  ADD ("migration/9", test_migration_9);
  ADD ("migration/12", test_migration_12);
  ADD ("migration/14", test_migration_14);
  ADD ("pin-archive", test_pin_archive);
  ADD ("delete-undo", test_delete_undo);
  ADD ("delete-recover", test_delete_recover);
  ADD ("search", test_search);
  ADD ("search-cjk", test_search_cjk);
  ADD ("search-markdown", test_search_markdown);
  ADD ("search-long-markdown", test_search_long_markdown);
  ADD ("search-long-blocks", test_search_long_blocks);
  ADD ("search-long-quote", test_search_long_quote);
  ADD ("supersede", test_supersede);
#undef ADD
  g_test_add_func ("/prs/store-conversations/plain-query", test_plain_query);

  return g_test_run ();
}
