/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-mcp-serve.c: the client's bytes to requests and their answers
 * (prs-mcp-serve.h). The client is a foreign program: every line is
 * checked before anything in it is used. */
#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "prs-json.h"
#include "prs-mcp-message.h"
#include "prs-mcp-serve.h"
#include "prs-mcp-transport.h"

/* Deeper than any message MCP defines; tool arguments nest far less */
#define MAX_DEPTH 64

/* A JSON-RPC batch (a line that is an array): its answers leave together,
 * as one array, once every request in it is answered */
typedef struct
{
  JsonArray *answers;
  GPtrArray *pending;  /* Pending*: its requests not answered yet */
} Batch;

typedef struct
{
  JsonNode *id;
  gboolean  call;      /* tools/call: a cancelled one gets no answer */
} Pending;

struct _PrsMcpServe
{
  PrsMcpServeBackend  backend;
  gpointer            user_data;
  GString            *line;       /* the start of a line not ended yet */
  gsize               max_line;
  gboolean            skipping;   /* the rest of a line over the limit */
  gboolean            batches;    /* the revision agreed on has them */
  Batch              *reading;    /* the batch whose line is being read */
  GPtrArray          *waiting;    /* Batch*: read, with requests unanswered */
};

static void
pending_free (Pending *pending)
{
  json_node_unref (pending->id);
  g_free (pending);
}

static void
batch_free (Batch *batch)
{
  json_array_unref (batch->answers);
  g_ptr_array_unref (batch->pending);
  g_free (batch);
}

PrsMcpServe *
prs_mcp_serve_new (const PrsMcpServeBackend *backend,
                   gpointer                  user_data)
{
  PrsMcpServe *self = g_new0 (PrsMcpServe, 1);

  self->backend = *backend;
  self->user_data = user_data;
  self->line = g_string_new (NULL);
  self->max_line = PRS_MCP_DEFAULT_MAX_MESSAGE;
  self->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) batch_free);
  return self;
}

void
prs_mcp_serve_free (PrsMcpServe *self)
{
  if (self == NULL)
    return;
  g_string_free (self->line, TRUE);
  g_ptr_array_unref (self->waiting);
  g_free (self);
}

void
prs_mcp_serve_set_max_line (PrsMcpServe *self,
                            gsize        max_line)
{
  self->max_line = max_line;
}

/* ---- answers ---- */

static void
write_node (PrsMcpServe *self,
            JsonNode    *node)
{
  g_autoptr(GBytes) bytes = prs_mcp_message_serialize_node (node);

  self->backend.write (bytes, self->user_data);
}

/* The batch's answers, once nothing in it waits (none at all: nothing is
 * written, as JSON-RPC 2.0 asks of a batch of notifications) */
static gboolean
batch_flush (PrsMcpServe *self,
             Batch       *batch)
{
  g_autoptr(JsonNode) node = NULL;

  if (batch->pending->len > 0)
    return FALSE;
  if (json_array_get_length (batch->answers) > 0)
    {
      node = json_node_init_array (json_node_alloc (), batch->answers);
      write_node (self, node);
    }
  return TRUE;
}

static gboolean
batch_take_pending (Batch    *batch,
                    JsonNode *id,
                    gboolean  calls_only)
{
  for (guint i = 0; id != NULL && i < batch->pending->len; i++)
    {
      Pending *pending = g_ptr_array_index (batch->pending, i);

      if ((!calls_only || pending->call) && json_node_equal (pending->id, id))
        {
          g_ptr_array_remove_index (batch->pending, i);
          return TRUE;
        }
    }
  return FALSE;
}

/* The batch still waiting for the request @id, which is answered now or
 * (@calls_only) was a call the client cancelled */
static Batch *
waiting_batch_take (PrsMcpServe *self,
                    JsonNode    *id,
                    gboolean     calls_only,
                    guint       *index)
{
  for (guint i = 0; i < self->waiting->len; i++)
    {
      Batch *batch = g_ptr_array_index (self->waiting, i);

      if (batch_take_pending (batch, id, calls_only))
        {
          *index = i;
          return batch;
        }
    }
  return NULL;
}

/* Takes @message. An answer to a request of a batch joins the batch's
 * other answers; anything else is a line of its own. */
static void
send_message (PrsMcpServe *self,
              JsonObject  *message)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), message);
  JsonNode *id = json_object_get_member (message, "id");
  Batch *batch = NULL;
  guint index = 0;

  json_object_unref (message);
  if (id != NULL && self->reading != NULL)
    {
      batch_take_pending (self->reading, id, FALSE);
      batch = self->reading;
    }
  else if (id != NULL && !JSON_NODE_HOLDS_NULL (id))
    batch = waiting_batch_take (self, id, FALSE, &index);
  if (batch == NULL)
    {
      write_node (self, node);
      return;
    }
  json_array_add_element (batch->answers, g_steal_pointer (&node));
  if (batch != self->reading && batch_flush (self, batch))
    g_ptr_array_remove_index (self->waiting, index);
}

void
prs_mcp_serve_send_error (PrsMcpServe *self,
                          JsonNode    *id,
                          int          code,
                          const char  *text)
{
  send_message (self, prs_mcp_message_new_error (id, code, text));
}

static JsonObject *
client_tool (JsonObject *tool)
{
  JsonObject *out = json_object_new ();
  JsonObject *schema = prs_json_object_get_object (tool, "inputSchema");
  const char *description = prs_json_object_get_string (tool, "description");

  json_object_set_string_member (out, "name", prs_json_object_get_string (tool, "name"));
  /* Left out rather than null: MCP's description is an optional string,
   * and a client that checks the schema refuses the whole list for a null */
  if (description != NULL)
    json_object_set_string_member (out, "description", description);
  json_object_set_object_member (out, "inputSchema", schema != NULL ? json_object_ref (schema) : json_object_new ());
  return out;
}

void
prs_mcp_serve_send_tools (PrsMcpServe *self,
                          JsonNode    *id,
                          JsonArray   *tools)
{
  JsonArray *out = json_array_new ();
  JsonObject *result = json_object_new ();

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonNode *tool = json_array_get_element (tools, i);

      if (JSON_NODE_HOLDS_OBJECT (tool) && prs_json_object_get_string (json_node_get_object (tool), "name") != NULL)
        json_array_add_object_element (out, client_tool (json_node_get_object (tool)));
    }
  json_object_set_array_member (result, "tools", out);
  send_message (self, prs_mcp_message_new_result (id, result));
}

/* Takes @structured (NULL: none) */
static void
send_call_result (PrsMcpServe *self,
                  JsonNode    *id,
                  const char  *text,
                  JsonObject  *structured,
                  gboolean     is_error)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *item = json_object_new ();

  json_object_set_string_member (item, "type", "text");
  json_object_set_string_member (item, "text", text);
  json_array_add_object_element (content, item);
  json_object_set_array_member (result, "content", content);
  if (structured != NULL)
    json_object_set_object_member (result, "structuredContent", structured);
  json_object_set_boolean_member (result, "isError", is_error);
  send_message (self, prs_mcp_message_new_result (id, result));
}

void
prs_mcp_serve_send_text_result (PrsMcpServe *self,
                                JsonNode    *id,
                                const char  *text,
                                gboolean     is_error)
{
  send_call_result (self, id, text, NULL, is_error);
}

/* An MCP tool's result keeps its text and structured content; an n8n
 * tool's JSON is given as text, and as structured content when an object */
void
prs_mcp_serve_send_tool_result (PrsMcpServe *self,
                                JsonNode    *id,
                                JsonNode    *value)
{
  JsonObject *object = value != NULL && JSON_NODE_HOLDS_OBJECT (value) ? json_node_get_object (value) : NULL;
  const char *text = object != NULL ? prs_json_object_get_string (object, "text") : NULL;
  JsonObject *structured = object != NULL ? prs_json_object_get_object (object, "structured") : NULL;
  g_autofree char *json = NULL;

  if (text == NULL)
    {
      json = value != NULL ? prs_json_to_string (value, FALSE) : g_strdup ("null");
      text = json;
      if (object != NULL)
        structured = object;
    }
  send_call_result (self, id, text, structured != NULL ? json_object_ref (structured) : NULL, FALSE);
}

void
prs_mcp_serve_send_progress (PrsMcpServe *self,
                             JsonNode    *token,
                             double       progress,
                             const char  *message)
{
  JsonObject *params = json_object_new ();

  json_object_set_member (params, "progressToken", json_node_copy (token));
  json_object_set_double_member (params, "progress", progress);
  if (message != NULL)
    json_object_set_string_member (params, "message", message);
  send_message (self, prs_mcp_message_new_notification ("notifications/progress", params));
}

/* ---- the client's messages ---- */

/* A request id or a progress token: a string or a number (MCP allows no
 * null id; true, a list or an object are no id at all) */
static gboolean
is_id (JsonNode *node)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_STRING || type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

static JsonObject *
initialize_result (JsonObject *params)
{
  JsonObject *result = json_object_new ();
  JsonObject *capabilities = json_object_new ();
  JsonObject *tools = json_object_new ();
  JsonObject *info = json_object_new ();
  const char *asked = params != NULL ? prs_json_object_get_string (params, "protocolVersion") : NULL;

  json_object_set_string_member (result, "protocolVersion", prs_mcp_message_negotiate_version (asked));
  json_object_set_boolean_member (tools, "listChanged", FALSE);
  json_object_set_object_member (capabilities, "tools", tools);
  json_object_set_object_member (result, "capabilities", capabilities);
  json_object_set_string_member (info, "name", "prosponsive");
  json_object_set_string_member (info, "version", PACKAGE_VERSION);
  json_object_set_object_member (result, "serverInfo", info);
  json_object_set_string_member (result, "instructions",
                                 "Tools of the user's Prosponsive: n8n workflows and shared MCP servers. "
                                 "A call may wait until the user approves it in Prosponsive.");
  return result;
}

static void
call_tool (PrsMcpServe *self,
           JsonNode    *id,
           JsonObject  *params)
{
  const char *name = params != NULL ? prs_json_object_get_string (params, "name") : NULL;
  JsonNode *arguments = params != NULL ? json_object_get_member (params, "arguments") : NULL;
  JsonObject *meta = params != NULL ? prs_json_object_get_object (params, "_meta") : NULL;
  JsonNode *token = meta != NULL ? json_object_get_member (meta, "progressToken") : NULL;

  if (name == NULL || (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments) && !JSON_NODE_HOLDS_NULL (arguments)))
    {
      prs_mcp_serve_send_error (self, id, PRS_MCP_RPC_INVALID_PARAMS,
                                _("tools/call needs a tool name (a string) and arguments as an object."));
      return;
    }
  self->backend.call_tool (id, name,
                           arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments) ? json_node_get_object (arguments) : NULL,
                           is_id (token) ? token : NULL, self->user_data);
}

static void
handle_initialize (PrsMcpServe *self,
                   JsonNode    *id,
                   JsonObject  *params)
{
  JsonObject *result;

  /* MCP 2025-03-26: "The initialization request MUST NOT be part of a
   * JSON-RPC batch" */
  if (self->reading != NULL)
    {
      prs_mcp_serve_send_error (self, id, PRS_MCP_RPC_INVALID_REQUEST,
                                "Invalid Request: initialize cannot be part of a batch.");
      return;
    }
  result = initialize_result (params);
  /* Batches are in revision 2025-03-26 only: 2024-11-05 did not define
   * them and 2025-06-18 removed them (docs/mcp.md) */
  self->batches = g_strcmp0 (prs_json_object_get_string (result, "protocolVersion"), "2025-03-26") == 0;
  send_message (self, prs_mcp_message_new_result (id, result));
}

/* A request of the batch being read is answered within it */
static void
note_pending (PrsMcpServe *self,
              JsonNode    *id,
              gboolean     call)
{
  Pending *pending;

  if (self->reading == NULL)
    return;
  pending = g_new0 (Pending, 1);
  pending->id = json_node_copy (id);
  pending->call = call;
  g_ptr_array_add (self->reading->pending, pending);
}

static void
handle_request (PrsMcpServe *self,
                JsonNode    *id,
                const char  *method,
                JsonObject  *params)
{
  if (strcmp (method, "initialize") == 0)
    handle_initialize (self, id, params);
  else if (strcmp (method, "ping") == 0)
    send_message (self, prs_mcp_message_new_result (id, NULL));
  else if (strcmp (method, "tools/list") == 0)
    {
      note_pending (self, id, FALSE);
      self->backend.list_tools (id, self->user_data);
    }
  else if (strcmp (method, "tools/call") == 0)
    {
      note_pending (self, id, TRUE);
      call_tool (self, id, params);
    }
  else
    {
      g_autofree char *text = g_strdup_printf ("Method not found: %s", method);

      prs_mcp_serve_send_error (self, id, PRS_MCP_RPC_METHOD_NOT_FOUND, text);
    }
}

/* A call the client cancelled gets no answer (the backend sends none): a
 * batch that waited for it waits no more */
static void
forget_cancelled (PrsMcpServe *self,
                  JsonNode    *request_id)
{
  guint index = 0;
  Batch *batch;

  if (self->reading != NULL)
    batch_take_pending (self->reading, request_id, TRUE);
  batch = waiting_batch_take (self, request_id, TRUE, &index);
  if (batch != NULL && batch_flush (self, batch))
    g_ptr_array_remove_index (self->waiting, index);
}

/* Notifications need no answer; a cancelled request is stopped too */
static void
handle_notification (PrsMcpServe *self,
                     const char  *method,
                     JsonObject  *params)
{
  JsonNode *request_id = params != NULL ? json_object_get_member (params, "requestId") : NULL;

  if (strcmp (method, "notifications/cancelled") == 0 && is_id (request_id))
    {
      self->backend.cancel (request_id, self->user_data);
      forget_cancelled (self, request_id);
    }
}

/* One JSON-RPC message, alone on its line or in a batch */
static void
handle_message (PrsMcpServe *self,
                JsonNode    *root)
{
  JsonObject *object = JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonNode *id = object != NULL ? json_object_get_member (object, "id") : NULL;
  JsonNode *method = object != NULL ? json_object_get_member (object, "method") : NULL;
  JsonNode *params = object != NULL ? json_object_get_member (object, "params") : NULL;

  /* An answer (we ask nothing) is never answered, whatever it holds: two
   * peers answering each other's errors would never stop */
  if (object != NULL && method == NULL &&
      (json_object_has_member (object, "result") || json_object_has_member (object, "error")))
    return;
  if (object == NULL || g_strcmp0 (prs_json_object_get_string (object, "jsonrpc"), "2.0") != 0 ||
      (id != NULL && !is_id (id)) || method == NULL || prs_json_object_get_string (object, "method") == NULL ||
      (params != NULL && !JSON_NODE_HOLDS_OBJECT (params)))
    {
      prs_mcp_serve_send_error (self, is_id (id) ? id : NULL, PRS_MCP_RPC_INVALID_REQUEST,
                                "Invalid Request: a JSON-RPC 2.0 object was expected.");
      return;
    }
  if (id == NULL)
    handle_notification (self, json_node_get_string (method), params != NULL ? json_node_get_object (params) : NULL);
  else
    handle_request (self, id, json_node_get_string (method), params != NULL ? json_node_get_object (params) : NULL);
}

/* JSON-RPC 2.0 batches, where the revision agreed on has them: each
 * message handled as if alone, the answers written together */
static void
handle_batch (PrsMcpServe *self,
              JsonArray   *messages)
{
  Batch *batch;

  if (!self->batches || json_array_get_length (messages) == 0)
    {
      prs_mcp_serve_send_error (self, NULL, PRS_MCP_RPC_INVALID_REQUEST,
                                self->batches ? "Invalid Request: an empty batch."
                                              : "Invalid Request: batches are only part of MCP revision 2025-03-26.");
      return;
    }
  batch = g_new0 (Batch, 1);
  batch->answers = json_array_new ();
  batch->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_free);
  self->reading = batch;
  for (guint i = 0; i < json_array_get_length (messages); i++)
    handle_message (self, json_array_get_element (messages, i));
  self->reading = NULL;
  if (batch_flush (self, batch))
    batch_free (batch);
  else
    g_ptr_array_add (self->waiting, batch);
}

static void
handle_line (PrsMcpServe *self,
             const char  *line,
             gsize        len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;

  if (len == 0)
    return;
  root = prs_json_parse_strict (line, len, MAX_DEPTH, &error);
  if (root == NULL)
    prs_mcp_serve_send_error (self, NULL, PRS_MCP_RPC_PARSE_ERROR, "Parse error: a message must be one line of JSON.");
  else if (JSON_NODE_HOLDS_ARRAY (root))
    handle_batch (self, json_node_get_array (root));
  else
    handle_message (self, root);
}

/* A line ended by LF, or CRLF as some clients write on Windows */
static void
handle_ended_line (PrsMcpServe *self,
                   const char  *line,
                   gsize        len)
{
  handle_line (self, line, len > 0 && line[len - 1] == '\r' ? len - 1 : len);
}

void
prs_mcp_serve_feed (PrsMcpServe *self,
                    const char  *data,
                    gsize        len)
{
  const char *end = data + len;

  while (data < end)
    {
      const char *newline = memchr (data, '\n', (gsize) (end - data));
      gsize n = (gsize) ((newline != NULL ? newline : end) - data);

      if (self->skipping)
        self->skipping = newline == NULL;
      else if (self->line->len + n > self->max_line)
        {
          /* Refused whole: its rest up to the line break is no message
           * either, whatever it looks like */
          g_autofree char *text = g_strdup_printf ("Parse error: a message is larger than %" G_GSIZE_FORMAT " bytes.",
                                                   self->max_line);

          g_string_truncate (self->line, 0);
          self->skipping = newline == NULL;
          prs_mcp_serve_send_error (self, NULL, PRS_MCP_RPC_PARSE_ERROR, text);
        }
      else if (newline == NULL)
        g_string_append_len (self->line, data, (gssize) n);
      else if (self->line->len == 0)
        handle_ended_line (self, data, n);
      else
        {
          g_string_append_len (self->line, data, (gssize) n);
          handle_ended_line (self, self->line->str, self->line->len);
          g_string_truncate (self->line, 0);
        }
      data += n + (newline != NULL ? 1 : 0);
    }
}

void
prs_mcp_serve_finish (PrsMcpServe *self)
{
  if (!self->skipping && self->line->len > 0)
    handle_ended_line (self, self->line->str, self->line->len);
  g_string_truncate (self->line, 0);
  self->skipping = FALSE;
}
