/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz-mcp-message: what an MCP server sends us (docs/mcp.md), through
 * the real client. A transport of this file's own stands in for the pipe
 * or the socket: it answers every send at once and keeps what was sent.
 * The client connects (initialize, tools/list with its pages) and calls a
 * tool with a progress token; the input is the server's side of that
 * session, framed as a stdio server writes it (newline-delimited, banner
 * lines and all), as an HTTP event stream, or as one HTTP JSON body, fed in
 * chunks of any size. Every message also goes through the tool reader
 * (prs-mcp-tool.c), the naming of tools (prs-mcp-names.c) and the reading
 * of a tools/call result on its own, whatever its id.
 *
 * The first byte picks the framing (bits 0-1) and the second the chunk
 * size (0: all at once). Oracles: everything the client sends is one line
 * of strict JSON; every name models see is valid and unique ignoring case,
 * whatever the order of the tools; what is read is written back as strict
 * JSON. */
#include <string.h>

#include "prs-event-stream.h"
#include "prs-json.h"
#include "prs-mcp-client.h"
#include "prs-mcp-names.h"
#include "prs-mcp-tool.h"
#include "prs-mcp-transport.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

/* ---- A transport that answers every send at once ---- */

#define FUZZ_TYPE_TRANSPORT (fuzz_transport_get_type ())
G_DECLARE_FINAL_TYPE (FuzzTransport, fuzz_transport, FUZZ, TRANSPORT, PrsMcpTransport)

struct _FuzzTransport
{
  PrsMcpTransport parent_instance;
  guint           sent;
};

G_DEFINE_FINAL_TYPE (FuzzTransport, fuzz_transport, PRS_TYPE_MCP_TRANSPORT)

static void
done_now (gpointer             source,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (source, cancellable, callback, user_data);

  g_task_return_boolean (task, TRUE);
}

static gboolean
done_finish (PrsMcpTransport  *self,
             GAsyncResult     *result,
             GError          **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
fuzz_open_async (PrsMcpTransport     *self,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  done_now (self, cancellable, callback, user_data);
}

static void
fuzz_send_async (PrsMcpTransport     *self,
                 GBytes              *message,
                 GCancellable        *cancellable,
                 GAsyncReadyCallback  callback,
                 gpointer             user_data)
{
  gsize len;
  const char *text = g_bytes_get_data (message, &len);

  /* What we send is one line of strict JSON, whatever the server said */
  g_assert_null (memchr (text, '\n', len));
  g_assert_true (prs_json_text_is_strict (text, len));
  FUZZ_TRANSPORT (self)->sent++;
  done_now (self, cancellable, callback, user_data);
}

static void
fuzz_close (PrsMcpTransport *self)
{
}

static void
fuzz_transport_class_init (FuzzTransportClass *klass)
{
  PrsMcpTransportClass *transport_class = PRS_MCP_TRANSPORT_CLASS (klass);

  transport_class->open_async = fuzz_open_async;
  transport_class->open_finish = done_finish;
  transport_class->send_async = fuzz_send_async;
  transport_class->send_finish = done_finish;
  transport_class->close = fuzz_close;
}

static void
fuzz_transport_init (FuzzTransport *self)
{
}

/* ---- Oracles on every message, whatever its id ---- */

static void
assert_strict (JsonNode *node)
{
  g_autofree char *text = prs_json_to_string (node, FALSE);

  g_assert_true (prs_json_text_is_strict (text, strlen (text)));
}

/* Names @tools for models twice, the second time in the reverse order:
 * the names are valid, unique ignoring case, and the same both times. */
static void
check_names (const char *server_name,
             GPtrArray  *tools)
{
  const char *reserved[] = { "echo", "everything__echo", NULL };
  g_autoptr(GPtrArray) forward = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_name_entry_free);
  g_autoptr(GPtrArray) backward = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_name_entry_free);
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = tools->len;

  for (guint i = 0; i < n; i++)
    {
      const PrsMcpTool *forth = g_ptr_array_index (tools, i);
      const PrsMcpTool *back = g_ptr_array_index (tools, n - 1 - i);

      g_ptr_array_add (forward, prs_mcp_name_entry_new (server_name, forth->name));
      g_ptr_array_add (backward, prs_mcp_name_entry_new (server_name, back->name));
    }
  prs_mcp_assign_tool_names (forward, reserved);
  prs_mcp_assign_tool_names (backward, reserved);
  for (guint i = 0; i < n; i++)
    {
      PrsMcpNameEntry *entry = g_ptr_array_index (forward, i);
      PrsMcpNameEntry *other = g_ptr_array_index (backward, n - 1 - i);

      g_assert_true (prs_mcp_tool_name_is_valid (entry->exposed_name));
      g_assert_cmpstr (entry->exposed_name, ==, other->exposed_name);
      for (guint r = 0; reserved[r] != NULL; r++)
        g_assert_cmpint (g_ascii_strcasecmp (reserved[r], entry->exposed_name), !=, 0);
      g_assert_true (g_hash_table_add (seen, g_ascii_strdown (entry->exposed_name, -1)));
    }
}

/* A tools/list page as the client reads it, repeated names left out */
static void
check_tools (JsonArray *array)
{
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_mcp_tool_free);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < json_array_get_length (array) && i < PRS_MCP_MAX_TOOLS; i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      g_autoptr(PrsMcpTool) tool = NULL;
      g_autoptr(PrsMcpTool) copy = NULL;
      g_autoptr(JsonNode) written = NULL;
      g_autoptr(GError) error = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      tool = prs_mcp_tool_new_from_json (json_node_get_object (element), &error);
      g_assert_true ((tool == NULL) == (error != NULL));
      if (tool == NULL || g_hash_table_contains (names, tool->name))
        continue;
      g_hash_table_add (names, tool->name);
      g_assert_true (g_utf8_validate (tool->description, -1, NULL));
      copy = prs_mcp_tool_copy (tool);
      written = prs_mcp_tool_to_json (copy);
      assert_strict (written);
      g_ptr_array_add (tools, g_steal_pointer (&tool));
    }
  check_names ("everything", tools);
  check_names ("Ünïcode server", tools);
}

static void
on_message (PrsMcpTransport *transport,
            JsonNode        *message,
            gpointer         user_data)
{
  JsonObject *object = json_node_get_object (message);
  JsonNode *result = json_object_get_member (object, "result");
  JsonNode *tools;
  g_autoptr(JsonNode) read = NULL;
  g_autoptr(GError) error = NULL;

  if (result == NULL || !JSON_NODE_HOLDS_OBJECT (result))
    return;
  tools = json_object_get_member (json_node_get_object (result), "tools");
  if (tools != NULL && JSON_NODE_HOLDS_ARRAY (tools))
    check_tools (json_node_get_array (tools));
  read = prs_mcp_call_result_to_json (json_node_get_object (result), &error);
  g_assert_true ((read == NULL) == (error != NULL));
  if (read != NULL)
    assert_strict (read);
  else
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

/* ---- The client's side of the session ---- */

/* What people are shown of the server: text without control characters */
static void
check_server_info (PrsMcpClient *client)
{
  JsonObject *info = json_node_get_object (prs_mcp_client_get_server_info (client));
  g_autoptr(GList) members = json_object_get_members (info);

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *text = json_object_get_string_member (info, l->data);

      g_assert_nonnull (text);
      for (const char *p = text; *p != '\0'; p++)
        g_assert_true ((guchar) *p >= 0x20 && *p != 0x7f);
    }
}

typedef struct
{
  GMainContext   *context;
  PrsMcpClient   *client;
  PrsEventStream *stream;
  gboolean        stdio;
  guint           pending;
} Session;

static void
run_ready (Session *session)
{
  while (g_main_context_iteration (session->context, FALSE))
    ;
}

static void
on_progress (double      progress,
             double      total,
             const char *message,
             gpointer    user_data)
{
  g_assert_true (message == NULL || g_utf8_validate (message, -1, NULL));
}

static void
on_connected (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Session *session = user_data;
  g_autoptr(GError) error = NULL;
  PrsMcpClient *client = PRS_MCP_CLIENT (source);

  if (prs_mcp_client_connect_finish (client, result, &error))
    {
      GPtrArray *tools = prs_mcp_client_get_tools (client);
      g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

      check_server_info (client);
      g_assert_true (tools->len <= PRS_MCP_MAX_TOOLS);
      for (guint i = 0; i < tools->len; i++)
        {
          const PrsMcpTool *tool = g_ptr_array_index (tools, i);

          g_assert_true (prs_mcp_tool_name_is_valid (tool->exposed_name));
          g_assert_true (g_hash_table_add (seen, g_ascii_strdown (tool->exposed_name, -1)));
          g_assert_true (prs_mcp_client_find_tool (client, tool->exposed_name) != NULL);
        }
    }
  else
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
  session->pending--;
}

static void
on_called (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  Session *session = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = prs_mcp_client_call_tool_finish (PRS_MCP_CLIENT (source), result, &error);

  g_assert_true ((answer == NULL) == (error != NULL));
  if (answer != NULL)
    assert_strict (answer);
  else
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
  session->pending--;
}

/* One line (stdio) or event (HTTP) of the stream */
static gboolean
on_framed (const char  *event,
           const char  *data,
           gsize        len,
           const char  *id,
           gpointer     user_data,
           GError     **error)
{
  Session *session = user_data;
  PrsMcpTransport *transport = prs_mcp_client_get_transport (session->client);
  gboolean ok = TRUE;

  if (!session->stdio)
    ok = prs_mcp_transport_deliver_event (event, data, len, id, transport, error);
  else if (prs_mcp_transport_line_is_message (data))
    ok = prs_mcp_transport_deliver (transport, data, len, error);
  /* The client's next request goes out before the next message comes in */
  run_ready (session);
  return ok;
}

static void
feed (Session      *session,
      const guint8 *data,
      size_t        size,
      gsize         chunk)
{
  g_autoptr(GError) error = NULL;

  for (size_t at = 0; at < size && error == NULL; at += chunk)
    prs_event_stream_feed (session->stream, (const char *) data + at, MIN (chunk, size - at), &error);
  if (error == NULL)
    prs_event_stream_finish (session->stream, &error);
  if (error != NULL)
    g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

static void
session_run (Session      *session,
             guint         mode,
             gsize         chunk,
             const guint8 *data,
             size_t        size)
{
  PrsMcpTransport *transport = prs_mcp_client_get_transport (session->client);
  g_autoptr(GError) error = NULL;

  /* Long deadlines: the input, not the clock, decides what happens */
  prs_mcp_client_set_timeouts (session->client, 600000, 600000, 600000);
  prs_mcp_client_set_auto_restart (session->client, FALSE);
  prs_mcp_transport_set_max_message (transport, 65536);
  g_signal_connect (transport, "message", G_CALLBACK (on_message), NULL);

  session->pending = 2;
  prs_mcp_client_connect_async (session->client, NULL, on_connected, session);
  prs_mcp_client_call_tool_async (session->client, "echo", NULL, on_progress, NULL, NULL, NULL,
                                  on_called, session);
  run_ready (session);

  if (mode == 2)
    {
      /* One HTTP answer with a JSON body */
      if (!prs_mcp_transport_deliver (transport, (const char *) data, size, &error))
        g_assert_true (g_utf8_validate (error->message, -1, NULL));
      run_ready (session);
    }
  else
    {
      session->stdio = mode != 1;
      session->stream = prs_event_stream_new (session->stdio ? PRS_EVENT_STREAM_NDJSON : PRS_EVENT_STREAM_SSE,
                                              65536, on_framed, session);
      feed (session, data, size, chunk);
      g_clear_pointer (&session->stream, prs_event_stream_free);
    }

  /* The server goes away: whatever is still waiting fails, once */
  prs_mcp_client_close (session->client);
  run_ready (session);
  g_assert_cmpuint (session->pending, ==, 0);
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  Session session = { 0 };
  g_autoptr(PrsMcpTransport) transport = NULL;

  if (size < 2)
    return 0;

  /* The client's sources and tasks live and die with this input */
  session.context = g_main_context_new ();
  g_main_context_push_thread_default (session.context);
  transport = g_object_new (FUZZ_TYPE_TRANSPORT, NULL);
  session.client = prs_mcp_client_new ("everything", transport);
  session_run (&session, data[0] & 3, data[1] != 0 ? data[1] : size, data + 2, size - 2);
  g_clear_object (&session.client);
  g_clear_object (&transport);
  g_main_context_pop_thread_default (session.context);
  g_main_context_unref (session.context);
  return 0;
}
