/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-mcp-hostile.c: the MCP client against servers that misbehave
 * (hostile-server.py): each gives a clear error or is contained, and the
 * client goes on (a stdio server is started again). */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "prs-error.h"
#include "prs-mcp-http.h"
#include "prs-mcp-names.h"
#include "prs-mcp-stdio.h"
#include "prs-mcp-test-util.h"
#include "prs-test-util.h"

static void
assert_message_has (const GError *error,
                    const char   *part)
{
  g_assert_nonnull (error);
  if (strstr (error->message, part) == NULL)
    g_error ("“%s” is not in the error “%s”", part, error->message);
}

static gboolean
is_ready (gpointer data)
{
  return prs_mcp_client_get_state (data) == PRS_MCP_CLIENT_READY;
}

/* The HTTP requests of method @method in a hostile server's log. */
static guint
count_logged (const char *log,
              const char *method)
{
  g_autoptr(GPtrArray) entries = prs_mcp_test_read_log (log);
  guint n = 0;

  for (guint i = 0; i < entries->len; i++)
    {
      JsonObject *entry = json_node_get_object (g_ptr_array_index (entries, i));

      if (json_object_has_member (entry, "headers") &&
          g_strcmp0 (json_object_get_string_member_with_default (entry, "method", ""), method) == 0)
        n++;
    }
  return n;
}

static void
test_crash_mid_call (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("crash", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  GPid first;

  prs_mcp_client_set_restart_delay (client, 100);
  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  first = prs_mcp_stdio_get_pid (PRS_MCP_STDIO (prs_mcp_client_get_transport (client)));

  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE);
  assert_message_has (error, "MCP server “hostile-crash”");
  assert_message_has (error, "exited with code 3");
  assert_message_has (error, "out of cheese");

  /* Started again after the pause, as a new process */
  g_assert_true (prs_mcp_test_wait_until (is_ready, client, 10000));
  g_assert_cmpint (prs_mcp_stdio_get_pid (PRS_MCP_STDIO (prs_mcp_client_get_transport (client))), !=, first);
  g_assert_cmpuint (prs_mcp_client_get_tools (client)->len, ==, 2);
}

static void
test_never_answers (void)
{
  g_autofree char *log = NULL;
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("silent", &log);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  gboolean cancelled = FALSE;

  prs_mcp_client_set_timeouts (client, 0, 0, 700);
  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_TIMEOUT);
  assert_message_has (error, "did not answer tools/call within 700 milliseconds");
  g_clear_error (&error);

  /* The server was told, and the connection still serves */
  tools = prs_mcp_test_list (client, &error);
  g_assert_no_error (error);
  entries = prs_mcp_test_read_log (log);
  for (guint i = 0; i < entries->len; i++)
    {
      JsonObject *entry = json_node_get_object (g_ptr_array_index (entries, i));

      if (g_strcmp0 (json_object_get_string_member_with_default (entry, "method", ""), "notifications/cancelled") == 0)
        cancelled = json_object_get_int_member (json_object_get_object_member (entry, "params"), "requestId") == 3;
    }
  g_assert_true (cancelled);
  g_unlink (log);
}

static void
test_initialize_never_answered (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("silent-init", NULL);
  g_autoptr(GError) error = NULL;

  prs_mcp_client_set_auto_restart (client, FALSE);
  prs_mcp_client_set_timeouts (client, 500, 0, 0);
  g_assert_false (prs_mcp_test_connect (client, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_TIMEOUT);
  assert_message_has (error, "did not answer initialize");
  g_assert_cmpuint (prs_mcp_client_get_state (client), ==, PRS_MCP_CLIENT_FAILED);
}

static void
test_invalid_json (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("invalid-json", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;

  prs_mcp_client_set_restart_delay (client, 100);
  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL);
  assert_message_has (error, "not valid JSON");
  g_assert_true (prs_mcp_test_wait_until (is_ready, client, 10000));
}

static void
test_stdout_noise (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("noise", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *said = NULL;

  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  said = prs_mcp_stdio_dup_stderr (PRS_MCP_STDIO (prs_mcp_client_get_transport (client)), 5);
  g_assert_nonnull (strstr (said, "starting up"));
}

static void
test_huge_result_stdio (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("huge", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GPtrArray) tools = NULL;

  prs_mcp_client_set_restart_delay (client, 100);
  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL);
  assert_message_has (error, "larger than 4.0");
  g_clear_error (&error);

  /* Restarted cleanly: the next request is served */
  g_assert_true (prs_mcp_test_wait_until (is_ready, client, 10000));
  tools = prs_mcp_test_list (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 2);
}

static void
test_many_tools (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("many-tools", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  GPtrArray *tools;

  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  tools = prs_mcp_client_get_tools (client);
  g_assert_cmpuint (tools->len, ==, 1000);
  g_assert_false (prs_mcp_client_get_tools_truncated (client));
  for (guint i = 0; i < tools->len; i++)
    {
      const PrsMcpTool *tool = g_ptr_array_index (tools, i);

      g_assert_true (prs_mcp_tool_name_is_valid (tool->exposed_name));
      g_assert_true (g_hash_table_add (names, tool->exposed_name));
    }
  g_assert_cmpstr (((PrsMcpTool *) g_ptr_array_index (tools, 999))->exposed_name, ==, "hostile-many-tools__tool_0999");
}

static void
test_endless_pages (void)
{
  const char *modes[] = { "endless-pages", "loop-pages" };
  const char *says[] = { "did not end after 100 pages", "goes round in circles" };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio (modes[i], NULL);
      g_autoptr(GError) error = NULL;

      prs_mcp_client_set_auto_restart (client, FALSE);
      g_assert_false (prs_mcp_test_connect (client, &error));
      g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL);
      assert_message_has (error, says[i]);
    }
}

static void
test_injected_description (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("injection", NULL);
  g_autoptr(GError) error = NULL;
  const PrsMcpTool *add, *lengthy;
  GPtrArray *tools;

  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  tools = prs_mcp_client_get_tools (client);
  /* A nameless entry, a repeated name and a name with a control character
   * (U+009B, a terminal's CSI) are left out */
  g_assert_cmpuint (tools->len, ==, 2);
  add = prs_mcp_client_find_tool (client, "hostile-injection__add");
  lengthy = prs_mcp_client_find_tool (client, "hostile-injection__long");
  g_assert_nonnull (add);
  g_assert_nonnull (lengthy);
  /* The instructions stay data: kept verbatim as the description, never
   * anywhere else; the terminal escape and bell are gone */
  g_assert_true (g_str_has_prefix (add->description, "Adds two numbers. IMPORTANT SYSTEM NOTICE"));
  g_assert_null (strchr (add->description, '\x1b'));
  g_assert_null (strchr (add->description, '\x07'));
  g_assert_true (g_str_has_suffix (add->description, "[31m"));
  g_assert_cmpint (g_utf8_strlen (lengthy->description, -1), ==, PRS_MCP_TOOL_DESCRIPTION_MAX + 1);
  g_assert_true (g_str_has_suffix (lengthy->description, "…"));
  g_assert_cmpstr (prs_mcp_client_get_instructions (client), ==, "Use these tools carefully.");
}

static void
test_versions (void)
{
  g_autoptr(PrsMcpClient) old = prs_mcp_test_hostile_stdio ("old-version", NULL);
  g_autoptr(PrsMcpClient) bad = prs_mcp_test_hostile_stdio ("bad-version", NULL);
  g_autoptr(GError) error = NULL;

  prs_mcp_test_connect (old, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (prs_mcp_client_get_protocol_version (old), ==, "2025-03-26");

  prs_mcp_client_set_auto_restart (bad, FALSE);
  g_assert_false (prs_mcp_test_connect (bad, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL);
  assert_message_has (error, "revision 1999-01-01");
}

static void
test_exit_at_start (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("exit-at-start", NULL);
  g_autoptr(GError) error = NULL;

  prs_mcp_client_set_auto_restart (client, FALSE);
  g_assert_false (prs_mcp_test_connect (client, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE);
  assert_message_has (error, "exited with code 1");
  assert_message_has (error, "cannot open the database /nonexistent/db");
}

static void
on_state (PrsMcpClient *client,
          GParamSpec   *pspec,
          GArray       *pauses)
{
  guint pause = prs_mcp_client_get_restart_pause (client);

  if (prs_mcp_client_get_state (client) == PRS_MCP_CLIENT_RESTARTING)
    g_array_append_val (pauses, pause);
}

static gboolean
restarted_four_times (gpointer data)
{
  return ((GArray *) data)->len >= 4;
}

/* A server that dies at every start is started again after pauses that
 * double each time. */
static void
test_restart_backoff (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("exit-at-start", NULL);
  g_autoptr(GArray) pauses = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(GError) error = NULL;

  prs_mcp_client_set_restart_delay (client, 50);
  g_signal_connect (client, "notify::state", G_CALLBACK (on_state), pauses);
  g_assert_false (prs_mcp_test_connect (client, &error));
  assert_message_has (error, "exited with code 1");
  g_assert_true (prs_mcp_test_wait_until (restarted_four_times, pauses, 20000));
  g_assert_cmpuint (g_array_index (pauses, guint, 0), ==, 50);
  g_assert_cmpuint (g_array_index (pauses, guint, 1), ==, 100);
  g_assert_cmpuint (g_array_index (pauses, guint, 2), ==, 200);
  g_assert_cmpuint (g_array_index (pauses, guint, 3), ==, 400);
  prs_mcp_client_close (client);
  g_assert_cmpuint (prs_mcp_client_get_restart_pause (client), ==, 0);
}

static void
test_command_not_found (void)
{
  const char *args[] = { "--stdio", NULL };
  g_autoptr(PrsMcpTransport) transport = prs_mcp_stdio_new ("prosponsive-no-such-mcp-server", args, NULL);
  g_autoptr(PrsMcpClient) client = prs_mcp_client_new ("missing", transport);
  g_autoptr(GError) error = NULL;

  prs_mcp_client_set_auto_restart (client, FALSE);
  g_assert_false (prs_mcp_test_connect (client, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE);
  assert_message_has (error, "The command “prosponsive-no-such-mcp-server” was not found");
}

static void
on_tools_changed (PrsMcpClient *client,
                  guint        *count)
{
  (*count)++;
}

static gboolean
changed_twice (gpointer data)
{
  return *(guint *) data >= 2;
}

static void
test_list_changed (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("list-changed", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  guint changes = 0;

  g_signal_connect (client, "tools-changed", G_CALLBACK (on_tools_changed), &changes);
  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (changes, ==, 1);
  g_assert_null (prs_mcp_client_find_tool (client, "hostile-list-changed__added_later"));

  result = prs_mcp_test_call (client, "add_tool", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (prs_mcp_test_wait_until (changed_twice, &changes, 10000));
  g_assert_nonnull (prs_mcp_client_find_tool (client, "hostile-list-changed__added_later"));
}

static void
test_is_error (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("is-error", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;

  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  /* The tool's own words, as the model will read them */
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_TOOL_FAILED);
  g_assert_cmpstr (error->message, ==, "The mailbox “Archive” does not exist.");
}

static void
test_rpc_error (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("rpc-error", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;

  result = prs_mcp_test_call (client, "other", NULL, NULL, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_SERVER);
  assert_message_has (error, "The server refused tools/call: Not today (code -32001).");
  g_clear_error (&error);
  /* A code no int holds is no code, not what a cast made of it */
  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_SERVER);
  assert_message_has (error, "The server refused tools/call: Not today (code 0).");
}

static void
test_odd_server_info (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("odd-info", NULL);
  g_autoptr(GError) error = NULL;
  JsonObject *info;
  const char *name, *title;

  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  info = json_node_get_object (prs_mcp_client_get_server_info (client));
  /* Text only, without the escapes; the rest left out */
  name = json_object_get_string_member (info, "name");
  g_assert_true (g_str_has_prefix (name, "odd") && g_str_has_suffix (name, "server & <b>co</b>"));
  for (const char *p = name; *p != '\0'; p++)
    g_assert_cmpint ((guchar) *p, >=, 0x20);
  g_assert_false (json_object_has_member (info, "version"));
  g_assert_false (json_object_has_member (info, "icons"));
  title = json_object_get_string_member (info, "title");
  g_assert_cmpint (g_utf8_strlen (title, -1), <=, 201);
}

static void
test_progress_and_structured (void)
{
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("progress", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object;
  guint progress = 0;

  result = prs_mcp_test_call (client, "echo", "{\"text\":\"hi\"}", NULL, &progress, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (progress, ==, 3);
  object = json_node_get_object (result);
  /* The text says something else than structuredContent: both are kept */
  g_assert_cmpstr (json_object_get_string_member (object, "text"), ==, "{\"text\": \"hi\"}");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_object_get_object_member (object, "structured"), "echoed"), "text"), ==, "hi");
}

static gboolean
sampling_refused (gpointer log)
{
  g_autoptr(GPtrArray) entries = prs_mcp_test_read_log (log);

  for (guint i = 0; i < entries->len; i++)
    {
      JsonObject *entry = json_node_get_object (g_ptr_array_index (entries, i));

      if (g_strcmp0 (json_object_get_string_member_with_default (entry, "id", ""), "srv-2") == 0 &&
          json_object_has_member (entry, "error"))
        return json_object_get_int_member (json_object_get_object_member (entry, "error"), "code") == -32601;
    }
  return FALSE;
}

static void
test_server_requests (void)
{
  g_autofree char *log = NULL;
  g_autoptr(PrsMcpClient) client = prs_mcp_test_hostile_stdio ("ping", &log);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;

  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (result), "text"), ==, "pong received");
  /* Sampling is not offered: the server hears "method not found" (its
   * log is written beside the call, so look until it is there) */
  g_assert_true (prs_mcp_test_wait_until (sampling_refused, log, 5000));
  g_unlink (log);
}

/* ---- Streamable HTTP ---- */

static PrsMcpClient *
http_client (PrsMcpTestServer   *server,
             const char * const *headers)
{
  g_autoptr(PrsMcpTransport) transport = prs_mcp_http_new (server->url, headers);

  return prs_mcp_client_new ("hostile-http", transport);
}

static void
test_http_huge_and_invalid (void)
{
  const char *modes[] = { "huge", "invalid-json" };
  const char *says[] = { "larger than 4.0", "not valid JSON" };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autoptr(PrsMcpTestServer) server = prs_mcp_test_hostile_http (modes[i]);
      g_autoptr(PrsMcpClient) client = http_client (server, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) result = NULL;
      g_autoptr(GPtrArray) tools = NULL;

      result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
      g_assert_null (result);
      g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_PROTOCOL);
      assert_message_has (error, says[i]);
      g_clear_error (&error);
      /* Only that answer was lost: the session goes on */
      tools = prs_mcp_test_list (client, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (tools->len, ==, 2);
    }
}

/* Nobody listens: the connection's failure in the words of the one HTTP
 * engine, naming the address */
static void
test_http_refused (void)
{
  guint port = prs_test_free_port ();
  g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/mcp", port);
  g_autoptr(PrsMcpTransport) transport = prs_mcp_http_new (url, NULL);
  g_autoptr(PrsMcpClient) client = prs_mcp_client_new ("nobody", transport);
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = g_strdup_printf ("Could not connect to the server at %s: connection refused", url);

  g_assert_false (prs_mcp_test_connect (client, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_UNAVAILABLE);
  assert_message_has (error, "MCP server “nobody”: ");
  assert_message_has (error, expected);
  g_assert_cmpint (prs_mcp_client_get_state (client), ==, PRS_MCP_CLIENT_FAILED);
}

static void
test_http_headers (void)
{
  g_autoptr(PrsMcpTestServer) server = prs_mcp_test_hostile_http ("unauthorized");
  const char *headers[] = { "X-Api-Key: let-me-in", NULL };
  g_autoptr(PrsMcpClient) refused = http_client (server, NULL);
  g_autoptr(PrsMcpClient) client = http_client (server, headers);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  JsonObject *last = NULL;

  prs_mcp_client_set_auto_restart (refused, FALSE);
  g_assert_false (prs_mcp_test_connect (refused, &error));
  g_assert_error (error, PRS_ERROR, PRS_ERROR_MCP_SERVER);
  assert_message_has (error, "HTTP 401");
  g_clear_error (&error);

  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  /* After initialize: the session and the revision on every request */
  entries = prs_mcp_test_read_log (server->log_path);
  for (guint i = 0; i < entries->len; i++)
    {
      JsonObject *entry = json_node_get_object (g_ptr_array_index (entries, i));

      if (json_object_has_member (entry, "headers") &&
          g_strcmp0 (json_object_get_string_member_with_default (entry, "method", ""), "tools/list") == 0)
        last = json_object_get_object_member (entry, "headers");
    }
  g_assert_nonnull (last);
  g_assert_cmpstr (json_object_get_string_member (last, "mcp-session-id"), ==, "hostile-session-1");
  g_assert_cmpstr (json_object_get_string_member (last, "mcp-protocol-version"), ==, "2025-06-18");
  g_assert_cmpstr (json_object_get_string_member (last, "accept"), ==, "application/json, text/event-stream");
  g_assert_cmpstr (json_object_get_string_member (last, "x-api-key"), ==, "let-me-in");
}

static void
test_http_session_expired (void)
{
  g_autoptr(PrsMcpTestServer) server = prs_mcp_test_hostile_http ("session-expired");
  g_autoptr(PrsMcpClient) client = http_client (server, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;

  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  assert_message_has (error, "ended the session");
  g_clear_error (&error);
  /* The next request starts a new session */
  g_assert_cmpuint (prs_mcp_client_get_state (client), ==, PRS_MCP_CLIENT_IDLE);
  result = prs_mcp_test_call (client, "echo", NULL, NULL, NULL, &error);
  g_assert_null (result);
  g_clear_error (&error);
  g_assert_cmpuint (count_logged (server->log_path, "initialize"), ==, 2);
}

static void
test_http_progress_stream (void)
{
  g_autoptr(PrsMcpTestServer) server = prs_mcp_test_hostile_http ("progress");
  g_autoptr(PrsMcpClient) client = http_client (server, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  guint progress = 0;

  result = prs_mcp_test_call (client, "echo", "{\"text\":\"streamed\"}", NULL, &progress, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (progress, ==, 3);
  g_assert_nonnull (json_object_get_object_member (json_node_get_object (result), "structured"));
}

/* Over HTTP the server says its tools changed on its own GET stream. */
/* The server pushes list_changed only to GET streams it has registered; under
 * load the client's GET can come after a tool is added, and a real server
 * would drop that notification too. */
static gboolean
stream_registered (gpointer data)
{
  g_autoptr(GPtrArray) entries = prs_mcp_test_read_log (data);

  for (guint i = 0; entries != NULL && i < entries->len; i++)
    {
      JsonObject *entry = json_node_get_object (g_ptr_array_index (entries, i));

      if (json_object_get_boolean_member_with_default (entry, "listening", FALSE))
        return TRUE;
    }
  return FALSE;
}

static void
test_http_list_changed (void)
{
  g_autoptr(PrsMcpTestServer) server = prs_mcp_test_hostile_http ("list-changed");
  g_autoptr(PrsMcpClient) client = http_client (server, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GPtrArray) entries = NULL;
  gboolean listened = FALSE;
  guint changes = 0;

  g_signal_connect (client, "tools-changed", G_CALLBACK (on_tools_changed), &changes);
  prs_mcp_test_connect (client, &error);
  g_assert_no_error (error);
  g_assert_null (prs_mcp_client_find_tool (client, "hostile-http__added_later"));
  g_assert_true (prs_mcp_test_wait_until (stream_registered, server->log_path, 10000));

  result = prs_mcp_test_call (client, "add_tool", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (prs_mcp_test_wait_until (changed_twice, &changes, 10000));
  g_assert_nonnull (prs_mcp_client_find_tool (client, "hostile-http__added_later"));

  entries = prs_mcp_test_read_log (server->log_path);
  for (guint i = 0; i < entries->len; i++)
    {
      JsonObject *entry = json_node_get_object (g_ptr_array_index (entries, i));

      if (g_strcmp0 (json_object_get_string_member_with_default (entry, "httpMethod", ""), "GET") == 0)
        {
          JsonObject *headers = json_object_get_object_member (entry, "headers");

          listened = g_strcmp0 (json_object_get_string_member (headers, "mcp-session-id"), "hostile-session-1") == 0 &&
                     g_strcmp0 (json_object_get_string_member (headers, "accept"), "text/event-stream") == 0;
        }
    }
  g_assert_true (listened);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/mcp/hostile/crash-mid-call", test_crash_mid_call);
  g_test_add_func ("/mcp/hostile/never-answers", test_never_answers);
  g_test_add_func ("/mcp/hostile/initialize-never-answered", test_initialize_never_answered);
  g_test_add_func ("/mcp/hostile/invalid-json", test_invalid_json);
  g_test_add_func ("/mcp/hostile/stdout-noise", test_stdout_noise);
  g_test_add_func ("/mcp/hostile/huge-result", test_huge_result_stdio);
  g_test_add_func ("/mcp/hostile/many-tools", test_many_tools);
  g_test_add_func ("/mcp/hostile/endless-pages", test_endless_pages);
  g_test_add_func ("/mcp/hostile/injected-description", test_injected_description);
  g_test_add_func ("/mcp/hostile/versions", test_versions);
  g_test_add_func ("/mcp/hostile/exit-at-start", test_exit_at_start);
  g_test_add_func ("/mcp/hostile/restart-backoff", test_restart_backoff);
  g_test_add_func ("/mcp/hostile/command-not-found", test_command_not_found);
  g_test_add_func ("/mcp/hostile/list-changed", test_list_changed);
  g_test_add_func ("/mcp/hostile/is-error", test_is_error);
  g_test_add_func ("/mcp/hostile/rpc-error", test_rpc_error);
  g_test_add_func ("/mcp/hostile/odd-server-info", test_odd_server_info);
  g_test_add_func ("/mcp/hostile/progress", test_progress_and_structured);
  g_test_add_func ("/mcp/hostile/server-requests", test_server_requests);
  g_test_add_func ("/mcp/hostile/http-huge-and-invalid", test_http_huge_and_invalid);
  g_test_add_func ("/mcp/hostile/http-refused", test_http_refused);
  g_test_add_func ("/mcp/hostile/http-headers", test_http_headers);
  g_test_add_func ("/mcp/hostile/http-session-expired", test_http_session_expired);
  g_test_add_func ("/mcp/hostile/http-progress-stream", test_http_progress_stream);
  g_test_add_func ("/mcp/hostile/http-list-changed", test_http_list_changed);

  return g_test_run ();
}
