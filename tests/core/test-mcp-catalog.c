/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-mcp-catalog.c: MCP tools as the tools agents see
 * (prs-mcp-catalog.c, prs_tool_set_input_schema): parameters read from a
 * server's schema, its text cleaned of what a person cannot see, kept in
 * the store and offered only while the server is switched on. */
#include "config.h"

#include <string.h>

#include "prs-json.h"
#include "prs-mcp-catalog.h"
#include "prs-test-util.h"

#define TAG_I "\xf3\xa0\x81\xa9"     /* U+E0069 */
#define ZWSP  "\xe2\x80\x8b"         /* U+200B */

static PrsMcpTool *
make_tool (const char *json,
           const char *exposed)
{
  g_autoptr(JsonNode) node = json_from_string (json, NULL);
  PrsMcpTool *tool = prs_mcp_tool_new_from_json (json_node_get_object (node), NULL);

  g_assert_nonnull (tool);
  tool->exposed_name = g_strdup (exposed);
  return tool;
}

static void
test_schema_params (void)
{
  g_autoptr(PrsMcpTool) mcp = make_tool (
    "{\"name\":\"search\",\"description\":\"Finds" ZWSP " mail.\","
    "\"inputSchema\":{\"type\":\"object\",\"required\":[\"query\",\"nothing\"],\"properties\":{"
    "\"query\":{\"type\":\"string\",\"description\":\"What to look" TAG_I " for\"},"
    "\"limit\":{\"type\":\"integer\",\"default\":10},"
    "\"exact\":{\"type\":\"boolean\"},"
    "\"folders\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"when\":{\"type\":[\"string\",\"null\"]},"
    "\"odd\":true}}}", "mail__search");
  g_autoptr(PrsTool) tool = prs_mcp_catalog_tool_new (mcp, "mail", "id-1");
  g_autoptr(JsonNode) schema = prs_tool_build_input_schema (tool);
  g_autofree char *text = prs_json_to_string (schema, FALSE);
  const PrsParam *param;

  g_assert_true (prs_tool_is_mcp (tool));
  g_assert_cmpstr (tool->name, ==, "mail__search");
  g_assert_cmpstr (tool->mcp_tool, ==, "search");
  g_assert_cmpstr (tool->mcp_server, ==, "mail");
  g_assert_cmpstr (tool->description, ==, "Finds mail.");
  /* The schema goes to the model as the server gave it, cleaned */
  g_assert_null (strstr (text, TAG_I));
  g_assert_nonnull (strstr (text, "\"What to look for\""));
  g_assert_nonnull (strstr (text, "\"required\":[\"query\",\"nothing\"]"));

  g_assert_cmpuint (tool->params->len, ==, 6);
  param = g_ptr_array_index (tool->params, 0);
  g_assert_cmpstr (param->name, ==, "query");
  g_assert_cmpint (param->type, ==, PRS_PARAM_STRING);
  g_assert_true (param->required);
  g_assert_cmpstr (param->description, ==, "What to look for");
  param = g_ptr_array_index (tool->params, 1);
  g_assert_cmpint (param->type, ==, PRS_PARAM_NUMBER);
  g_assert_false (param->required);
  g_assert_cmpint (json_node_get_int (param->default_value), ==, 10);
  g_assert_cmpstr (param->description, ==, "The limit");
  g_assert_cmpint (((PrsParam *) g_ptr_array_index (tool->params, 2))->type, ==, PRS_PARAM_BOOLEAN);
  g_assert_cmpint (((PrsParam *) g_ptr_array_index (tool->params, 3))->type, ==, PRS_PARAM_ARRAY);
  /* A union of types, or no schema at all: a string to guidance */
  g_assert_cmpint (((PrsParam *) g_ptr_array_index (tool->params, 4))->type, ==, PRS_PARAM_STRING);
  g_assert_cmpint (((PrsParam *) g_ptr_array_index (tool->params, 5))->type, ==, PRS_PARAM_STRING);
}

static void
test_kept_and_offered (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("prs-test-mcp-catalog-XXXXXX", &error);
  g_autoptr(PrsStore) store = prs_store_new (dir, &error);
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_tool_free);
  g_autoptr(GPtrArray) listed = NULL;
  g_autoptr(PrsTool) found = NULL;
  g_autoptr(PrsMcpServerRow) row = NULL;
  g_autofree char *id = NULL;
  const char *args[] = { "server.js", NULL };
  PrsMcpServerRow add = { 0 };

  add.name = (char *) "mail";
  add.transport = (char *) "stdio";
  add.command = (char *) "node";
  add.args = (char **) args;
  add.enabled = TRUE;
  g_assert_true (prs_store_add_mcp_server (store, &add, &id, &error));
  g_ptr_array_add (tools, make_tool ("{\"name\":\"search\",\"description\":\"Finds mail.\"}", "mail__search"));
  g_ptr_array_add (tools, make_tool ("{\"name\":\"send\",\"description\":\"Sends.\"}", "mail__send"));
  g_assert_true (prs_mcp_catalog_save (store, id, tools, &error));
  g_assert_no_error (error);

  listed = prs_mcp_catalog_list (store, TRUE, &error);
  g_assert_cmpuint (listed->len, ==, 2);
  g_assert_cmpstr (((PrsTool *) g_ptr_array_index (listed, 1))->name, ==, "mail__send");
  found = prs_mcp_catalog_lookup (store, "mail__send");
  g_assert_nonnull (found);
  g_assert_cmpstr (found->mcp_server_id, ==, id);
  g_assert_null (prs_mcp_catalog_lookup (store, "mail__nothing"));
  g_assert_null (prs_mcp_catalog_lookup (store, "email_move"));

  /* Switched off: kept, not offered */
  row = prs_store_lookup_mcp_server (store, id, &error);
  row->enabled = FALSE;
  g_assert_true (prs_store_update_mcp_server (store, row, &error));
  g_clear_pointer (&listed, g_ptr_array_unref);
  listed = prs_mcp_catalog_list (store, TRUE, &error);
  g_assert_cmpuint (listed->len, ==, 0);
  g_clear_pointer (&listed, g_ptr_array_unref);
  listed = prs_mcp_catalog_list (store, FALSE, &error);
  g_assert_cmpuint (listed->len, ==, 2);
  g_assert_null (prs_mcp_catalog_lookup (store, "mail__send"));

  g_clear_object (&store);
  prs_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/prs/mcp-catalog/schema-params", test_schema_params);
  g_test_add_func ("/prs/mcp-catalog/kept-and-offered", test_kept_and_offered);

  return g_test_run ();
}
