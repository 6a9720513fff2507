/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-mcp-serve: what an MCP client sends `prosponsive-ctl mcp serve`
 * (docs/mcp.md#using-prosponsive-from-other-mcp-clients), through the real
 * framing and answering (prs-mcp-serve.c). The service is replaced by a
 * backend of this file's own: tools/list gets a canned list at once, and
 * each tools/call a progress notification (when the client asked for one)
 * and, when the input has ended, a canned result.
 *
 * The first byte picks the chunk size (0: all at once); the rest is the
 * client's standard output. Oracles: every line written is one line of
 * strict JSON and valid JSON-RPC 2.0 (an answer with an id and exactly one
 * of result and error, or a progress notification for a token the client
 * gave); every request of the input — a line that is a JSON-RPC 2.0 object
 * with a method and a string or number id — gets an answer with its id;
 * no id is answered more often than lines carry it; no line is answered
 * twice. Once an initialize agreed on revision 2025-03-26, a line that is
 * an array is a batch: its messages count as lines, and its answers come
 * as one array of answers. The input's lines are split here on their own, not by the code
 * under test.
 *
 * Seeds (tests/fuzz/corpus/mcp-serve/, each behind its chunk-size byte):
 * sdk-* are the lines @modelcontextprotocol/sdk's client (the version
 * tests/mcp/install-mcp-peers.sh pins) wrote when tests/mcp/mcp-serve-client.cjs
 * listed and called tools; sdk-call-cancelled ends with the cancel it
 * sends on abort, written by hand in its shape; hostile-* are by hand. */
#include <string.h>

#include "prs-json.h"
#include "prs-mcp-message.h"
#include "prs-mcp-serve.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* Small enough that the limit is met within the fuzzer's inputs */
#define MAX_LINE  4096
#define MAX_DEPTH 64

typedef struct
{
  PrsMcpServe *serve;
  GHashTable  *answered;   /* id as JSON → answers with it */
  GHashTable  *tokens;     /* progress tokens the client gave, as JSON */
  GPtrArray   *calls;      /* JsonNode* ids of the calls to answer at the end */
  guint        answers;
} Fuzz;

static char *
id_key (JsonNode *id)
{
  return prs_json_to_string (id, FALSE);
}

static gboolean
is_id (JsonNode *node)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_STRING || type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

static void
count (GHashTable *table,
       char       *key)
{
  g_hash_table_insert (table, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (table, key)) + 1));
}

/* ---- the backend ---- */

static void
check_answer (Fuzz       *fuzz,
              JsonObject *object)
{
  JsonNode *id = json_object_get_member (object, "id");
  JsonObject *result = prs_json_object_get_object (object, "result");
  JsonObject *error = prs_json_object_get_object (object, "error");

  g_assert_nonnull (id);
  g_assert_true (is_id (id) || JSON_NODE_HOLDS_NULL (id));
  g_assert_true ((result != NULL) != (error != NULL));
  g_assert_cmpuint (json_object_get_size (object), ==, 3);
  if (error != NULL)
    {
      JsonNode *code = json_object_get_member (error, "code");

      g_assert_true (code != NULL && JSON_NODE_HOLDS_VALUE (code) && json_node_get_value_type (code) == G_TYPE_INT64);
      g_assert_nonnull (prs_json_object_get_string (error, "message"));
    }
  fuzz->answers++;
  if (is_id (id))
    count (fuzz->answered, id_key (id));
}

static void
on_write (GBytes   *line,
          gpointer  user_data)
{
  Fuzz *fuzz = user_data;
  gsize len;
  const char *text = g_bytes_get_data (line, &len);
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  g_autoptr(GError) error = NULL;

  /* One line of strict JSON, whatever the client sent */
  g_assert_null (memchr (text, '\n', len));
  g_assert_null (memchr (text, '\r', len));
  root = prs_json_parse_strict (text, len, MAX_DEPTH + 8, &error);
  g_assert_no_error (error);
  /* A batch's answers: never empty, never a notification */
  if (JSON_NODE_HOLDS_ARRAY (root))
    {
      JsonArray *answers = json_node_get_array (root);

      g_assert_cmpuint (json_array_get_length (answers), >, 0);
      for (guint i = 0; i < json_array_get_length (answers); i++)
        {
          JsonNode *answer = json_array_get_element (answers, i);

          g_assert_true (JSON_NODE_HOLDS_OBJECT (answer));
          g_assert_cmpstr (prs_json_object_get_string (json_node_get_object (answer), "jsonrpc"), ==, "2.0");
          check_answer (fuzz, json_node_get_object (answer));
        }
      return;
    }
  g_assert_true (JSON_NODE_HOLDS_OBJECT (root));
  object = json_node_get_object (root);
  g_assert_cmpstr (prs_json_object_get_string (object, "jsonrpc"), ==, "2.0");
  if (json_object_has_member (object, "method"))
    {
      JsonObject *params = prs_json_object_get_object (object, "params");
      g_autofree char *token = NULL;

      g_assert_cmpstr (prs_json_object_get_string (object, "method"), ==, "notifications/progress");
      g_assert_false (json_object_has_member (object, "id"));
      g_assert_nonnull (params);
      g_assert_true (is_id (json_object_get_member (params, "progressToken")));
      token = id_key (json_object_get_member (params, "progressToken"));
      g_assert_true (g_hash_table_contains (fuzz->tokens, token));
    }
  else
    check_answer (fuzz, object);
}

static void
on_list_tools (JsonNode *id,
               gpointer  user_data)
{
  Fuzz *fuzz = user_data;
  g_autoptr(JsonNode) tools =
    prs_json_value_from_text ("[{\"name\":\"everything__echo\",\"description\":\"Echoes\","
                              "\"inputSchema\":{\"type\":\"object\"}},{\"description\":\"no name\"},"
                              "\"not a tool\",{\"name\":\"n8n_tool\"}]");

  g_assert_true (is_id (id));
  prs_mcp_serve_send_tools (fuzz->serve, id, json_node_get_array (tools));
}

static void
on_call_tool (JsonNode   *id,
              const char *name,
              JsonObject *arguments,
              JsonNode   *progress_token,
              gpointer    user_data)
{
  Fuzz *fuzz = user_data;

  g_assert_true (is_id (id));
  g_assert_true (g_utf8_validate (name, -1, NULL));
  g_assert_true (progress_token == NULL || is_id (progress_token));
  if (progress_token != NULL)
    {
      g_hash_table_add (fuzz->tokens, id_key (progress_token));
      prs_mcp_serve_send_progress (fuzz->serve, progress_token, 1, name);
    }
  g_ptr_array_add (fuzz->calls, json_node_copy (id));
}

static void
on_cancel (JsonNode *request_id,
           gpointer  user_data)
{
  g_assert_true (is_id (request_id));
}

/* The calls' results, each kind in turn */
static void
answer_calls (Fuzz *fuzz)
{
  static const char *values[] = {
    "{\"text\":\"hello\",\"structured\":{\"a\":1}}", "{\"n8n\":[1,2]}", "[\"a list\"]", "\"text\"", NULL,
  };

  for (guint i = 0; i < fuzz->calls->len; i++)
    {
      JsonNode *id = g_ptr_array_index (fuzz->calls, i);
      guint kind = i % (G_N_ELEMENTS (values) + 1);

      if (kind == G_N_ELEMENTS (values))
        prs_mcp_serve_send_text_result (fuzz->serve, id, "The tool failed: \xe2\x80\x9c\x01\"", TRUE);
      else if (values[kind] == NULL)
        prs_mcp_serve_send_tool_result (fuzz->serve, id, NULL);
      else
        {
          g_autoptr(JsonNode) value = prs_json_value_from_text (values[kind]);

          prs_mcp_serve_send_tool_result (fuzz->serve, id, value);
        }
    }
}

/* ---- the oracle's own reading of the input ---- */

typedef struct
{
  GHashTable *expected;   /* the requests' ids */
  GHashTable *carried;    /* every id a message carries */
  guint       messages;   /* lines, and the messages of batches read as such */
  gboolean    batches;    /* revision 2025-03-26 agreed on */
} Reading;

/* One message, alone or in a batch: an initialize alone agrees on the
 * revision, and only 2025-03-26 has batches */
static void
read_message (Reading  *reading,
              JsonNode *root,
              gboolean  alone)
{
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonNode *id = object != NULL ? json_object_get_member (object, "id") : NULL;
  JsonNode *params = object != NULL ? json_object_get_member (object, "params") : NULL;
  gboolean request;

  reading->messages++;
  if (!is_id (id))
    return;
  count (reading->carried, id_key (id));
  request = g_strcmp0 (prs_json_object_get_string (object, "jsonrpc"), "2.0") == 0 &&
            prs_json_object_get_string (object, "method") != NULL &&
            (params == NULL || JSON_NODE_HOLDS_OBJECT (params));
  if (!request)
    return;
  count (reading->expected, id_key (id));
  if (alone && g_strcmp0 (prs_json_object_get_string (object, "method"), "initialize") == 0)
    {
      const char *version = params != NULL ? prs_json_object_get_string (json_node_get_object (params), "protocolVersion") : NULL;

      reading->batches = g_strcmp0 (version, "2025-03-26") == 0;
    }
}

static void
read_lines (const char *data,
            size_t      size,
            Reading    *reading)
{
  const char *end = data + size;

  while (data < end)
    {
      const char *line = data;
      const char *newline = memchr (data, '\n', (gsize) (end - data));
      gsize raw = (gsize) ((newline != NULL ? newline : end) - data);
      gsize len = raw > 0 && data[raw - 1] == '\r' ? raw - 1 : raw;
      g_autoptr(JsonNode) root = NULL;
      JsonArray *batch;

      data += raw + (newline != NULL ? 1 : 0);
      if (len == 0 || raw > MAX_LINE)
        {
          reading->messages += raw > MAX_LINE ? 1 : 0;
          continue;
        }
      root = prs_json_parse_strict (line, len, MAX_DEPTH, NULL);
      batch = root != NULL && JSON_NODE_HOLDS_ARRAY (root) ? json_node_get_array (root) : NULL;
      if (root == NULL || (batch != NULL && (!reading->batches || json_array_get_length (batch) == 0)))
        reading->messages++;
      else if (batch == NULL)
        read_message (reading, root, TRUE);
      else
        for (guint i = 0; i < json_array_get_length (batch); i++)
          read_message (reading, json_array_get_element (batch, i), FALSE);
    }
}

static void
check_ids (Fuzz    *fuzz,
           Reading *reading)
{
  GHashTable *expected = reading->expected;
  GHashTable *carried = reading->carried;
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpuint (fuzz->answers, <=, reading->messages);
  g_hash_table_iter_init (&iter, expected);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (fuzz->answered, key)), >=, GPOINTER_TO_UINT (value));
  g_hash_table_iter_init (&iter, fuzz->answered);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert_cmpuint (GPOINTER_TO_UINT (value), <=, GPOINTER_TO_UINT (g_hash_table_lookup (carried, key)));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  static const PrsMcpServeBackend backend = { on_write, on_list_tools, on_call_tool, on_cancel };
  Fuzz fuzz = { 0 };
  g_autoptr(GHashTable) expected = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) carried = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Reading reading = { expected, carried, 0, FALSE };
  gsize chunk;

  if (size < 1)
    return 0;
  chunk = data[0] != 0 ? data[0] : size;
  data++;
  size--;

  fuzz.answered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  fuzz.tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  fuzz.calls = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  fuzz.serve = prs_mcp_serve_new (&backend, &fuzz);
  prs_mcp_serve_set_max_line (fuzz.serve, MAX_LINE);
  for (size_t at = 0; at < size; at += chunk)
    prs_mcp_serve_feed (fuzz.serve, (const char *) data + at, MIN (chunk, size - at));
  prs_mcp_serve_finish (fuzz.serve);
  answer_calls (&fuzz);

  read_lines ((const char *) data, size, &reading);
  check_ids (&fuzz, &reading);

  prs_mcp_serve_free (fuzz.serve);
  g_ptr_array_unref (fuzz.calls);
  g_hash_table_unref (fuzz.tokens);
  g_hash_table_unref (fuzz.answered);
  return 0;
}
