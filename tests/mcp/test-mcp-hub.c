/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-mcp-hub.c: the configured MCP servers kept connected (prs-mcp-hub.c)
 * against server-everything and hostile servers: start, on/off, edits (a
 * new name, a new secret, a kept secret), removal, servers added behind its
 * back, n8n names taken, a server that cannot start, a test of a server not
 * saved yet; the tools kept in the store through all of it
 * (prs-mcp-catalog.c). */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-json.h"
#include "prs-mcp-catalog.h"
#include "prs-mcp-hub.h"
#include "prs-mcp-test-util.h"
#include "prs-test-util.h"

typedef struct
{
  char          *dir;
  PrsStore      *store;
  PrsSecrets    *secrets;
  PrsMcpServers *servers;
  PrsMcpHub     *hub;
  guint          tools_changed;
} Fixture;

static void
on_tools_changed (PrsMcpHub *hub,
                  Fixture   *fixture)
{
  fixture->tools_changed++;
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("prs-test-mcp-hub-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->store = prs_store_new (fixture->dir, &error);
  g_assert_no_error (error);
  fixture->secrets = prs_secrets_new (fixture->dir);
  fixture->servers = prs_mcp_servers_new (fixture->store, fixture->secrets);
  fixture->hub = prs_mcp_hub_new (fixture->servers, fixture->store);
  g_signal_connect (fixture->hub, "tools-changed", G_CALLBACK (on_tools_changed), fixture);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  g_assert_finalize_object (g_steal_pointer (&fixture->hub));
  g_clear_object (&fixture->servers);
  g_clear_object (&fixture->secrets);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&fixture->store);
  prs_test_remove_tree (fixture->dir);
  g_free (fixture->dir);
}

static gboolean
is_connected (gpointer data)
{
  return prs_mcp_server_item_get_state (data) == PRS_MCP_SERVER_CONNECTED;
}

static gboolean
is_restarting (gpointer data)
{
  return prs_mcp_server_item_get_state (data) == PRS_MCP_SERVER_RESTARTING;
}

static void
wait_connected (PrsMcpServerItem *item)
{
  g_assert_true (prs_mcp_test_wait_until (is_connected, item, 30000));
}

static char *
hostile_path (void)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "hostile-server.py", NULL);

  return g_canonicalize_filename (script, NULL);
}

static char *
add_hostile (Fixture    *fixture,
             const char *name,
             const char *mode)
{
  g_autofree char *script = hostile_path ();
  const char *args[] = { script, "--mode", mode, NULL };
  g_autoptr(GError) error = NULL;
  PrsMcpServerRow row = { 0 };
  char *id = NULL;

  row.name = (char *) name;
  row.transport = (char *) "stdio";
  row.command = (char *) "python3";
  row.args = (char **) args;
  row.enabled = TRUE;
  g_assert_true (prs_mcp_hub_add_server (fixture->hub, &row, NULL, NULL, &id, &error));
  g_assert_no_error (error);
  return id;
}

static gboolean
has_tool (GPtrArray  *tools,
          const char *name)
{
  for (guint i = 0; tools != NULL && i < tools->len; i++)
    {
      if (g_strcmp0 (((PrsTool *) g_ptr_array_index (tools, i))->name, name) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
offered (Fixture    *fixture,
         const char *name)
{
  g_autoptr(GPtrArray) tools = prs_mcp_hub_list_tools (fixture->hub, NULL);
  g_autoptr(PrsTool) tool = prs_mcp_hub_lookup_tool (fixture->hub, name);

  g_assert_true (has_tool (tools, name) == (tool != NULL));
  return tool != NULL;
}

static gboolean
kept (Fixture    *fixture,
      const char *name)
{
  g_autoptr(GPtrArray) tools = prs_mcp_catalog_list (fixture->store, FALSE, NULL);

  return has_tool (tools, name);
}

/* Start, on and off, a new name, n8n names, removal */
static void
test_follows_changes (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  g_autofree char *status = NULL;
  g_autoptr(PrsMcpServerRow) row = NULL;
  g_autoptr(PrsTool) echo = NULL;
  const char *n8n[] = { "renamed__echo", NULL };
  PrsMcpServerItem *item;
  guint changes;

  /* Added before the start: nothing connects yet */
  id = add_hostile (fixture, "files", "ok");
  item = prs_mcp_hub_find_server (fixture->hub, "files");
  g_assert_nonnull (item);
  g_assert_null (prs_mcp_server_item_get_client (item));
  prs_mcp_hub_start (fixture->hub);
  g_assert_cmpuint (prs_mcp_server_item_get_state (item), ==, PRS_MCP_SERVER_CONNECTING);
  wait_connected (item);
  g_assert_cmpuint (prs_mcp_server_item_get_n_tools (item), ==, 2);
  status = prs_mcp_server_item_dup_status (item);
  g_assert_cmpstr (status, ==, "Connected: 2 tools");
  g_assert_true (offered (fixture, "files__echo"));
  echo = prs_mcp_hub_lookup_tool (fixture->hub, "files__echo");
  g_assert_cmpstr (echo->mcp_server, ==, "files");
  g_assert_cmpstr (echo->mcp_tool, ==, "echo");
  g_assert_cmpuint (echo->params->len, ==, 1);

  /* Off: not offered, still kept, still listed as a server */
  changes = fixture->tools_changed;
  g_assert_true (prs_mcp_hub_set_enabled (fixture->hub, id, FALSE, &error));
  g_assert_cmpuint (fixture->tools_changed, >, changes);
  g_assert_cmpuint (prs_mcp_server_item_get_state (item), ==, PRS_MCP_SERVER_OFF);
  g_assert_null (prs_mcp_server_item_get_client (item));
  g_assert_false (offered (fixture, "files__echo"));
  g_assert_true (kept (fixture, "files__echo"));
  g_assert_true (prs_mcp_hub_find_server (fixture->hub, id) == item);

  /* On again; the shared switch alone connects nothing anew */
  g_assert_true (prs_mcp_hub_set_enabled (fixture->hub, id, TRUE, &error));
  wait_connected (item);
  {
    PrsMcpClient *client = prs_mcp_server_item_get_client (item);

    g_assert_true (prs_mcp_hub_set_shared (fixture->hub, id, TRUE, &error));
    g_assert_true (prs_mcp_server_item_get_client (item) == client);
    g_assert_true (prs_mcp_server_item_get_row (item)->shared);
  }

  /* A new name: new tool names, the old ones gone */
  row = prs_mcp_server_row_copy (prs_mcp_server_item_get_row (item));
  g_free (row->name);
  row->name = g_strdup ("renamed");
  g_assert_true (prs_mcp_hub_update_server (fixture->hub, row, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_false (kept (fixture, "files__echo"));
  wait_connected (item);
  g_assert_true (offered (fixture, "renamed__echo"));

  /* An n8n tool takes a name: the MCP tool gets a suffix, at once */
  prs_mcp_hub_set_n8n_names (fixture->hub, n8n);
  g_assert_false (offered (fixture, "renamed__echo"));
  {
    g_autoptr(GPtrArray) tools = prs_mcp_hub_list_tools (fixture->hub, NULL);

    for (guint i = 0; i < tools->len; i++)
      {
        PrsTool *tool = g_ptr_array_index (tools, i);

        if (g_str_equal (tool->mcp_tool, "echo"))
          {
            g_assert_true (g_str_has_prefix (tool->name, "renamed__echo_"));
            g_assert_nonnull (strstr (tool->mcp_name_note, "n8n"));
          }
      }
  }

  /* Removed: gone, with its tools */
  g_assert_true (prs_mcp_hub_remove_server (fixture->hub, id, &error));
  g_assert_null (prs_mcp_hub_find_server (fixture->hub, id));
  g_assert_cmpuint (g_list_model_get_n_items (prs_mcp_hub_get_servers (fixture->hub)), ==, 0);
  {
    g_autoptr(GPtrArray) tools = prs_mcp_catalog_list (fixture->store, FALSE, NULL);

    g_assert_cmpuint (tools->len, ==, 0);
  }
}

/* prosponsive-ctl adds a server: the next reload connects it; a server
 * that cannot start says why and when it starts again */
static void
test_reload_and_failure (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *script = hostile_path ();
  const char *args[] = { script, "--mode", "exit-at-start", NULL };
  g_autofree char *status = NULL;
  PrsMcpServerRow row = { 0 };
  PrsMcpServerItem *item;

  prs_mcp_hub_start (fixture->hub);
  row.name = (char *) "broken";
  row.transport = (char *) "stdio";
  row.command = (char *) "python3";
  row.args = (char **) args;
  row.enabled = TRUE;
  g_assert_true (prs_mcp_servers_add (fixture->servers, &row, NULL, NULL, NULL, &error));
  g_assert_null (prs_mcp_hub_find_server (fixture->hub, "broken"));
  prs_mcp_hub_reload (fixture->hub);
  item = prs_mcp_hub_find_server (fixture->hub, "broken");
  g_assert_nonnull (item);
  g_assert_true (prs_mcp_test_wait_until (is_restarting, item, 20000));
  g_assert_cmpuint (prs_mcp_server_item_get_restart_in (item), >=, 1);
  g_assert_nonnull (strstr (prs_mcp_server_item_get_error (item), "cannot open the database"));
  status = prs_mcp_server_item_dup_status (item);
  g_assert_true (g_str_has_prefix (status, "Starts again in "));
  g_assert_nonnull (strstr (status, "cannot open the database"));
}

/* The server's environment holds @value (everything's get-env) */
static void
check_env (Fixture    *fixture,
           const char *value)
{
  g_autoptr(GError) error = NULL;
  GAsyncResult *result = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  prs_mcp_hub_call_tool_async (fixture->hub, "everything__get-env", NULL, NULL, NULL, NULL, NULL,
                               prs_mcp_test_async_done, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  node = prs_mcp_hub_call_tool_finish (fixture->hub, result, &error);
  g_object_unref (result);
  g_assert_no_error (error);
  text = prs_json_to_string (node, FALSE);
  if (strstr (text, value) == NULL)
    g_error ("“%s” is not in the server's environment: %s", value, text);
}

/* Secrets: given when added, replaced, kept when not given again; a test
 * of a row never saved uses the values it is given */
static void
test_secrets (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *entry = prs_mcp_test_everything_entry ();
  const char *args[] = { entry, "stdio", NULL };
  const char *secret_env[] = { "PRS_TEST_TOKEN", NULL };
  const char *first[] = { "first-s3cret", NULL };
  const char *second[] = { "second-s3cret", NULL };
  const char *keep[] = { NULL };
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) tested = NULL;
  PrsMcpServerRow row = { 0 };
  PrsMcpServerItem *item;

  row.name = (char *) "everything";
  row.transport = (char *) "stdio";
  row.command = (char *) "node";
  row.args = (char **) args;
  row.secret_env = (char **) secret_env;
  row.enabled = TRUE;

  /* Not saved yet: the test uses the value given */
  {
    GAsyncResult *result = NULL;

    prs_mcp_hub_test_async (fixture->hub, &row, NULL, first, NULL, prs_mcp_test_async_done, &result);
    while (result == NULL)
      g_main_context_iteration (NULL, TRUE);
    tested = prs_mcp_hub_test_finish (fixture->hub, result, &error);
    g_object_unref (result);
    g_assert_no_error (error);
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (tested, "serverInfo"), "name"),
                     ==, "mcp-servers/everything");
    g_assert_cmpint (json_object_get_int_member (tested, "tools"), >=, 10);
  }

  g_assert_true (prs_mcp_hub_add_server (fixture->hub, &row, NULL, first, &id, &error));
  prs_mcp_hub_start (fixture->hub);
  item = prs_mcp_hub_find_server (fixture->hub, id);
  wait_connected (item);
  check_env (fixture, "first-s3cret");

  row.id = id;
  g_assert_true (prs_mcp_hub_update_server (fixture->hub, &row, NULL, second, &error));
  g_assert_no_error (error);
  wait_connected (item);
  check_env (fixture, "second-s3cret");

  g_assert_true (prs_mcp_hub_update_server (fixture->hub, &row, NULL, keep, &error));
  wait_connected (item);
  check_env (fixture, "second-s3cret");

  /* A new variable without a value is refused, and nothing changes */
  {
    const char *two[] = { "PRS_TEST_TOKEN", "PRS_OTHER", NULL };
    const char *values[] = { NULL, NULL };

    row.secret_env = (char **) two;
    g_assert_false (prs_mcp_hub_update_server (fixture->hub, &row, NULL, values, &error));
    g_assert_error (error, PRS_ERROR, PRS_ERROR_INVALID_INPUT);
    g_assert_cmpstrv (prs_mcp_server_item_get_row (item)->secret_env, secret_env);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/mcp/hub/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("follows-changes", test_follows_changes);
  ADD ("reload-and-failure", test_reload_and_failure);
  ADD ("secrets", test_secrets);

#undef ADD
  return g_test_run ();
}
