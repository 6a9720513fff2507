/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tests for the store (prs-store*.c): opening, the owner thread, settings,
 * discovery results and migrations (conversations and messages are in
 * test-store-messages.c). Each test gets its own temporary folder. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <glib/gstdio.h>

#include "prs-api-idempotency.h"
#include "prs-error.h"
#include "prs-store.h"
#include "prs-store-private.h"
#include "prs-test-util.h"

typedef PrsTestStoreDir Fixture;

static guint
file_mode (const char *path)
{
  GStatBuf st;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return st.st_mode & 0777;
}

/* A tool as discovery makes it, with every kind of parameter. */
static PrsTool *
make_tool (const char *name,
           const char *workflow_id)
{
  PrsTool *tool = prs_tool_new ();
  g_autoptr(JsonNode) def_number = json_from_string ("10", NULL);
  g_autoptr(JsonNode) def_array = json_from_string ("[\"a\",{\"b\":null}]", NULL);

  tool->name = g_strdup (name);
  tool->description = g_strdup ("Sends an email");
  tool->description_source = PRS_DESCRIPTION_STICKY_NOTE;
  tool->workflow_id = g_strdup (workflow_id);
  tool->workflow_name = g_strdup ("Send email");
  tool->created_at = g_strdup ("2024-05-01T10:00:00.000Z");
  tool->webhook_path = g_strdup_printf ("%s-path", name);
  tool->response_mode = g_strdup ("lastNode");
  tool->webhook_id = g_strdup ("6f1c2c1e-aaaa-bbbb-cccc-000000000001");
  tool->webhook_node_name = g_strdup ("Webhook");

  g_ptr_array_add (tool->params, prs_param_new ("to", PRS_PARAM_STRING, TRUE, NULL));
  g_ptr_array_add (tool->params, prs_param_new ("maxResults", PRS_PARAM_NUMBER, FALSE, def_number));
  g_ptr_array_add (tool->params, prs_param_new ("labels", PRS_PARAM_ARRAY, FALSE, def_array));
  g_ptr_array_add (tool->params, prs_param_new ("urgent", PRS_PARAM_BOOLEAN, FALSE, NULL));

  return tool;
}

static GPtrArray *
make_tools (const char * const *names)
{
  GPtrArray *tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_tool_free);

  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *workflow_id = g_strdup_printf ("wf-%s", names[i]);

      g_ptr_array_add (tools, make_tool (names[i], workflow_id));
    }

  return tools;
}

static GArray *
make_checklists (const PrsChecklistInsert *rows,
                 guint                     n_rows)
{
  GArray *checklists = g_array_sized_new (FALSE, FALSE, sizeof (PrsChecklistInsert), n_rows);

  g_array_append_vals (checklists, rows, n_rows);
  return checklists;
}

static void
assert_tools_equal (const PrsTool *got,
                    const PrsTool *expected)
{
  g_autoptr(JsonNode) got_json = prs_tool_to_json (got);
  g_autoptr(JsonNode) expected_json = prs_tool_to_json (expected);

  g_assert_true (json_node_equal (got_json, expected_json));
  g_assert_cmpstr (got->webhook_id, ==, expected->webhook_id);
  g_assert_cmpstr (got->webhook_node_name, ==, expected->webhook_node_name);
  g_assert_cmpstr (got->created_at, ==, expected->created_at);
  g_assert_cmpuint (got->params->len, ==, expected->params->len);
}

static void
save_two_tools (PrsStore *store,
                gint64    when)
{
  static const char * const names[] = { "send_email", "create_ticket", NULL };
  g_autoptr(GPtrArray) tools = make_tools (names);
  static const PrsChecklistInsert rows[] = {
    { "wf-send_email", "Send email", "send_email", TRUE,
      "{\"workflowId\":\"wf-send_email\",\"workflowName\":\"Send email\",\"discoverable\":true,"
      "\"toolName\":\"send_email\",\"checks\":[{\"id\":\"webhook\",\"status\":\"pass\",\"message\":\"ok\"}]}" },
    { "wf-broken", "Broken", NULL, FALSE,
      "{\"workflowId\":\"wf-broken\",\"workflowName\":\"Broken\",\"discoverable\":false,"
      "\"toolName\":null,\"checks\":[{\"id\":\"webhook\",\"status\":\"fail\",\"message\":\"no webhook\"}]}" },
  };
  g_autoptr(GArray) checklists = make_checklists (rows, G_N_ELEMENTS (rows));
  g_autoptr(GError) error = NULL;

  g_assert_true (prs_store_save_discovery (store, tools, checklists, when, &error));
  g_assert_no_error (error);
}

/* ---- Opening -------------------------------------------------------------- */

static void
test_open_creates (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data_dir = g_build_filename (fixture->dir, "nested", "data", NULL);
  g_autofree char *db_path = g_build_filename (data_dir, "prosponsive.db", NULL);
  g_autofree char *wal_path = g_strconcat (db_path, "-wal", NULL);
  g_autofree char *value = NULL;
  g_autoptr(PrsStore) store = NULL;

  store = prs_store_new (data_dir, &error);
  g_assert_no_error (error);
  g_assert_nonnull (store);

  g_assert_cmpstr (prs_store_get_path (store), ==, db_path);
  g_assert_cmpuint (file_mode (data_dir), ==, 0700);
  g_assert_cmpuint (file_mode (db_path), ==, 0600);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, prs_store_get_latest_version ());
  g_assert_cmpint (PRS_STORE_SCHEMA_VERSION, >=, 2);

  g_assert_true (prs_store_set_setting (store, "n8n-url", "http://localhost:5678", &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (wal_path, G_FILE_TEST_EXISTS));
  g_assert_cmpuint (file_mode (wal_path), ==, 0600);

  g_assert_finalize_object (g_steal_pointer (&store));

  /* Opening again migrates nothing and keeps the data. */
  store = prs_store_new (data_dir, &error);
  g_assert_no_error (error);
  value = prs_store_dup_setting (store, "n8n-url");
  g_assert_cmpstr (value, ==, "http://localhost:5678");
}

static void
test_open_permissions_tightened (Fixture       *fixture,
                                 gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;

  g_assert_true (g_file_set_contents (fixture->db_path, "", 0, NULL));
  g_assert_cmpint (g_chmod (fixture->db_path, 0644), ==, 0);

  store = prs_test_store_dir_open (fixture);
  g_assert_cmpuint (file_mode (fixture->db_path), ==, 0600);
}

static void
test_pragmas (Fixture       *fixture,
              gconstpointer  user_data)
{
  static const struct { const char *name; const char *expected; } cases[] = {
    { "journal_mode", "wal" },
    { "synchronous", "2" },   /* FULL */
    { "foreign_keys", "1" },
    { "busy_timeout", "5000" },
  };
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autofree char *version = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *value = prs_store_dup_pragma (store, cases[i].name, &error);

      g_assert_no_error (error);
      g_assert_cmpstr (value, ==, cases[i].expected);
    }

  version = prs_store_dup_pragma (store, "user_version", &error);
  g_assert_no_error (error);
  g_assert_cmpint (atoi (version), ==, prs_store_get_latest_version ());

  g_assert_null (prs_store_dup_pragma (store, "writable_schema", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
}

static void
test_corrupt_file (Fixture       *fixture,
                   gconstpointer  user_data)
{
  static const char *contents[] = {
    "this is not a database, just some text\n",
    NULL,  /* 8 KiB of noise */
  };

  for (guint i = 0; i < G_N_ELEMENTS (contents); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PrsStore) store = NULL;
      g_autofree char *noise = NULL;

      if (contents[i] != NULL)
        g_assert_true (g_file_set_contents (fixture->db_path, contents[i], -1, NULL));
      else
        {
          noise = g_malloc (8192);
          for (guint j = 0; j < 8192; j++)
            noise[j] = (char) g_random_int_range (0, 256);
          g_assert_true (g_file_set_contents (fixture->db_path, noise, 8192, NULL));
        }

      store = prs_store_new_for_path (fixture->db_path, &error);
      g_assert_null (store);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
      g_assert_nonnull (strstr (error->message, fixture->db_path));
      g_test_message ("corrupt file %u: %s", i, error->message);
    }
}

static void
test_open_missing_folder (Fixture       *fixture,
                          gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (fixture->dir, "missing", "x.db", NULL);
  g_autoptr(PrsStore) store = prs_store_new_for_path (path, &error);

  g_assert_null (store);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
}

/* A database a newer version wrote is refused, with what to do */
static void
test_open_newer (Fixture       *fixture,
                 gconstpointer  user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsStore) store = prs_store_new (fixture->dir, &error);
  g_autofree char *sql = NULL, *version = NULL;

  g_assert_no_error (error);
  g_clear_object (&store);
  sql = g_strdup_printf ("PRAGMA user_version = %d", prs_store_get_latest_version () + 1);
  g_free (prs_test_sql_query (fixture->db_path, sql));
  store = prs_store_new (fixture->dir, &error);
  g_assert_null (store);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
  g_assert_nonnull (strstr (error->message, "written by a newer version of Prosponsive"));
  g_assert_true (g_str_has_suffix (error->message, "Start the newer version again, or restore a backup "
                                                   "this version made."));
  /* Left as it was */
  version = prs_test_sql_query (fixture->db_path, "PRAGMA user_version");
  g_assert_cmpint (atoi (version), ==, prs_store_get_latest_version () + 1);
}

static gpointer
read_setting_thread (gpointer data)
{
  g_free (prs_store_dup_setting (data, "n8n-url"));
  return NULL;
}

/* A connection belongs to the thread that opened it: another thread using
 * it stops the program in debug builds (HACKING.md, "Threads"). */
static void
test_open_thread_owner (Fixture       *fixture,
                        gconstpointer  user_data)
{
#if PRS_ENABLE_THREAD_CHECKS
  if (g_test_subprocess ())
    {
      g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);

      g_thread_join (g_thread_new ("not-the-owner", read_setting_thread, store));
      return;
    }

  /* The owner's own calls pass */
  {
    g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);

    g_free (prs_store_dup_setting (store, "n8n-url"));
  }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*prs_thread_owner_is_current*");
#else
  g_test_skip ("thread checks are off in this build (-Ddebug=false)");
#endif
}

/* ---- Settings ------------------------------------------------------------- */

static void
test_settings (Fixture       *fixture,
               gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GError) error = NULL;
  g_autofree char *value = NULL;

  g_assert_null (prs_store_dup_setting (store, "n8n-url"));

  g_assert_true (prs_store_set_setting (store, "n8n-url", "http://a", &error));
  g_assert_no_error (error);
  value = prs_store_dup_setting (store, "n8n-url");
  g_assert_cmpstr (value, ==, "http://a");
  g_clear_pointer (&value, g_free);

  g_assert_true (prs_store_set_setting (store, "n8n-url", "http://b ’ünïcode’", &error));
  g_assert_no_error (error);
  value = prs_store_dup_setting (store, "n8n-url");
  g_assert_cmpstr (value, ==, "http://b ’ünïcode’");
  g_clear_pointer (&value, g_free);

  /* Quotes and SQL in values are only data. */
  g_assert_true (prs_store_set_setting (store, "x'); DROP TABLE settings; --", "'\"", &error));
  g_assert_no_error (error);
  value = prs_store_dup_setting (store, "x'); DROP TABLE settings; --");
  g_assert_cmpstr (value, ==, "'\"");
  g_clear_pointer (&value, g_free);

  g_assert_true (prs_store_set_setting (store, "n8n-url", NULL, &error));
  g_assert_no_error (error);
  g_assert_null (prs_store_dup_setting (store, "n8n-url"));

  /* Deleting what is not there is fine. */
  g_assert_true (prs_store_set_setting (store, "n8n-url", NULL, &error));
  g_assert_no_error (error);
}

/* ---- Discovery ------------------------------------------------------------ */

static void
test_discovery_save_and_list (Fixture       *fixture,
                              gconstpointer  user_data)
{
  static const char * const names[] = { "send_email", "create_ticket", NULL };
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GPtrArray) expected = make_tools (names);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(JsonArray) checks = NULL;
  g_autoptr(GError) error = NULL;
  const PrsTool *tool;
  JsonObject *check;

  save_two_tools (store, 1700000000);

  tools = prs_store_list_tools (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 2);

  /* Ordered by name. */
  tool = g_ptr_array_index (tools, 0);
  g_assert_cmpstr (tool->name, ==, "create_ticket");
  assert_tools_equal (tool, g_ptr_array_index (expected, 1));
  g_assert_cmpint (tool->discovered_at, ==, 1700000000);

  tool = g_ptr_array_index (tools, 1);
  g_assert_cmpstr (tool->name, ==, "send_email");
  assert_tools_equal (tool, g_ptr_array_index (expected, 0));

  /* Parameters with their defaults survive. */
  {
    const PrsParam *labels = g_ptr_array_index (tool->params, 2);
    g_autoptr(JsonNode) def = json_from_string ("[\"a\",{\"b\":null}]", NULL);

    g_assert_cmpstr (labels->name, ==, "labels");
    g_assert_cmpint (labels->type, ==, PRS_PARAM_ARRAY);
    g_assert_false (labels->required);
    g_assert_true (json_node_equal (labels->default_value, def));
    g_assert_true (((const PrsParam *) g_ptr_array_index (tool->params, 0))->required);
    g_assert_null (((const PrsParam *) g_ptr_array_index (tool->params, 3))->default_value);
  }

  checks = prs_store_list_workflow_checks (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (checks), ==, 2);
  check = json_array_get_object_element (checks, 0);
  g_assert_cmpstr (json_object_get_string_member (check, "workflowId"), ==, "wf-send_email");
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (check, "checks")), ==, 1);
  check = json_array_get_object_element (checks, 1);
  g_assert_cmpstr (json_object_get_string_member (check, "workflowId"), ==, "wf-broken");
  g_assert_true (json_object_get_null_member (check, "toolName"));
}

static void
test_discovery_replaces (Fixture       *fixture,
                         gconstpointer  user_data)
{
  static const char * const second[] = { "lookup_customer", NULL };
  static const char * const duplicate[] = { "a_tool", "a_tool", NULL };
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) new_tools = make_tools (second);
  g_autoptr(GPtrArray) bad_tools = make_tools (duplicate);
  g_autoptr(GPtrArray) good_tools = make_tools (duplicate + 1);
  static const PrsChecklistInsert rows[] = {
    { "wf-lookup_customer", "Lookup", "lookup_customer", TRUE,
      "{\"workflowId\":\"wf-lookup_customer\",\"workflowName\":\"Lookup\",\"discoverable\":true,"
      "\"toolName\":\"lookup_customer\",\"checks\":[]}" },
  };
  static const PrsChecklistInsert bad_rows[] = {
    { NULL, "no id", NULL, FALSE, "{\"workflowId\":null,\"workflowName\":\"no id\"}" },
  };
  g_autoptr(GArray) checklists = make_checklists (rows, G_N_ELEMENTS (rows));
  g_autoptr(GArray) bad_checklists = make_checklists (bad_rows, G_N_ELEMENTS (bad_rows));
  g_autoptr(JsonArray) checks = NULL;
  g_autoptr(GError) error = NULL;
  gint64 attempt, success;

  save_two_tools (store, 1000);

  g_assert_true (prs_store_save_discovery (store, new_tools, checklists, 2000, &error));
  g_assert_no_error (error);

  tools = prs_store_list_tools (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_cmpstr (((PrsTool *) g_ptr_array_index (tools, 0))->name, ==, "lookup_customer");
  g_clear_pointer (&tools, g_ptr_array_unref);

  checks = prs_store_list_workflow_checks (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (checks), ==, 1);
  g_clear_pointer (&checks, json_array_unref);

  /* A set that cannot be stored whole changes nothing: two tools of one name… */
  g_assert_false (prs_store_save_discovery (store, bad_tools, NULL, 3000, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
  g_clear_error (&error);

  /* …or a checklist without a workflow id, after valid tools. */
  g_assert_false (prs_store_save_discovery (store, good_tools, bad_checklists,
                                            3000, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);

  tools = prs_store_list_tools (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_cmpstr (((PrsTool *) g_ptr_array_index (tools, 0))->name, ==, "lookup_customer");
  checks = prs_store_list_workflow_checks (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (checks), ==, 1);

  prs_store_get_discovery_status (store, &attempt, &success, NULL);
  g_assert_cmpint (attempt, ==, 2000);
  g_assert_cmpint (success, ==, 2000);

  /* An empty result is a result: it empties the set. */
  g_assert_true (prs_store_save_discovery (store, NULL, NULL, 4000, &error));
  g_assert_no_error (error);
  g_clear_pointer (&tools, g_ptr_array_unref);
  tools = prs_store_list_tools (store, &error);
  g_assert_cmpuint (tools->len, ==, 0);
}

static void
test_discovery_failure_keeps_tools (Fixture       *fixture,
                                    gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *last_error = NULL;
  gint64 attempt = -1, success = -1;

  prs_store_get_discovery_status (store, &attempt, &success, &last_error);
  g_assert_cmpint (attempt, ==, 0);
  g_assert_cmpint (success, ==, 0);
  g_assert_null (last_error);
  prs_store_get_discovery_status (store, NULL, NULL, NULL);

  /* A failure before any success. */
  g_assert_true (prs_store_record_discovery_failure (store, PRS_DISCOVERY_FAILURE_UNREACHABLE, "n8n is not running", 500, &error));
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_discovery_failure (store), ==, PRS_DISCOVERY_FAILURE_UNREACHABLE);
  prs_store_get_discovery_status (store, &attempt, &success, &last_error);
  g_assert_cmpint (attempt, ==, 500);
  g_assert_cmpint (success, ==, 0);
  g_assert_cmpstr (last_error, ==, "n8n is not running");
  g_clear_pointer (&last_error, g_free);

  save_two_tools (store, 1000);
  prs_store_get_discovery_status (store, &attempt, &success, &last_error);
  g_assert_cmpint (attempt, ==, 1000);
  g_assert_cmpint (success, ==, 1000);
  g_assert_null (last_error);
  /* A success leaves no kind of failure behind */
  g_assert_cmpint (prs_store_get_discovery_failure (store), ==, PRS_DISCOVERY_FAILURE_OTHER);

  g_assert_true (prs_store_record_discovery_failure (store, PRS_DISCOVERY_FAILURE_KEY_REFUSED, "The API key was rejected", 2000, &error));
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_discovery_failure (store), ==, PRS_DISCOVERY_FAILURE_KEY_REFUSED);

  tools = prs_store_list_tools (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 2);

  prs_store_get_discovery_status (store, &attempt, &success, &last_error);
  g_assert_cmpint (attempt, ==, 2000);
  g_assert_cmpint (success, ==, 1000);
  g_assert_cmpstr (last_error, ==, "The API key was rejected");
}

static void
test_lookup_tool (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_test_store_dir_open (fixture);
  g_autoptr(PrsTool) expected = make_tool ("send_email", "wf-send_email");
  g_autoptr(PrsTool) tool = NULL;
  g_autoptr(PrsTool) missing = NULL;
  g_autoptr(GError) error = NULL;

  save_two_tools (store, 1234);

  tool = prs_store_lookup_tool (store, "send_email", &error);
  g_assert_no_error (error);
  g_assert_nonnull (tool);
  assert_tools_equal (tool, expected);
  g_assert_cmpint (tool->discovered_at, ==, 1234);

  missing = prs_store_lookup_tool (store, "no_such_tool", &error);
  g_assert_null (missing);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

/* ---- Migrations ----------------------------------------------------------- */

static void
test_migration_1 (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;

  /* Version 0: a database that has not been set up yet. */
  store = prs_store_new_at_version (fixture->db_path, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 0);
  g_assert_null (prs_store_dup_setting (store, "n8n-url"));
  g_assert_false (prs_store_set_setting (store, "n8n-url", "x", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
  g_clear_error (&error);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 1);
  g_assert_true (prs_store_set_setting (store, "n8n-url", "http://x", &error));
  g_assert_no_error (error);
  save_two_tools (store, 42);
}

static void
test_migration_2 (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(JsonArray) checks = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsTool) expected = make_tool ("send_email", "wf-send_email");
  g_autofree char *setting = NULL;
  g_autofree char *last_error = NULL;
  g_autofree char *id = NULL;
  gint64 attempt, success;

  /* A version-1 database with data in every table. */
  store = prs_store_new_at_version (fixture->db_path, 1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 1);
  g_assert_true (prs_store_set_setting (store, "n8n-url", "http://n8n:5678", &error));
  g_assert_no_error (error);
  save_two_tools (store, 1000);
  g_assert_true (prs_store_record_discovery_failure (store, PRS_DISCOVERY_FAILURE_OTHER, "down", 2000, &error));
  g_assert_no_error (error);
  g_assert_false (prs_store_resolve_conversation (store, "inbox", &id, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_STORE);
  g_clear_error (&error);
  g_assert_finalize_object (g_steal_pointer (&store));

  /* Opening at an older version never downgrades. */
  store = prs_store_new_at_version (fixture->db_path, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 1);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 2, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 2);

  setting = prs_store_dup_setting (store, "n8n-url");
  g_assert_cmpstr (setting, ==, "http://n8n:5678");

  tools = prs_store_list_tools (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 2);
  assert_tools_equal (g_ptr_array_index (tools, 1), expected);

  checks = prs_store_list_workflow_checks (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (checks), ==, 2);

  prs_store_get_discovery_status (store, &attempt, &success, &last_error);
  g_assert_cmpint (attempt, ==, 2000);
  g_assert_cmpint (success, ==, 1000);
  g_assert_cmpstr (last_error, ==, "down");

  /* And the new tables hold rows. */
  id = prs_test_sql_conversation (fixture->db_path, "inbox");
  g_assert_nonnull (id);
}

static char *
query_one (const char *db_path,
           const char *sql)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  char *result = NULL;

  g_assert_cmpint (sqlite3_open_v2 (db_path, &db, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    result = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  sqlite3_close (db);

  return result;
}

static void
test_migration_3 (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *message_id = NULL;
  g_autofree char *agent = NULL;
  g_autofree char *count = NULL;
  PrsMessageInsert insert = { 0 };

  /* A version-2 database with a conversation and a message. */
  store = prs_store_new_at_version (fixture->db_path, 2, &error);
  g_assert_no_error (error);
  id = prs_test_sql_conversation (fixture->db_path, "Email Inbox");
  insert.conversation_id = id;
  insert.kind = "inbound";
  insert.content = "New email";
  insert.context_json = "{\"uid\":\"12345\"}";
  message_id = prs_test_sql_message (fixture->db_path, &insert, 1);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 3, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 3);
  g_assert_finalize_object (g_steal_pointer (&store));
  count = query_one (fixture->db_path, "SELECT count(*) FROM messages WHERE content = 'New email'");
  g_assert_cmpstr (count, ==, "1");
  g_clear_pointer (&count, g_free);

  /* The default agent exists from the first start; the new tables hold rows. */
  agent = query_one (fixture->db_path, "SELECT name FROM agents WHERE id = 'prosponsive'");
  g_assert_cmpstr (agent, ==, "Prosponsive");
  g_free (query_one (fixture->db_path,
                     "INSERT INTO approval_rules (tool, action, created_at) VALUES ('t', 'approve', 'now')"));
  count = query_one (fixture->db_path, "SELECT count(*) FROM approval_rules");
  g_assert_cmpstr (count, ==, "1");
}

static void
test_migration_4 (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *message_id = NULL;
  g_autofree char *action = NULL;
  g_autoptr(PrsRunRow) loaded = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  g_autoptr(GPtrArray) unfinished = NULL;
  g_autofree char *status = NULL;
  PrsMessageInsert insert = { 0 };
  PrsRunRow run = { 0 };
  PrsToolCallRow call = { 0 };

  /* A version-3 database with a conversation, a message and a rule. */
  store = prs_store_new_at_version (fixture->db_path, 3, &error);
  g_assert_no_error (error);
  id = prs_test_sql_conversation (fixture->db_path, "Email Inbox");
  insert.conversation_id = id;
  insert.kind = "tool-call";
  insert.content = "email_move";
  insert.status = "proposed";
  message_id = prs_test_sql_message (fixture->db_path, &insert, 1);
  g_assert_true (prs_store_add_approval_rule (store, "email_move", NULL, NULL, "approve", NULL, &error));
  g_assert_no_error (error);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 4, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 4);

  /* Old rows are intact; runs and tool calls can be stored. */
  action = prs_store_match_approval_rule (store, "email_move", "prosponsive", "Email Inbox");
  g_assert_cmpstr (action, ==, "approve");

  run.id = (char *) "run-1";
  run.conversation_id = id;
  run.agent_id = (char *) "prosponsive";
  run.origin = (char *) "agent-inference";
  run.status = (char *) "awaiting_approval";
  run.transcript_json = (char *) "[{\"role\":\"user\",\"text\":\"hi\"}]";
  run.round = 1;
  g_assert_true (prs_store_save_run (store, &run, &error));
  g_assert_no_error (error);

  call.id = (char *) "call-1";
  call.run_id = (char *) "run-1";
  call.message_id = message_id;
  call.round = 1;
  call.name = (char *) "email_move";
  call.arguments_json = (char *) "{\"uid\":\"1\"}";
  call.status = (char *) "approved";
  g_assert_true (prs_store_save_tool_call (store, &call, "approved", NULL, &error));
  g_assert_no_error (error);

  loaded = prs_store_lookup_run (store, "run-1", &error);
  g_assert_nonnull (loaded);
  g_assert_cmpint (loaded->round, ==, 1);
  g_assert_cmpstr (loaded->status, ==, "awaiting_approval");
  unfinished = prs_store_list_unfinished_runs (store, &error);
  g_assert_cmpuint (unfinished->len, ==, 1);
  calls = prs_store_list_tool_calls (store, "run-1", &error);
  g_assert_cmpuint (calls->len, ==, 1);
  status = query_one (fixture->db_path, "SELECT status FROM messages WHERE kind = 'tool-call'");
  g_assert_cmpstr (status, ==, "approved");
}

static char *
insert_keyed_inbound (const char *db_path,
                      const char *conversation_id,
                      const char *agent_id,
                      const char *dedup_key,
                      const char *extra_json)
{
  static gint64 seq;
  PrsMessageInsert insert = { 0 };

  insert.conversation_id = conversation_id;
  insert.kind = "inbound";
  insert.content = "mail 1";
  insert.status = "failed";
  insert.agent_id = agent_id;
  insert.dedup_key = dedup_key;
  insert.extra_json = extra_json;
  return prs_test_sql_message (db_path, &insert, ++seq);
}

static void
test_migration_5 (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *third = NULL;
  g_autofree char *chat = NULL;
  g_autofree char *found = NULL;
  g_autofree char *key = NULL;
  g_autofree char *other = NULL;
  g_autofree char *stored = NULL;
  PrsApiRequestIdentity request = { 0 };

  /* A version-4 database with keys stored before they were scoped */
  store = prs_store_new_at_version (fixture->db_path, 4, &error);
  g_assert_no_error (error);
  a = prs_test_sql_conversation (fixture->db_path, "Email Inbox");
  b = prs_test_sql_conversation (fixture->db_path, "Other");
  first = insert_keyed_inbound (fixture->db_path, a, "prosponsive", "idem:<m1@example>",
                                "{\"route\":\"agent-inference\",\"httpStatus\":503}");
  second = insert_keyed_inbound (fixture->db_path, b, "prosponsive", "exec:0123abcd", "{\"route\":\"inference\"}");
  third = insert_keyed_inbound (fixture->db_path, a, "prosponsive", "idem:no-route", NULL);
  chat = insert_keyed_inbound (fixture->db_path, a, NULL, NULL, NULL);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 5, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 5);

  /* The key a retry of the first request computes now finds it, in its
   * own conversation only */
  request.route = "agent-inference";
  request.conversation_id = a;
  request.agent_id = "prosponsive";
  request.idempotency_key = "<m1@example>";
  request.prompt = "mail 1";
  key = prs_api_request_dedup_key (&request);
  found = prs_store_find_message_by_dedup_key (store, key);
  g_assert_cmpstr (found, ==, first);
  request.conversation_id = b;
  other = prs_api_request_dedup_key (&request);
  g_assert_null (prs_store_find_message_by_dedup_key (store, other));

  g_assert_finalize_object (g_steal_pointer (&store));
  stored = query_one (fixture->db_path, "SELECT group_concat (dedup_key, '|') FROM"
                                        " (SELECT dedup_key FROM messages ORDER BY rowid)");
  g_clear_pointer (&key, g_free);
  key = g_strdup_printf ("idem:agent-inference:%s:prosponsive:<m1@example>|"
                         "exec:inference:%s:prosponsive:0123abcd|"
                         "idem:agent-inference:%s:prosponsive:no-route", a, b, a);
  g_assert_cmpstr (stored, ==, key);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store/" path, Fixture, NULL, prs_test_store_dir_setup, func, prs_test_store_dir_teardown)

  ADD ("open/creates", test_open_creates);
  ADD ("open/permissions-tightened", test_open_permissions_tightened);
  ADD ("open/pragmas", test_pragmas);
  ADD ("open/corrupt-file", test_corrupt_file);
  ADD ("open/missing-folder", test_open_missing_folder);
  ADD ("open/newer-version", test_open_newer);
  ADD ("open/thread-owner", test_open_thread_owner);
  ADD ("settings", test_settings);
  ADD ("discovery/save-and-list", test_discovery_save_and_list);
  ADD ("discovery/replaces-atomically", test_discovery_replaces);
  ADD ("discovery/failure-keeps-tools", test_discovery_failure_keeps_tools);
  ADD ("discovery/lookup-tool", test_lookup_tool);
  ADD ("migration/1", test_migration_1);
  ADD ("migration/2", test_migration_2);
  ADD ("migration/3", test_migration_3);
  ADD ("migration/4", test_migration_4);
  ADD ("migration/5", test_migration_5);

#undef ADD

  return g_test_run ();
}
