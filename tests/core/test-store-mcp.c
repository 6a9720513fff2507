/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-store-mcp.c: the MCP servers in the store (migration 6,
 * prs-store-mcp.c), the tools they listed (migration 11) and with their secrets (prs-mcp-servers.c): secrets go
 * to the secrets, never to SQLite. */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "prs-error.h"
#include "prs-mcp-servers.h"
#include "prs-store.h"
#include "prs-test-util.h"

typedef PrsTestStoreDir Fixture;

static void
test_migration_6 (Fixture       *fixture,
                  gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) servers = NULL;
  g_autofree char *id = NULL;
  g_autofree char *action = NULL;
  g_autofree char *query = NULL;
  g_autofree char *slug = NULL;
  const char *args[] = { "/srv/index.js", "stdio", NULL };
  PrsMcpServerRow row = { 0 };

  /* A version-5 database with a rule and a conversation */
  store = prs_store_new_at_version (fixture->db_path, 5, &error);
  g_assert_no_error (error);
  g_assert_true (prs_store_add_approval_rule (store, "email_move", NULL, NULL, "approve", NULL, &error));
  id = prs_test_sql_conversation (fixture->db_path, "Email Inbox");
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 6, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 6);
  action = prs_store_match_approval_rule (store, "email_move", "prosponsive", "Email Inbox");
  g_assert_cmpstr (action, ==, "approve");
  g_free (query);
  query = g_strdup_printf ("SELECT slug FROM conversations WHERE id = '%s'", id);
  slug = prs_test_sql_query (fixture->db_path, query);
  g_assert_cmpstr (slug, ==, "Email Inbox");

  servers = prs_store_list_mcp_servers (store, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (servers->len, ==, 0);
  row.name = (char *) "everything";
  row.transport = (char *) "stdio";
  row.command = (char *) "node";
  row.args = (char **) args;
  row.enabled = TRUE;
  g_assert_true (prs_store_add_mcp_server (store, &row, NULL, &error));
  g_assert_no_error (error);
}

/* A tool as prs_mcp_tool_to_json writes it */
static JsonNode *
cached_tool (const char *server,
             const char *name)
{
  g_autofree char *text = g_strdup_printf ("{\"name\":\"%s\",\"exposedName\":\"%s__%s\","
                                           "\"description\":\"Echoes.\",\"inputSchema\":{\"type\":\"object\"}}",
                                           name, server, name);

  return json_from_string (text, NULL);
}

static void
test_migration_10 (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsMcpServerRow) server = NULL;
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autoptr(JsonArray) cached = NULL;
  g_autofree char *id = NULL;
  g_autofree char *other = NULL;
  const char *args[] = { "/srv/index.js", NULL };
  PrsMcpServerRow row = { 0 };
  JsonObject *entry;

  /* A version-6 database with a server */
  store = prs_store_new_at_version (fixture->db_path, 6, &error);
  g_assert_no_error (error);
  row.name = (char *) "everything";
  row.transport = (char *) "stdio";
  row.command = (char *) "node";
  row.args = (char **) args;
  row.enabled = TRUE;
  g_assert_true (prs_store_add_mcp_server (store, &row, &id, &error));
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 10, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 10);
  server = prs_store_lookup_mcp_server (store, "everything", &error);
  g_assert_nonnull (server);
  g_assert_cmpstrv (server->args, args);

  /* Never listed: none kept */
  cached = prs_store_list_mcp_tools (store, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (cached), ==, 0);
  g_clear_pointer (&cached, json_array_unref);

  json_array_add_element (tools, cached_tool ("everything", "echo"));
  json_array_add_element (tools, cached_tool ("everything", "add"));
  g_assert_true (prs_store_save_mcp_tools (store, id, tools, 1700000000, &error));
  g_assert_no_error (error);
  cached = prs_store_list_mcp_tools (store, id, &error);
  g_assert_cmpuint (json_array_get_length (cached), ==, 2);
  /* In the server's order, with the server */
  entry = json_array_get_object_element (cached, 0);
  g_assert_cmpstr (json_object_get_string_member (entry, "serverName"), ==, "everything");
  g_assert_cmpint (json_object_get_int_member (entry, "listedAt"), ==, 1700000000);
  g_assert_true (json_object_get_boolean_member (entry, "enabled"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (entry, "tool"), "exposedName"),
                   ==, "everything__echo");
  g_clear_pointer (&cached, json_array_unref);

  /* A new list replaces the old */
  json_array_remove_element (tools, 1);
  g_assert_true (prs_store_save_mcp_tools (store, id, tools, 1700000100, &error));
  cached = prs_store_list_mcp_tools (store, NULL, &error);
  g_assert_cmpuint (json_array_get_length (cached), ==, 1);
  g_clear_pointer (&cached, json_array_unref);

  /* Another setting kept (on/off) keeps them; a new name drops them */
  g_clear_pointer (&server, prs_mcp_server_row_free);
  server = prs_store_lookup_mcp_server (store, id, &error);
  server->enabled = FALSE;
  g_assert_true (prs_store_update_mcp_server (store, server, &error));
  cached = prs_store_list_mcp_tools (store, id, &error);
  g_assert_cmpuint (json_array_get_length (cached), ==, 1);
  g_assert_false (json_object_get_boolean_member (json_array_get_object_element (cached, 0), "enabled"));
  g_clear_pointer (&cached, json_array_unref);
  g_free (server->name);
  server->name = g_strdup ("every");
  g_assert_true (prs_store_update_mcp_server (store, server, &error));
  cached = prs_store_list_mcp_tools (store, id, &error);
  g_assert_cmpuint (json_array_get_length (cached), ==, 0);
  g_clear_pointer (&cached, json_array_unref);

  /* A server's tools go with it; one removed keeps none */
  g_assert_true (prs_store_save_mcp_tools (store, id, tools, 1700000200, &error));
  g_assert_true (prs_store_remove_mcp_server (store, id, &error));
  cached = prs_store_list_mcp_tools (store, NULL, &error);
  g_assert_cmpuint (json_array_get_length (cached), ==, 0);
  g_clear_pointer (&cached, json_array_unref);
  other = g_uuid_string_random ();
  g_assert_true (prs_store_save_mcp_tools (store, other, tools, 1700000300, &error));
  cached = prs_store_list_mcp_tools (store, NULL, &error);
  g_assert_cmpuint (json_array_get_length (cached), ==, 0);
}

static void
test_crud (Fixture       *fixture,
           gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_store_new_for_path (fixture->db_path, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsMcpServerRow) loaded = NULL;
  g_autoptr(PrsMcpServerRow) by_id = NULL;
  g_autoptr(GPtrArray) servers = NULL;
  g_autofree char *id = NULL;
  const char *args[] = { "-y", "@scope/server", NULL };
  const char *env[] = { "LOG_LEVEL=debug", NULL };
  const char *secret_env[] = { "API_TOKEN", NULL };
  const char *headers[] = { "Authorization", NULL };
  PrsMcpServerRow stdio = { 0 }, http = { 0 };

  stdio.name = (char *) "files";
  stdio.transport = (char *) "stdio";
  stdio.command = (char *) "npx";
  stdio.args = (char **) args;
  stdio.env = (char **) env;
  stdio.secret_env = (char **) secret_env;
  stdio.enabled = TRUE;
  g_assert_true (prs_store_add_mcp_server (store, &stdio, &id, &error));
  g_assert_no_error (error);

  http.name = (char *) "remote";
  http.transport = (char *) "http";
  http.url = (char *) "https://mcp.example.org/mcp";
  http.header_names = (char **) headers;
  http.shared = TRUE;
  g_assert_true (prs_store_add_mcp_server (store, &http, NULL, &error));

  loaded = prs_store_lookup_mcp_server (store, "files", &error);
  g_assert_nonnull (loaded);
  g_assert_cmpstr (loaded->id, ==, id);
  g_assert_cmpstr (loaded->command, ==, "npx");
  g_assert_cmpstrv (loaded->args, args);
  g_assert_cmpstrv (loaded->env, env);
  g_assert_cmpstrv (loaded->secret_env, secret_env);
  g_assert_null (loaded->url);
  g_assert_true (loaded->enabled);
  g_assert_false (loaded->shared);
  g_assert_nonnull (loaded->created_at);

  /* Names are unique, ignoring case (they start tool names); an update
   * keeps the id */
  g_assert_false (prs_store_add_mcp_server (store, &stdio, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  stdio.name = (char *) "FILES";
  g_assert_false (prs_store_add_mcp_server (store, &stdio, NULL, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  g_clear_error (&error);
  g_free (loaded->name);
  loaded->name = g_strdup ("local files");
  loaded->enabled = FALSE;
  g_assert_true (prs_store_update_mcp_server (store, loaded, &error));
  by_id = prs_store_lookup_mcp_server (store, id, &error);
  g_assert_cmpstr (by_id->name, ==, "local files");
  g_assert_false (by_id->enabled);

  servers = prs_store_list_mcp_servers (store, &error);
  g_assert_cmpuint (servers->len, ==, 2);
  g_assert_cmpstr (((PrsMcpServerRow *) g_ptr_array_index (servers, 0))->name, ==, "local files");
  g_assert_true (((PrsMcpServerRow *) g_ptr_array_index (servers, 1))->shared);

  g_assert_true (prs_store_remove_mcp_server (store, id, &error));
  g_assert_false (prs_store_remove_mcp_server (store, id, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
}

static void
test_rejects (Fixture       *fixture,
              gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_store_new_for_path (fixture->db_path, NULL);
  const char *bad_env[] = { "NO VALUE", NULL };
  const char *bad_header[] = { "Mcp-Session-Id", NULL };
  PrsMcpServerRow rows[5] = { { 0 } };

  rows[0] = (PrsMcpServerRow) { .name = (char *) " padded", .transport = (char *) "stdio", .command = (char *) "x" };
  rows[1] = (PrsMcpServerRow) { .name = (char *) "both", .transport = (char *) "stdio", .command = (char *) "x",
                                .url = (char *) "http://127.0.0.1/" };
  rows[2] = (PrsMcpServerRow) { .name = (char *) "nothing", .transport = (char *) "http" };
  rows[3] = (PrsMcpServerRow) { .name = (char *) "ctl\x01", .transport = (char *) "stdio", .command = (char *) "x" };
  rows[4] = (PrsMcpServerRow) { .name = (char *) "sixty-five-characters-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                                .transport = (char *) "stdio", .command = (char *) "x" };
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (prs_store_add_mcp_server (store, &rows[i], NULL, &error));
      g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
    }

  /* What only the MCP layer knows */
  {
    g_autoptr(GError) error = NULL;
    PrsMcpServerRow env = { .name = (char *) "e", .transport = (char *) "stdio", .command = (char *) "x",
                            .env = (char **) bad_env };
    PrsMcpServerRow header = { .name = (char *) "h", .transport = (char *) "http",
                               .url = (char *) "https://example.org/mcp", .header_names = (char **) bad_header };
    PrsMcpServerRow scheme = { .name = (char *) "s", .transport = (char *) "http", .url = (char *) "ftp://example.org/" };

    g_assert_false (prs_mcp_server_row_validate (&env, &error));
    g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
    g_clear_error (&error);
    g_assert_false (prs_mcp_server_row_validate (&header, &error));
    g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
    g_clear_error (&error);
    g_assert_false (prs_mcp_server_row_validate (&scheme, &error));
    g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
  }
}

/* Whether @needle is anywhere in the @len bytes of @data (files with NULs). */
static gboolean
contains (const char *data,
          gsize       len,
          const char *needle)
{
  gsize n = strlen (needle);

  for (gsize i = 0; i + n <= len; i++)
    {
      if (memcmp (data + i, needle, n) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
test_secrets_stay_out (Fixture       *fixture,
                       gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = prs_store_new (fixture->dir, NULL);
  g_autoptr(PrsSecrets) secrets = prs_secrets_new (fixture->dir);
  g_autoptr(PrsMcpServers) servers = prs_mcp_servers_new (store, secrets);
  g_autoptr(GError) error = NULL;
  g_autoptr(PrsMcpServerRow) row = NULL;
  g_autoptr(PrsMcpClient) client = NULL;
  g_autofree char *db = NULL;
  gsize db_len = 0;
  g_autofree char *id = NULL;
  const char *header_names[] = { "Authorization", NULL };
  const char *header_values[] = { "Bearer s3cret-header-value", NULL };
  const char *reserved[] = { "n8n_tool", NULL };
  PrsMcpServerRow http = { .name = (char *) "remote", .transport = (char *) "http",
                           .url = (char *) "http://127.0.0.1:9/mcp", .header_names = (char **) header_names };

  g_assert_true (prs_mcp_servers_add (servers, &http, header_values, NULL, &id, &error));
  g_assert_no_error (error);

  g_assert_true (g_file_get_contents (fixture->db_path, &db, &db_len, NULL));
  g_assert_false (contains (db, db_len, "s3cret-header-value"));
  {
    g_autofree char *wal_path = g_strconcat (fixture->db_path, "-wal", NULL);
    g_autofree char *wal = NULL;
    gsize len = 0;

    if (g_file_get_contents (wal_path, &wal, &len, NULL))
      g_assert_false (contains (wal, len, "s3cret-header-value"));
  }

  row = prs_store_lookup_mcp_server (store, "remote", &error);
  client = prs_mcp_servers_create_client (servers, row, reserved, &error);
  g_assert_no_error (error);
  g_assert_nonnull (client);
  g_assert_cmpstr (prs_mcp_client_get_server_name (client), ==, "remote");

  /* Removing the server removes its secrets: a client can no longer be made */
  g_assert_true (prs_mcp_servers_remove (servers, "remote", &error));
  g_assert_no_error (error);
  g_assert_false (prs_mcp_servers_remove (servers, "remote", &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_clear_object (&client);
  g_assert_null (prs_mcp_servers_create_client (servers, row, reserved, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_NOT_CONFIGURED);
}

/* Runs become MCP clients' calls too: a version-10 database keeps its
 * runs and their tool calls (which the table's remaking must not cascade
 * away), takes runs of origin mcp-client, which it refused before, and
 * Insights still counts each new run */
static void
test_migration_11 (Fixture       *fixture,
                   gconstpointer  user_data)
{
  g_autoptr(PrsStore) store = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autoptr(PrsRunRow) loaded = NULL;
  g_autoptr(GPtrArray) calls = NULL;
  PrsRunRow run = { 0 };
  PrsToolCallRow call = { 0 };

  store = prs_store_new_at_version (fixture->db_path, 10, &error);
  g_assert_no_error (error);
  g_assert_true (prs_store_resolve_conversation (store, "MCP clients", &id, NULL, &error));
  run.id = (char *) "run-1";
  run.conversation_id = id;
  run.agent_id = (char *) "prosponsive";
  run.origin = (char *) "chat";
  run.status = (char *) "awaiting_approval";
  run.transcript_json = (char *) "[]";
  run.round = 1;
  g_assert_true (prs_store_save_run (store, &run, &error));
  call.id = (char *) "call-1";
  call.run_id = (char *) "run-1";
  call.message_id = (char *) "message-1";
  call.round = 1;
  call.name = (char *) "everything__echo";
  call.arguments_json = (char *) "{}";
  call.status = (char *) "proposed";
  g_assert_true (prs_store_save_tool_call (store, &call, NULL, NULL, &error));
  g_assert_no_error (error);
  run.id = (char *) "run-2";
  run.origin = (char *) "mcp-client";
  g_assert_false (prs_store_save_run (store, &run, &error));
  g_clear_error (&error);
  g_assert_finalize_object (g_steal_pointer (&store));

  store = prs_store_new_at_version (fixture->db_path, 11, &error);
  g_assert_no_error (error);
  g_assert_cmpint (prs_store_get_schema_version (store), ==, 11);
  loaded = prs_store_lookup_run (store, "run-1", &error);
  g_assert_nonnull (loaded);
  g_assert_cmpint (loaded->round, ==, 1);
  calls = prs_store_list_tool_calls (store, "run-1", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (calls->len, ==, 1);
  g_assert_cmpstr (((PrsToolCallRow *) g_ptr_array_index (calls, 0))->status, ==, "proposed");
  g_assert_true (prs_store_save_run (store, &run, &error));
  g_assert_no_error (error);
  {
    g_autofree char *counted = prs_test_sql_query (fixture->db_path,
                                                   "SELECT sum (runs) FROM insight_agent_days"
                                                   " WHERE agent_id = 'prosponsive'");

    g_assert_cmpstr (counted, ==, "2");
  }
  /* The foreign key holds again: a run's calls go with it */
  call.id = (char *) "call-2";
  call.run_id = (char *) "no-such-run";
  g_assert_false (prs_store_save_tool_call (store, &call, NULL, NULL, &error));
  g_clear_error (&error);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/prs/store-mcp/" path, Fixture, NULL, prs_test_store_dir_setup, func, prs_test_store_dir_teardown)

  ADD ("migration/6", test_migration_6);
  ADD ("migration/10", test_migration_10);
  ADD ("migration/11", test_migration_11);
  ADD ("crud", test_crud);
  ADD ("rejects", test_rejects);
  ADD ("secrets-stay-out", test_secrets_stay_out);

#undef ADD

  return g_test_run ();
}
