/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-mcp-everything.c: the MCP client against the reference server
 * @modelcontextprotocol/server-everything, installed from npm, over stdio
 * and over Streamable HTTP: initialize, tools/list, calls, structured
 * content, progress and cancellation. */
#include "config.h"

#include <string.h>

#include "prs-error.h"
#include "prs-mcp-http.h"
#include "prs-mcp-names.h"
#include "prs-mcp-stdio.h"
#include "prs-mcp-test-util.h"

static const PrsMcpTool *
find_by_server_name (PrsMcpClient *client,
                     const char   *name)
{
  GPtrArray *tools = prs_mcp_client_get_tools (client);

  for (guint i = 0; i < tools->len; i++)
    {
      const PrsMcpTool *tool = g_ptr_array_index (tools, i);

      if (g_str_equal (tool->name, name))
        return tool;
    }
  return NULL;
}

static const char *
result_text (JsonNode *result)
{
  JsonObject *object = json_node_get_object (result);

  return json_object_has_member (object, "text") ? json_object_get_string_member (object, "text") : NULL;
}

static void
check_handshake_and_tools (PrsMcpClient *client)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *tools;
  JsonObject *info;
  const PrsMcpTool *echo;

  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (prs_mcp_client_get_state (client), ==, PRS_MCP_CLIENT_READY);
  g_assert_cmpstr (prs_mcp_client_get_protocol_version (client), ==, PRS_MCP_PROTOCOL_VERSION);
  info = json_node_get_object (prs_mcp_client_get_server_info (client));
  g_assert_cmpstr (json_object_get_string_member (info, "name"), ==, "mcp-servers/everything");

  tools = prs_mcp_client_get_tools (client);
  g_assert_cmpuint (tools->len, >=, 10);
  for (guint i = 0; i < tools->len; i++)
    {
      const PrsMcpTool *tool = g_ptr_array_index (tools, i);

      g_assert_true (prs_mcp_tool_name_is_valid (tool->exposed_name));
      g_assert_true (JSON_NODE_HOLDS_OBJECT (tool->input_schema));
    }
  echo = find_by_server_name (client, "echo");
  g_assert_nonnull (echo);
  g_assert_cmpstr (echo->exposed_name, ==, "everything__echo");
  g_assert_cmpstr (echo->title, ==, "Echo Tool");
  g_assert_true (prs_mcp_client_find_tool (client, "everything__echo") == echo);
  g_assert_nonnull (find_by_server_name (client, "get-sum"));
  g_assert_nonnull (find_by_server_name (client, "trigger-long-running-operation"));
}

static void
check_calls (PrsMcpClient *client)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) echo = NULL;
  g_autoptr(JsonNode) sum = NULL;
  g_autoptr(JsonNode) weather = NULL;
  JsonObject *structured;

  echo = prs_mcp_test_call (client, "echo", "{\"message\":\"hello from Prosponsive\"}", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (result_text (echo), ==, "Echo: hello from Prosponsive");

  sum = prs_mcp_test_call (client, "get-sum", "{\"a\":2,\"b\":40}", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (result_text (sum), "42"));

  /* The text only repeats structuredContent: the result keeps the data once */
  weather = prs_mcp_test_call (client, "get-structured-content", "{\"location\":\"Chicago\"}", NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_null (result_text (weather));
  structured = json_object_get_object_member (json_node_get_object (weather), "structured");
  g_assert_cmpint (json_object_get_int_member (structured, "temperature"), ==, 36);

  /* Invalid arguments are the server's error, not a broken connection */
  g_clear_pointer (&sum, json_node_unref);
  sum = prs_mcp_test_call (client, "get-sum", "{\"a\":\"two\"}", NULL, NULL, &error);
  g_assert_null (sum);
  g_assert_nonnull (error);
  g_assert_true (error->domain == PRS_ERROR);
  g_clear_error (&error);
  g_assert_cmpuint (prs_mcp_client_get_state (client), ==, PRS_MCP_CLIENT_READY);
}

static void
check_progress (PrsMcpClient *client)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) done = NULL;
  guint progress = 0;

  done = prs_mcp_test_call (client, "trigger-long-running-operation", "{\"duration\":1,\"steps\":4}",
                            NULL, &progress, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (result_text (done), "completed"));
  g_assert_cmpuint (progress, ==, 4);
}

static void
cancel_now (double      progress,
            double      total,
            const char *message,
            gpointer    data)
{
  g_cancellable_cancel (data);
}

typedef struct
{
  GMainLoop    *loop;
  GAsyncResult *result;
} Wait;

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  Wait *wait = data;

  wait->result = g_object_ref (result);
  g_main_loop_quit (wait->loop);
}

/* Cancelling at the first progress notification ends the call at once,
 * and the connection goes on working. */
static void
check_cancel (PrsMcpClient *client)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) after = NULL;
  g_autoptr(JsonObject) arguments = json_object_new ();
  Wait wait = { g_main_loop_new (NULL, FALSE), NULL };
  gint64 start = g_get_monotonic_time ();

  json_object_set_int_member (arguments, "duration", 30);
  json_object_set_int_member (arguments, "steps", 30);
  prs_mcp_client_call_tool_async (client, "trigger-long-running-operation", arguments,
                                  cancel_now, cancellable, NULL, cancellable, on_done, &wait);
  g_main_loop_run (wait.loop);
  g_assert_null (prs_mcp_client_call_tool_finish (client, wait.result, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_object_unref (wait.result);
  g_main_loop_unref (wait.loop);

  after = prs_mcp_test_call (client, "echo", "{\"message\":\"still here\"}", NULL, NULL, NULL);
  g_assert_nonnull (after);
  g_assert_cmpstr (result_text (after), ==, "Echo: still here");
}

static void
test_stdio (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_everything_stdio ();

  check_handshake_and_tools (client);
  check_calls (client);
  check_progress (client);
  check_cancel (client);
  prs_mcp_client_close (client);
  g_assert_cmpuint (prs_mcp_client_get_state (client), ==, PRS_MCP_CLIENT_IDLE);
}

static void
test_http (void)
{
  g_autoptr(PrsMcpTestServer) server = prs_mcp_test_everything_http ();
  g_autoptr(PrsMcpTransport) transport = prs_mcp_http_new (server->url, NULL);
  g_autoptr(PrsMcpClient) client = prs_mcp_client_new ("everything", transport);

  check_handshake_and_tools (client);
  /* The server gave a session, and keeps answering within it (it refuses
   * requests without it) */
  g_assert_nonnull (prs_mcp_http_get_session_id (PRS_MCP_HTTP (transport)));
  check_calls (client);
  check_progress (client);
  check_cancel (client);
  prs_mcp_client_close (client);
}

/* The server gets the variables the user set and a few of the basics,
 * never the rest of Prosponsive's environment. */
static void
test_environment (void)
{
  g_autofree char *entry = prs_mcp_test_everything_entry ();
  const char *args[] = { entry, "stdio", NULL };
  const char *env[] = { "PRS_TEST_MARKER=forty-two", NULL };
  g_autoptr(PrsMcpTransport) transport = prs_mcp_stdio_new ("node", args, env);
  g_autoptr(PrsMcpClient) client = prs_mcp_client_new ("everything", transport);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  const char *text;

  g_assert_nonnull (g_getenv ("G_TEST_SRCDIR"));
  result = prs_mcp_test_call (client, "get-env", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  text = result_text (result);
  g_assert_nonnull (strstr (text, "\"PRS_TEST_MARKER\": \"forty-two\""));
  g_assert_nonnull (strstr (text, "\"PATH\""));
  g_assert_null (strstr (text, "G_TEST_SRCDIR"));
  g_assert_null (strstr (text, "PRS_MCP_PEERS"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp/everything/stdio", test_stdio);
  g_test_add_func ("/mcp/everything/http", test_http);
  g_test_add_func ("/mcp/everything/environment", test_environment);

  return g_test_run ();
}
