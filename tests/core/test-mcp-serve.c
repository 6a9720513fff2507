/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test-mcp-serve.c: what an MCP client sends `prosponsive-ctl mcp serve`
 * and what it hears back (prs-mcp-serve.c): lines in chunks of any size,
 * checked JSON-RPC 2.0, and requests handed to the backend. The backend
 * here only records; the real one is driven by tests/mcp/test-mcp-serve.py
 * with the official SDK client. */
#include "config.h"

#include <string.h>

#include "prs-json.h"
#include "prs-mcp-message.h"
#include "prs-mcp-serve.h"

typedef struct
{
  PrsMcpServe *serve;
  GPtrArray   *written;    /* JsonNode*: every line written, parsed */
  GPtrArray   *heard;      /* char*: "list ID", "call ID NAME", "cancel ID" */
} Fixture;

static void
on_write (GBytes   *line,
          gpointer  user_data)
{
  Fixture *f = user_data;
  gsize len;
  const char *text = g_bytes_get_data (line, &len);
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  g_assert_null (memchr (text, '\n', len));
  node = prs_json_parse_strict (text, len, 64, &error);
  g_assert_no_error (error);
  g_ptr_array_add (f->written, node);
}

static void
on_list (JsonNode *id,
         gpointer  user_data)
{
  Fixture *f = user_data;
  g_autofree char *key = prs_json_to_string (id, FALSE);

  g_ptr_array_add (f->heard, g_strdup_printf ("list %s", key));
}

static void
on_call (JsonNode   *id,
         const char *name,
         JsonObject *arguments,
         JsonNode   *progress_token,
         gpointer    user_data)
{
  Fixture *f = user_data;
  g_autofree char *key = prs_json_to_string (id, FALSE);

  g_ptr_array_add (f->heard, g_strdup_printf ("call %s %s", key, name));
}

static void
on_cancel (JsonNode *request_id,
           gpointer  user_data)
{
  Fixture *f = user_data;
  g_autofree char *key = prs_json_to_string (request_id, FALSE);

  g_ptr_array_add (f->heard, g_strdup_printf ("cancel %s", key));
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  static const PrsMcpServeBackend backend = { on_write, on_list, on_call, on_cancel };

  f->serve = prs_mcp_serve_new (&backend, f);
  f->written = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  f->heard = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  prs_mcp_serve_free (f->serve);
  g_ptr_array_unref (f->written);
  g_ptr_array_unref (f->heard);
}

static void
feed (Fixture    *f,
      const char *text)
{
  prs_mcp_serve_feed (f->serve, text, strlen (text));
}

/* The error code of answer @i, after checking its id is @id (JSON) */
static gint64
error_code (Fixture    *f,
            guint       i,
            const char *id)
{
  JsonObject *answer;
  g_autofree char *said = NULL;

  g_assert_cmpuint (i, <, f->written->len);
  answer = json_node_get_object (g_ptr_array_index (f->written, i));
  said = prs_json_to_string (json_object_get_member (answer, "id"), FALSE);
  g_assert_cmpstr (said, ==, id);
  return prs_json_object_get_int (prs_json_object_get_object (answer, "error"), "code", 0);
}

/* Split anywhere, CRLF or LF, the last line without a line break: the
 * same requests, each once */
static void
test_framing (Fixture       *f,
              gconstpointer  data)
{
  const char *text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\r\n\n"
                     "{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n"
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"b\"}}";

  for (gsize at = 0; text[at] != '\0'; at++)
    prs_mcp_serve_feed (f->serve, text + at, 1);
  g_assert_cmpuint (f->heard->len, ==, 2);
  prs_mcp_serve_finish (f->serve);
  g_assert_cmpuint (f->heard->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (f->heard, 0), ==, "list 1");
  g_assert_cmpstr (g_ptr_array_index (f->heard, 1), ==, "call \"b\" x");
  g_assert_cmpstr (g_ptr_array_index (f->heard, 2), ==, "cancel \"b\"");
  g_assert_cmpuint (f->written->len, ==, 0);
}

/* A message over the limit is refused once, and none of it is read: not
 * even a request that its last bytes would make on their own */
static void
test_too_long (Fixture       *f,
               gconstpointer  data)
{
  const char *request = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}";
  g_autofree char *padding = g_strnfill (100, ' ');

  prs_mcp_serve_set_max_line (f->serve, 80);
  feed (f, padding);
  feed (f, request);
  feed (f, "\n{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}\n");
  g_assert_cmpuint (f->heard->len, ==, 0);
  g_assert_cmpuint (f->written->len, ==, 2);
  g_assert_cmpint (error_code (f, 0, "null"), ==, PRS_MCP_RPC_PARSE_ERROR);
  g_assert_nonnull (prs_json_object_get_object (json_node_get_object (g_ptr_array_index (f->written, 1)), "result"));

  /* Within the limit, the same request is one */
  feed (f, request);
  feed (f, "\n");
  g_assert_cmpuint (f->heard->len, ==, 1);
}

/* An id is a string or a number; anything else makes no request. A
 * method that is not a string makes none either: both are answered, so
 * that the client does not wait for ever. */
static void
test_invalid (Fixture       *f,
              gconstpointer  data)
{
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"tools/list\"}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/list\"}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":5}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":4}\n");
  feed (f, "[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}]\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":[]}}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":[]}\n");
  g_assert_cmpuint (f->heard->len, ==, 0);
  g_assert_cmpuint (f->written->len, ==, 7);
  g_assert_cmpint (error_code (f, 0, "null"), ==, PRS_MCP_RPC_INVALID_REQUEST);
  g_assert_cmpint (error_code (f, 1, "null"), ==, PRS_MCP_RPC_INVALID_REQUEST);
  g_assert_cmpint (error_code (f, 2, "3"), ==, PRS_MCP_RPC_INVALID_REQUEST);
  g_assert_cmpint (error_code (f, 3, "4"), ==, PRS_MCP_RPC_INVALID_REQUEST);
  g_assert_cmpint (error_code (f, 4, "null"), ==, PRS_MCP_RPC_INVALID_REQUEST);
  g_assert_cmpint (error_code (f, 5, "6"), ==, PRS_MCP_RPC_INVALID_PARAMS);
  g_assert_cmpint (error_code (f, 6, "9"), ==, PRS_MCP_RPC_INVALID_REQUEST);
}

/* The client's answers and notifications get no answer, whatever they
 * hold (answering an error with an error would never end); a cancel names
 * a request by a string or a number only */
static void
test_unanswered (Fixture       *f,
                 gconstpointer  data)
{
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}\n");
  feed (f, "{\"id\":true,\"error\":5}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":true}}\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}\n");
  g_assert_cmpuint (f->written->len, ==, 0);
  g_assert_cmpuint (f->heard->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (f->heard, 0), ==, "cancel 2");
}

/* The service's tools as the client sees them: an entry without a name is
 * left out, and a tool without a description has none (not a null, which
 * a client checking MCP's schema refuses with the whole list) */
static void
test_tools (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(JsonNode) id = json_from_string ("\"t\"", NULL);
  g_autoptr(JsonNode) tools = json_from_string ("[{\"name\":\"a\",\"description\":\"A\",\"inputSchema\":"
                                                "{\"type\":\"object\"}},{\"description\":\"no name\"},7,"
                                                "{\"name\":\"b\",\"description\":null}]", NULL);
  g_autofree char *written = NULL;

  prs_mcp_serve_send_tools (f->serve, id, json_node_get_array (tools));
  g_assert_cmpuint (f->written->len, ==, 1);
  written = prs_json_to_string (g_ptr_array_index (f->written, 0), FALSE);
  g_assert_cmpstr (written, ==, "{\"jsonrpc\":\"2.0\",\"id\":\"t\",\"result\":{\"tools\":["
                   "{\"name\":\"a\",\"description\":\"A\",\"inputSchema\":{\"type\":\"object\"}},"
                   "{\"name\":\"b\",\"inputSchema\":{}}]}}");
}

static void
initialize (Fixture    *f,
            const char *version)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
                                           "\"params\":{\"protocolVersion\":\"%s\"}}\n", version);
  guint before = f->written->len;
  JsonObject *result;

  /* Its answer is checked, then left out of what the test reads */
  feed (f, line);
  g_assert_cmpuint (f->written->len, ==, before + 1);
  result = prs_json_object_get_object (json_node_get_object (g_ptr_array_index (f->written, before)), "result");
  g_assert_cmpstr (prs_json_object_get_string (result, "protocolVersion"), ==, version);
  g_ptr_array_set_size (f->written, before);
}

static int
compare_text (gconstpointer a,
              gconstpointer b)
{
  return strcmp (*(char * const *) a, *(char * const *) b);
}

/* The ids of the answers in batch line @i, sorted, as JSON */
static char *
batch_ids (Fixture *f,
           guint    i)
{
  JsonNode *line;
  JsonArray *answers;
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);

  g_assert_cmpuint (i, <, f->written->len);
  line = g_ptr_array_index (f->written, i);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (line));
  answers = json_node_get_array (line);
  for (guint j = 0; j < json_array_get_length (answers); j++)
    {
      JsonObject *answer = json_array_get_object_element (answers, j);

      g_assert_cmpstr (prs_json_object_get_string (answer, "jsonrpc"), ==, "2.0");
      g_ptr_array_add (ids, prs_json_to_string (json_object_get_member (answer, "id"), FALSE));
    }
  g_ptr_array_sort (ids, compare_text);
  g_ptr_array_add (ids, NULL);
  return g_strjoinv (" ", (char **) ids->pdata);
}

/* Only revision 2025-03-26 has batches: before an initialize, and with
 * 2024-11-05 or 2025-06-18, a batch is one Invalid Request */
static void
test_batch_refused (Fixture       *f,
                    gconstpointer  data)
{
  const char *batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}]\n";

  feed (f, batch);
  initialize (f, "2025-06-18");
  feed (f, batch);
  initialize (f, "2024-11-05");
  feed (f, batch);
  g_assert_cmpuint (f->heard->len, ==, 0);
  g_assert_cmpuint (f->written->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpint (error_code (f, i, "null"), ==, PRS_MCP_RPC_INVALID_REQUEST);
}

/* A batch's answers leave together, as one array, once its last request
 * (answered later by the service) is answered; each message in it is
 * checked as if alone, and initialize may not be one of them */
static void
test_batch (Fixture       *f,
            gconstpointer  data)
{
  g_autoptr(JsonNode) list_id = json_from_string ("2", NULL);
  g_autoptr(JsonNode) call_id = json_from_string ("\"c\"", NULL);
  g_autoptr(JsonNode) alone_id = json_from_string ("11", NULL);
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autofree char *ids = NULL;

  initialize (f, "2025-03-26");
  feed (f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},"
           "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"},"
           "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
           "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}},"
           "{\"jsonrpc\":\"1.0\",\"id\":4,\"method\":\"ping\"},5,"
           "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"initialize\",\"params\":{}}]\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\"}\n");
  g_assert_cmpuint (f->heard->len, ==, 3);
  g_assert_cmpuint (f->written->len, ==, 0);

  /* A request of its own is answered alone, even while a batch waits */
  prs_mcp_serve_send_tools (f->serve, alone_id, tools);
  g_assert_cmpuint (f->written->len, ==, 1);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (g_ptr_array_index (f->written, 0)));
  prs_mcp_serve_send_tools (f->serve, list_id, tools);
  g_assert_cmpuint (f->written->len, ==, 1);
  prs_mcp_serve_send_text_result (f->serve, call_id, "done", FALSE);
  g_assert_cmpuint (f->written->len, ==, 2);
  ids = batch_ids (f, 1);
  g_assert_cmpstr (ids, ==, "\"c\" 1 2 4 6 null");

  /* Notifications only: nothing to answer. Empty: one Invalid Request */
  feed (f, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]\n[]\n");
  g_assert_cmpuint (f->written->len, ==, 3);
  g_assert_cmpint (error_code (f, 2, "null"), ==, PRS_MCP_RPC_INVALID_REQUEST);
}

/* A call the client cancels gets no answer: its batch waits no more for
 * it. A list is not cancelled, and is still waited for. */
static void
test_batch_cancelled (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(JsonNode) list_id = json_from_string ("10", NULL);
  g_autoptr(JsonArray) tools = json_array_new ();
  g_autofree char *ids = NULL;

  initialize (f, "2025-03-26");
  feed (f, "[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}]\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}\n");
  g_assert_cmpuint (f->written->len, ==, 0);

  feed (f, "[{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"},"
           "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}},"
           "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\"}]\n");
  feed (f, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":9}}\n"
           "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":10}}\n");
  g_assert_cmpuint (f->written->len, ==, 0);
  prs_mcp_serve_send_tools (f->serve, list_id, tools);
  g_assert_cmpuint (f->written->len, ==, 1);
  ids = batch_ids (f, 0);
  g_assert_cmpstr (ids, ==, "10 8");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/prs/mcp-serve/framing", Fixture, NULL, fixture_set_up, test_framing, fixture_tear_down);
  g_test_add ("/prs/mcp-serve/too-long", Fixture, NULL, fixture_set_up, test_too_long, fixture_tear_down);
  g_test_add ("/prs/mcp-serve/invalid", Fixture, NULL, fixture_set_up, test_invalid, fixture_tear_down);
  g_test_add ("/prs/mcp-serve/unanswered", Fixture, NULL, fixture_set_up, test_unanswered, fixture_tear_down);
  g_test_add ("/prs/mcp-serve/tools", Fixture, NULL, fixture_set_up, test_tools, fixture_tear_down);
  g_test_add ("/prs/mcp-serve/batch-refused", Fixture, NULL, fixture_set_up, test_batch_refused, fixture_tear_down);
  g_test_add ("/prs/mcp-serve/batch", Fixture, NULL, fixture_set_up, test_batch, fixture_tear_down);
  g_test_add ("/prs/mcp-serve/batch-cancelled", Fixture, NULL, fixture_set_up, test_batch_cancelled, fixture_tear_down);
  return g_test_run ();
}
